"""SQuAD questions as answer-quality cases: answerable ones only, spread over the file."""

from __future__ import annotations

import json
from pathlib import Path

from chat.evals.squad import squad_case_set, squad_missing_documents


def squad_file(tmp_path: Path, questions: int) -> Path:
    qas: list[dict[str, object]] = [
        {"id": f"q{n}", "question": f"Question {n}?", "answers": [{"text": f"A{n}"}]}
        for n in range(questions)
    ]
    qas.append({"id": "impossible", "question": "?", "answers": [], "is_impossible": True})
    payload = {"data": [{"title": "Some_Article", "paragraphs": [{"context": "…", "qas": qas}]}]}
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def test_each_answerable_question_expects_its_answer_and_its_paragraph(tmp_path: Path) -> None:
    spec = squad_case_set(squad_file(tmp_path, 2))

    assert [case.key for case in spec.cases] == ["squad-q0", "squad-q1"]
    assert spec.cases[0].expect.reply_contains_any == ["A0"]
    assert spec.cases[0].expect.cites_external_id == "squad:Some Article#0"


def test_a_limit_keeps_questions_spread_over_the_file(tmp_path: Path) -> None:
    spec = squad_case_set(squad_file(tmp_path, 10), limit=5)

    assert [case.key for case in spec.cases] == [f"squad-q{n}" for n in (0, 2, 4, 6, 8)]


def test_gold_paragraphs_missing_from_the_tenant_are_listed(tmp_path: Path) -> None:
    spec = squad_case_set(squad_file(tmp_path, 1))

    assert squad_missing_documents(spec, set()) == ["squad:Some Article#0"]
    assert squad_missing_documents(spec, {"squad:Some Article#0"}) == []


def test_a_question_in_korean_is_reported_as_korean(tmp_path: Path) -> None:
    path = squad_file(tmp_path, 1)
    payload = json.loads(path.read_text(encoding="utf-8"))
    payload["data"][0]["paragraphs"][0]["qas"][0]["question"] = "세종이 훈민정음을 펴낸 해는?"
    path.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")

    assert [case.language for case in squad_case_set(path).cases] == ["ko"]
