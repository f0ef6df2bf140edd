"""One intent classifier on the real multilingual e5 model for the whole unit session: its
examples are embedded once, as in a running process."""

from __future__ import annotations

import pytest

from chat.builtin_model.understanding.intent import IntentClassifier
from knowledge.embeddings import LocalE5Embedder


@pytest.fixture(scope="session")
def classifier() -> IntentClassifier:
    return IntentClassifier(LocalE5Embedder().embed_passages)
