"""Every evaluation case that ever passed still passes (issue 27: the regression set in CI).

The cases run through the real graph with the built-in model, in a tenant seeded with the demo
data `make run` gives (contacts, groups, documents embedded by the local e5 model), exactly as
`manage.py agent_eval --tenant demo --regression` runs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chat.evals.cases import CaseFileError
from chat.evals.regression import (
    EVALS,
    regression_add,
    regression_case_set,
    regression_keys,
)
from chat.evals.selectors import eval_rows
from tenants.models import Tenant
from tests.chat.evals.conftest import run_in_demo_tenant


# About 300 cases through the whole graph: a minute or two of CPU, far longer on a busy machine.
# Committed demo data: the data questions read it through their own read-only connection.
@pytest.mark.timeout(1800)
@pytest.mark.django_db(transaction=True)
def test_every_case_that_ever_passed_still_passes(in_tenant_a: Tenant) -> None:
    spec = regression_case_set()

    run = run_in_demo_tenant(in_tenant_a, spec)

    failed = [
        f"{row.key}: " + "; ".join(_failed_checks(row.checks))
        for row in eval_rows(run=run)
        if not row.passed
    ]
    assert len(spec.cases) >= 300
    assert failed == [], f"{len(failed)} regression(s):\n" + "\n".join(failed)


def _failed_checks(checks: list[dict[str, Any]]) -> list[str]:
    return [f"{check['check']} {check['detail']}" for check in checks if not check["passed"]]


def test_the_regression_set_holds_no_case_of_the_blind_test_half() -> None:
    assert "blind/test.yaml" not in regression_keys()
    assert not [name for name in regression_keys() if name.startswith("blind/fresh/")]


def test_fresh_blind_cases_never_join_even_when_they_pass(tmp_path: Path) -> None:
    fresh = EVALS / "blind" / "fresh" / "en-2026-11-26.yaml"

    added = regression_add(case_file=fresh, passed=["en-sms-001"], path=tmp_path / "r.yaml")

    assert added == []


def test_a_passing_case_joins_once_and_the_set_never_shrinks(tmp_path: Path) -> None:
    regression = tmp_path / "regression.yaml"

    first = regression_add(
        case_file=EVALS / "demo_cases.yaml", passed=["sms-en-01", "sms-en-02"], path=regression
    )
    again = regression_add(
        case_file=EVALS / "demo_cases.yaml", passed=["sms-en-02", "sms-en-03"], path=regression
    )

    assert first == ["sms-en-01", "sms-en-02"]
    assert again == ["sms-en-03"]
    assert regression_keys(path=regression) == {
        "demo_cases.yaml": ["sms-en-01", "sms-en-02", "sms-en-03"]
    }
    assert [case.key for case in regression_case_set(path=regression).cases] == [
        "demo/sms-en-01",
        "demo/sms-en-02",
        "demo/sms-en-03",
    ]


def test_the_blind_test_half_never_joins(tmp_path: Path) -> None:
    regression = tmp_path / "regression.yaml"

    added = regression_add(
        case_file=EVALS / "blind" / "test.yaml", passed=["any-key"], path=regression
    )

    assert added == []
    assert not regression.exists()


def test_a_key_that_names_no_case_is_a_clear_error(tmp_path: Path) -> None:
    regression = tmp_path / "regression.yaml"
    regression.write_text("demo_cases.yaml: [no-such-case]\n", encoding="utf-8")

    with pytest.raises(CaseFileError, match=r"demo_cases\.yaml has no case no-such-case"):
        regression_case_set(path=regression)
