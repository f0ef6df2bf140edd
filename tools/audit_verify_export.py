#!/usr/bin/env python3
"""Verify an audit-trail export offline: python3 audit_verify_export.py FILE [--prev HASH]

FILE is what ``GET /api/audit/export`` or the admin's export gives (``.jsonl`` or ``.csv``).
Standard library only, so anyone can run it without the product. It checks that every event
matches its own hashes and that each event chains to the one before it (the first event of a
period chains to the event before the period: pass that event's ``hash`` as ``--prev`` to
check the link too; for a whole trail it is 64 zeros). Prints the last hash, which a later
export must chain to. Exit status 0 when the export holds, 1 at the first break.

The rules (the same as chat/audit/chain.py in the product):
  canonical(x)  = JSON with sorted keys, no spaces, UTF-8 kept (ensure_ascii off)
  data_hash     = sha256(canonical(data))             (kept as is once "redacted" is true)
  content_hash  = sha256(canonical({seq, action, tool, kind, actor, actor_username, at,
                                     data_hash}))
  hash          = sha256(prev_hash + content_hash)    (hex strings, concatenated)
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections.abc import Iterator
from typing import Any

FIELDS = ("seq", "action", "tool", "kind", "actor", "actor_username", "at")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_events(path: str) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8", newline="") as file:
        if path.endswith(".csv"):
            for row in csv.DictReader(file):
                yield {
                    **row,
                    "seq": int(row["seq"]),
                    "actor": int(row["actor"]) if row["actor"] else None,
                    "data": json.loads(row["data"]),
                    "redacted": row["redacted"] == "true",
                }
        else:
            for line in file:
                if line.strip():
                    yield json.loads(line)


def verify(events: Iterator[dict[str, Any]], prev: str | None) -> tuple[int, str]:
    """(events checked, last hash); raises ValueError at the first break."""
    count, last_seq, last_hash = 0, None, prev
    for event in events:
        count += 1
        seq = event["seq"]
        if last_seq is not None and seq != last_seq + 1:
            raise ValueError(f"event {last_seq + 1}: missing or out of order (found {seq})")
        if last_hash is not None and event["prev_hash"] != last_hash:
            raise ValueError(f"event {seq}: does not chain to the event before it")
        if event["redacted"]:
            if event["data"]:
                raise ValueError(f"event {seq}: marked redacted but still holds data")
        elif sha256(canonical(event["data"])) != event["data_hash"]:
            raise ValueError(f"event {seq}: its data does not match its data_hash")
        content = {name: event[name] for name in FIELDS} | {"data_hash": event["data_hash"]}
        if sha256(canonical(content)) != event["content_hash"]:
            raise ValueError(f"event {seq}: its content does not match its content_hash")
        if sha256(event["prev_hash"] + event["content_hash"]) != event["hash"]:
            raise ValueError(f"event {seq}: its hash does not match")
        last_seq, last_hash = seq, event["hash"]
    return count, last_hash or ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--prev", help="hash of the event before the first one in the file")
    args = parser.parse_args(argv)
    try:
        count, last = verify(read_events(args.file), args.prev)
    except (ValueError, KeyError, TypeError) as error:
        print(f"BROKEN: {error}")
        return 1
    print(f"ok: {count} events, last hash {last}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
