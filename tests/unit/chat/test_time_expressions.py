"""Times and dates as people say them, in English and Korean, read against four fixed "now"s
in the tenant's zone: once as the schedule of a reminder (the local datetime it is due) and
once inside the text of a message (a plain send whose body keeps the time, no reminder)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from chat.builtin_model.understanding import (
    ContactEntry,
    Directory,
    IntentClassifier,
    Requester,
    understand,
)
from chat.builtin_model.understanding.when import find_when

SEOUL = ZoneInfo("Asia/Seoul")
NOWS = {
    "monday morning": datetime(2026, 11, 23, 10, 0, tzinfo=SEOUL),
    "friday evening": datetime(2026, 11, 27, 18, 30, tzinfo=SEOUL),
    "sunday": datetime(2026, 11, 29, 11, 0, tzinfo=SEOUL),
    "before midnight": datetime(2026, 11, 25, 23, 50, tzinfo=SEOUL),
}
ACADEMY = Directory(
    contacts=(ContactEntry("Emma Wilson", frozenset({"sms", "email"})),),
    groups=("Teachers",),
    requester=Requester("Sam", "sam@example.com"),
)

# (now, what the person says, the local time they mean). Written from how people talk: a bare
# hour from 1 to 6 is an afternoon one in a working day, "this Friday" is the coming one,
# "next Tuesday" / "다음 주 화요일" the one in the week after this (weeks start on Monday).
EXPRESSIONS = [
    ("monday morning", "tomorrow at 9", "2026-11-24 09:00"),
    ("monday morning", "tomorrow at 9am", "2026-11-24 09:00"),
    ("monday morning", "next Tuesday 3:30pm", "2026-12-01 15:30"),
    ("monday morning", "in 2 days at 7.15am", "2026-11-25 07:15"),  # a British dot
    ("monday morning", "tomorrow at 6.45 pm", "2026-11-24 18:45"),
    ("monday morning", "in 2 hours", "2026-11-23 12:00"),
    ("monday morning", "in 45 minutes", "2026-11-23 10:45"),
    ("monday morning", "in an hour", "2026-11-23 11:00"),
    ("monday morning", "in half an hour", "2026-11-23 10:30"),
    ("monday morning", "at half past three", "2026-11-23 15:30"),
    ("monday morning", "at noon", "2026-11-23 12:00"),
    ("monday morning", "at 15:30", "2026-11-23 15:30"),
    ("monday morning", "this Friday at 9am", "2026-11-27 09:00"),
    ("monday morning", "by the end of the day", "2026-11-23 17:00"),
    ("monday morning", "at 4", "2026-11-23 16:00"),
    ("monday morning", "at 4pm", "2026-11-23 16:00"),
    ("monday morning", "at 4 o'clock", "2026-11-23 16:00"),
    ("monday morning", "at 11", "2026-11-23 11:00"),
    ("monday morning", "at 8am", "2026-11-24 08:00"),
    ("monday morning", "at 2:15", "2026-11-23 14:15"),
    ("monday morning", "tonight at 8", "2026-11-23 20:00"),
    ("monday morning", "this evening at 7", "2026-11-23 19:00"),
    ("monday morning", "this afternoon at 3", "2026-11-23 15:00"),
    ("monday morning", "tomorrow morning at 8", "2026-11-24 08:00"),
    ("monday morning", "tomorrow afternoon at 2", "2026-11-24 14:00"),
    ("monday morning", "tomorrow at noon", "2026-11-24 12:00"),
    ("monday morning", "the day after tomorrow at 10am", "2026-11-25 10:00"),
    ("monday morning", "on Thursday at 4", "2026-11-26 16:00"),
    ("monday morning", "Thursday 4pm", "2026-11-26 16:00"),
    ("monday morning", "Wednesday at 10:30", "2026-11-25 10:30"),
    ("monday morning", "next Monday at 9", "2026-11-30 09:00"),
    ("monday morning", "next Friday at 3pm", "2026-12-04 15:00"),
    ("monday morning", "at a quarter past ten tomorrow", "2026-11-24 10:15"),
    ("monday morning", "at quarter to five", "2026-11-23 16:45"),
    ("monday morning", "in a week, 9 in the morning", "2026-11-30 09:00"),
    ("monday morning", "tomorrow at 4 in the afternoon", "2026-11-24 16:00"),
    ("monday morning", "on December 3rd at 10am", "2026-12-03 10:00"),
    ("monday morning", "on the 5th at 2pm", "2026-12-05 14:00"),
    ("monday morning", "in 3 days at 9am", "2026-11-26 09:00"),
    ("monday morning", "in 90 minutes", "2026-11-23 11:30"),
    ("monday morning", "at midnight", "2026-11-24 00:00"),
    ("monday morning", "5pm tomorrow", "2026-11-24 17:00"),
    ("monday morning", "tomorrow at 4:45pm", "2026-11-24 16:45"),
    ("monday morning", "next week on Wednesday at 2pm", "2026-12-02 14:00"),
    ("monday morning", "내일 아침 9시", "2026-11-24 09:00"),
    ("monday morning", "모레 오후 3시 반", "2026-11-25 15:30"),
    ("monday morning", "낼 오후 1시", "2026-11-24 13:00"),
    ("monday morning", "낼모레 아침 9시", "2026-11-25 09:00"),
    ("monday morning", "금일 오후 5시", "2026-11-23 17:00"),
    ("monday morning", "익일 17시 정각", "2026-11-24 17:00"),
    ("monday morning", "명일 오전 9시", "2026-11-24 09:00"),
    ("monday morning", "tmrw at 3pm", "2026-11-24 15:00"),
    ("monday morning", "tommorow 9am", "2026-11-24 09:00"),
    ("monday morning", "이번 주 금요일 오후 2시", "2026-11-27 14:00"),
    ("monday morning", "다음 주 월요일 10시", "2026-11-30 10:00"),
    ("monday morning", "30분 후에", "2026-11-23 10:30"),
    ("monday morning", "오늘 저녁 7시", "2026-11-23 19:00"),
    ("monday morning", "정오에", "2026-11-23 12:00"),
    ("monday morning", "오후 3시", "2026-11-23 15:00"),
    ("monday morning", "4시에", "2026-11-23 16:00"),
    ("monday morning", "2시간 후에", "2026-11-23 12:00"),
    ("monday morning", "한 시간 뒤에", "2026-11-23 11:00"),
    ("monday morning", "두 시간 후에", "2026-11-23 12:00"),
    ("monday morning", "1시간 반 후에", "2026-11-23 11:30"),
    ("monday morning", "내일 오전 10시 30분", "2026-11-24 10:30"),
    ("monday morning", "오늘 밤 10시", "2026-11-23 22:00"),
    ("monday morning", "내일 새벽 6시", "2026-11-24 06:00"),
    ("monday morning", "목요일 오후 4시", "2026-11-26 16:00"),
    ("monday morning", "수요일 3시", "2026-11-25 15:00"),
    ("monday morning", "다음 주 수요일 오후 4시", "2026-12-02 16:00"),
    ("monday morning", "12월 3일 오전 10시", "2026-12-03 10:00"),
    ("monday morning", "15:30에", "2026-11-23 15:30"),
    ("monday morning", "오늘 오후 5시", "2026-11-23 17:00"),
    ("monday morning", "3일 후 오전 9시", "2026-11-26 09:00"),
    ("monday morning", "내일 정오", "2026-11-24 12:00"),
    ("monday morning", "자정에", "2026-11-24 00:00"),
    ("monday morning", "이번 주 목요일 오후 4시", "2026-11-26 16:00"),
    ("monday morning", "내일 오후 2시", "2026-11-24 14:00"),
    ("monday morning", "세 시에", "2026-11-23 15:00"),
    ("friday evening", "tomorrow at 10am", "2026-11-28 10:00"),
    ("friday evening", "on Monday at 9", "2026-11-30 09:00"),
    ("friday evening", "next Monday at 9am", "2026-11-30 09:00"),
    ("friday evening", "tonight at 9", "2026-11-27 21:00"),
    ("friday evening", "in 2 hours", "2026-11-27 20:30"),
    ("friday evening", "in 15 minutes", "2026-11-27 18:45"),
    ("friday evening", "at 8pm", "2026-11-27 20:00"),
    ("friday evening", "at 4", "2026-11-28 16:00"),
    ("friday evening", "this Sunday at noon", "2026-11-29 12:00"),
    ("friday evening", "next Tuesday 3:30pm", "2026-12-01 15:30"),
    ("friday evening", "this Friday at 9pm", "2026-11-27 21:00"),
    ("friday evening", "next Friday at 10am", "2026-12-04 10:00"),
    ("friday evening", "at 9:15pm", "2026-11-27 21:15"),
    ("friday evening", "at half past eight tonight", "2026-11-27 20:30"),
    ("friday evening", "내일 아침 9시", "2026-11-28 09:00"),
    ("friday evening", "오늘 밤 9시", "2026-11-27 21:00"),
    ("friday evening", "다음 주 월요일 10시", "2026-11-30 10:00"),
    ("friday evening", "월요일 오전 9시", "2026-11-30 09:00"),
    ("friday evening", "이번 주 일요일 정오", "2026-11-29 12:00"),
    ("friday evening", "30분 후에", "2026-11-27 19:00"),
    ("friday evening", "모레 오후 3시 반", "2026-11-29 15:30"),
    ("friday evening", "다음 주 금요일 오후 3시", "2026-12-04 15:00"),
    ("friday evening", "3시간 후", "2026-11-27 21:30"),
    ("friday evening", "저녁 8시", "2026-11-27 20:00"),
    ("sunday", "this Friday at 3pm", "2026-12-04 15:00"),
    ("sunday", "next Tuesday 3:30pm", "2026-12-01 15:30"),
    ("sunday", "tomorrow at 9", "2026-11-30 09:00"),
    ("sunday", "Monday at 8am", "2026-11-30 08:00"),
    ("sunday", "at 4", "2026-11-29 16:00"),
    ("sunday", "in 2 hours", "2026-11-29 13:00"),
    ("sunday", "at noon", "2026-11-29 12:00"),
    ("sunday", "next Sunday at 10am", "2026-12-06 10:00"),
    ("sunday", "tonight at 7", "2026-11-29 19:00"),
    ("sunday", "이번 주 금요일 오후 2시", "2026-12-04 14:00"),
    ("sunday", "다음 주 월요일 10시", "2026-11-30 10:00"),
    ("sunday", "내일 오전 9시", "2026-11-30 09:00"),
    ("sunday", "오늘 저녁 7시", "2026-11-29 19:00"),
    ("sunday", "화요일 오후 3시", "2026-12-01 15:00"),
    ("sunday", "정오에", "2026-11-29 12:00"),
    ("sunday", "모레 아침 8시", "2026-12-01 08:00"),
    ("before midnight", "tomorrow at 9", "2026-11-26 09:00"),
    ("before midnight", "in 30 minutes", "2026-11-26 00:20"),
    ("before midnight", "in 2 hours", "2026-11-26 01:50"),
    ("before midnight", "at 9am", "2026-11-26 09:00"),
    ("before midnight", "Friday at 4", "2026-11-27 16:00"),
    ("before midnight", "at 11:55pm", "2026-11-25 23:55"),
    ("before midnight", "at midnight", "2026-11-26 00:00"),
    ("before midnight", "next Monday at 9", "2026-11-30 09:00"),
    ("before midnight", "내일 아침 9시", "2026-11-26 09:00"),
    ("before midnight", "30분 후에", "2026-11-26 00:20"),
    ("before midnight", "이번 주 금요일 오후 3시", "2026-11-27 15:00"),
    ("before midnight", "다음 주 월요일 10시", "2026-11-30 10:00"),
    ("before midnight", "자정에", "2026-11-26 00:00"),
    ("before midnight", "내일 정오", "2026-11-26 12:00"),
]


def _korean(expression: str) -> bool:
    return any("\uac00" <= c <= "\ud7a3" for c in expression)


def _as_schedule(expression: str) -> str:
    if _korean(expression):
        return f"{expression} 엠마한테 전화하라고 알려줘"
    return f"remind me {expression} to call Emma"


def _inside_a_message(expression: str) -> str:
    if _korean(expression):
        said = expression if expression.endswith("에") else f"{expression}에"
        return f"Emma Wilson한테 회의가 {said} 시작한다고 문자 보내줘"
    return f"tell Emma Wilson the forms are due {expression}"


def test_the_table_has_a_hundred_expressions_in_both_languages() -> None:
    korean = [e for _, e, _ in EXPRESSIONS if _korean(e)]
    assert len(EXPRESSIONS) >= 100
    assert 40 <= len(korean) <= len(EXPRESSIONS) - 40


@pytest.mark.parametrize(("now", "expression", "expected"), EXPRESSIONS)
def test_a_time_as_the_schedule_is_read_as_the_local_time_meant(
    now: str, expression: str, expected: str
) -> None:
    when = find_when(_as_schedule(expression), now=NOWS[now], tz=SEOUL)

    assert when is not None
    assert when.at.astimezone(SEOUL).strftime("%Y-%m-%d %H:%M") == expected


@pytest.mark.parametrize(("now", "expression", "expected"), EXPRESSIONS)
def test_a_time_inside_the_message_stays_in_its_text_and_schedules_nothing(
    classifier: IntentClassifier, now: str, expression: str, expected: str
) -> None:
    understood = understand(
        _inside_a_message(expression),
        history=[],
        directory=ACADEMY,
        now=NOWS[now],
        tz=SEOUL,
        classifier=classifier,
    )

    assert understood.tool in {"send_sms", "send_email"}, understood
    assert "due_at" not in understood.arguments
    said = expression.removesuffix("에").lower()
    assert said in str(understood.arguments["body"]).lower()
