"""Fixtures for evaluation tests: a small case set in tenant A."""

from __future__ import annotations

from typing import Any

import pytest

from chat.evals.cases import case_set_parse
from chat.evals.models import EvalCaseSet
from chat.evals.services import eval_case_set_import
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


def case_set_of(*cases: dict[str, Any], name: str = "smoke") -> EvalCaseSet:
    return eval_case_set_import(
        spec=case_set_parse({"name": name, "cases": list(cases)}, default_name=name)
    )


@pytest.fixture
def smoke_set(in_tenant_a: Tenant, parents_group: object) -> EvalCaseSet:
    return case_set_of(SMS_CASE, DECLINE_CASE)
