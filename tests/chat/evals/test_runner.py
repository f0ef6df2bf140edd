"""The runner sends cases through the real graph and never acts on what they propose."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import override_settings
from django.utils import timezone
from langchain_core.messages import AIMessage

from actions.models import Announcement, Contact, OutboundMessage, Reminder, ToolPolicy
from chat.evals.models import EvalCaseSet, EvalResult, EvalRun
from chat.evals.services import eval_run_create, eval_run_execute
from chat.models import AssistantPrompt, Conversation, Message, PendingAction
from chat.services.prompts import assistant_prompt_publish
from tenants.models import Tenant
from tests.chat.evals.conftest import SMS_CASE, case_set_of
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText, ScriptedToolCall

NOT_COVERED = "The knowledge base does not cover that, so I can't answer it reliably."


def sms_to_parents() -> AIMessage:
    return tool_call("send_sms", to=["Parents"], body="School closes at 1pm today")


def run_set(case_set: EvalCaseSet, *replies: AIMessage, **kwargs: object) -> EvalRun:
    run = eval_run_create(case_set=case_set, **kwargs)  # type: ignore[arg-type]
    return eval_run_execute(run_id=run.pk, model=ScriptedChatModel(replies=list(replies)))


def result_of(run: EvalRun, key: str) -> EvalResult:
    return run.results.get(case__key=key)


@pytest.mark.django_db(transaction=True)
def test_a_proposed_action_is_captured_and_nothing_is_left_to_approve_or_deliver(
    smoke_set: EvalCaseSet,
) -> None:
    run = run_set(smoke_set, sms_to_parents(), AIMessage(NOT_COVERED))

    result = result_of(run, "sms-parents")
    assert result.action["tool"] == "send_sms"
    assert result.action["arguments"]["body"] == "School closes at 1pm today"
    assert PendingAction.objects.count() == 0
    assert (OutboundMessage.objects.count(), Announcement.objects.count()) == (0, 0)
    assert Reminder.objects.count() == 0 and mail.outbox == []
    assert Conversation.objects.count() == Message.objects.count() == 0
    assert not User.objects.filter(username__startswith="agent-eval").exists()


def test_a_case_expecting_a_tool_passes_when_the_model_proposes_it(
    smoke_set: EvalCaseSet,
) -> None:
    run = run_set(smoke_set, sms_to_parents(), AIMessage(NOT_COVERED))

    assert result_of(run, "sms-parents").passed is True
    assert result_of(run, "capital").passed is True


def test_a_case_expecting_a_tool_fails_when_the_model_only_talks(smoke_set: EvalCaseSet) -> None:
    run = run_set(smoke_set, AIMessage("Sure, I will tell them."), AIMessage(NOT_COVERED))

    failed = [c["check"] for c in result_of(run, "sms-parents").checks if not c["passed"]]
    assert failed == ["tool", "arguments"]


def test_a_case_expecting_a_tool_fails_when_the_body_is_wrong(smoke_set: EvalCaseSet) -> None:
    wrong = tool_call("send_sms", to=["Parents"], body="See you tomorrow")

    run = run_set(smoke_set, wrong, AIMessage(NOT_COVERED))

    failed = [c["check"] for c in result_of(run, "sms-parents").checks if not c["passed"]]
    assert failed == ["body"]


def test_a_finished_run_records_its_totals_per_language(smoke_set: EvalCaseSet) -> None:
    run = run_set(smoke_set, sms_to_parents(), AIMessage("Ulaanbaatar."))

    run.refresh_from_db()
    assert run.status == EvalRun.Status.FINISHED and run.finished_at is not None
    assert (run.totals["cases"], run.totals["passed"]) == (2, 1)
    assert run.totals["by_language"]["ko"]["passed"] == 0


def test_a_question_back_instead_of_the_wanted_action_counts_as_right_or_asked(
    smoke_set: EvalCaseSet,
) -> None:
    run = run_set(smoke_set, AIMessage("Which parents: class A or class B?"), AIMessage("Seoul."))

    run.refresh_from_db()
    assert result_of(run, "sms-parents").passed is False
    assert (run.totals["passed"], run.totals["right_or_asked"]) == (0, 1)


def test_a_draft_prompt_version_is_used_and_the_active_one_stays_active(
    smoke_set: EvalCaseSet,
) -> None:
    draft = assistant_prompt_publish(text="Draft prompt for {tenant_name}.", user=None)
    active = assistant_prompt_publish(text="Active prompt.", user=None)
    model = ScriptedChatModel(replies=[sms_to_parents(), AIMessage(NOT_COVERED)])
    run = eval_run_create(case_set=smoke_set, prompt_version=draft)

    eval_run_execute(run_id=run.pk, model=model)

    assert str(model.calls[0][0].content) == "Draft prompt for Alpha Academy."
    assert AssistantPrompt.objects.get(is_active=True) == active
    run.refresh_from_db()
    assert run.prompt_label == f"v{draft.version}"


def test_a_tool_switched_off_for_a_case_stays_on_for_the_tenant(
    in_tenant_a: Tenant, parents_group: object
) -> None:
    case = {**SMS_CASE, "setup": {"disable_tools": ["send_sms"]}}
    case_set = case_set_of(case)

    run = run_set(case_set, sms_to_parents())

    assert result_of(run, "sms-parents").passed is False
    assert not ToolPolicy.objects.filter(tool_name="send_sms", enabled=False).exists()


def test_an_exchange_of_two_messages_is_judged_on_the_last_turn(
    in_tenant_a: Tenant, parents_group: object
) -> None:
    case = {**SMS_CASE, "messages": ["Text the parents", "say school closes at 1pm"]}
    del case["message"]
    model_replies = [AIMessage("What should the message say?"), sms_to_parents()]

    run = run_set(case_set_of(case), *model_replies)

    assert result_of(run, "sms-parents").passed is True


def test_a_case_naming_an_address_is_met_by_the_contact_it_belongs_to_and_no_other(
    in_tenant_a: Tenant,
) -> None:
    Contact.objects.create(name="James Taylor", email="james.taylor@academy.example")
    Contact.objects.create(name="Emma Wilson", email="emma.wilson@parents.example")
    expect = {"tool": "send_email", "arguments": {"to": ["james.taylor@academy.example"]}}
    cases = [
        {"key": f"email-{n}", "message": "email james.taylor@academy.example", "expect": expect}
        for n in (1, 2)
    ]
    to_james = tool_call("send_email", to=["James Taylor"], subject="Rota", body="On duty")
    to_emma = tool_call("send_email", to=["Emma Wilson"], subject="Rota", body="On duty")

    run = run_set(case_set_of(*cases), to_james, AIMessage("ok"), to_emma, AIMessage("ok"))

    assert result_of(run, "email-1").passed is True
    assert result_of(run, "email-2").passed is False


def test_a_run_uses_the_configured_openai_compatible_endpoint_and_records_its_name(
    smoke_set: EvalCaseSet,
) -> None:
    script: list[ScriptedText | ScriptedToolCall] = [
        ScriptedToolCall("send_sms", {"to": ["Parents"], "body": "School closes at 1pm"}),
        ScriptedText(NOT_COVERED),
    ]
    with (
        FakeOpenAIServer(script) as server,
        override_settings(LLM_BASE_URL=server.base_url, LLM_MODEL="scripted-gpt"),
    ):
        run = eval_run_execute(run_id=eval_run_create(case_set=smoke_set).pk)

    assert run.model_label == "scripted-gpt" and len(server.requests) == 2
    assert run.totals["passed"] == 2 and PendingAction.objects.count() == 0


def _zone_where_it_is_now(hour: int) -> str:
    """A fixed-offset zone whose local time is ``hour``:xx right now."""
    offset = (hour - timezone.now().hour + 12) % 24 - 12  # -12..+11 hours from UTC
    return f"Etc/GMT{-offset:+d}"  # Etc/GMT-5 is five hours *ahead* of UTC


@pytest.mark.django_db(transaction=True)
def test_a_case_reads_today_at_4_the_same_whatever_the_hour_the_run_starts(
    in_tenant_a: Tenant, parents_group: object
) -> None:
    # It is six in the evening in the tenant's zone: on the wall clock "today at 4" has passed.
    in_tenant_a.time_zone = _zone_where_it_is_now(18)
    in_tenant_a.save(update_fields=["time_zone"])
    case = {
        "key": "today-at-4",
        "message": "today at 4 text the parents that the meeting is starting in the hall",
        "expect": {"tool": "schedule_reminder", "due": {"in_days": 0, "at": "16:00"}},
    }

    run = eval_run_execute(run_id=eval_run_create(case_set=case_set_of(case)).pk)

    result = result_of(run, "today-at-4")
    assert result.passed is True, result.checks
    assert result.action["arguments"]["tool"] == "send_sms"
