"""Who a request can name: the tenant's contacts and groups and the person asking. Pure data,
loaded per run by ``context.py``, so matching never reaches another tenant's rows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ContactEntry:
    """A contact by its stored name, with the channels it can be reached on."""

    name: str
    channels: frozenset[str] = frozenset()  # "sms", "telegram", "email"
    groups: frozenset[str] = frozenset()  # the names of the groups the contact is in


@dataclass(frozen=True)
class Requester:
    """The person asking, for "remind me": reachable only by e-mail, if the account has one."""

    name: str
    email: str


@dataclass(frozen=True)
class Directory:
    contacts: tuple[ContactEntry, ...] = ()
    groups: tuple[str, ...] = ()
    requester: Requester | None = None

    def members(self, groups: list[str]) -> list[str]:
        """The stored names of the contacts in any of ``groups``, in directory order."""
        return [c.name for c in self.contacts if c.groups & set(groups)]
