"""Learned examples join the intent vote as neighbours; stored vectors spare the embedding."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chat.builtin_model.understanding.intent import IntentClassifier
from chat.builtin_model.understanding.learned import with_stored

# A toy space: a message is a point on a circle, named by its angle in degrees.
DECLARED = {"knowledge": ["90"], "data": ["180"]}


def _embed(texts: Sequence[str]) -> list[list[float]]:
    angles = [np.radians(float(text.split()[0])) for text in texts]
    return [[float(np.cos(a)), float(np.sin(a))] for a in angles]


def _classifier(learned: Sequence[tuple[str, str]] = ()) -> IntentClassifier:
    return IntentClassifier(_embed, tools={}, exemplars=DECLARED, learned=learned, k=1)


def test_a_learned_example_can_carry_a_message_its_label_declared_nothing_near() -> None:
    assert _classifier().classify("60").label == "knowledge"
    learned = [("cancel", "55 never mind, don't send it")]

    assert _classifier(learned).classify("60").label == "cancel"


def test_a_learned_example_of_a_label_the_classifier_lacks_is_left_out() -> None:
    classifier = _classifier([("book_a_room", "60 book the hall")])

    assert classifier.classify("60").label == "knowledge"


def test_a_stored_vector_is_used_and_only_the_rest_is_embedded() -> None:
    asked: list[str] = []

    def embed(texts: Sequence[str]) -> list[list[float]]:
        asked.extend(texts)
        return _embed(texts)

    embed_some = with_stored(embed, {"stored": np.array([1.0, 0.0], dtype=np.float32)})

    assert embed_some(["stored", "90", "180"]) == [[1.0, 0.0], *_embed(["90", "180"])]
    assert asked == ["90", "180"]


def test_without_stored_vectors_the_embedder_is_used_as_it_is() -> None:
    assert with_stored(_embed, {}) is _embed
