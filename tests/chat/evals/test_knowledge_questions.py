"""Natural knowledge questions over the demo documents (issue 27, acceptance 3).

The questions were written blind, from the five demo documents only
(`chat/evals/blind/kb_questions.yaml`, branch `blindset`): half in Korean, a third asking in one
language about a document written in another, some about things the documents never say. They
run through the real graph with the built-in model, in a tenant holding the demo documents
embedded by the local e5 model, as `manage.py agent_eval --tenant demo
chat/evals/blind/kb_questions.yaml` runs them. A cited wrong fact is worse than a decline, so
the two shares are held apart: right fact with the right citation ≥ 85% of the answerable
questions, a reply that cites anything while failing its case ≤ 3% of all questions.
"""

from __future__ import annotations

import pytest

from chat.evals.cases import case_set_load
from chat.evals.models import EvalResult
from chat.evals.regression import EVALS
from tenants.models import Tenant
from tests.chat.evals.conftest import run_in_demo_tenant

QUESTIONS = EVALS / "blind" / "kb_questions.yaml"


def test_the_question_set_is_natural_bilingual_and_crosses_languages() -> None:
    cases = case_set_load(QUESTIONS).cases

    korean = [case for case in cases if case.language == "ko"]
    crossing = [case for case in cases if "cross-lingual" in case.tags]
    assert len(cases) >= 40
    assert len(korean) >= len(cases) / 2 - 1
    assert len(crossing) >= len(cases) / 3 - 1


# About 80 turns through the whole graph: a minute of CPU, far longer on a busy machine.
# Not met yet (agent_eval without the answer cache, 2026-11-26): strict, so the day it
# passes CI says so.
@pytest.mark.xfail(
    strict=True, reason="issue 27 acceptance 3 open: about 48% right, 18% cited wrong today"
)
@pytest.mark.timeout(1800)
@pytest.mark.django_db(transaction=True)
def test_knowledge_questions_get_the_right_fact_cited_and_almost_never_a_cited_wrong_one(
    in_tenant_a: Tenant,
) -> None:
    run = run_in_demo_tenant(in_tenant_a, case_set_load(QUESTIONS))

    results = list(EvalResult.objects.filter(run=run).select_related("case"))
    answerable = [r for r in results if not r.case.expect.get("decline")]
    right = [r for r in answerable if r.passed]
    cited_wrong = [r for r in results if r.citations and not r.passed]
    failures = "\n".join(f"{r.case.key}: {r.reply[:160]}" for r in results if not r.passed)
    assert len(right) >= 0.85 * len(answerable), f"{len(right)}/{len(answerable)}:\n{failures}"
    assert len(cited_wrong) <= 0.03 * len(results), f"{len(cited_wrong)} cited:\n{failures}"
