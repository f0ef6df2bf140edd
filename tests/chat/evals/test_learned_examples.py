"""The built-in model learns from the blind set's dev half, and from nothing held out."""

from __future__ import annotations

import numpy as np

from chat.builtin_model.understanding.learned import learned_examples
from chat.evals.cases import case_set_load
from chat.evals.learning import dev_half_examples
from chat.evals.regression import HELD_OUT, blind_half_files
from knowledge.embeddings import LocalE5Embedder


def test_the_stored_examples_are_the_dev_halfs_labelled_messages() -> None:
    stored = learned_examples().examples

    # When this fails, a case file joined or changed in blind/dev/: run `manage.py learn_examples`.
    assert list(stored) == dev_half_examples()


def test_no_held_out_message_is_ever_learned() -> None:
    learned = {text for _, text in learned_examples().examples}
    held_out = [
        message
        for folder in HELD_OUT
        for path in blind_half_files(folder)
        for case in case_set_load(path).cases
        for message in case.messages
    ]

    # Counted, never listed: a failure must not print the held-out cases.
    leaked, checked = sum(message in learned for message in held_out), len(held_out)
    assert checked >= 150  # the test half at least (the fresh folder may be empty)
    assert leaked == 0


def test_the_stored_vectors_are_the_bundled_models_vectors_of_those_messages() -> None:
    learned, embedder = learned_examples(), LocalE5Embedder()
    stored = learned.stored(embedder.model_name)
    sample = [text for _, text in learned.examples[:: max(1, len(learned.examples) // 6)]]

    fresh = np.asarray(embedder.embed_passages(sample))

    assert len(stored) == len(learned.examples) > 1000
    for text, vector in zip(sample, fresh, strict=True):
        assert float(np.dot(stored[text], vector)) > 0.999


def test_another_embedding_model_gets_no_stored_vectors() -> None:
    assert learned_examples().stored("text-embedding-3-small") == {}
