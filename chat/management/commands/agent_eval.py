"""`manage.py agent_eval --tenant T CASES [--compare RUN] [--json]`: measure the assistant.

Runs a case file (or ``--squad FILE --limit N``, or ``--blind``: both halves of the blind set)
through the configured model, stores the run in the tenant and prints the table. Failing cases
are a measurement, not an error: the exit code is non-zero only for bad input (unknown tenant,
missing or malformed file, unknown run).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import tenant_context
from tqdm import tqdm

from chat.evals.cases import CaseFileError, CaseSetSpec, case_set_load
from chat.evals.models import EvalRun
from chat.evals.regression import (
    BLIND_DEV,
    BLIND_TEST,
    blind_dev_regression_add,
    blind_half,
    regression_add,
    regression_case_set,
)
from chat.evals.report import (
    answer_quality,
    compare_table,
    failure_lines,
    gap_table,
    summary_table,
)
from chat.evals.selectors import eval_rows, eval_run_get
from chat.evals.services import (
    EvalInputError,
    eval_case_set_import,
    eval_run_create,
    eval_run_execute,
    prompt_version_get,
    squad_cases_checked,
)
from knowledge.management.commands.kb_import import tenant_by_schema


class Command(BaseCommand):
    help = (
        "Run agent evaluation cases (YAML/JSON, see docs/agent.md) or SQuAD questions through "
        "the configured model in a tenant; store the run and print the results table."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("cases", type=Path, nargs="?", help="a YAML or JSON case file")
        parser.add_argument("--tenant", required=True, help="schema name of the tenant")
        parser.add_argument("--squad", type=Path, help="answer-quality mode: a SQuAD JSON file")
        parser.add_argument("--limit", type=int, help="with --squad: this many questions")
        parser.add_argument(
            "--compare",
            action="append",
            default=[],
            metavar="RUN_ID",
            help="compare with this stored run (twice, without a file: compare two runs)",
        )
        parser.add_argument(
            "--blind",
            action="store_true",
            help="run both halves of the blind set and print the gap (test-half failures hidden)",
        )
        parser.add_argument(
            "--regression",
            action="store_true",
            help="run the regression set (every case that ever passed); exit 1 if one fails",
        )
        parser.add_argument(
            "--regression-add",
            action="store_true",
            help="add the cases this run passed to the regression set (chat/evals/regression.yaml)",
        )
        parser.add_argument("--prompt-version", type=int, help="run with this prompt version")
        parser.add_argument("--json", action="store_true", help="print JSON instead of tables")

    def handle(self, *args: Any, **options: Any) -> None:
        tenant = tenant_by_schema(options["tenant"])
        with tenant_context(tenant):
            try:
                report = self._report(options)
            except (CaseFileError, EvalInputError) as error:
                raise CommandError(str(error)) from error
        self.stdout.write(
            json.dumps(report, ensure_ascii=False, indent=2) if options["json"] else report["text"]
        )
        if options["regression"] and report["totals"]["passed"] < report["totals"]["cases"]:
            raise CommandError("a case of the regression set failed (listed above)")

    def _report(self, options: dict[str, Any]) -> dict[str, Any]:
        if options["regression"]:
            if options["cases"] or options["squad"] or options["blind"] or options["compare"]:
                raise EvalInputError("--regression runs its own cases: give no other cases")
            return _run_report(self._execute(regression_case_set(), options), squad=False)
        if options["regression_add"] and options["cases"] is None and not options["blind"]:
            raise EvalInputError("--regression-add goes with a case file or --blind")
        if options["blind"]:
            return self._blind(options)
        compared = [self._stored_run(run_id) for run_id in options["compare"]]
        spec = self._spec(options, compared)
        if spec is None:
            return _comparison(compared[0], compared[1])
        run = self._execute(spec, options)
        report = _run_report(run, squad=options["squad"] is not None)
        if options["regression_add"]:
            added = regression_add(case_file=options["cases"], passed=_passed(report))
            report["text"] += _joined(added)
        if compared:
            comparison = _comparison(compared[0], run)
            report["compare"], report["text"] = (
                comparison["compare"],
                report["text"] + "\n\n" + comparison["text"],
            )
        return report

    def _spec(self, options: dict[str, Any], compared: list[EvalRun]) -> CaseSetSpec | None:
        if options["cases"] is not None and options["squad"] is not None:
            raise EvalInputError("give a case file or --squad, not both")
        if options["limit"] is not None and (options["squad"] is None or options["limit"] < 1):
            raise EvalInputError("--limit is a positive number of questions, with --squad")
        if options["squad"] is not None:
            return squad_cases_checked(path=options["squad"], limit=options["limit"])
        if options["cases"] is not None:
            if len(compared) > 1:
                raise EvalInputError("with a case file, --compare takes one run")
            return case_set_load(options["cases"])
        if len(compared) != 2:
            raise EvalInputError("give a case file, --squad FILE, or --compare twice")
        return None

    def _blind(self, options: dict[str, Any]) -> dict[str, Any]:
        if options["cases"] is not None or options["squad"] is not None or options["compare"]:
            raise EvalInputError("--blind runs the blind set's own files: give no other cases")
        # The blind set (docs/agent.md "Blind sets"): cases by people who never read the model.
        dev = self._execute(blind_half(BLIND_DEV), options)
        test = self._execute(blind_half(BLIND_TEST), options)
        table, gaps = gap_table(dev.totals, test.totals)
        report = _run_report(dev, squad=False)
        if options["regression_add"]:  # the dev half only: see chat/evals/regression.py
            report["text"] += _joined(blind_dev_regression_add(passed=_passed(report)))
        # The test half's cases are never printed: whoever tunes the model must not learn them.
        report.update(
            test={"run": test.pk, "case_set": test.case_set.name, "totals": test.totals},
            gap=gaps,
            text="\n\n".join(
                [
                    report["text"],
                    f"run {test.pk}: {test.case_set.name} (failures not shown)",
                    summary_table(test.totals),
                    "dev - test, in points (over 5: the model fits its dev cases)",
                    table,
                ]
            ),
        )
        return report

    def _stored_run(self, run_id: str) -> EvalRun:
        run = eval_run_get(run_id=run_id)
        if run is None:
            raise EvalInputError(f"no eval run {run_id} in this tenant")
        return run

    def _execute(self, spec: CaseSetSpec, options: dict[str, Any]) -> EvalRun:
        case_set = eval_case_set_import(spec=spec)
        prompt = prompt_version_get(version=options["prompt_version"])
        run = eval_run_create(case_set=case_set, prompt_version=prompt)
        with tqdm(total=len(spec.cases), desc="cases", unit="case", file=self.stderr) as bar:
            return eval_run_execute(run_id=run.pk, progress=lambda _: bar.update())


def _passed(report: dict[str, Any]) -> list[str]:
    return [result["case"] for result in report["results"] if result["passed"]]


def _joined(added: list[str]) -> str:
    return f"\n{len(added)} case(s) joined the regression set"


def _run_report(run: EvalRun, *, squad: bool) -> dict[str, Any]:
    rows = eval_rows(run=run)
    text = [
        f"run {run.pk}: {run.case_set.name}, model {run.model_label}, prompt {run.prompt_label}",
        summary_table(run.totals),
    ]
    quality = answer_quality(rows) if squad else None
    if quality is not None:
        text.append(
            f"gold answer in reply {quality['gold_answer_in_reply']:.1%}, "
            f"gold paragraph cited {quality['gold_paragraph_cited']:.1%}"
        )
    text += failure_lines(rows)
    return {
        "run": run.pk,
        "case_set": run.case_set.name,
        "model": run.model_label,
        "prompt": run.prompt_label,
        "totals": run.totals,
        "answer_quality": quality,
        "results": [
            {"case": row.key, "language": row.language, "passed": row.passed, "checks": row.checks}
            for row in rows
        ],
        "text": "\n".join(text),
    }


def _comparison(first: EvalRun, second: EvalRun) -> dict[str, Any]:
    labels = (f"run {first.pk}", f"run {second.pk}")
    a, b = eval_rows(run=first), eval_rows(run=second)
    text = "\n".join(
        [
            f"{labels[0]}: {first.model_label}, prompt {first.prompt_label}",
            f"{labels[1]}: {second.model_label}, prompt {second.prompt_label}",
            compare_table(a, b, labels),
        ]
    )
    passed = {row.key: row.passed for row in b}
    return {
        "compare": [
            {"case": row.key, "first": row.passed, "second": passed.get(row.key)} for row in a
        ],
        "text": text,
    }
