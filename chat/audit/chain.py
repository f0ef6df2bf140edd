"""The hash chain of a tenant's audit trail: pure functions, no Django.

Each event stores three hashes (sha256, hex):

* ``data_hash``: of the canonical JSON of its ``data`` (the exact text and recipients seen);
* ``content_hash``: of the canonical JSON of who, what, when, which action and ``data_hash``;
* ``hash``: of the previous event's ``hash`` followed by its own ``content_hash``.

So an edited row breaks its own hashes, a removed or reordered row breaks the link of the one
after it (``seq`` counts 1, 2, 3… and is hashed), and redaction (``data`` emptied after the
tenant's retention) keeps every hash: ``data_hash`` still stands for the text that was there.
``tools/audit_verify_export.py`` repeats these few lines with the standard library only, so a
third party can check an export without this code base; a test runs it on a real export.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

GENESIS = "0" * 64  # the "previous hash" of a tenant's first event

# The fields of an event that its ``content_hash`` covers, besides ``data_hash``.
CONTENT_FIELDS = ("seq", "action", "tool", "kind", "actor", "actor_username", "at")


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 text kept as it is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def at_text(at: datetime) -> str:
    """An event's time as hashed and exported: UTC, always with microseconds."""
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def data_hash(data: Mapping[str, Any]) -> str:
    return sha256_hex(canonical_json(data))


def content_hash(fields: Mapping[str, Any], *, data_hash: str) -> str:
    """``fields`` holds ``CONTENT_FIELDS`` (``at`` as ``at_text``, ids as text or None)."""
    content = {name: fields[name] for name in CONTENT_FIELDS} | {"data_hash": data_hash}
    return sha256_hex(canonical_json(content))


def link_hash(*, prev_hash: str, content_hash: str) -> str:
    return sha256_hex(prev_hash + content_hash)


@dataclass(frozen=True)
class ChainBreak:
    """The first place where the trail stops proving itself."""

    seq: int  # the event's expected sequence number where the chain breaks
    reason: str

    def __str__(self) -> str:
        return f"event {self.seq}: {self.reason}"


@dataclass(frozen=True)
class ChainCheck:
    events: int  # events read
    last_seq: int
    last_hash: str
    broken: ChainBreak | None

    @property
    def ok(self) -> bool:
        return self.broken is None


def check_events(
    events: Iterable[Mapping[str, Any]], *, first_seq: int = 1, prev_hash: str = GENESIS
) -> ChainCheck:
    """Check events (dicts of ``CONTENT_FIELDS`` plus ``data``, ``redacted``, ``data_hash``,
    ``content_hash``, ``prev_hash``, ``hash``) in the order given, which should be ``seq``
    order from ``first_seq`` on, chained to ``prev_hash``. Stops at the first break.

    A redacted event's ``data`` is gone, so its ``data_hash`` is taken as stored; everything
    else about it (actor, kind, time, action) is still checked through ``content_hash``.
    """
    expected_seq, count = first_seq, 0
    for event in events:
        count += 1
        seq = event["seq"]
        if seq != expected_seq:
            why = "missing" if seq > expected_seq else "out of order or repeated"
            return ChainCheck(
                count, expected_seq - 1, prev_hash, ChainBreak(expected_seq, f"{why} (found {seq})")
            )
        if event["prev_hash"] != prev_hash:
            return ChainCheck(
                count,
                seq - 1,
                prev_hash,
                ChainBreak(seq, "does not follow the event before it (removed or reordered)"),
            )
        stored_data_hash = event["data_hash"]
        if event["redacted"]:
            if event["data"]:
                reason = "is marked redacted but still holds data"
                return ChainCheck(count, seq - 1, prev_hash, ChainBreak(seq, reason))
        elif data_hash(event["data"]) != stored_data_hash:
            reason = "its text or recipients were edited (data hash differs)"
            return ChainCheck(count, seq - 1, prev_hash, ChainBreak(seq, reason))
        if content_hash(event, data_hash=stored_data_hash) != event["content_hash"]:
            reason = "its actor, kind, time, action or position were edited (content hash differs)"
            return ChainCheck(count, seq - 1, prev_hash, ChainBreak(seq, reason))
        if link_hash(prev_hash=prev_hash, content_hash=event["content_hash"]) != event["hash"]:
            return ChainCheck(count, seq - 1, prev_hash, ChainBreak(seq, "its chain hash differs"))
        prev_hash, expected_seq = event["hash"], seq + 1
    return ChainCheck(count, expected_seq - 1, prev_hash, None)
