"""Reading importable sources: a folder of files, or a SQuAD-format JSON file.

Used by ``manage.py kb_import`` and ``kb_eval`` (which needs the same document ids the import
gave each SQuAD paragraph).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge.ingest.parsers import SUPPORTED_EXTENSIONS


@dataclass(frozen=True)
class SquadParagraph:
    external_id: str
    title: str
    text: str
    questions: list[str]


def squad_external_id(article: str, index: int) -> str:
    """The document id of the ``index``-th paragraph of a SQuAD article."""
    return f"squad:{article}#{index}"


def squad_paragraphs(path: Path) -> Iterator[SquadParagraph]:
    """Every paragraph of a SQuAD v1/v2 file with its questions (answerable or not)."""
    payload: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for article in payload["data"]:
        title = str(article["title"]).replace("_", " ")
        for index, paragraph in enumerate(article["paragraphs"]):
            yield SquadParagraph(
                external_id=squad_external_id(title, index),
                title=title,
                text=paragraph["context"],
                questions=[qa["question"] for qa in paragraph["qas"]],
            )


def is_squad_file(path: Path) -> bool:
    if path.suffix.lower() != ".json" or not path.is_file():
        return False
    with path.open(encoding="utf-8") as handle:
        head = handle.read(4096)
    return '"data"' in head


def folder_files(path: Path) -> list[Path]:
    """Supported files under ``path``, recursively, in a stable order."""
    return sorted(
        file
        for file in path.rglob("*")
        if file.is_file() and file.suffix.lower() in SUPPORTED_EXTENSIONS
    )
