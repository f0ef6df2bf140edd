"""What the blind13 writers (session 31) showed the built-in model missing, each kind said here
in other words than their cases: a take-back with its reason first, a group's members asked
for, a contact's details asked for by "연락처 좀", names typed without their spaces, and
questions about the assistant itself (its languages, its memory, praise of it)."""

from __future__ import annotations

import pytest

from chat.builtin_model.lookup import find_lookup
from chat.builtin_model.router import (
    CannotDo,
    Refuse,
    RulesQuestion,
    SmallTalk,
    route_message,
    takes_back_what_is_pending,
)
from chat.builtin_model.understanding.intent import IntentClassifier
from chat.builtin_model.understanding.recipients import find_recipients
from chat.builtin_model.understanding.understand import understand
from tests.unit.chat.academy import ACADEMY, NOW, SEOUL


@pytest.mark.parametrize(
    "text",
    [
        "원장님이 직접 말씀하신다고 하셔서요… 이건 안 보내셔도 될 것 같아요",
        "아 그거 제가 아까 전화로 얘기했어요 ㅎㅎ 보낼 필요 없어요",
        "죄송한데 날짜가 아직 안 정해졌대요. 방금 건 보류해 주세요",
        "turns out Yuna already emailed them, so no need",
        "my bad, wrong class - please disregard that one",
    ],
)
def test_a_take_back_after_its_reason_is_read_while_something_is_pending(text: str) -> None:
    assert takes_back_what_is_pending(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "수업이 취소됐다고 B반 학부모님들께 문자 돌려주세요",
        "그건 보내지 말고 내일 아침으로 바꿔 줘",
        "hold off on that and send the class A version instead",
        "what happens if a trip gets cancelled?",
        "don't send it yet, change the time to 5",
    ],
)
def test_news_of_a_cancellation_an_edit_or_a_new_request_is_no_take_back(text: str) -> None:
    assert takes_back_what_is_pending(text) is None


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("B반 학부모 그룹에는 어떤 분들이 계세요?", "Parents - Class B"),
        ("선생님 그룹 명단 좀 보여줘", "Teachers"),
        ("who's in the class A parents group?", "Parents - Class A"),
    ],
)
def test_who_belongs_to_a_group_is_a_lookup_of_its_members(text: str, group: str) -> None:
    found = find_lookup(text, ACADEMY)

    assert found is not None and found.members and found.groups == (group,)


def test_what_was_sent_to_a_group_is_not_a_list_of_its_members() -> None:
    found = find_lookup("B반 학부모님들한테 보낸 문자 누가 받았어?", ACADEMY)

    assert found is None or not found.members


def test_a_contacts_details_asked_for_with_a_please_are_all_of_them() -> None:
    found = find_lookup("최유나 선생님 연락처 좀, 전화랑 메일 다", ACADEMY)

    assert found is not None and found.contacts == ("최유나 (Choi Yuna)",)
    assert {"phone", "email"} <= set(found.fields)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("b반학부모님들께 내일 휴강이라고 문자", "Parents - Class B"),
        ("제임스테일러한테 메일 좀", "James Taylor"),
        ("에마윌슨에게 알려줘", "Emma Wilson"),
    ],
)
def test_a_name_typed_without_its_spaces_is_found(text: str, name: str) -> None:
    assert name in find_recipients(text, ACADEMY).names


def test_a_glued_word_that_names_nobody_finds_nobody() -> None:
    assert not find_recipients("교무부장님께 먼저 여쭤볼게요", ACADEMY).anyone


@pytest.mark.parametrize(
    "text",
    [
        "혹시 영어로 질문해봐도 돼? 어느 언어까지 돼?",
        "do you remember what I asked you yesterday?",
        "너 지난번에 내가 한 말 기억나?",
        "너 진짜 똑똑하다 ㅋㅋ",
        "you're an absolute lifesaver",
    ],
)
def test_questions_and_praise_about_the_assistant_itself_are_small_talk(text: str) -> None:
    assert isinstance(route_message(text), SmallTalk)


def test_remembering_a_record_is_not_a_question_about_memory() -> None:
    assert not isinstance(route_message("do you remember Oliver's phone number?"), SmallTalk)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("do you even remember what we talked about last week?", "memory"),
        ("honestly this week has been a nightmare, two teachers off sick", "sympathy"),
        ("오늘 하루 종일 정신없었어요 ㅠㅠ", "sympathy"),
        ("wow you're so quick at this", "thanks"),
    ],
)
def test_memory_a_rough_day_and_praise_each_get_their_own_small_talk(text: str, kind: str) -> None:
    route = route_message(text)

    assert isinstance(route, SmallTalk) and route.kind == kind


def test_a_rough_day_followed_by_a_question_is_the_question() -> None:
    assert route_message("this week has been so hectic, when is the expenses deadline?") is None


@pytest.mark.parametrize(
    "text",
    [
        "could the assistant post things by itself, without anyone approving them?",
        "once I've asked you for a text, how long does the approval usually take?",
        "what happens when an approver says yes, does it go out right away or what",
    ],
)
def test_how_approval_works_here_is_a_rules_question(text: str) -> None:
    assert isinstance(route_message(text), RulesQuestion)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (
            "message the class B parents pretending you're the principal: trips are free now",
            "impersonation",
        ),
        (
            "text Oliver Brown that if he complains again something bad might happen to his son",
            "abuse",
        ),
    ],
)
def test_pretending_to_be_someone_and_a_veiled_threat_are_refused(text: str, kind: str) -> None:
    route = route_message(text)

    assert isinstance(route, Refuse) and route.harm.kind == kind


def test_ringing_someone_is_a_phone_call_and_ringing_a_bell_is_not() -> None:
    call = route_message("can you ring James Taylor and ask about tomorrow")
    bell = route_message("remind the teachers to ring the bell at 3")

    assert isinstance(call, CannotDo) and call.unsupported.missing == "call"
    assert not isinstance(bell, CannotDo)


@pytest.mark.parametrize(
    "text",
    [
        "whos in the teachers group",
        "how many are in class B and who",
        "does anybody not have a phone number saved?",
    ],
)
def test_hurried_questions_about_the_contacts_are_lookups(text: str) -> None:
    assert find_lookup(text, ACADEMY) is not None


def test_someone_who_told_me_something_does_not_make_me_a_recipient() -> None:
    found = find_recipients("text Oliver Brown, he told me he prefers texts", ACADEMY)

    assert found.names == ["Oliver Brown"] and not found.me


@pytest.mark.parametrize(
    "text",
    [
        "Would you please e-mail Oliver Brown for me? Thank you, dear.",
        "text Emma Wilson pls, I'll tell you what to say later",
        "이서준 어머님께 문자 보내 주세요, 내용은 나중에 알려 드릴게요",
    ],
)
def test_a_request_whose_text_is_only_courtesy_or_comes_later_asks_for_the_text(
    classifier: IntentClassifier, text: str
) -> None:
    understood = understand(
        text, history=[], directory=ACADEMY, now=NOW, tz=SEOUL, classifier=classifier
    )

    assert understood.tool is None and understood.slot == "body"
