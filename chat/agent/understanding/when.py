"""Dates and times in requests ("tomorrow at 9am", "on Friday at 8", "내일 오전 9시"), read in the
tenant's time zone with dateparser. Pure: no Django.

dateparser does the reading; this module only rewrites the few forms it gets wrong (a Korean
clock time "오전 9시", a bare "at 8" that it takes for a day of the month), refuses a date with
no time of day (a reminder at "the current time on Friday" would be a guess), and moves a time
that already passed today or a weekday already gone to its next occurrence, as people mean.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from dateparser.search import search_dates

LANGUAGES = ["en", "ko"]
_KO_CLOCK = re.compile(
    r"(?P<part>오전|오후|아침|저녁|밤|낮)?\s*(?P<h>\d{1,2})\s*시(?!간)\s*(?:(?P<m>\d{1,2})\s*분|(?P<half>반))?"
)
_KO_AFTER = re.compile(r"(?P<n>\d+)\s*(?P<unit>분|시간|일|주)\s*(?:후|뒤)(?:에)?")
_KO_UNITS = {"분": "minutes", "시간": "hours", "일": "days", "주": "weeks"}
_BARE_AT = re.compile(r"\bat (\d{1,2})(?![\d:.]|\s*(?:a\.?m|p\.?m|o'?clock)\b)", re.IGNORECASE)
_HAS_TIME = re.compile(
    r"\d{1,2}:\d{2}|\d\s*(?:a\.?m|p\.?m)\b|\bnoon\b|\bmidnight\b|\bin \d+ (?:minute|hour)s?\b"
    r"|\bin \d+ (?:minute|hour)s\b",
    re.IGNORECASE,
)
_WEEKDAY = re.compile(
    r"\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b|[월화수목금토일]요일",
    re.IGNORECASE,
)
_DAY_WORD = re.compile(
    r"\b(?:today|tonight|tomorrow|in \d+ (?:day|week)s?)\b|오늘|내일|\d+\s*일", re.IGNORECASE
)
# dateparser reads "the day after tomorrow" as tomorrow (it stops at the last word it knows).
_DAY_AFTER_TOMORROW = re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", re.IGNORECASE)
_PM_PARTS = {"오후", "저녁", "밤"}
# A request says when in its first sentences; a pasted letter after them is not searched.
_MAX_CHARS = 500


@dataclass(frozen=True)
class When:
    """A point in time found in a request: the words that said it and the aware datetime."""

    phrase: str
    at: datetime


class MissingTime(ValueError):
    """A day was named without a time of day ("on Friday"); ask rather than guess."""

    def __init__(self, phrase: str) -> None:
        super().__init__(phrase)
        self.phrase = phrase


def _korean_clock(match: re.Match[str]) -> str:
    hour, minute = int(match["h"]), int(match["m"] or (30 if match["half"] else 0))
    if match["part"] in _PM_PARTS and hour < 12:
        hour += 12
    if match["part"] in {"오전", "아침"} and hour == 12:
        hour = 0
    return f" {hour:02d}:{minute:02d} "


def normalise(text: str) -> str:
    """Rewrite the forms dateparser misreads or lacks into ones it reads: ``HH:MM`` clock
    times, "in N hours" for "N시간 후", "in 2 days" for "모레" and "the day after tomorrow"."""
    text = _KO_AFTER.sub(lambda m: f" in {m['n']} {_KO_UNITS[m['unit']]} ", text)
    text = text.replace("모레", " in 2 days ")
    text = _DAY_AFTER_TOMORROW.sub(" in 2 days ", text)
    text = _KO_CLOCK.sub(_korean_clock, text)
    return _BARE_AT.sub(lambda m: f"at {int(m.group(1)):02d}:00", text)


def find_when(text: str, *, now: datetime, tz: ZoneInfo) -> When | None:
    """The first date-and-time in ``text`` as an aware datetime in ``tz``, or None.

    Raises ``MissingTime`` when only a day is given. ``now`` is any aware datetime.
    """
    local_now = now.astimezone(tz)
    settings = {
        "RELATIVE_BASE": local_now.replace(tzinfo=None),
        "TIMEZONE": tz.key,
        "RETURN_AS_TIMEZONE_AWARE": True,
    }
    text = text[:_MAX_CHARS]
    found = search_dates(normalise(text), languages=LANGUAGES, settings=settings) or []
    phrases = [(phrase.strip(), at) for phrase, at in found if _names_a_time(phrase)]
    if not phrases:
        return None
    phrase = " ".join(p for p, _ in phrases)
    if not _HAS_TIME.search(phrase):
        raise MissingTime(phrases[0][0])
    return When(phrase, _next_occurrence(phrases[-1][1].astimezone(tz), phrase, local_now))


def _names_a_time(phrase: str) -> bool:
    """dateparser also reads words such as "we" or "may" as dates; keep a phrase only if it
    has a number, a weekday or a day word."""
    return bool(re.search(r"\d", phrase) or _WEEKDAY.search(phrase) or _DAY_WORD.search(phrase))


def _next_occurrence(at: datetime, phrase: str, now: datetime) -> datetime:
    """ "at 5pm" said at 6pm means tomorrow; "Monday" said on a Tuesday means next Monday."""
    if at > now:
        return at
    if _WEEKDAY.search(phrase):
        return at + timedelta(days=7)
    if not _DAY_WORD.search(phrase):
        return at + timedelta(days=1)
    return at
