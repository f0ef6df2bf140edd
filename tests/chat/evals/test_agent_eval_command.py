"""`manage.py agent_eval`: runs and stores a case file, compares runs, refuses bad input."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup
from chat.evals.models import EvalRun
from tenants.models import Tenant
from tests.chat.evals.conftest import DECLINE_CASE, SMS_CASE

NOT_COVERED = "The knowledge base does not cover that, so I can't answer it reliably."


@pytest.fixture
def cases_file(tmp_path: Path, tenant_a: Tenant) -> Path:
    with tenant_context(tenant_a):
        group = ContactGroup.objects.create(name="Parents")
        Contact.objects.create(name="Kim Minji", phone="+12025550100").groups.add(group)
    path = tmp_path / "smoke.yaml"
    path.write_text(yaml.safe_dump({"name": "smoke", "cases": [SMS_CASE, DECLINE_CASE]}))
    return path


def agent_eval(*args: Any) -> str:
    out = StringIO()
    call_command("agent_eval", *map(str, args), stdout=out, stderr=StringIO())
    return out.getvalue()


def test_the_command_stores_a_run_and_prints_overall_english_and_korean(
    cases_file: Path, tenant_a: Tenant
) -> None:
    output = agent_eval("--tenant", "alpha", cases_file)

    assert "overall" in output and "English" in output and "Korean" in output
    with tenant_context(tenant_a):
        run = EvalRun.objects.get()
    assert run.status == EvalRun.Status.FINISHED and run.totals["cases"] == 2


def test_failing_cases_are_listed_without_failing_the_command(
    tmp_path: Path, tenant_a: Tenant
) -> None:
    impossible = {"key": "mongolia", "message": "What is the capital of Mongolia?"}
    path = tmp_path / "failing.yaml"
    path.write_text(yaml.safe_dump([{**impossible, "expect": {"tool": "send_sms"}}]))

    output = agent_eval("--tenant", "alpha", path)

    assert "FAIL mongolia [en] tool: proposed nothing, replied " in output
    assert "does not cover that" in output  # what it said instead


def test_json_output_has_totals_and_one_result_per_case(cases_file: Path) -> None:
    report = json.loads(agent_eval("--tenant", "alpha", cases_file, "--json"))

    assert [r["case"] for r in report["results"]] == ["sms-parents", "capital"]
    assert report["totals"]["by_language"]["ko"]["cases"] == 1


def test_compare_shows_both_runs_side_by_side(cases_file: Path, tenant_a: Tenant) -> None:
    agent_eval("--tenant", "alpha", cases_file)
    with tenant_context(tenant_a):
        first = EvalRun.objects.get()

    output = agent_eval("--tenant", "alpha", cases_file, "--compare", first.pk)

    assert f"run {first.pk}" in output and "2 cases:" in output
    assert any(line.startswith("capital") for line in output.splitlines())


def test_two_stored_runs_compare_without_running_again(cases_file: Path, tenant_a: Tenant) -> None:
    agent_eval("--tenant", "alpha", cases_file)
    agent_eval("--tenant", "alpha", cases_file)
    with tenant_context(tenant_a):
        ids = sorted(EvalRun.objects.values_list("pk", flat=True))

    report = json.loads(
        agent_eval("--tenant", "alpha", "--compare", ids[0], "--compare", ids[1], "--json")
    )

    assert [row["case"] for row in report["compare"]] == ["sms-parents", "capital"]
    with tenant_context(tenant_a):
        assert EvalRun.objects.count() == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tenant", "nope", "x.yaml"], "no tenant with schema 'nope'"),
        (["--tenant", "alpha", "missing.yaml"], "no such file"),
        (["--tenant", "alpha"], "give a case file"),
        (["--tenant", "alpha", "--compare", "999", "--compare", "998"], "no eval run 999"),
        (["--tenant", "alpha", "--squad", "missing.json"], "not a readable SQuAD file"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(
    tenant_a: Tenant, args: list[str], message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        agent_eval(*args)


def test_a_case_file_with_a_bad_case_names_it(tmp_path: Path, tenant_a: Tenant) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump([{"key": "k1", "message": "hi", "expect": {"tool": 3}}]))

    with pytest.raises(CommandError, match=r"case 1 \(k1\): expect.tool"):
        agent_eval("--tenant", "alpha", path)


def test_a_run_of_tenant_a_cannot_be_compared_from_tenant_b(
    cases_file: Path, tenant_a: Tenant, tenant_b: Tenant
) -> None:
    agent_eval("--tenant", "alpha", cases_file)
    with tenant_context(tenant_a):
        run_id = EvalRun.objects.get().pk

    with pytest.raises(CommandError, match=f"no eval run {run_id}"):
        agent_eval("--tenant", "beta", "--compare", run_id, "--compare", run_id)
