"""Dates and times in requests ("tomorrow at 9", "next Tuesday 3:30pm", "in 2 hours", "half past
three", "내일 아침 9시", "이번 주 금요일 오후 2시", "30분 후에"), read in the tenant's time zone as
people mean them. Pure: no Django.

The reader takes a request apart into a clock time, a day and an offset, each read by its own
patterns, then puts them together against "now":

- A bare hour is read in business hours: "at 4" on a school day is 16:00, "at 9" is 09:00
  (1 to 6 are afternoon hours; morning or evening words, am/pm, 오전/오후 override it).
- "this Friday" / "이번 주 금요일" is the coming Friday (today if it is still ahead); "next
  Friday" / "다음 주 금요일" is the Friday of the week after this one (weeks start on Monday).
- "in 2 hours" / "2시간 후에" is counted from now; "in 3 days" / "3일 후" names a day.
- A time with no day that already passed today is tomorrow's; a weekday already gone this
  week is next week's. A day with no time of day is refused (``MissingTime``): a reminder at
  "the current time on Friday" would be a guess.

Forms the reader does not know (a numeric date such as "3/12") fall back to dateparser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from dateparser.search import search_dates

LANGUAGES = ["en", "ko"]
# A request says when in its first sentences; a pasted letter after them is not searched.
_MAX_CHARS = 500
_I = re.IGNORECASE

_EN_NUMBERS = {
    w: n
    for n, w in enumerate(
        [
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ],
        start=1,
    )
}
_KO_NUMBERS = {
    "한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9,
    "열": 10, "열한": 11, "열두": 12,
}  # fmt: skip
_EN_WORDS = "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))
_EN_HOUR = r"\d{1,2}|" + _EN_WORDS
_KO_WORDS = "|".join(sorted(_KO_NUMBERS, key=len, reverse=True))
_KO_HOUR = r"\d{1,2}|" + _KO_WORDS
_EN_CLOCK = re.compile(
    # "half nine" is half past nine, as British speech has it
    rf"\b(?P<qual>half\s+past|half|(?:a\s+)?quarter\s+past|(?:a\s+)?quarter\s+to)\s+"
    rf"(?P<qh>{_EN_HOUR})\b(?!\s*(?:hours?|days?|weeks?|mins?|minutes?)\b)"
    r"(?:\s+in\s+the\s+(?P<qpart>morning|afternoon|evening))?"
    # "8.30am": a dot between hour and minutes, as British writing has it; "545 pm": none;
    # "6 30 pm": a space, as dictation and hurried typing have it
    rf"|(?<![\d.:])\b(?P<h>\d{{1,2}})(?:(?:[:.]|\s)?(?P<m>\d{{2}}))?\s*(?P<ap>[ap])\.?m\b\.?"
    # "9 in the morning", "half 3"-free spoken forms: an hour with its part of the day
    rf"|\b(?:at\s+)?(?P<dh>{_EN_HOUR})(?:(?:[:.]|\s)(?P<dm>\d{{2}}))?\s+(?:o'?clock\s+)?"
    r"in\s+the\s+"
    r"(?P<day_part>morning|afternoon|evening)\b"
    rf"|\b(?P<h24>\d{{1,2}}):(?P<m24>\d{{2}})\b"
    rf"|\b(?P<oh>{_EN_HOUR})\s*o'?clock\b"
    rf"|\bat\s+(?P<bare>{_EN_HOUR})\b(?![:.]?\d|\s*(?:[ap]\.?m\b|o'?clock))"
    r"|\b(?P<noon>noon|midday)\b|\b(?P<midnight>midnight)\b"
    r"|\b(?P<eod>(?:the\s+)?end\s+of\s+(?:the\s+)?(?:work(?:ing)?\s+)?day|eod)\b",
    _I,
)
_KO_CLOCK = re.compile(
    rf"(?P<part>오전|오후|아침|저녁|밤|낮|새벽)?\s*(?P<h>{_KO_HOUR})\s*시(?![간작])"
    r"\s*(?:(?P<m>\d{1,2})\s*분|(?P<half>반))?"
    r"|(?P<noon>정오|낮\s*12시)|(?P<midnight>자정)",
)
_AM_WORDS = re.compile(r"\bmorning\b|\ba\.?m\b|오전|아침|새벽", _I)
_PM_WORDS = re.compile(
    r"\b(?:afternoon|evening|toni(?:ght|te)|2ni(?:ght|te)|p\.?m)\b|오후|저녁|밤|낮", _I
)

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_KO_WEEKDAYS = "월화수목금토일"
_WEEKDAY_STEM = r"mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun"
_WEEKDAY = re.compile(
    r"(?:(?P<en_mod>this(?:\s+coming)?|coming|next(?:\s+week(?:\s+on)?)?)\s+)?(?:on\s+)?"
    rf"\b(?P<en>{_WEEKDAY_STEM})day\b"
    r"|(?:(?P<ko_mod>이번\s*주|이번|다음\s*주|다음|담주|오는)\s*)?(?P<ko>[월화수목금토일])요일",
    _I,
)
_NEXT_WEEK_ONLY = re.compile(r"\bnext\s+week\b|다음\s*주|담주", _I)
# The days said relative to today, in each language (also read by a change of mind,
# ``understand.py``). "낼" is spoken "내일" ("보낼" is not: no syllable before it); "금일" is the
# formal "today", "익일" and "명일" the formal "tomorrow" (never the end of a longer word:
# "수익일", "설명일").
EN_DAY_WORDS = (
    r"(?:the\s+)?day\s+after\s+(?:tomorrow|tmrw?)|tomorrow|tomm?orr?ow|tmrw?|today|"
    # "tonite", "2nite": tonight as it is texted
    r"toni(?:ght|te)|2ni(?:ght|te)|this\s+(?:morning|afternoon|evening)"
)
KO_DAY_WORDS = r"글피|(?<![가-힣])낼\s*모레|모레|내일|(?<![가-힣])낼|(?<![가-힣])[익명]일|오늘|금일"
_RELATIVE_DAY = re.compile(rf"\b(?P<en>{EN_DAY_WORDS})\b|(?P<ko>{KO_DAY_WORDS})", _I)
_MONTHS = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
]  # fmt: skip
_MONTH = r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_DATE = re.compile(
    r"\b(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2})\b"
    r"|(?<![\d/])(?P<sm>\d{1,2})/(?P<sd>\d{1,2})(?![\d/])"
    rf"|\b{_MONTH}\.?\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\b"
    rf"|\b(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH.replace('mon>', 'mon2>')}\b"
    r"|\bthe\s+(?P<d3>\d{1,2})(?:st|nd|rd|th)\b"
    r"|(?:(?P<kmon>\d{1,2})\s*월\s*)?(?P<kd>\d{1,2})\s*일(?!\s*(?:후|뒤|간|요일))",
    _I,
)
# Days counted in words: native ("사흘") and, as dictated, Sino-Korean ("삼일뒤", "오일 후").
_KO_DAYS = (
    {"하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "일주일": 7, "열흘": 10}
    | {f"{numeral}일": n for n, numeral in enumerate("이삼사오육칠", start=2)}
    | {"십일": 10}
)
_OFFSET = re.compile(
    # "after 2 day, at 2pm": "in", said as the Korean "2일 후" is
    rf"\b(?:in|after)\s+(?:(?P<half_an>half\s+an)\s+hour|(?P<n>\d+|an?|{_EN_WORDS})\s+"
    r"(?P<unit>min(?:ute)?s?|h(?:ou)?rs?|days?|weeks?)(?P<and_half>\s+and\s+a\s+half)?)\b"
    rf"|\b(?:a\s+)?(?P<n_from>\d+|{_EN_WORDS})?\s*(?P<unit_from>day|week)s?\s+from\s+(?:now|today)\b"
    rf"|(?P<kn>\d+|{_KO_WORDS})\s*(?P<kunit>분|시간|일|주일?)"
    r"(?:\s*(?P<khalf>반)|\s*(?P<km>\d{1,2})\s*분)?\s*(?:후|뒤|있다가)"
    rf"|(?P<kdays>{'|'.join(sorted(_KO_DAYS, key=len, reverse=True))})\s*(?:후|뒤)",
    _I,
)
_MINUTES = {"min": 1, "h": 60, "시": 60, "분": 1}
_LATIN_THEN_HANGUL = re.compile(r"(?<=[A-Za-z])(?=[가-힣])")


# The English words a time is said in ("in 2 days at 4:30pm", "tomorrow morning at nine").
_TIME_WORD = re.compile(
    r"at|in|after|on|by|around|about|the|this|next|of|a|an|day|days|week|weeks|hours?|mins?|minutes?|"
    r"today|tonight|tomorrow|tmrw?|morning|afternoon|evening|night|noon|midday|o'?clock|"
    r"\d{1,2}(?::\d{2})?(?:\s*(?:am|pm|a\.m\.|p\.m\.))?|am|pm|a\.m\.|p\.m\.|"
    rf"{_EN_WORDS}|half|quarter|past|to|(?:{_WEEKDAY_STEM})(?:day)?",
    _I,
)


def said_only_when(words: str) -> bool:
    """Whether every word of ``words`` is one a time is said in."""
    return all(_TIME_WORD.fullmatch(word) for word in words.split())


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


@dataclass(frozen=True)
class _Clock:
    phrase: str
    hour: int
    minute: int
    fixed: bool  # am/pm or a 24-hour clock said which half of the day
    next_day: bool = False  # midnight is the start of the day after


@dataclass(frozen=True)
class _Day:
    phrase: str
    day: date
    weekday: bool  # a plain weekday: one already gone is next week's


def find_when(text: str, *, now: datetime, tz: ZoneInfo) -> When | None:
    """The first date-and-time in ``text`` as an aware datetime in ``tz``, or None.

    Raises ``MissingTime`` when only a day is given. ``now`` is any aware datetime.
    """
    local_now = now.astimezone(tz)
    # "tomorrow 9am에": a Latin word ends before its Korean particle
    text = _LATIN_THEN_HANGUL.sub(" ", text[:_MAX_CHARS])
    offset = _offset(text)
    if offset is not None and offset[1] < timedelta(days=1):
        return When(offset[0], local_now + offset[1])
    clock = _clock(text)
    day = _day(text, local_now.date())
    if offset is not None:  # "이틀 뒤 정오에 …, 오늘 자정까지 …": the offset said when
        day = _Day(offset[0], (local_now + offset[1]).date(), weekday=False)
    if clock is None:
        if day is not None:
            raise MissingTime(day.phrase)
        return _dateparser_when(text, now=local_now, tz=tz)
    hour = _hour(clock, text)
    on = day.day if day is not None else local_now.date()
    at = datetime.combine(on, time(hour, clock.minute), tzinfo=tz)
    if clock.next_day:
        at += timedelta(days=1)
    if at <= local_now and day is None:
        at += timedelta(days=1)
    elif at <= local_now and day is not None and day.weekday:
        at += timedelta(days=7)
    phrase = " ".join(p for p in (day.phrase if day else "", clock.phrase) if p)
    return When(phrase, at)


def _hour(clock: _Clock, text: str) -> int:
    """A bare hour in business hours unless the request says which half of the day."""
    hour = clock.hour
    if clock.fixed or hour > 12:
        return hour
    if _PM_WORDS.search(text) and hour < 12:
        return hour + 12
    if _AM_WORDS.search(text):
        return 0 if hour == 12 else hour
    return hour + 12 if 1 <= hour <= 6 else hour


def _number(word: str) -> int:
    word = word.lower()
    if word.isdigit():
        return int(word)
    return _EN_NUMBERS.get(word) or _KO_NUMBERS.get(word) or 1


def _clock(text: str) -> _Clock | None:
    found = [m for m in (_EN_CLOCK.search(text), _KO_CLOCK.search(text)) if m is not None]
    if not found:
        return None
    match = min(found, key=lambda m: m.start())
    phrase = match.group(0).strip()
    groups = match.groupdict()
    if groups.get("noon"):
        return _Clock(phrase, 12, 0, fixed=True)
    if groups.get("midnight"):
        return _Clock(phrase, 0, 0, fixed=True, next_day=True)
    if groups.get("eod"):
        return _Clock(phrase, 17, 0, fixed=True)
    if match.re is _KO_CLOCK:
        return _korean_clock(match, phrase)
    if groups.get("qual"):
        hour, qual = _number(match["qh"]), match["qual"].lower()
        if qual.endswith("to"):
            return _Clock(phrase, hour - 1 if hour > 1 else 12, 45, fixed=False)
        minute = 30 if qual.startswith("half") else 15
        if match["qpart"]:  # "half nine in the morning"
            return _Clock(
                phrase, hour % 12 + (0 if match["qpart"] == "morning" else 12), minute, fixed=True
            )
        return _Clock(phrase, hour, minute, fixed=False)
    if groups.get("ap"):
        hour = int(match["h"]) % 12 + (12 if match["ap"].lower() == "p" else 0)
        return _Clock(phrase, hour, int(match["m"] or 0), fixed=True)
    if groups.get("day_part"):
        hour = _number(match["dh"]) % 12
        hour += 0 if match["day_part"].lower() == "morning" else 12
        return _Clock(phrase, hour, int(match["dm"] or 0), fixed=True)
    if groups.get("h24"):
        hour = int(match["h24"])
        return _Clock(phrase, hour, int(match["m24"]), fixed=hour >= 13 or match["h24"][0] == "0")
    return _Clock(phrase, _number(match["oh"] or match["bare"]), 0, fixed=False)


def _korean_clock(match: re.Match[str], phrase: str) -> _Clock:
    hour = _number(match["h"])
    minute = int(match["m"] or (30 if match["half"] else 0))
    part = match["part"]
    if part in {"오후", "저녁", "밤", "낮"} and hour < 12:
        return _Clock(phrase, hour + 12, minute, fixed=True)
    if part in {"오전", "아침", "새벽"}:
        return _Clock(phrase, 0 if hour == 12 else hour, minute, fixed=True)
    return _Clock(phrase, hour, minute, fixed=False)


def _day(text: str, today: date) -> _Day | None:
    for read in (_relative_day, _weekday, _date):
        found = read(text, today)
        if found is not None:
            return found
    return None


def _relative_day(text: str, today: date) -> _Day | None:
    match = _RELATIVE_DAY.search(text)
    if match is None:
        return None
    word = re.sub(r"\s+", "", match.group(0).lower())
    days = {"글피": 3, "낼모레": 2, "모레": 2, "내일": 1, "낼": 1, "익일": 1, "명일": 1}.get(
        word, 0
    )
    if word.startswith(("tom", "tmr")):
        days = 1
    if "dayafter" in word:
        days = 2
    return _Day(match.group(0), today + timedelta(days=days), weekday=False)


def _weekday(text: str, today: date) -> _Day | None:
    match = _WEEKDAY.search(text)
    if match is None:
        return None
    if match["en"]:
        target = next(i for i, d in enumerate(_WEEKDAYS) if d.startswith(match["en"].lower()))
    else:
        target = _KO_WEEKDAYS.index(match["ko"])
    modifier = (match["en_mod"] or match["ko_mod"] or "").lower()
    if modifier.startswith("next") or _NEXT_WEEK_ONLY.search(modifier):
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7)
        return _Day(match.group(0), monday + timedelta(days=target), weekday=False)
    ahead = (target - today.weekday()) % 7
    return _Day(match.group(0), today + timedelta(days=ahead), weekday=True)


def _date(text: str, today: date) -> _Day | None:
    match = _DATE.search(text)
    if match is None:
        return None
    month_word = match["mon"] or match["mon2"]
    month = _MONTHS.index(month_word[:3].lower()) + 1 if month_word else None
    if match["iy"]:
        year, month, number = int(match["iy"]), int(match["im"]), int(match["id"])
        return _on(match, [(year, month, number)], today)
    if match["kmon"] or match["sm"]:
        month = int(match["kmon"] or match["sm"])  # 12/3 is the 3rd of December, as in Korea
    number = int(match["d1"] or match["d2"] or match["d3"] or match["kd"] or match["sd"])
    if month is not None:  # "December 3": this year's, or next year's once it has passed
        return _on(match, [(today.year, month, number), (today.year + 1, month, number)], today)
    # "the 5th": this month's, or the next month that has that day
    months = [divmod(today.month - 1 + ahead, 12) for ahead in range(13)]
    return _on(match, [(today.year + y, m + 1, number) for y, m in months], today)


def _on(match: re.Match[str], candidates: list[tuple[int, int, int]], today: date) -> _Day | None:
    for year, month, number in candidates:
        try:
            candidate = date(year, month, number)
        except ValueError:
            continue
        if candidate >= today:
            return _Day(match.group(0), candidate, weekday=False)
    return None


def _offset(text: str) -> tuple[str, timedelta] | None:
    match = _OFFSET.search(text)
    if match is None:
        return None
    if match["half_an"]:
        return match.group(0), timedelta(minutes=30)
    if match["unit_from"]:
        days = 7 if match["unit_from"].lower() == "week" else 1
        return match.group(0), timedelta(days=days * _number(match["n_from"] or "1"))
    if match["kdays"]:
        days = _KO_DAYS[match["kdays"]]
        return match.group(0), timedelta(days=days)
    if match["kunit"]:
        count, unit = _number(match["kn"]), match["kunit"]
        half = 0.5 if match["khalf"] else 0
        extra = int(match["km"] or 0)
    else:
        word = match["n"].lower()
        count = 1 if word in {"a", "an"} else _number(word)
        unit, half, extra = match["unit"].lower(), 0.5 if match["and_half"] else 0, 0
    if unit.startswith(("d", "일")):
        return match.group(0), timedelta(days=count)
    if unit.startswith(("w", "주")):
        return match.group(0), timedelta(weeks=count)
    per = 1 if unit.startswith(("min", "분")) else 60
    return match.group(0), timedelta(minutes=(count + half) * per + extra)


# The fallback: dateparser, for the forms the reader above does not know.
_FALLBACK_TIME = re.compile(r"\d{1,2}:\d{2}|\d\s*(?:a\.?m|p\.?m)\b", _I)
_FALLBACK_WORD = re.compile(
    r"\b(?:today|tonight|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b", _I
)


def _dateparser_when(text: str, *, now: datetime, tz: ZoneInfo) -> When | None:
    settings = {
        "RELATIVE_BASE": now.replace(tzinfo=None),
        "TIMEZONE": tz.key,
        "RETURN_AS_TIMEZONE_AWARE": True,
    }
    found = search_dates(text, languages=LANGUAGES, settings=settings) or []
    # dateparser also reads words such as "we" or "may" as dates; keep a phrase with a number.
    phrases = [
        (p.strip(), at) for p, at in found if re.search(r"\d", p) or _FALLBACK_WORD.search(p)
    ]
    if not phrases:
        return None
    phrase = " ".join(p for p, _ in phrases)
    if not _FALLBACK_TIME.search(phrase):
        raise MissingTime(phrases[0][0])
    at = phrases[-1][1].astimezone(tz)
    return When(phrase, at if at > now else at + timedelta(days=1))
