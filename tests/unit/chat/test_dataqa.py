"""Common data questions compile to one guarded SELECT; the rest are left to the KB search."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
import sqlglot
from sqlglot import exp

from chat.builtin_model.dataqa import (
    compile_data_question,
    data_reply,
    markdown_table,
    period_bounds,
    plan_data_question,
)
from chat.tools.sql_guard import UnsafeQueryError, validate_select

SEOUL = ZoneInfo("Asia/Seoul")
NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)  # Tuesday 00:00 in Seoul
TABLES = {
    "actions_contact",
    "actions_contactgroup",
    "actions_contact_groups",
    "actions_outboundmessage",
    "actions_reminder",
    "actions_announcement",
    "knowledge_document",
}


def compiled(text: str) -> str | None:
    return compile_data_question(text, now=NOW, tz=SEOUL)


@pytest.mark.parametrize(
    "question",
    [
        "How many contacts do we have?",
        "연락처가 몇 개 있나요?",
        "Which contacts are in Parents - Class A?",
        "What SMS did we send today?",
        "How many reminders are scheduled this week?",
        "메시지 상태별로 몇 개야?",
        "학부모 그룹에 누가 있어?",
        "이번 주에 실패한 문자 몇 건이야?",
        "How many contacts are in each group?",
        "Show me the announcements",
    ],
)
def test_each_common_shape_compiles_to_sql_the_guard_accepts(question: str) -> None:
    sql = compiled(question)

    assert sql is not None and validate_select(sql, allowed_tables=TABLES)


@pytest.mark.parametrize(
    "question",
    [
        "How long is bereavement leave?",
        "How many days of paid annual leave do staff get?",
        "What documents do I need for a travel claim?",
        "Can I send messages to parents after 9pm?",
        "병가는 며칠까지 쓸 수 있나요?",
        "hello",
    ],
)
def test_a_knowledge_question_is_left_to_the_search(question: str) -> None:
    assert compiled(question) is None


def test_a_count_of_contacts_counts_every_contact() -> None:
    assert compiled("How many contacts do we have?") == (
        "SELECT count(DISTINCT c.id) AS count FROM actions_contact c"
    )


@pytest.mark.parametrize(
    "question",
    [
        "Who has unsubscribed from our texts?",
        "How many contacts opted out?",
        "수신 거부한 연락처 보여줘",
    ],
)
def test_an_opt_out_question_asks_about_contacts_who_opted_out(question: str) -> None:
    sql = compiled(question) or ""

    assert "FROM actions_contact c WHERE c.opted_out" in sql


@pytest.mark.parametrize(
    ("question", "conditions"),
    [
        ("A반 학부모님들은 누구누구야?", ["'%class a%'", "'%parents%'"]),
        ("강사들이 누구예요?", ["'%teachers%'"]),
        ("학부모 그룹에 누가 있어?", ["'%parents%'"]),
        ("교사 그룹엔 누구누구 속해 있나요?", ["'%teachers%'"]),
        ("B반 학부모 그룹 구성원 보여줘", ["'%class b%'", "'%parents%'"]),
    ],
)
def test_a_korean_group_is_matched_by_the_english_words_of_its_kind(
    question: str, conditions: list[str]
) -> None:
    sql = compiled(question) or ""

    assert "JOIN actions_contactgroup g" in sql
    assert all(f"lower(g.name) LIKE {condition}" in sql for condition in conditions)


def test_who_is_a_person_is_not_a_group_question() -> None:
    assert compiled("올리버가 누구야?") is None


def test_a_group_is_matched_by_its_name_or_a_part_of_it_case_insensitively() -> None:
    whole = compiled("Which contacts are in Parents - Class A?") or ""
    part = compiled("list the parents in class B") or ""

    assert "lower(g.name) LIKE lower('%Parents - Class A%')" in whole
    assert "lower(g.name) LIKE lower('%class B%')" in part


@pytest.mark.parametrize(
    "text",
    [
        "sorry, who's in the drivers group again?",
        "can you list the people in the drivers group for me, please?",
        "who is in drivers right now, thanks",
    ],
)
def test_words_that_close_the_question_are_not_part_of_the_groups_name(text: str) -> None:
    assert "lower(g.name) LIKE lower('%drivers%')" in (compiled(text) or "")


def test_a_korean_roster_request_lists_the_contacts_of_that_kind_of_group() -> None:
    sql = compiled("A반 학부모 명단 보여줘") or ""

    assert "lower(g.name) LIKE '%class a%' AND lower(g.name) LIKE '%parents%'" in sql


def test_how_many_people_a_korean_group_has_counts_its_contacts() -> None:
    sql = compiled("교사 그룹에 몇 명 있어?") or ""

    assert sql.startswith("SELECT count(DISTINCT c.id)")
    assert "lower(g.name) LIKE '%teachers%'" in sql


def test_today_means_today_in_the_given_time_zone() -> None:
    sql = compiled("What SMS did we send today?") or ""

    assert "c.channel = 'sms'" in sql
    assert "c.created_at >= '2026-11-24T00:00:00+09:00'" in sql
    assert "c.created_at < '2026-11-25T00:00:00+09:00'" in sql


def test_this_week_runs_from_monday_to_monday() -> None:
    start, end = period_bounds("week", now=NOW, tz=SEOUL)

    assert (start.isoformat(), end.isoformat()) == (
        "2026-11-23T00:00:00+09:00",
        "2026-11-30T00:00:00+09:00",
    )


def test_a_by_status_question_groups_by_status() -> None:
    sql = compiled("메시지 상태별로 몇 개야?") or ""

    assert sql.endswith("GROUP BY c.status ORDER BY c.status")


@pytest.mark.parametrize(
    "hostile",
    [
        "How many contacts are in x'); DROP TABLE actions_contact; --?",
        "Which contacts are in ' OR 1=1 --?",
        'Which contacts are in "\\"; SELECT pg_sleep(10); --"?',
        "How many contacts are in U&'\\0061'?",
        "How many contacts are in \x00\x00?",
        "연락처 몇 개" + "'" * 500,
    ],
)
def test_hostile_text_stays_a_string_inside_one_select_or_is_refused_by_the_guard(
    hostile: str,
) -> None:
    sql = compiled(hostile)
    if sql is None:
        return
    try:
        safe = validate_select(sql, allowed_tables=TABLES)
    except UnsafeQueryError:
        return  # refused cleanly: the turn replies politely (tests/chat)

    assert [type(statement) for statement in sqlglot.parse(safe, dialect="postgres")] == [
        exp.Select
    ]


def test_a_count_is_answered_in_a_sentence_in_the_language_asked() -> None:
    english = plan_data_question("How many contacts do we have?", now=NOW, tz=SEOUL)
    korean = plan_data_question("연락처가 몇 개 있나요?", now=NOW, tz=SEOUL)
    result = {"columns": ["count"], "rows": [[3]], "truncated": False}

    assert data_reply(english, result) == "There are 3 contacts."
    assert data_reply(korean, result) == "연락처는 모두 3개입니다."


def test_rows_are_answered_with_a_sentence_and_a_markdown_table() -> None:
    plan = plan_data_question("Which contacts are in Parents?", now=NOW, tz=SEOUL)
    result = {"columns": ["name", "phone"], "rows": [["Kim Minji", "+1202"]], "truncated": False}

    reply = data_reply(plan, result)

    assert reply == (
        "Here are the contacts in ‘Parents’:\n\n| name | phone |\n|---|---|\n| Kim Minji | +1202 |"  # noqa: RUF001
    )


def test_no_rows_are_answered_plainly() -> None:
    plan = plan_data_question("What SMS did we send today?", now=NOW, tz=SEOUL)

    assert data_reply(plan, {"columns": ["x"], "rows": []}) == "I found no messages today."


def test_a_pipe_inside_a_value_cannot_break_the_table() -> None:
    table = markdown_table(["body"], [["a | b\nc"]])

    assert table.splitlines()[-1] == "| a \\| b c |"


# -- issue 27: only questions about the tenant's data are data questions ----------------------


@pytest.mark.parametrize(
    "text",
    [
        "my leave starts in May, how many weeks do I get in total as the other parent in Madrid?",
        "how many days off do we get for jury duty?",
        "email oliver@example.com subject Stock saying please count the chairs in room 4",
        "text the teachers that we need a count of the messages in each class",
        "Send Emma a message: how many tickets are left in the hall?",
        "학부모들에게 남은 메시지 개수 세어 달라고 문자 보내줘",
    ],
)
def test_a_knowledge_question_or_a_write_request_with_how_many_is_not_a_count(text: str) -> None:
    assert compiled(text) is None


def test_how_many_documents_counts_the_documents() -> None:
    assert compiled("how many documents do we have?") == (
        "SELECT count(DISTINCT c.id) AS count FROM knowledge_document c"
    )


@pytest.mark.parametrize(
    "question",
    ["Teachers 그룹 멤버들 좀 알려줘", "Parents - Class B 그룹엔 누구누구 포함돼 있어요?"],
)
def test_a_group_named_in_english_inside_a_korean_question_lists_its_members(
    question: str,
) -> None:
    sql = compiled(question) or ""

    assert "JOIN actions_contactgroup g" in sql and "FROM actions_contact c" in sql


@pytest.mark.parametrize(
    ("question", "group"),
    [
        ("which contacts are parents?", "parents"),
        ("Which of our contacts are teachers?", "teachers"),
        ("who are the parents?", "parents"),
    ],
)
def test_a_role_question_lists_the_members_of_that_kind_of_group(question: str, group: str) -> None:
    sql = compiled(question) or ""

    assert "JOIN actions_contactgroup g" in sql
    assert f"'%{group}%'" in sql.lower()


def test_a_group_named_in_other_words_than_its_own_is_matched_part_by_part() -> None:
    sql = compiled("how many ppl in parents class b") or ""

    assert "lower(g.name) LIKE '%parents%' AND lower(g.name) LIKE '%class b%'" in sql
    assert validate_select(sql, allowed_tables=TABLES)


def test_a_count_asked_with_the_names_lists_them_and_says_how_many() -> None:
    plan = plan_data_question(
        "how many contact groups have we got and what are they called?", now=NOW, tz=SEOUL
    )
    result = {"columns": ["name"], "rows": [["Teachers"], ["Parents - Class A"]]}

    assert plan is not None and plan.shape == "rows"
    assert data_reply(plan, result).startswith("Here are the 2 groups:")


def test_a_korean_count_of_a_kind_of_group_counts_its_contacts() -> None:
    plan = plan_data_question("A반 학부모 몇 명이야?", now=NOW, tz=SEOUL)

    assert plan is not None and plan.shape == "count" and plan.entity.key == "contacts"
    assert "class a" in plan.sql


ACADEMY_GROUPS = ("Parents - Class A", "Parents - Class B", "Teachers")


@pytest.mark.parametrize(
    "question",
    [
        "How many people lived in London in 1900?",
        "How many Huguenots settled in modern-day Canada?",
        "How many people were killed?",
        "How many ministers are in the German cabinet?",
        "서울에 몇 명이 살아요?",
        # "group" as a word about the world, and "opted" inside "adopted"
        "Which rebel groups fought in the northern provinces during the civil war?",
        "What kind of group was the Hanseatic League?",
        "How many countries adopted the new charter in 1961?",
    ],
)
def test_a_count_in_something_that_is_not_one_of_the_groups_is_left_to_the_kb(
    question: str,
) -> None:
    assert plan_data_question(question, now=NOW, tz=SEOUL, groups=ACADEMY_GROUPS) is None


@pytest.mark.parametrize(
    "question", ["what groups are there?", "which groups do we have?", "list all groups please"]
)
def test_a_question_about_the_groups_themselves_is_still_a_data_question(question: str) -> None:
    plan = plan_data_question(question, now=NOW, tz=SEOUL, groups=ACADEMY_GROUPS)

    assert plan is not None and plan.entity.key == "groups"


@pytest.mark.parametrize(
    ("question", "group"),
    [
        ("how many people are in class B parents?", "class B parents"),
        ("how many people are in class A parents?", "class A parents"),  # "a" is not filler
        ("How many are in Teachers?", "Teachers"),
        ("A반 학부모 몇 명이야?", "A반 학부모"),
    ],
)
def test_a_count_in_one_of_the_groups_is_still_a_data_question(question: str, group: str) -> None:
    plan = plan_data_question(question, now=NOW, tz=SEOUL, groups=ACADEMY_GROUPS)

    assert plan is not None and plan.group == group


def test_a_question_naming_contacts_is_about_them_even_in_a_group_nobody_has() -> None:
    plan = plan_data_question(
        "how many contacts are in the chess club?", now=NOW, tz=SEOUL, groups=ACADEMY_GROUPS
    )

    assert plan is not None and plan.shape == "count"


@pytest.mark.parametrize(
    "question",
    [
        "How many telegrams did Marconi send in 1901?",
        "How many announcements were made by the king?",
        "How many documents did Luther write?",
        "한글은 몇 개의 문자로 이루어져 있나요?",
    ],
)
def test_a_question_about_the_world_that_shares_a_noun_with_our_rows_is_left_to_the_kb(
    question: str,
) -> None:
    assert plan_data_question(question, now=NOW, tz=SEOUL, groups=ACADEMY_GROUPS) is None


@pytest.mark.parametrize(
    "question",
    [
        "How many texts went out to the parents today?",
        "How many SMS have we sent so far?",
        "오늘 보낸 문자 몇 개야?",
        "이번 주에 예약된 알림 몇 개예요?",
        "문서 몇 개 올라와 있어?",
    ],
)
def test_questions_about_our_own_messages_reminders_and_documents_are_still_data(
    question: str,
) -> None:
    assert plan_data_question(question, now=NOW, tz=SEOUL, groups=ACADEMY_GROUPS) is not None
