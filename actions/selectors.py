"""Reads: who a message would reach, and who may approve a tool's actions.

Everything here queries the current connection's schema only, so a contact or group name
can only ever resolve inside the tenant the request or task runs for.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Literal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db.models import Q

from actions.models import (
    TELEGRAM_CHAT,
    Announcement,
    Contact,
    ContactGroup,
    OutboundMessage,
    ToolPolicy,
)
from actions.phone import InvalidPhoneNumber, normalize_e164
from tenants.roles import APPROVER
from tenants.selectors import tenant_phone_region

Channel = OutboundMessage.Channel

# Which Contact field holds a channel's address, and how to name it in a sentence.
ADDRESS_FIELD: Final[dict[str, str]] = {
    Channel.SMS: "phone",
    Channel.TELEGRAM: "telegram_chat_id",
    Channel.EMAIL: "email",
}
ADDRESS_NOUN: Final[dict[str, str]] = {
    Channel.SMS: "phone number",
    Channel.TELEGRAM: "Telegram chat id",
    Channel.EMAIL: "e-mail address",
}

_LOOKS_LIKE_PHONE = re.compile(r"^\+?[\d\s().-]{3,}$")


ProblemKind = Literal[
    "empty",  # an empty entry
    "unknown",  # neither a contact, a group nor an address of the channel
    "ambiguous",  # a name shared by more than one contact
    "opted_out",  # a contact named on their own who asked for no messages
    "no_address",  # a contact named on their own without an address on the channel
    "owner_opted_out",  # an address typed out whose owner opted out (``detail``: the owner)
    "bad_phone",  # reads as a phone number but is not one (``detail``: why)
    "bad_email",
    "no_group",  # an announcement's audience that names no group
    "nobody",  # every member was skipped (``subject``: their names)
    "over_limit",  # over the tenant's limit (``subject``: how many; ``detail``: the limit)
]


@dataclass(frozen=True)
class Problem:
    """Why one entry (or the whole list) cannot be sent to. ``text`` says it in English, for
    the person, the model and the logs; ``kind``, ``subject``, ``channel`` and ``detail`` let a
    reply in another language say the same thing (the built-in model's Korean replies)."""

    kind: ProblemKind
    text: str
    subject: str = ""  # the entry, name or address concerned
    channel: str = ""
    detail: str = ""


class RecipientError(ValueError):
    """Recipients that cannot be resolved; the message lists every problem, one per entry."""

    def __init__(self, *problems: Problem) -> None:
        super().__init__("; ".join(problem.text for problem in problems))
        self.problems: tuple[Problem, ...] = problems


@dataclass(frozen=True)
class Recipient:
    address: str
    contact_id: int | None
    label: str  # the contact's name, or the bare address


@dataclass(frozen=True)
class Skipped:
    name: str
    reason: str  # "opted out", "no phone number", …

    def __str__(self) -> str:
        return f"{self.name} ({self.reason})"


@dataclass
class RecipientPlan:
    """Who a message goes to, who was left out and why, and what was asked for."""

    recipients: list[Recipient] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # "group 'Parents' (12)", "Kim Minji"


def recipients_resolve(*, channel: str, entries: list[str], max_recipients: int) -> RecipientPlan:
    """Resolve contact names, group names and addresses to one address per recipient.

    A group's opted-out members and members without an address on ``channel`` are skipped
    and reported; a contact named on its own who is opted out or has no address is an error,
    as is an unknown name, a malformed address, an ambiguous name, going over
    ``max_recipients`` or ending up with nobody. All problems are reported together.
    """
    plan = RecipientPlan()
    problems: list[Problem] = []
    seen: set[str] = set()
    for raw in entries:
        entry = raw.strip()
        try:
            found, skipped, source = _resolve_entry(channel, entry)
        except RecipientError as error:
            problems.extend(error.problems)
            continue
        plan.sources.append(source)
        plan.skipped.extend(s for s in skipped if s not in plan.skipped)
        for recipient in found:
            if recipient.address not in seen:
                seen.add(recipient.address)
                plan.recipients.append(recipient)
    if problems:
        raise RecipientError(*problems)
    if not plan.recipients:
        left_out = ", ".join(str(s) for s in plan.skipped)
        raise RecipientError(
            Problem(
                "nobody",
                f"nobody to send to: {left_out}" if left_out else "nobody to send to",
                subject=", ".join(s.name for s in plan.skipped),
                channel=channel,
            )
        )
    if len(plan.recipients) > max_recipients:
        raise RecipientError(
            Problem(
                "over_limit",
                f"this would reach {len(plan.recipients)} recipients, over this tenant's limit "
                f"of {max_recipients} per action",
                subject=str(len(plan.recipients)),
                detail=str(max_recipients),
            )
        )
    return plan


def _resolve_entry(channel: str, entry: str) -> tuple[list[Recipient], list[Skipped], str]:
    if not entry:
        raise RecipientError(Problem("empty", "an empty recipient was given"))
    group = ContactGroup.objects.filter(name__iexact=entry).first()
    if group is not None:
        return _group_members(channel, group)
    contacts = list(Contact.objects.filter(name__iexact=entry)[:3])
    if len(contacts) > 1:
        raise RecipientError(
            Problem(
                "ambiguous",
                f"{entry!r} matches more than one contact; "
                f"give the {ADDRESS_NOUN[channel]} instead",
                subject=entry,
                channel=channel,
            )
        )
    if contacts:
        contact = contacts[0]
        return [_named_contact(channel, contact)], [], contact.name
    address = _address(channel, entry)
    return [_bare_address(channel, address)], [], address


def _group_members(channel: str, group: ContactGroup) -> tuple[list[Recipient], list[Skipped], str]:
    noun = ADDRESS_NOUN[channel]
    found: list[Recipient] = []
    skipped: list[Skipped] = []
    for contact in group.contacts.order_by("name", "pk"):
        address = getattr(contact, ADDRESS_FIELD[channel])
        if contact.opted_out:
            skipped.append(Skipped(contact.name, "opted out"))
        elif not address:
            skipped.append(Skipped(contact.name, f"no {noun}"))
        else:
            found.append(Recipient(address, contact.pk, contact.name))
    return found, skipped, f"group '{group.name}' ({len(found)})"


def _named_contact(channel: str, contact: Contact) -> Recipient:
    if contact.opted_out:
        raise RecipientError(
            Problem("opted_out", f"{contact.name} has opted out of messages", subject=contact.name)
        )
    address = getattr(contact, ADDRESS_FIELD[channel])
    if not address:
        raise RecipientError(
            Problem(
                "no_address",
                f"{contact.name} has no {ADDRESS_NOUN[channel]}",
                subject=contact.name,
                channel=channel,
            )
        )
    return Recipient(address, contact.pk, contact.name)


def _bare_address(channel: str, address: str) -> Recipient:
    """An address typed directly still honours the opt-out of any contact that owns it."""
    field = ADDRESS_FIELD[channel]
    lookup = f"{field}__iexact" if channel == Channel.EMAIL else field  # mail ignores case
    owners = list(Contact.objects.filter(**{lookup: address}).order_by("pk"))
    opted_out = [owner for owner in owners if owner.opted_out]
    if opted_out:
        owner = opted_out[0].name
        raise RecipientError(
            Problem(
                "owner_opted_out",
                f"{address} belongs to {owner}, who has opted out",
                subject=address,
                detail=owner,
            )
        )
    if owners:
        return Recipient(address, owners[0].pk, owners[0].name)
    return Recipient(address, None, address)


def _address(channel: str, entry: str) -> str:
    """Read ``entry`` as an address of ``channel``, or say it is neither name nor address."""
    unknown = f"no contact or group named {entry!r}"
    if channel == Channel.SMS:
        if not _LOOKS_LIKE_PHONE.match(entry):
            raise RecipientError(Problem("unknown", unknown, subject=entry, channel=channel))
        try:
            return normalize_e164(entry, tenant_phone_region())
        except InvalidPhoneNumber as error:
            raise RecipientError(
                Problem("bad_phone", f"phone number {error}", subject=entry, detail=str(error))
            ) from None
    if channel == Channel.EMAIL:
        if "@" not in entry:
            raise RecipientError(Problem("unknown", unknown, subject=entry, channel=channel))
        try:
            validate_email(entry)
        except ValidationError:
            raise RecipientError(
                Problem("bad_email", f"{entry!r} is not a valid e-mail address", subject=entry)
            ) from None
        return entry
    if not TELEGRAM_CHAT.match(entry):
        raise RecipientError(
            Problem(
                "unknown",
                f"{unknown} (a Telegram chat id is a number or an @username)",
                subject=entry,
                channel=channel,
            )
        )
    return entry


def audience_group(*, name: str | None) -> ContactGroup | None:
    """The group an announcement addresses (None: everyone); unknown names are an error."""
    if name is None or not name.strip() or name.strip().lower() in {"all", "everyone"}:
        return None
    group = ContactGroup.objects.filter(name__iexact=name.strip()).first()
    if group is None:
        raise RecipientError(
            Problem("no_group", f"no group named {name.strip()!r}", subject=name.strip())
        )
    return group


def announcement_of_action(*, action_id: uuid.UUID) -> Announcement | None:
    return Announcement.objects.filter(action_id=action_id).first()


def action_deliveries(*, action_id: uuid.UUID | str) -> list[OutboundMessage]:
    """The messages an action queued, one per recipient, in the order they were queued."""
    return list(
        OutboundMessage.objects.filter(action_id=action_id).select_related("contact").order_by("pk")
    )


def audience_size(*, group: ContactGroup | None) -> int:
    contacts = Contact.objects.filter(opted_out=False)
    return (contacts.filter(groups=group) if group else contacts).count()


def tool_policies(*, tool_names: Iterable[str]) -> dict[str, ToolPolicy]:
    """The tenant's policy of each of ``tool_names``, in one query; a tool without a row gets
    an unsaved one with the defaults. The only reader of policies, and it never writes: model
    calls, proposals and permission checks only read, on a read-only connection too."""
    names = list(tool_names)
    rows = ToolPolicy.objects.filter(tool_name__in=names).select_related("approver_group")
    found = {row.tool_name: row for row in rows}
    return {name: found.get(name) or ToolPolicy(tool_name=name) for name in names}


@dataclass(frozen=True)
class Memberships:
    """The groups one user belongs to, read once for many policy checks."""

    ids: frozenset[int]
    names: frozenset[str]


def memberships_of(user: AbstractBaseUser | AnonymousUser) -> Memberships:
    rows = Group.objects.filter(user__pk=user.pk).values_list("pk", "name") if user.pk else []
    return Memberships(ids=frozenset(pk for pk, _ in rows), names=frozenset(n for _, n in rows))


def approval_refusal(
    *,
    policy: ToolPolicy,
    user: AbstractBaseUser | AnonymousUser,
    requested_by_id: int | None,
    memberships: Memberships | None = None,
) -> str | None:
    """Why ``user`` may not approve an action of ``policy``'s tool, or None if they may.

    The approver group is the policy's, or the "approver" role when the policy names none;
    self-approval is refused unless the policy allows it. ``memberships`` (the user's groups,
    from :func:`memberships_of`) saves a query per policy when many are checked at once.
    """
    if not user.is_authenticated or not user.is_active:
        return "you are not signed in"
    if user.pk == requested_by_id and not policy.allow_self_approval:
        return "your own requests need someone else's approval"  # the card shows it to people
    if memberships is None:
        group_filter = (
            Q(pk=policy.approver_group_id) if policy.approver_group_id else Q(name=APPROVER)
        )
        member = Group.objects.filter(group_filter, user__pk=user.pk).exists()
    elif policy.approver_group_id:
        member = policy.approver_group_id in memberships.ids
    else:
        member = APPROVER in memberships.names
    if not member:
        group = policy.approver_group.name if policy.approver_group else APPROVER
        return f"only members of {group!r} may approve {policy.tool_name} actions"
    return None
