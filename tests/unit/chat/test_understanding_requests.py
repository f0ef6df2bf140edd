"""Whole requests understood without a database: slots, questions and follow-up answers."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from chat.agent.understanding import (
    ContactEntry,
    Directory,
    IntentClassifier,
    Requester,
    Understanding,
    understand,
)

SEOUL = ZoneInfo("Asia/Seoul")
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=SEOUL)
ACADEMY = Directory(
    contacts=(
        ContactEntry("Emma Wilson", frozenset({"sms", "email"})),
        ContactEntry("Emma Park", frozenset({"sms"})),
        ContactEntry("Oliver Brown", frozenset({"email"})),
    ),
    groups=("Parents - Class A", "Teachers"),
    requester=Requester("Sam", "sam@example.com"),
)


def _ask(
    classifier: IntentClassifier, text: str, history: list[tuple[str, str]] | None = None
) -> Understanding:
    return understand(
        text,
        history=history or [],  # type: ignore[arg-type]
        directory=ACADEMY,
        now=NOW,
        tz=SEOUL,
        classifier=classifier,
    )


def test_words_after_the_recipient_are_the_message(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "tell Emma Wilson the trip is cancelled")

    assert found.arguments == {"to": ["Emma Wilson"], "body": "The trip is cancelled"}


def test_a_time_after_the_recipient_is_not_taken_for_the_message(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "send a text to Emma Wilson tomorrow at 9am")

    assert (found.tool, found.question) == (None, "What should the SMS say?")


def test_a_day_without_a_time_is_asked_about(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "remind the teachers on Friday to hand in grades")

    assert (found.question, found.slot) == ("At what time on Friday?", "when")


def test_the_answer_to_what_time_completes_the_reminder(classifier: IntentClassifier) -> None:
    asked = "remind the teachers on Friday to hand in grades"
    question = _ask(classifier, asked).question or ""

    found = _ask(classifier, "8am", [("user", asked), ("assistant", question)])

    assert found.arguments["due_at"] == "2026-11-27T08:00:00+09:00"
    assert found.arguments["arguments"] == {"to": ["Teachers"], "body": "Hand in grades"}


def test_two_questions_in_a_row_complete_one_request(classifier: IntentClassifier) -> None:
    first = _ask(classifier, "text Emma")
    history = [("user", "text Emma"), ("assistant", first.question or "")]
    second = _ask(classifier, "Emma Park", history)
    history += [("user", "Emma Park"), ("assistant", second.question or "")]

    found = _ask(classifier, "see you at 5", history)

    assert (first.slot, second.slot) == ("which", "body")
    assert found.arguments == {"to": ["Emma Park"], "body": "See you at 5"}


def test_a_new_request_replaces_an_unanswered_question(classifier: IntentClassifier) -> None:
    question = _ask(classifier, "text Emma").question or ""

    found = _ask(
        classifier,
        "email Oliver Brown that the report is ready",
        [("user", "text Emma"), ("assistant", question)],
    )

    assert found.tool == "send_email" and found.arguments["to"] == ["Oliver Brown"]


def test_a_reminder_goes_by_email_to_a_contact_without_a_phone(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "remind Oliver tomorrow at 9am to bring his laptop")

    assert found.arguments["tool"] == "send_email"
    assert found.arguments["arguments"]["to"] == ["Oliver Brown"]


def test_a_question_that_sounds_like_a_request_is_not_an_action(
    classifier: IntentClassifier,
) -> None:
    assert _ask(classifier, "how do I request a new laptop").tool is None


def test_blank_text_is_not_an_action(classifier: IntentClassifier) -> None:
    assert _ask(classifier, "   ") == Understanding("knowledge", 0.0)


def test_a_korean_request_is_asked_about_in_korean(classifier: IntentClassifier) -> None:
    assert _ask(classifier, "문자 보내줘").question == "문자를 누구에게 보낼까요?"


def test_a_day_given_as_the_answer_is_asked_about_again_for_its_time(
    classifier: IntentClassifier,
) -> None:
    asked = "remind the teachers to hand in grades"
    question = _ask(classifier, asked).question or ""

    found = _ask(classifier, "on Friday", [("user", asked), ("assistant", question)])

    assert question == 'When should it go out? For example "tomorrow at 9am".'
    assert (found.question, found.slot) == ("At what time on Friday?", "when")


def test_a_question_naming_a_contact_is_not_an_action_even_if_it_sounds_like_one() -> None:
    always_sms = IntentClassifier(
        lambda texts: [[1.0, 0.0] for _ in texts], exemplars={"send_sms": ["text Mia"]}
    )

    found = _ask(always_sms, "Is Oliver Brown in class today?")

    assert (found.label, found.tool, found.question) == ("knowledge", None, None)
