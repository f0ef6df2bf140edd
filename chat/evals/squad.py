"""Answer-quality cases from a SQuAD-format file (no Django).

Each answerable question becomes a case: the reply must contain one of its gold answers and
cite the paragraph it was asked about, which ``kb_import`` stored as document
``squad:<article>#<n>``. Unanswerable questions are left out: they have no gold answer.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from chat.evals.cases import CaseFileError, CaseSetSpec, case_set_parse
from knowledge.imports import squad_external_id

# A question in Hangul is reported as Korean (ko-squad-blind-v1 is one file of them).
_HANGUL = re.compile(r"[가-힣]")


def squad_case_set(path: Path, *, limit: int | None = None) -> CaseSetSpec:
    """``limit`` answerable questions spread evenly over the file (all when None)."""
    try:
        payload: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        cases = list(_cases(payload))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CaseFileError(f"{path}: not a readable SQuAD file: {error}") from None
    if limit is not None and limit < len(cases):
        step = len(cases) / limit
        cases = [cases[int(index * step)] for index in range(limit)]
    return case_set_parse({"name": f"squad: {path.name}", "cases": cases}, default_name=path.name)


def _cases(payload: dict[str, Any]) -> list[dict[str, Any]]:
    cases = []
    for article in payload["data"]:
        title = str(article["title"]).replace("_", " ")
        for index, paragraph in enumerate(article["paragraphs"]):
            for qa in paragraph["qas"]:
                answers = sorted({answer["text"] for answer in qa.get("answers", [])})
                if qa.get("is_impossible") or not answers:
                    continue
                cases.append(
                    {
                        "key": f"squad-{qa['id']}",
                        "language": "ko" if _HANGUL.search(qa["question"]) else "en",
                        "tags": ["squad", title],
                        "message": qa["question"],
                        "expect": {
                            "reply_contains_any": answers,
                            "cites_external_id": squad_external_id(title, index),
                        },
                    }
                )
    return cases


def squad_missing_documents(spec: CaseSetSpec, existing: set[str]) -> list[str]:
    """Gold paragraphs of ``spec`` that are not among the tenant's document ids ``existing``."""
    wanted = {case.expect.cites_external_id for case in spec.cases}
    return sorted(
        external_id for external_id in wanted if external_id and external_id not in existing
    )
