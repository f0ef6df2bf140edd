"""What a message asks for, by meaning: the nearest labelled examples in the multilingual e5
embedding space, nudged by cue words. Pure: no Django; the embedding function is passed in,
and so are the write tools' words (by default, read from the registry once per classifier).

Why both: the embedding carries meaning across phrasings and languages ("shoot Tom a quick
text", "톰한테 문자 좀"), while a channel word ("telegram", "이메일") is decisive in a way a
sentence embedding blurs. Each label scores the mean similarity of its ``k`` nearest examples
plus a bonus when one of its cue words appears; the best label wins, and its margin over the
runner-up is the confidence.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

import numpy as np

from actions.tools.words import ToolWords
from chat.builtin_model.understanding.exemplars import ROUTE_EXEMPLARS

# A label is a write tool's name (the tools and their words come from the registry, see
# ``chat/builtin_model/vocabulary.py``) or one of the built-in model's own routes.
Label = str
Route = Literal["knowledge", "data", "smalltalk", "help", "cancel"]
ROUTES: tuple[Route, ...] = get_args(Route)
Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]

_I = re.IGNORECASE
ROUTE_CUES: dict[str, re.Pattern[str]] = {
    "data": re.compile(r"\bhow many\b|\bcount\b|\blist\b|몇\s*(?:명|개|건)|목록|통계", _I),
    "smalltalk": re.compile(r"^\s*(?:hi|hello|hey|thanks?|thank you|안녕|고마|감사)", _I),
    "help": re.compile(r"\bhelp\b|what can you do|도움|사용법|뭐 할 수|기능", _I),
    "cancel": re.compile(r"\bcancel\b|never\s*mind|forget it|취소|보내지 ?마", _I),
}
CUE_BONUS = 0.05


def margin(best: float, runner_up: float) -> float:
    """How clearly ``best`` leads ``runner_up``, on a 0..1 scale (a lead of 0.1 is certain)."""
    return float(min(1.0, max(0.0, (best - runner_up) * 10)))


@dataclass(frozen=True)
class Intent:
    label: Label
    confidence: float  # margin of the best label over the runner-up, 0..1
    scores: Mapping[str, float]

    def as_one(self, kin: frozenset[str]) -> Intent:
        """This reading with the labels of ``kin`` taken as one answer: when the best label is
        one of them, its margin is over the best label outside them. "hiya, what can you do for
        me?" sits between small talk and help, and either is a small-talk reply."""
        if self.label not in kin:
            return self
        others = [score for label, score in self.scores.items() if label not in kin]
        if not others:
            return self
        return replace(self, confidence=margin(self.scores[self.label], max(others)))


class IntentClassifier:
    """Embeds the examples on first use (once per process) and labels messages by them."""

    def __init__(
        self,
        embed: Embed,
        *,
        tools: Mapping[str, ToolWords] | None = None,
        exemplars: Mapping[str, Sequence[str]] | None = None,
        learned: Sequence[tuple[str, str]] = (),
        k: int = 3,
        cue_bonus: float = CUE_BONUS,
    ) -> None:
        """``tools``: the write tools' words by name (default: every registered tool's);
        ``exemplars``: the examples by label (default: the tools' own, then the routes');
        ``learned``: more (label, message) examples (``learned.py``), kept for the labels
        this classifier has (a tool that is gone leaves its learned messages unused)."""
        if tools is None:
            from chat.builtin_model.vocabulary import tool_words  # the registry: not pure

            tools = tool_words()
        self.tools: Mapping[str, ToolWords] = tools
        self.labels: tuple[Label, ...] = (*tools, *ROUTES)
        self.write_tools: frozenset[str] = frozenset(tools)
        self.cues: dict[str, re.Pattern[str]] = {
            **{name: words.cue for name, words in tools.items()},
            **ROUTE_CUES,
        }
        self._embed = embed
        declared: Mapping[str, Sequence[str]] = (
            {**{name: words.exemplars for name, words in tools.items()}, **ROUTE_EXEMPLARS}
            if exemplars is None
            else exemplars
        )
        self._exemplars: dict[str, list[str]] = {k: list(v) for k, v in declared.items()}
        for label, message in learned:
            if label in self.labels:
                self._exemplars.setdefault(label, []).append(message)
        self._k = k
        self._cue_bonus = cue_bonus
        self._lock = threading.Lock()
        self._matrix: np.ndarray | None = None
        self._rows: dict[str, np.ndarray] = {}

    def _examples(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The examples' unit vectors, and the rows of each label's (computed once)."""
        with self._lock:
            if self._matrix is None:
                pairs = [(label, t) for label, texts in self._exemplars.items() for t in texts]
                vectors = np.asarray(self._embed([text for _, text in pairs]), dtype=np.float32)
                self._matrix = _normalised(vectors)
                names = np.asarray([label for label, _ in pairs])
                self._rows = {label: np.flatnonzero(names == label) for label in self.labels}
            return self._matrix, self._rows

    def classify(self, text: str) -> Intent:
        matrix, rows = self._examples()
        query = _normalised(np.asarray(self._embed([text]), dtype=np.float32))[0]
        similarity = matrix @ query
        scores = {label: self._score(label, similarity[rows[label]], text) for label in self.labels}
        ranked = sorted(scores, key=lambda label: -scores[label])
        best, second = ranked[0], ranked[1]
        return Intent(best, margin(scores[best], scores[second]), scores)

    def _score(self, label: str, own: np.ndarray, text: str) -> float:
        """``own``: the message's similarity to each of the label's examples."""
        own = np.sort(own)[::-1]
        base = float(own[: self._k].mean()) if own.size else 0.0
        cue = self.cues.get(label)
        return base + (self._cue_bonus if cue is not None and cue.search(text) else 0.0)


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)
