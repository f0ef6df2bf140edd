"""The demo academy's directory as the built-in model's pure parts see it, and a fixed "now":
one place for the unit tests that need a whole school rather than the one or two contacts
their case is about."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from chat.builtin_model.understanding import ContactEntry, Directory
from chat.builtin_model.understanding.intent import IntentClassifier
from chat.builtin_model.understanding.understand import Understanding, understand

SEOUL = ZoneInfo("Asia/Seoul")
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=SEOUL)  # a Monday, 10:00
_A, _B, _TEACHERS = "Parents - Class A", "Parents - Class B", "Teachers"
_ALL = frozenset({"sms", "email", "telegram"})
_NO_TELEGRAM = frozenset({"sms", "email"})
ACADEMY = Directory(
    contacts=(
        ContactEntry("김민지 (Kim Minji)", _ALL, frozenset({_A})),
        ContactEntry("이서준 (Lee Seojun)", _NO_TELEGRAM, frozenset({_A})),
        ContactEntry("Emma Wilson", _NO_TELEGRAM, frozenset({_B})),
        ContactEntry("Oliver Brown", _ALL, frozenset({_B})),
        ContactEntry("최유나 (Choi Yuna)", _ALL, frozenset({_TEACHERS})),
        ContactEntry("James Taylor", _NO_TELEGRAM, frozenset({_TEACHERS})),
    ),
    groups=(_A, _B, _TEACHERS),
)


def read_at_the_academy(text: str, classifier: IntentClassifier) -> Understanding:
    """``text`` understood as the first message of a conversation at the academy, at ``NOW``."""
    return understand(text, history=[], directory=ACADEMY, now=NOW, tz=SEOUL, classifier=classifier)
