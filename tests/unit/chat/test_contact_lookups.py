"""Questions about the tenant's contacts, read as who / what / which against the directory.

The phrasings below were written for this test, not taken from any eval set: questions as staff
ask them, and requests to send that carry the same nouns and must never be read as questions.
"""

from __future__ import annotations

import pytest

from chat.builtin_model.lookup import Lookup, find_lookup, lookup_reply
from chat.builtin_model.understanding.directory import ContactEntry, Directory

ACADEMY = Directory(
    contacts=tuple(
        ContactEntry(name, frozenset({"sms", "email"}))
        for name in (
            "김민지 (Kim Minji)",
            "이서준 (Lee Seojun)",
            "Emma Wilson",
            "Oliver Brown",
            "최유나 (Choi Yuna)",
            "James Taylor",
        )
    ),
    groups=("Parents - Class A", "Parents - Class B", "Teachers"),
)


def lookup(text: str) -> Lookup:
    found = find_lookup(text, ACADEMY)
    assert found is not None, text
    return found


@pytest.mark.parametrize(
    ("question", "contact", "field"),
    [
        ("Do we have an email address for Oliver Brown?", "Oliver Brown", "email"),
        ("what number do we have for Emma Wilson?", "Emma Wilson", "phone"),
        ("Which group is James Taylor in?", "James Taylor", "groups"),
        ("Oliver Brown's phone number?", "Oliver Brown", "phone"),
        ("tell me Emma Wilson's email", "Emma Wilson", "email"),
        ("김민지 어머님 전화번호 좀 알려줘", "김민지 (Kim Minji)", "phone"),
        ("이서준 학부모 이메일 주소가 뭐예요?", "이서준 (Lee Seojun)", "email"),
        ("최유나 선생님은 어느 그룹이에요?", "최유나 (Choi Yuna)", "groups"),
        ("Emma Wilson's email please", "Emma Wilson", "email"),
        ("oliver's number pls", "Oliver Brown", "phone"),
        ("김민지 어머님 번호 좀", "김민지 (Kim Minji)", "phone"),
        # the asker will do the sending: a need to write first is not a request to
        (
            "I'd like to ring James Taylor myself later, so what's his number?",
            "James Taylor",
            "phone",
        ),
        ("need to email Emma Wilson from my own laptop - her address?", "Emma Wilson", "email"),
        # a family member's address in a hurry, with a slipped letter
        ("oliver's dad phone?", "Oliver Brown", "phone"),
        ("emma wilson's mum emial??", "Emma Wilson", "email"),
        (
            "What's Mr Taylor's email? I'll paste it into my own mail, no need to send",
            "James Taylor",
            "email",
        ),
        # the asking sentence, then an explanation; a work e-mail; "폰번" and "뭐임"
        (
            "Hi, which number do we have for Oliver Brown? He says it changed.",
            "Oliver Brown",
            "phone",
        ),
        ("what's Emma Wilson's work email again? I keep getting it wrong", "Emma Wilson", "email"),
        ("이서준 학부모님 폰번 뭐임", "이서준 (Lee Seojun)", "phone"),
        ("What's 최유나 선생님's email? I keep mistyping it", "최유나 (Choi Yuna)", "email"),
    ],
)
def test_a_question_about_a_named_contact_asks_for_that_field(
    question: str, contact: str, field: str
) -> None:
    found = lookup(question)

    assert (found.contacts, found.fields) == ((contact,), (field,))
    assert found.sql.startswith("SELECT c.name")


@pytest.mark.parametrize(
    ("question", "group", "lacking"),
    [
        ("Who in the Teachers group has no phone number?", "Teachers", True),
        ("Is anyone in class B missing an email?", "Parents - Class B", True),
        ("B반 학부모 중에 텔레그램으로 연락 되는 분 있어요?", "Parents - Class B", False),
        ("B반 학부모 중에 이메일 주소 등록 안 된 사람 누구야?", "Parents - Class B", True),
    ],
)
def test_who_has_or_lacks_an_address_is_asked_within_the_named_group(
    question: str, group: str, lacking: bool
) -> None:
    found = lookup(question)

    assert (found.contacts, found.groups, found.lacking) == ((), (group,), lacking)
    assert f"g.name IN ('{group}')" in found.sql


def test_who_opted_out_is_a_lookup_of_the_opted_out_flag() -> None:
    assert "WHERE c.opted_out" in lookup("수신 거부한 사람 누구예요?").sql


