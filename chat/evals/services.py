"""Writes of agent evaluations: case sets in and out of files, runs created and executed."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from langchain_core.language_models.chat_models import BaseChatModel

from chat.agent.llm import build_chat_model, model_label
from chat.evals.cases import CaseSetSpec, CaseSpec
from chat.evals.models import EvalCase, EvalCaseSet, EvalResult, EvalRun
from chat.evals.report import totals
from chat.evals.runner import case_execute
from chat.evals.selectors import eval_rows
from chat.evals.squad import squad_case_set, squad_missing_documents
from chat.models import AssistantPrompt
from core.celery import queue
from knowledge.models import Document

logger = logging.getLogger(__name__)
DEMO_CASES = Path(__file__).with_name("demo_cases.yaml")


class EvalRunNotFound(Exception):
    """No such run in this tenant (also what another tenant's run id looks like)."""


class EvalInputError(Exception):
    """A request to evaluate names something that is not there (prompt version, documents)."""


def prompt_version_get(*, version: int | None) -> AssistantPrompt | None:
    """The prompt version numbered ``version`` (None: run with the active one)."""
    if version is None:
        return None
    prompt = AssistantPrompt.objects.filter(version=version).first()
    if prompt is None:
        raise EvalInputError(f"no prompt version {version} in this tenant")
    return prompt


def squad_cases_checked(*, path: Path, limit: int | None) -> CaseSetSpec:
    """SQuAD cases whose gold paragraphs are all imported as documents of this tenant."""
    spec = squad_case_set(path, limit=limit)
    wanted = [case.expect.cites_external_id or "" for case in spec.cases]
    existing = set(
        Document.objects.filter(external_id__in=wanted).values_list("external_id", flat=True)
    )
    missing = squad_missing_documents(spec, existing)
    if missing:
        raise EvalInputError(
            f"{len(missing)} gold paragraphs are not imported (first: {missing[0]}); "
            f"run `manage.py kb_import --tenant <schema> {path}` first"
        )
    return spec


@transaction.atomic
def eval_case_set_import(*, spec: CaseSetSpec) -> EvalCaseSet:
    """Create or update the set named ``spec.name``: cases matched by key, others removed."""
    case_set, _ = EvalCaseSet.objects.update_or_create(
        name=spec.name, defaults={"description": spec.description}
    )
    for case in spec.cases:
        EvalCase.objects.update_or_create(
            case_set=case_set,
            key=case.key,
            defaults={
                "language": case.language,
                "tags": case.tags,
                "messages": case.messages,
                "expect": case.expect.model_dump(mode="json", exclude_defaults=True),
                "setup": case.setup.model_dump(mode="json", exclude_defaults=True),
            },
        )
    case_set.cases.exclude(key__in=[case.key for case in spec.cases]).delete()
    return case_set


def eval_case_set_export(*, case_set: EvalCaseSet) -> CaseSetSpec:
    """The set as a file would hold it (``case_set_dump`` writes it out)."""
    return CaseSetSpec(
        name=case_set.name,
        description=case_set.description,
        cases=[case_spec(case) for case in case_set.cases.all()],
    )


def case_spec(case: EvalCase) -> CaseSpec:
    return CaseSpec.model_validate(
        {
            "key": case.key,
            "language": case.language,
            "tags": case.tags,
            "messages": case.messages,
            "expect": case.expect,
            "setup": case.setup,
        }
    )


def eval_run_create(
    *,
    case_set: EvalCaseSet,
    prompt_version: AssistantPrompt | None = None,
    user: User | None = None,
) -> EvalRun:
    """A queued run of ``case_set`` (``prompt_version`` None: whichever is active when it runs)."""
    return EvalRun.objects.create(case_set=case_set, prompt_version=prompt_version, created_by=user)


def eval_run_enqueue(
    *,
    case_set: EvalCaseSet,
    prompt_version: AssistantPrompt | None = None,
    user: User | None = None,
) -> EvalRun:
    """Create a run and hand it to a worker once the row is committed (the task takes its id)."""
    run = eval_run_create(case_set=case_set, prompt_version=prompt_version, user=user)
    transaction.on_commit(lambda: queue("chat.run_eval", run.pk))
    return run


def eval_run_execute(
    *,
    run_id: int,
    model: BaseChatModel | None = None,
    progress: Callable[[EvalResult], object] | None = None,
) -> EvalRun:
    """Run every case of the run's set, storing each result as it comes, then the totals."""
    run = EvalRun.objects.select_related("case_set", "prompt_version").filter(pk=run_id).first()
    if run is None:
        raise EvalRunNotFound(f"no eval run {run_id}")
    _start(run, model)
    chat_model = model or build_chat_model()
    try:
        for case in run.case_set.cases.all():
            result = _store(run, case, chat_model)
            if progress is not None:
                progress(result)
    except Exception as error:
        logger.exception("eval run %s failed", run.pk)
        _finish(run, EvalRun.Status.FAILED, error=f"{error.__class__.__name__}: {error}")
        raise
    _finish(run, EvalRun.Status.FINISHED)
    return run


def _start(run: EvalRun, model: BaseChatModel | None) -> None:
    active = AssistantPrompt.objects.filter(is_active=True).first()
    prompt = run.prompt_version or active
    run.model_label = model_label() if model is None else type(model).__name__
    run.prompt_label = f"v{prompt.version}" if prompt is not None else "default"
    run.status, run.started_at = EvalRun.Status.RUNNING, timezone.now()
    run.save(update_fields=["model_label", "prompt_label", "status", "started_at"])


def _store(run: EvalRun, case: EvalCase, model: BaseChatModel) -> EvalResult:
    outcome = case_execute(case=case_spec(case), model=model, prompt=run.prompt_version)
    result, _ = EvalResult.objects.update_or_create(
        run=run,
        case=case,
        defaults={
            "passed": outcome.passed,
            "checks": [check.as_dict() for check in outcome.checks],
            "reply": outcome.reply,
            "citations": outcome.citations,
            "action": outcome.action,
            "error": outcome.error,
        },
    )
    return result


def _finish(run: EvalRun, status: str, *, error: str = "") -> None:
    run.totals = totals(eval_rows(run=run))
    run.status, run.error, run.finished_at = status, error, timezone.now()
    run.save(update_fields=["totals", "status", "error", "finished_at"])


def demo_case_set_load() -> EvalCaseSet:
    """The shipped demo set, loaded into the current tenant (the demo seed calls this)."""
    from chat.evals.cases import case_set_load

    return eval_case_set_import(spec=case_set_load(DEMO_CASES))
