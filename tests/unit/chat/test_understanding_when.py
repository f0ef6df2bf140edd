"""Dates and times in requests, read in the tenant's zone against a fixed now."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from chat.builtin_model.understanding.when import MissingTime, find_when

SEOUL = ZoneInfo("Asia/Seoul")
# Monday 23 November 2026, 10:00 in Seoul.
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=SEOUL)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("remind me tomorrow at 9am to call Emma", datetime(2026, 11, 24, 9, 0)),
        ("remind the parents on Friday at 8 to bring forms", datetime(2026, 11, 27, 8, 0)),
        ("내일 오전 9시에 알려줘", datetime(2026, 11, 24, 9, 0)),
        ("금요일 오후 3시 반에 보내줘", datetime(2026, 11, 27, 15, 30)),
        ("모레 오전 10시", datetime(2026, 11, 25, 10, 0)),
        ("text Jo the day after tomorrow at 7pm", datetime(2026, 11, 25, 19, 0)),
        ("Day after tomorrow at 6:15am, please", datetime(2026, 11, 25, 6, 15)),
        ("2시간 후에 알려줘", datetime(2026, 11, 23, 12, 0)),
        ("remind me in 30 minutes", datetime(2026, 11, 23, 10, 30)),
    ],
)
def test_it_reads_the_time_in_the_tenants_zone(text: str, expected: datetime) -> None:
    when = find_when(text, now=NOW, tz=SEOUL)

    assert when is not None and when.at == expected.replace(tzinfo=SEOUL)


def test_it_reads_the_same_words_as_another_instant_in_another_zone() -> None:
    london = find_when("tomorrow at 9am", now=NOW, tz=ZoneInfo("Europe/London"))

    assert london is not None and london.at.utcoffset() is not None
    assert london.at.astimezone(SEOUL).hour == 18


def test_it_moves_a_time_already_past_today_to_tomorrow() -> None:
    when = find_when("remind me at 8am", now=NOW, tz=SEOUL)

    assert when is not None and when.at == datetime(2026, 11, 24, 8, 0, tzinfo=SEOUL)


def test_it_refuses_to_guess_a_time_when_only_a_day_is_given() -> None:
    with pytest.raises(MissingTime) as missing:
        find_when("remind the parents on Friday to bring forms", now=NOW, tz=SEOUL)

    assert missing.value.phrase == "on Friday"


def test_it_finds_nothing_in_a_message_without_a_date() -> None:
    assert find_when("text Emma that she is great", now=NOW, tz=SEOUL) is None


def test_it_ignores_words_that_dateparser_takes_for_dates() -> None:
    assert find_when("we may bring lunch", now=NOW, tz=SEOUL) is None


def test_the_spoken_tomorrow_is_never_read_inside_a_verb() -> None:
    seoul = ZoneInfo("Asia/Seoul")
    now = datetime(2026, 11, 23, 10, 0, tzinfo=seoul)

    when = find_when("엠마한테 보낼 문자 3시에", now=now, tz=seoul)

    assert when is not None and when.at == datetime(2026, 11, 23, 15, 0, tzinfo=seoul)
