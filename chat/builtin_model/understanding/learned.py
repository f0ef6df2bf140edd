"""Examples the intent layer learned from people: the messages of the blind set's dev half,
labelled with what their writers expected (a tool, or one of the routes), kept beside the
examples each tool declares and the routes' own (``exemplars.py``).

Why: exemplars written for this layer say a request the way its authors would. The dev half's
writers never read the model, and their 1,300-odd messages say the same requests the way staff
do (long, polite, hurried, half Korean). As more neighbours for the nearest-example vote they
moved the never-read test half and the fresh set by one to four points of tool or route, where
rules tuned on the same cases had moved them by none (docs/agent.md, session 29).

The file is written by ``manage.py learn_examples`` (never by hand) from ``chat/evals/blind/dev/``
only: the test half and the fresh cases are never learned. Embedding 1,300 messages costs about
40 seconds on two cores, so the same command stores their vectors for the bundled e5 model;
another embedding model embeds them itself, once per process.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import numpy as np

DATA: Final = Path(__file__).resolve().parent.parent / "data"
EXAMPLES_FILE: Final = DATA / "learned_examples.json"
VECTORS_FILE: Final = DATA / "learned_examples.npy"

Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]


@dataclass(frozen=True)
class Learned:
    examples: tuple[tuple[str, str], ...] = ()  # (label, message)
    model: str = ""  # the embedding model the stored vectors come from
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))

    def stored(self, model_name: str) -> Mapping[str, np.ndarray]:
        """Each example's stored vector, when they come from ``model_name``; else nothing."""
        if model_name != self.model or len(self.vectors) != len(self.examples):
            return {}
        return {text: self.vectors[row] for row, (_, text) in enumerate(self.examples)}


@functools.cache
def learned_examples() -> Learned:
    """The learned examples and their stored vectors (none, if the files are absent)."""
    if not EXAMPLES_FILE.is_file():
        return Learned()
    data = json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))
    examples = tuple((str(row["label"]), str(row["text"])) for row in data["examples"])
    vectors = np.load(VECTORS_FILE).astype(np.float32) if VECTORS_FILE.is_file() else None
    if vectors is None:
        return Learned(examples)
    return Learned(examples, str(data.get("model", "")), vectors)


def with_stored(embed: Embed, stored: Mapping[str, np.ndarray]) -> Embed:
    """``embed``, except that a text with a stored vector is not embedded again."""
    if not stored:
        return embed

    def embed_the_rest(texts: Sequence[str]) -> list[list[float]]:
        missing = [text for text in texts if text not in stored]
        fresh = dict(zip(missing, embed(missing), strict=True)) if missing else {}
        return [stored[text].tolist() if text in stored else list(fresh[text]) for text in texts]

    return embed_the_rest


def write_learned(examples: Sequence[tuple[str, str]], *, model: str, vectors: np.ndarray) -> None:
    """Store ``examples`` and their vectors (float16: a megabyte, and the vote is unchanged)."""
    DATA.mkdir(parents=True, exist_ok=True)
    rows = [{"label": label, "text": text} for label, text in examples]
    EXAMPLES_FILE.write_text(
        json.dumps({"model": model, "examples": rows}, ensure_ascii=False, indent=0) + "\n",
        encoding="utf-8",
    )
    np.save(VECTORS_FILE, np.asarray(vectors, dtype=np.float16))
    learned_examples.cache_clear()
