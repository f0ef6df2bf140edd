"""Answer-quality mode: SQuAD questions judged on the gold answer and the gold paragraph."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django_tenants.utils import tenant_context

from knowledge.imports import squad_external_id
from knowledge.indexing import kb_reindex
from knowledge.services import document_upsert
from tenants.models import Tenant

CONTEXT = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France."
)
SQUAD = {
    "version": "v2.0",
    "data": [
        {
            "title": "Normans",
            "paragraphs": [
                {
                    "context": CONTEXT,
                    "qas": [
                        {
                            "id": "q1",
                            "question": "In what country is Normandy located?",
                            "answers": [{"text": "France", "answer_start": 0}],
                            "is_impossible": False,
                        },
                        {
                            "id": "q2",
                            "question": "Who gave their name to Italy?",
                            "answers": [],
                            "is_impossible": True,
                        },
                    ],
                }
            ],
        }
    ],
}


@pytest.fixture
def squad_file(tmp_path: Path) -> Path:
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(SQUAD), encoding="utf-8")
    return path


def agent_eval(*args: str) -> str:
    out = StringIO()
    call_command("agent_eval", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_answerable_questions_are_judged_on_answer_and_gold_paragraph(
    squad_file: Path, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a):
        document_upsert(
            external_id=squad_external_id("Normans", 0),
            title="Normans",
            text=CONTEXT,
            enqueue=False,
        )
        kb_reindex()

    report = json.loads(agent_eval("--tenant", "alpha", "--squad", str(squad_file), "--json"))

    assert [row["case"] for row in report["results"]] == ["squad-q1"]
    checks = {c["check"] for c in report["results"][0]["checks"]}
    assert {"reply contains an answer", "cites the gold passage"} <= checks
    assert set(report["answer_quality"]) == {"gold_answer_in_reply", "gold_paragraph_cited"}


def test_squad_mode_refuses_a_file_whose_paragraphs_were_not_imported(
    squad_file: Path, tenant_a: Tenant
) -> None:
    with pytest.raises(CommandError, match="1 gold paragraphs are not imported"):
        agent_eval("--tenant", "alpha", "--squad", str(squad_file))


def test_limit_needs_squad_mode(squad_file: Path, tenant_a: Tenant) -> None:
    with pytest.raises(CommandError, match="--limit is a positive number"):
        agent_eval("--tenant", "alpha", "x.yaml", "--limit", "3")
