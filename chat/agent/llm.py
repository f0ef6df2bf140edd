"""The one seam to the language model: ChatOpenAI when configured, the offline model otherwise."""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from langchain_core.language_models.chat_models import BaseChatModel

from chat.agent.offline import OFFLINE_MODEL_NAME, OfflineChatModel


def model_label() -> str:
    """What answers, for the UI badge: "offline" or the configured model name."""
    return settings.LLM_MODEL if settings.LLM_BASE_URL else f"offline ({OFFLINE_MODEL_NAME})"


def model_settings() -> tuple[object, ...]:
    """Everything ``build_chat_model`` reads: a model built from equal settings is the same."""
    return (
        settings.LLM_BASE_URL,
        settings.LLM_MODEL,
        settings.LLM_API_KEY,
        settings.LLM_TEMPERATURE,
        settings.LLM_TIMEOUT_SECONDS,
        settings.OFFLINE_MODEL_CHUNK_MS,
    )


def is_offline() -> bool:
    return not settings.LLM_BASE_URL


def build_chat_model() -> BaseChatModel:
    if is_offline():
        return OfflineChatModel(seconds_per_chunk=settings.OFFLINE_MODEL_CHUNK_MS / 1000)
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    api_key = settings.LLM_API_KEY or "not-needed"
    client = _dict_chunks_client_class()(
        base_url=settings.LLM_BASE_URL,
        api_key=api_key,
        timeout=settings.LLM_TIMEOUT_SECONDS,
        max_retries=2,
    )
    return ChatOpenAI(
        base_url=settings.LLM_BASE_URL,
        api_key=SecretStr(api_key),
        model=settings.LLM_MODEL,
        temperature=settings.LLM_TEMPERATURE,
        timeout=settings.LLM_TIMEOUT_SECONDS,
        max_retries=2,
        streaming=True,
        stream_usage=True,
        root_client=client,
        client=client.chat.completions,
    )


@functools.cache
def _dict_chunks_client_class() -> type[Any]:
    """``openai.OpenAI``, less one cost: a streamed chat-completion chunk is handed over as the
    JSON object it arrived as instead of being built into a ``ChatCompletionChunk``. The SDK
    builds it by reflecting over every field of every nested type, the largest single cost per
    token in the worker (docs/performance.md); ``ChatOpenAI._stream`` takes a chunk as a dict
    either way (it calls ``model_dump()`` on an object first). Only the plain streamed create
    is used here: the SDK's ``beta...stream`` helper (structured output) needs the objects."""
    import openai
    from openai.types.chat import ChatCompletionChunk

    class DictChunksOpenAI(openai.OpenAI):
        def _process_response_data(self, *, data: object, cast_to: Any, response: Any) -> Any:
            if cast_to is ChatCompletionChunk and isinstance(data, dict):
                return data
            return super()._process_response_data(data=data, cast_to=cast_to, response=response)

    return DictChunksOpenAI