@pytest.mark.parametrize(
    "request_to_send",
    [
        "Could you let James know by email that the meeting moved?",
        "Can you text Emma Wilson that pickup is at 3?",
        "Would you mind sending Oliver a telegram about the trip?",
        "Oliver한테 텔레그램 보낼 수 있어요?",
        "민지 어머님께 문자 좀 보내 주실 수 있나요?",
        "James Taylor 선생님께 이메일로 회의록 보내줄래?",
        "Could you message Class A parents on Telegram that school closes early?",
        "최유나 선생님한테 텔레그램으로 내일 회의 있다고 알려줄 수 있어?",
        "Remind James Taylor tomorrow at 9 to call Emma Wilson's number",
        "박지우 어머님 번호로 문자 보내줘",
        "이서준 학부모님께 메일 보내 주세요: 상담 일정 확인 부탁드립니다",
        "hey can you ping oliver on telegram re: the field trip form?",
    ],
)
def test_a_request_to_send_is_never_read_as_a_question_about_contacts(
    request_to_send: str,
) -> None:
    assert find_lookup(request_to_send, ACADEMY) is None


@pytest.mark.parametrize(
    "question",
    [
        "What's the policy if a parent doesn't have a phone?",
        "How many days of annual leave do I get?",
        "Who do I contact about IT problems?",
        "what is the school's address?",
        "What should I do if a parent's email bounces?",
    ],
)
def test_a_question_about_the_rules_or_nobody_in_the_directory_is_not_a_lookup(
    question: str,
) -> None:
    assert find_lookup(question, ACADEMY) is None


def test_sql_quotes_a_name_with_an_apostrophe_safely() -> None:
    directory = Directory(contacts=(ContactEntry("Liam O'Neil", frozenset({"sms"})),))

    found = find_lookup("what's Liam O'Neil's phone number?", directory)

    assert found is not None and "'Liam O''Neil'" in found.sql


def test_one_contact_and_one_field_is_answered_in_a_sentence_in_each_language() -> None:
    english = lookup("what's Emma Wilson's email address?")
    korean = lookup("이서준 학부모 이메일 주소가 뭐예요?")

    assert lookup_reply(
        english, {"columns": ["name", "email"], "rows": [["Emma Wilson", "emma@x.example"]]}
    ) == ("Emma Wilson's e-mail address is emma@x.example.")
    assert lookup_reply(
        korean, {"columns": ["name", "email"], "rows": [["이서준 (Lee Seojun)", ""]]}
    ) == ("이서준 (Lee Seojun)의 이메일 주소는 저장되어 있지 않습니다.")


def test_holders_are_listed_with_who_opted_out_said() -> None:
    found = lookup("Who in class A can we reach on Telegram?")

    reply = lookup_reply(
        found,
        {
            "columns": ["name", "telegram", "opted_out"],
            "rows": [["김민지 (Kim Minji)", "100101", False], ["박지우", "100103", True]],
        },
    )

    assert reply.startswith("2 contacts in Parents - Class A with a Telegram chat id")
    assert "(1 of them opted out of messages)" in reply
    assert "| 박지우 | 100103 | True |" in reply


@pytest.mark.parametrize(
    ("question", "group", "field"),
    [
        ("what are the teachers' phone numbers?", "Teachers", "phone"),
        ("안내문 돌려야 해서 그러는데 선생님들 이메일 주소 좀 알려줘", "Teachers", "email"),
        ("class B parents' email addresses?", "Parents - Class B", "email"),
    ],
)
def test_a_field_asked_of_a_group_lists_each_member(question: str, group: str, field: str) -> None:
    found = lookup(question)

    assert (found.members, found.groups, found.fields, found.contacts) == (
        True,
        (group,),
        (field,),
        (),
    )
    assert f"g.name IN ('{group}')" in found.sql


@pytest.mark.parametrize(
    "question",
    [
        "who else is in the same class as Oliver Brown?",
        "올리버 브라운이랑 같은 반인 학부모 누구야?",
    ],
)
def test_who_shares_a_class_with_a_contact_lists_the_members_of_its_groups(question: str) -> None:
    classes = Directory(
        contacts=(
            ContactEntry("Oliver Brown", frozenset({"sms"}), frozenset({"Parents - Class B"})),
            ContactEntry("Emma Wilson", frozenset({"sms"}), frozenset({"Parents - Class B"})),
        ),
        groups=("Parents - Class A", "Parents - Class B"),
    )
    found = find_lookup(question, classes)

    assert found is not None and found.members and found.groups == ("Parents - Class B",)
    assert "g.name IN ('Parents - Class B')" in found.sql


@pytest.mark.parametrize(
    "question", ["which parents use telegram?", "학부모 중에 텔레그램 연결된 분 누구예요?"]
)
def test_who_has_a_channel_among_a_kind_of_group_looks_in_every_group_of_that_kind(
    question: str,
) -> None:
    found = lookup(question)

    assert found.fields == ("telegram",) and not found.lacking
    assert set(found.groups) == {"Parents - Class A", "Parents - Class B"}


def test_who_has_no_telegram_id_registered_is_a_lookup_of_those_lacking_it() -> None:
    found = lookup("텔레그램 아이디 등록 안 되어있는 분들 누구누구인지 알려주세요")

    assert (found.fields, found.lacking) == (("telegram",), True)
