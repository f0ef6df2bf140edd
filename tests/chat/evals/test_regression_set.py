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
    blind_dev_regression_add,
    blind_half,
    blind_half_files,
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
    assert blind_half_files("blind/test/")  # the test half is there to be held out
    assert not [name for name in regression_keys() if name.startswith("blind/test/")]
    assert not [name for name in regression_keys() if name.startswith("blind/fresh/")]


def test_fresh_blind_cases_never_join_even_when_they_pass(tmp_path: Path) -> None:
    fresh = EVALS / "blind" / "fresh" / "next.yaml"  # whatever file waits there

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

    test_half = blind_half_files("blind/test/")

    added = [
        regression_add(case_file=path, passed=["any-key"], path=regression) for path in test_half
    ]

    assert added == [[] for _ in test_half]
    assert not regression.exists()


def test_a_dev_half_run_sends_each_passing_case_back_to_its_own_file(tmp_path: Path) -> None:
    regression = tmp_path / "regression.yaml"
    first_of_each: dict[str, str] = {}
    for case in blind_half("blind/dev/").cases:
        first_of_each.setdefault(case.key.split("/")[0], case.key)
    passed = list(first_of_each.values())

    added = blind_dev_regression_add(passed=passed, path=regression)

    assert added == passed
    assert len(passed) == len(blind_half_files("blind/dev/")) >= 2  # several files, one run
    files = {name: keys for name, keys in regression_keys(path=regression).items()}
    assert sorted(files) == [f"blind/dev/{path.name}" for path in blind_half_files("blind/dev/")]
    assert [case.key for case in regression_case_set(path=regression).cases] == passed


def test_the_blind_halves_hold_every_case_file_of_their_folders() -> None:
    dev, test = blind_half("blind/dev/"), blind_half("blind/test/")

    assert len(dev.cases) >= 300 and len(test.cases) >= 150
    assert {case.language for case in test.cases} == {"en", "ko"}
    assert not {case.key for case in dev.cases} & {case.key for case in test.cases}


def test_a_key_that_names_no_case_is_a_clear_error(tmp_path: Path) -> None:
    regression = tmp_path / "regression.yaml"
    regression.write_text("demo_cases.yaml: [no-such-case]\n", encoding="utf-8")

    with pytest.raises(CaseFileError, match=r"demo_cases\.yaml has no case no-such-case"):
        regression_case_set(path=regression)
