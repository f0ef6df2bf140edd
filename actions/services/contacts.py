"""Importing contacts from CSV: every row checked first, then all written or none."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any, Final, cast

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from actions.models import Contact, ContactGroup
from actions.phone import InvalidPhoneNumber, normalize_e164
from tenants.selectors import tenant_phone_region

COLUMNS: Final = ("name", "phone", "email", "telegram_chat_id", "groups", "opted_out")
MAX_ROWS: Final = 10_000
_TRUE: Final = {"1", "true", "yes", "y", "on"}
_FALSE: Final = {"0", "false", "no", "n", "off", ""}


class ContactImportError(Exception):
    """The file was refused; ``errors`` has one line per problem, naming the row."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass
class ContactImportReport:
    created: int = 0
    updated: int = 0
    groups_created: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Row:
    number: int
    name: str
    phone: str
    email: str
    telegram_chat_id: str
    groups: tuple[str, ...]
    opted_out: bool


def contacts_import_csv(*, data: bytes) -> ContactImportReport:
    """Create or update contacts from CSV ``data`` (UTF-8, header row, ``COLUMNS``).

    A row updates the contact with the same phone number (else the same e-mail address) and
    otherwise creates one; ``groups`` is a ``;``-separated list of group names, created when
    missing, and replaces the contact's groups. Raises ContactImportError listing every bad
    row (row numbers count the header as row 1) and then nothing at all is written.
    """
    rows = _parse(data)
    return _write(rows)


def _parse(data: bytes) -> list[_Row]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ContactImportError(["the file is not UTF-8 text; save it as CSV UTF-8"]) from None
    reader = csv.DictReader(io.StringIO(text))
    header = [column.strip().lower() for column in reader.fieldnames or []]
    if not header:
        raise ContactImportError(["the file is empty; the first row must name the columns"])
    unknown = [column for column in header if column not in COLUMNS]
    if unknown or "name" not in header:
        problem = f"unknown column {unknown[0]!r}" if unknown else "the header has no 'name' column"
        raise ContactImportError([f"{problem}; expected columns: {', '.join(COLUMNS)}"])
    reader.fieldnames = header
    rows: list[_Row] = []
    errors: list[str] = []
    seen: dict[str, int] = {}
    region = tenant_phone_region()  # once for the file, not a query per row
    for number, record in enumerate(reader, start=2):
        if number - 1 > MAX_ROWS:
            raise ContactImportError([f"the file has more than {MAX_ROWS} rows; split it"])
        if cast(dict[Any, Any], record).get(None):  # DictReader's key for surplus cells
            errors.append(f"row {number}: has more cells than the header has columns")
            continue
        if not any((value or "").strip() for value in record.values()):
            continue  # a blank line
        try:
            row = _row(number, record, region)
        except ValueError as error:
            errors.append(f"row {number}: {error}")
            continue
        for key in (row.phone, row.email.lower()):
            if key and key in seen:
                errors.append(f"row {number}: {key} is already used by row {seen[key]}")
            elif key:
                seen[key] = number
        rows.append(row)
    if errors:
        raise ContactImportError(errors)
    if not rows:
        raise ContactImportError(["the file has a header but no contacts"])
    return rows


def _row(number: int, record: dict[str, str | None], region: str | None) -> _Row:
    def cell(column: str) -> str:
        return (record.get(column) or "").strip()

    name = cell("name")
    problems: list[str] = []
    if not name:
        problems.append("name is empty")
    phone = cell("phone")
    if phone:
        try:
            phone = normalize_e164(phone, region)
        except InvalidPhoneNumber as error:
            problems.append(f"phone {error}")
    email = cell("email")
    if email:
        try:
            validate_email(email)
        except ValidationError:
            problems.append(f"email {email!r} is not a valid e-mail address")
    opted_out_text = cell("opted_out").lower()
    if opted_out_text not in _TRUE | _FALSE:
        problems.append(f"opted_out must be yes or no, got {cell('opted_out')!r}")
    if problems:
        raise ValueError("; ".join(problems))
    groups = tuple(dict.fromkeys(g.strip() for g in cell("groups").split(";") if g.strip()))
    return _Row(
        number,
        name,
        phone,
        email,
        cell("telegram_chat_id"),
        groups,
        opted_out_text in _TRUE,
    )


@transaction.atomic
def _write(rows: list[_Row]) -> ContactImportReport:
    report = ContactImportReport()
    groups: dict[str, ContactGroup] = {}
    for row in rows:
        contact = _existing(row)
        if contact is None:
            contact = Contact()
            report.created += 1
        else:
            report.updated += 1
        contact.name = row.name
        contact.phone = row.phone or contact.phone
        contact.email = row.email or contact.email
        contact.telegram_chat_id = row.telegram_chat_id or contact.telegram_chat_id
        contact.opted_out = row.opted_out
        contact.save()
        contact.groups.set([_group(name, groups, report) for name in row.groups])
    return report


def _existing(row: _Row) -> Contact | None:
    if row.phone:
        found = Contact.objects.filter(phone=row.phone).order_by("pk").first()
        if found is not None:
            return found
    if row.email:
        return Contact.objects.filter(email__iexact=row.email).order_by("pk").first()
    return None


def _group(name: str, cache: dict[str, ContactGroup], report: ContactImportReport) -> ContactGroup:
    key = name.lower()
    if key not in cache:
        group = ContactGroup.objects.filter(name__iexact=name).first()
        if group is None:
            group = ContactGroup.objects.create(name=name)
            report.groups_created.append(name)
        cache[key] = group
    return cache[key]
