"""Fixtures for evaluation tests: a small case set in tenant A."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps

from chat.evals.cases import CaseSetSpec, case_set_parse
from chat.evals.models import EvalCaseSet, EvalRun
from chat.evals.services import eval_case_set_import, eval_run_create, eval_run_execute
from tenants.models import Tenant

SMS_CASE: dict[str, Any] = {
    "key": "sms-parents",
    "message": "Text the parents that school closes at 1pm",
    "expect": {
        "tool": "send_sms",
        "arguments": {"to": ["Parents"], "body": "school closes at 1pm"},
    },
}
DECLINE_CASE: dict[str, Any] = {
    "key": "capital",
    "language": "ko",
    "message": "몽골의 수도는 어디인가요?",
    "expect": {"decline": True},
}


def run_in_demo_tenant(tenant: Tenant, spec: CaseSetSpec) -> EvalRun:
    """``spec`` run through the real graph with the built-in model, in ``tenant`` seeded with the
    demo data `make run` gives (contacts, groups, documents embedded by the local e5 model), as
    `manage.py agent_eval --tenant demo` runs it. Needs committed data (``transaction=True``):
    the data questions read it through their own read-only connection."""
    for config in apps.get_app_configs():
        seed = getattr(config, "seed_demo", None)
        if seed is not None:
            seed(tenant)
    run = eval_run_create(case_set=eval_case_set_import(spec=spec))
    eval_run_execute(run_id=run.pk)
    return run


def case_set_of(*cases: dict[str, Any], name: str = "smoke") -> EvalCaseSet:
    return eval_case_set_import(
        spec=case_set_parse({"name": name, "cases": list(cases)}, default_name=name)
    )


@pytest.fixture
def smoke_set(in_tenant_a: Tenant, parents_group: object) -> EvalCaseSet:
    return case_set_of(SMS_CASE, DECLINE_CASE)
