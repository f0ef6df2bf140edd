"""Reciprocal rank fusion and the weak-retrieval signal."""

from __future__ import annotations

import pytest

from knowledge.fusion import is_weak, rrf_fuse


def test_an_item_found_by_both_searches_outranks_the_top_of_either() -> None:
    fused = rrf_fuse([["a", "shared"], ["b", "shared"]])

    assert fused[0][0] == "shared"


def test_each_list_adds_one_over_k_plus_rank() -> None:
    fused = dict(rrf_fuse([["a", "b"], ["c", "d", "b"]], k=60))

    assert fused["b"] == pytest.approx(1 / 62 + 1 / 63)
    assert fused["a"] == pytest.approx(1 / 61)


def test_scores_come_back_best_first() -> None:
    scores = [score for _, score in rrf_fuse([[1, 2, 3], [3, 2, 1], [2]])]

    assert scores == sorted(scores, reverse=True)


def test_weights_scale_each_lists_contribution() -> None:
    fused = dict(rrf_fuse([["a"], ["b"]], k=0, weights=[2.0, 0.5]))

    assert fused == {"a": 2.0, "b": 0.5}


def test_an_id_repeated_in_one_list_counts_once_at_its_best_rank() -> None:
    fused = dict(rrf_fuse([["a", "a", "b"]], k=0))

    assert fused == {"a": 1.0, "b": 0.5}


def test_ties_keep_the_order_in_which_ids_were_first_seen() -> None:
    fused = rrf_fuse([["x", "y"], ["y", "x"]])

    assert [item for item, _ in fused] == ["x", "y"]


def test_fusing_nothing_gives_nothing() -> None:
    assert rrf_fuse([]) == []
    assert rrf_fuse([[], []]) == []


def test_it_rejects_a_weight_count_that_does_not_match_the_lists() -> None:
    with pytest.raises(ValueError, match="1 weights for 2 ranked lists"):
        rrf_fuse([["a"], ["b"]], weights=[1.0])


def test_it_rejects_negative_weights() -> None:
    with pytest.raises(ValueError, match="weights must be >= 0"):
        rrf_fuse([["a"]], weights=[-1.0])


def test_it_rejects_a_negative_k() -> None:
    with pytest.raises(ValueError, match="k must be >= 0"):
        rrf_fuse([["a"]], k=-1)


def test_retrieval_is_weak_when_the_vector_search_found_nothing() -> None:
    assert is_weak(None, threshold=0.3)


def test_retrieval_is_weak_when_the_best_hit_is_beyond_the_threshold() -> None:
    assert is_weak(0.31, threshold=0.3)


def test_retrieval_is_not_weak_when_the_best_hit_is_within_the_threshold() -> None:
    assert not is_weak(0.3, threshold=0.3)
