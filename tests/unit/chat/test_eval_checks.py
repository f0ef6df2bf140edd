"""Judging a case's outcome: tools, recipients, text, due times, declines, routes, citations."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from chat.evals.cases import Expect
from chat.evals.checks import Observation, Proposal, asked_instead, contains, judge

NOW = datetime(2026, 11, 23, 15, 0, tzinfo=ZoneInfo("Asia/Seoul"))


def seen(
    *,
    reply: str = "",
    proposal: Proposal | None = None,
    citations: list[dict[str, str]] | None = None,
    stages: list[str] | None = None,
    statuses: list[str] | None = None,
    error: str = "",
) -> Observation:
    return Observation(
        reply=reply,
        citations=citations or [],
        proposal=proposal,
        stages=stages or ["thinking"],
        action_statuses=statuses or [],
        error=error,
        now=NOW,
    )


def sms(to: list[str], body: str, resolved: list[str] | None = None) -> Proposal:
    return Proposal(
        tool="send_sms",
        arguments={"to": to, "body": body},
        status="pending",
        recipients={"to": resolved if resolved is not None else to},
    )


def verdicts(expect: dict[str, Any], observation: Observation) -> dict[str, bool]:
    return {c.check: c.passed for c in judge(Expect.model_validate(expect), observation)}


def test_containment_ignores_case_spacing_and_punctuation() -> None:
    assert contains("Class moved to 3 PM.", "class moved to 3pm")
    assert contains("내일 회의가 취소되었습니다", "회의가  취소")


def test_the_right_tool_with_the_right_recipient_and_body_passes_every_check() -> None:
    expect = {"tool": "send_sms", "arguments": {"to": ["Emma Wilson"], "body": "moved to 3pm"}}

    result = verdicts(expect, seen(proposal=sms(["Emma"], "Class moved to 3pm", ["Emma Wilson"])))

    assert result == {"no error": True, "tool": True, "to": True, "body": True}


def test_recipients_are_compared_by_resolved_name_not_as_typed() -> None:
    expect = {"tool": "send_sms", "arguments": {"to": ["Emma Wilson"]}}

    result = verdicts(expect, seen(proposal=sms(["Emma"], "hi", ["Emma"])))

    assert result["to"] is False


def test_a_different_tool_fails_the_tool_check_and_the_arguments() -> None:
    expect = {"tool": "send_email", "arguments": {"to": ["Emma Wilson"]}}

    result = verdicts(expect, seen(proposal=sms(["Emma Wilson"], "hi")))

    assert result["tool"] is False and result["arguments"] is False


def test_a_case_without_a_tool_fails_when_an_action_is_proposed() -> None:
    result = verdicts({"reply_contains": ["25 days"]}, seen(reply="25 days", proposal=sms([], "")))

    assert result["no action"] is False


def test_a_reminder_due_tomorrow_at_nine_local_time_matches_its_due_expectation() -> None:
    proposal = Proposal(
        tool="schedule_reminder",
        arguments={
            "due_at": "2026-11-24T00:00:00+00:00",
            "tool": "send_sms",
            "arguments": {"to": ["Emma Wilson"], "body": "call"},
        },
        status="pending",
        recipients={"arguments.to": ["Emma Wilson"]},
    )
    expect = {
        "tool": "schedule_reminder",
        "arguments": {"tool": "send_sms", "arguments": {"to": ["Emma Wilson"]}},
        "due": {"in_days": 1, "at": "09:00"},
    }

    result = verdicts(expect, seen(proposal=proposal))

    assert result["due_at"] and result["arguments.to"] and result["tool"]


def test_a_decline_needs_a_declining_reply_without_citations() -> None:
    reply = "The knowledge base does not cover that, so I can't answer it reliably."

    assert verdicts({"decline": True}, seen(reply=reply))["decline"] is True
    cited = seen(reply=reply, citations=[{"title": "Leave policy", "external_id": ""}])
    assert verdicts({"decline": True}, cited)["decline"] is False


def test_the_help_route_fails_when_the_turn_searched_the_knowledge_base() -> None:
    answered = seen(reply="I can send messages.", stages=["thinking", "searching"])

    assert verdicts({"route": "help"}, answered)["route help"] is False


def test_a_clarifying_question_passes_the_clarify_route() -> None:
    asked = seen(reply="Did you mean Emma Wilson or Emma Park?")

    assert verdicts({"route": "clarify"}, asked)["route clarify"] is True


def test_the_withdrawn_route_looks_at_the_action_statuses() -> None:
    assert verdicts({"route": "withdrawn"}, seen(statuses=["withdrawn"]))["route withdrawn"]
    assert not verdicts({"route": "withdrawn"}, seen(statuses=["pending"]))["route withdrawn"]


def test_a_citation_is_matched_by_document_title() -> None:
    cited = seen(reply="25 days [1]", citations=[{"title": "Leave policy", "external_id": ""}])

    assert verdicts({"cites": "leave policy"}, cited)["cites 'leave policy'"] is True


def test_a_gold_answer_anywhere_in_the_reply_passes_the_any_check() -> None:
    result = verdicts({"reply_contains_any": ["Normandy", "France"]}, seen(reply="In France."))

    assert result["reply contains an answer"] is True


def test_a_turn_error_fails_the_case() -> None:
    assert verdicts({"decline": True}, seen(error="agent_error"))["no error"] is False


def test_a_refused_request_passes_when_nothing_is_proposed_and_nothing_is_cited() -> None:
    expect = {"route": "refused"}

    assert verdicts(expect, seen(reply="I can't help with asking parents for PINs."))[
        "route refused"
    ]
    assert not verdicts(expect, seen(reply="Drafted.", proposal=sms(["Emma"], "PIN?")))[
        "route refused"
    ]
    quoted = seen(reply="Wear goggles [1]", citations=[{"title": "실험실 안전 수칙"}])
    assert not verdicts(expect, quoted)["route refused"]


def test_an_unsupported_request_fails_when_a_substitute_tool_is_proposed() -> None:
    substitute = seen(reply="SMS drafted.", proposal=sms(["Emma Wilson"], "see you"))

    assert not verdicts({"route": "unsupported"}, substitute)["route unsupported"]
    assert verdicts({"route": "unsupported"}, seen(reply="I can send SMS, not KakaoTalk."))[
        "route unsupported"
    ]


SMS_TO_EMMA = Expect.model_validate(
    {"tool": "send_sms", "arguments": {"to": ["Emma Wilson"], "body": "swim"}}
)


def test_a_question_instead_of_a_wanted_action_counts_as_asked() -> None:
    assert asked_instead(SMS_TO_EMMA, reply="Which Emma do you mean?", proposed=False, cited=False)
    assert asked_instead(SMS_TO_EMMA, reply="누구에게 보낼까요\uff1f", proposed=False, cited=False)


def test_a_proposal_a_statement_a_quote_or_an_error_is_not_asking() -> None:
    question = "Who should get it?"

    assert not asked_instead(SMS_TO_EMMA, reply=question, proposed=True, cited=False)
    assert not asked_instead(SMS_TO_EMMA, reply="Done.", proposed=False, cited=False)
    assert not asked_instead(SMS_TO_EMMA, reply=question, proposed=False, cited=True)
    assert not asked_instead(SMS_TO_EMMA, reply=question, proposed=False, cited=False, error="boom")


def test_asking_back_a_knowledge_question_is_not_counted_as_asking_the_right_question() -> None:
    knowledge = Expect.model_validate({"reply_contains_any": ["20 days"], "cites": "Leave policy"})

    assert not asked_instead(knowledge, reply="Which policy?", proposed=False, cited=False)
