"""Answer quality of the offline model on a SQuAD-format file: before and after, one run.

    .venv/bin/python bench/answer_quality.py [--file PATH] [--answerable 150] [--unanswerable 50]

Imports every paragraph of the file into the tenant ``answers`` (a document per paragraph,
titled by article, as ``kb_import`` does; unchanged paragraphs are skipped on later runs, so
only the first run pays for embedding), then, for an evenly spread sample of questions, runs
the search the offline model runs (``kb_search`` with the query it derives, k=5) and answers
from the same passages twice:

* ``before``: the first offline model's ``extractive_answer`` (word overlap, lines split at
  every newline), copied below as it was at commit c44cbe4;
* ``after``: ``chat.builtin_model.model.extractive_answer`` (whole sentences ranked by e5
  similarity + overlap + retrieval rank, a threshold, refusal).

Reported per method, over answerable questions: the share of replies containing a gold answer
(SQuAD normalisation: lower case, no punctuation or articles), the share citing the gold
paragraph, the share declined, the share of non-declined replies ending on a sentence
boundary; over unanswerable questions (SQuAD 2.0 "impossible"): the share declined. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import re
import string
import time
from pathlib import Path
from typing import Any

from _kb import bench_tenant, emit, setup_django

# The data sets sit next to the checkout (../shared), or next to the worktrees' folder.
_DATASET = Path("shared") / "datasets" / "squad2" / "dev-v2.0.json"
DEFAULT_FILE = next(
    (
        folder / _DATASET
        for folder in Path(__file__).resolve().parents[1:4]
        if (folder / _DATASET).is_file()
    ),
    _DATASET,
)
_CITATION = re.compile(r"\[(\d+)\]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--answerable", type=int, default=150)
    parser.add_argument("--unanswerable", type=int, default=50)
    args = parser.parse_args()
    setup_django()
    from django_tenants.utils import tenant_context

    with tenant_context(bench_tenant("answers")):
        imported = _import(args.file)
        questions = _sample(args.file, args.answerable, args.unanswerable)
        emit(
            {
                "benchmark": "answer_quality",
                "file": str(args.file),
                "paragraphs": imported["paragraphs"],
                "import_and_embed_s": imported["seconds"],
                **_evaluate(questions),
            }
        )


def _import(path: Path) -> dict[str, Any]:
    from knowledge.imports import squad_paragraphs
    from knowledge.indexing import kb_reindex
    from knowledge.services import document_upsert

    started = time.perf_counter()
    paragraphs = list(squad_paragraphs(path))
    for paragraph in paragraphs:
        document_upsert(
            external_id=paragraph.external_id,
            title=paragraph.title,
            text=paragraph.text,
            tags=[],
            enqueue=False,
        )
    kb_reindex()
    return {"paragraphs": len(paragraphs), "seconds": round(time.perf_counter() - started, 1)}


def _sample(path: Path, answerable: int, unanswerable: int) -> list[dict[str, Any]]:
    """Questions evenly spread over the file, with their gold paragraph and answers."""
    from knowledge.imports import squad_external_id
    from knowledge.models import Document

    ids = dict(Document.objects.values_list("external_id", "pk"))
    found: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    for article in json.loads(path.read_text(encoding="utf-8"))["data"]:
        title = str(article["title"]).replace("_", " ")
        for index, paragraph in enumerate(article["paragraphs"]):
            for qa in paragraph["qas"]:
                possible = not qa.get("is_impossible", False)
                found[possible].append(
                    {
                        "question": qa["question"],
                        "gold": ids[squad_external_id(title, index)],
                        "answers": [a["text"] for a in qa.get("answers", [])],
                        "answerable": possible,
                    }
                )
    return _spread(found[True], answerable) + _spread(found[False], unanswerable)


def _spread(items: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    if count >= len(items):
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def _evaluate(questions: list[dict[str, Any]]) -> dict[str, Any]:
    from chat.builtin_model.model import NOT_COVERED, NOT_COVERED_KO, extractive_answer
    from chat.builtin_model.search_query import derive_search_query
    from knowledge.selectors import kb_search

    methods = {"before": baseline_answer, "after": extractive_answer}
    outcomes: dict[str, list[dict[str, Any]]] = {name: [] for name in methods}
    seconds = dict.fromkeys(methods, 0.0)
    started = time.perf_counter()
    for item in questions:
        result = kb_search(query=derive_search_query(item["question"]), k=5)
        passages = [
            {"n": i, "title": h.document_title, "text": h.text}
            for i, h in enumerate(result.hits, 1)
        ]
        documents = {i: h.document_id for i, h in enumerate(result.hits, 1)}
        for name, answer in methods.items():
            began = time.perf_counter()
            reply = answer(item["question"], passages, weak=result.weak)
            seconds[name] += time.perf_counter() - began
            declined = reply in (NOT_COVERED, NOT_COVERED_KO)
            outcomes[name].append(_judge(item, reply, documents, declined=declined))
    report = {name: _summary(rows, seconds[name]) for name, rows in outcomes.items()}
    return {
        "questions": {
            "answerable": sum(q["answerable"] for q in questions),
            "unanswerable": sum(not q["answerable"] for q in questions),
        },
        "total_s": round(time.perf_counter() - started, 1),
        **report,
    }


def _judge(
    item: dict[str, Any], reply: str, documents: dict[int, int], *, declined: bool
) -> dict[str, Any]:
    from chat.builtin_model.sentences import is_terminated

    cited = {documents.get(int(n)) for n in _CITATION.findall(reply)}
    quote = _CITATION.sub("", reply).strip()
    text = _normalise(reply)
    return {
        "answerable": item["answerable"],
        "declined": declined,
        "contains_gold": any(_normalise(a) and _normalise(a) in text for a in item["answers"]),
        "cites_gold": item["gold"] in cited,
        "ends_on_sentence": declined or is_terminated(quote),
    }


def _summary(rows: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    answerable = [r for r in rows if r["answerable"]]
    impossible = [r for r in rows if not r["answerable"]]
    replied = [r for r in rows if not r["declined"]]

    def share(part: list[dict[str, Any]], key: str) -> float | None:
        return round(sum(r[key] for r in part) / len(part), 3) if part else None

    return {
        "answerable_contains_gold_answer": share(answerable, "contains_gold"),
        "answerable_cites_gold_paragraph": share(answerable, "cites_gold"),
        "answerable_declined": share(answerable, "declined"),
        "unanswerable_declined": share(impossible, "declined"),
        "replies_ending_on_a_sentence_boundary": share(replied, "ends_on_sentence"),
        "mean_answer_ms": round(1000 * seconds / max(len(rows), 1), 1),
    }


def _normalise(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


# -- the first offline model's answer, unchanged (commit c44cbe4), for the "before" column ----

_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "to",
        "of",
        "in",
        "on",
        "for",
        "and",
        "or",
        "what",
        "when",
        "where",
        "who",
        "how",
        "which",
        "do",
        "does",
        "can",
        "i",
        "we",
        "you",
        "my",
        "our",
        "your",
        "it",
        "this",
        "that",
        "with",
        "at",
        "by",
        "from",
        "as",
        "about",
        "please",
        "tell",
        "me",
    ]
)


def _words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOPWORDS}


def baseline_answer(question: str, passages: list[dict[str, Any]], *, weak: bool) -> str:
    from chat.builtin_model.model import NOT_COVERED

    wanted = _words(question)
    scored: list[tuple[float, int, str]] = []
    for passage in passages:
        for sentence in _SENTENCE.split(str(passage.get("text", ""))):
            sentence = sentence.strip()
            overlap = len(wanted & _words(sentence))
            if overlap and len(sentence) > 15:
                scored.append(
                    (overlap / (1 + len(_words(sentence)) ** 0.5), passage["n"], sentence)
                )
    if not scored or (weak and max(score for score, _, _ in scored) < 0.5):
        return NOT_COVERED
    best = sorted(scored, key=lambda item: -item[0])[:2]
    return " ".join(f"{sentence} [{n}]" for _, n, sentence in best)


if __name__ == "__main__":
    main()
