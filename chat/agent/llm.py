"""The one seam to the language model: ChatOpenAI when configured, the offline model otherwise."""

from __future__ import annotations

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

    return ChatOpenAI(
        base_url=settings.LLM_BASE_URL,
        api_key=SecretStr(settings.LLM_API_KEY or "not-needed"),
        model=settings.LLM_MODEL,
        temperature=settings.LLM_TEMPERATURE,
        timeout=settings.LLM_TIMEOUT_SECONDS,
        max_retries=2,
        streaming=True,
        stream_usage=True,
    )
