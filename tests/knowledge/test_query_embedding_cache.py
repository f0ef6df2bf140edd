"""The query-embedding cache: a question asked again is not embedded again, in this process
(LRU) or any other (Redis), and a cache that is down only costs the embedding."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence

import pytest
from django.test import override_settings
from django_tenants.utils import tenant_context

from core.metrics import metrics_exposition
from knowledge.normalise import normalise_query
from knowledge.query_cache import embed_query_cached, query_embedding_cache_clear
from tenants.models import Tenant
from tests.knowledge.conftest import FakeEmbedder
from tests.metrics import moved, parse

UNREACHABLE_REDIS = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens
        "KEY_FUNCTION": "django_tenants.cache.make_key",
    }
}


class CountingEmbedder(FakeEmbedder):
    """Counts the queries it really embeds; a model name of its own keeps Redis entries of
    earlier tests (and earlier runs) out of the count."""

    def __init__(self, model_name: str) -> None:
        super().__init__(model_name=model_name)
        self.queries: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return super().embed_query(text)

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("queries only")


@pytest.fixture
def embedder() -> Iterator[CountingEmbedder]:
    query_embedding_cache_clear()
    yield CountingEmbedder(model_name=f"fake/counting:{uuid.uuid4().hex}")
    query_embedding_cache_clear()


def test_normalising_folds_width_case_and_spaces() -> None:
    full_width_leave = "\uff2c\uff45\uff41\uff56\uff45"

    assert normalise_query(f"  {full_width_leave}\tPOLICY\n for  Straße ") == (
        "leave policy for strasse"
    )


def test_a_query_asked_again_in_another_spelling_is_embedded_once(
    in_tenant_a: Tenant, embedder: CountingEmbedder
) -> None:
    first = embed_query_cached(embedder, "How many days of leave?")
    again = embed_query_cached(embedder, "  how many DAYS of leave? ")

    assert embedder.queries == ["How many days of leave?"]
    assert again == first == embedder.embed_query("How many days of leave?")


def test_another_process_gets_the_vector_from_redis_exactly(
    in_tenant_a: Tenant, embedder: CountingEmbedder
) -> None:
    computed = embed_query_cached(embedder, "parking permits")
    query_embedding_cache_clear()  # what another worker process looks like: an empty LRU
    before = parse(metrics_exposition().decode())

    from_redis = embed_query_cached(embedder, "parking permits")

    after = parse(metrics_exposition().decode())
    assert from_redis == computed
    assert embedder.queries == ["parking permits"]
    assert moved(before, after, "kb_query_embedding_cache_total", result="hit_redis") == 1


def test_another_model_never_gets_this_models_vector(
    in_tenant_a: Tenant, embedder: CountingEmbedder
) -> None:
    other = CountingEmbedder(model_name=embedder.model_name + "-v2")

    embed_query_cached(embedder, "parking permits")
    embed_query_cached(other, "parking permits")

    assert other.queries == ["parking permits"]


def test_tenant_b_embeds_what_tenant_a_asked_for_itself(
    tenant_a: Tenant, tenant_b: Tenant, embedder: CountingEmbedder
) -> None:
    with tenant_context(tenant_a):
        embed_query_cached(embedder, "parking permits")
    with tenant_context(tenant_b):
        embed_query_cached(embedder, "parking permits")

    assert embedder.queries == ["parking permits", "parking permits"]


@override_settings(CACHES=UNREACHABLE_REDIS)
def test_with_redis_down_the_vector_is_computed_and_kept_in_the_process(
    in_tenant_a: Tenant, embedder: CountingEmbedder
) -> None:
    before = parse(metrics_exposition().decode())

    first = embed_query_cached(embedder, "parking permits")
    again = embed_query_cached(embedder, "parking permits")

    after = parse(metrics_exposition().decode())
    assert first == again == embedder.embed_query("parking permits")
    assert embedder.queries[:1] == ["parking permits"] and len(embedder.queries) == 2
    assert moved(before, after, "kb_query_embedding_cache_total", result="error") == 2
    assert moved(before, after, "kb_query_embedding_cache_total", result="hit_memory") == 1


@override_settings(CACHES=UNREACHABLE_REDIS, KB_QUERY_CACHE_SIZE=1)
def test_the_process_cache_forgets_the_least_recently_used_query(
    in_tenant_a: Tenant, embedder: CountingEmbedder
) -> None:
    for query in ("parking", "leave", "parking"):
        embed_query_cached(embedder, query)

    assert embedder.queries == ["parking", "leave", "parking"]


@override_settings(KB_QUERY_CACHE_SIZE=0)
def test_a_cache_size_of_zero_embeds_every_query(
    in_tenant_a: Tenant, embedder: CountingEmbedder
) -> None:
    embed_query_cached(embedder, "parking")
    embed_query_cached(embedder, "parking")

    assert embedder.queries == ["parking", "parking"]
