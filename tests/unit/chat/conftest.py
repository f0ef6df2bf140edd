"""One intent classifier on the real multilingual e5 model for the whole unit session, built
as a running process builds it (the tools' and routes' examples, and the learned ones with
their stored vectors): its examples are embedded once."""

from __future__ import annotations

import pytest

from chat.builtin_model.understanding.intent import IntentClassifier
from chat.builtin_model.understanding.learned import learned_examples, with_stored
from knowledge.embeddings import LocalE5Embedder


@pytest.fixture(scope="session")
def classifier() -> IntentClassifier:
    embedder, learned = LocalE5Embedder(), learned_examples()
    return IntentClassifier(
        with_stored(embedder.embed_passages, learned.stored(embedder.model_name)),
        learned=learned.examples,
    )
