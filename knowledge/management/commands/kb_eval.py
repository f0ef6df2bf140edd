"""`manage.py kb_eval --tenant X FILE.json [--k 5]`: retrieval quality as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import tenant_context
from tqdm import tqdm

from knowledge.embedder import get_embedder
from knowledge.evaluation import EvalError, kb_evaluate, squad_questions
from knowledge.management.commands.kb_import import tenant_by_schema


class Command(BaseCommand):
    help = (
        "Evaluate retrieval on a SQuAD-format file imported with kb_import: recall@1/5/10 "
        "(and @k) and MRR@10 for vector, full-text and hybrid, p50/p95 latency; prints JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--tenant", required=True, help="schema name of the tenant")
        parser.add_argument("--k", type=int, default=5, help="also report recall@k")
        parser.add_argument(
            "--sample", type=int, help="evaluate this many questions, spread over the file"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["k"] < 1:
            raise CommandError("--k must be at least 1")
        tenant = tenant_by_schema(options["tenant"])
        with tenant_context(tenant):
            try:
                questions = squad_questions(options["file"], sample=options["sample"])
            except EvalError as error:
                raise CommandError(str(error)) from error
            with tqdm(total=len(questions), desc="questions", file=self.stderr) as bar:
                report = kb_evaluate(
                    questions=questions,
                    embedder=get_embedder(),
                    k=options["k"],
                    progress=bar.update,
                )
        report["file"] = str(options["file"])
        report["tenant"] = tenant.schema_name
        self.stdout.write(json.dumps(report, indent=2))
