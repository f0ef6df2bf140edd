"""Reads of agent evaluations: a run's rows for reports, and a run looked up by id."""

from __future__ import annotations

from chat.evals.cases import Expect
from chat.evals.checks import asked_instead
from chat.evals.models import EvalResult, EvalRun
from chat.evals.report import Row


def eval_rows(*, run: EvalRun) -> list[Row]:
    """The run's results in case order, as the report module takes them."""
    return [
        Row(
            key=result.case.key,
            language=result.case.language,
            passed=result.passed,
            checks=result.checks,
            error=result.error,
            asked=_asked(result),
        )
        for result in run.results.select_related("case").order_by("case_id")
    ]


def _asked(result: EvalResult) -> bool:
    """Whether the case wanted an action and got a question instead (stored results carry the
    reply, the citations and the proposed action, so this is read back, not stored twice)."""
    return asked_instead(
        Expect.model_validate(result.case.expect),
        reply=result.reply,
        proposed=bool(result.action),
        cited=bool(result.citations),
        error=result.error,
    )


def eval_run_get(*, run_id: int | str) -> EvalRun | None:
    """The run with that id in the current tenant, or None (a bad id looks like a missing one)."""
    try:
        return EvalRun.objects.select_related("case_set").filter(pk=int(run_id)).first()
    except (TypeError, ValueError):
        return None
