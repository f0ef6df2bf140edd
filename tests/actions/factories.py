"""Contacts and groups for tests, created in the current tenant schema."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from actions.models import Contact, ContactGroup


def make_group(name: str) -> ContactGroup:
    return ContactGroup.objects.get_or_create(name=name)[0]


def make_contact(
    name: str,
    *,
    phone: str = "",
    email: str = "",
    telegram: str = "",
    groups: tuple[str, ...] = (),
    opted_out: bool = False,
) -> Contact:
    contact = Contact.objects.create(
        name=name, phone=phone, email=email, telegram_chat_id=telegram, opted_out=opted_out
    )
    contact.groups.set([make_group(group) for group in groups])
    return contact


def make_class_a() -> ContactGroup:
    """'Parents - Class A': two reachable parents and one who opted out."""
    make_contact(
        "Kim Minji",
        phone="+12025550101",
        email="minji@parents.example",
        telegram="100101",
        groups=("Parents - Class A",),
    )
    make_contact(
        "Emma Wilson",
        phone="+12025550102",
        email="emma@parents.example",
        telegram="100102",
        groups=("Parents - Class A",),
    )
    make_contact(
        "Park Jiwoo",
        phone="+12025550103",
        email="jiwoo@parents.example",
        telegram="100103",
        groups=("Parents - Class A",),
        opted_out=True,
    )
    return ContactGroup.objects.get(name="Parents - Class A")


def csv_upload(text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("contacts.csv", text.encode(), content_type="text/csv")
