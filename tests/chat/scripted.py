"""A scripted chat model: the one fake of the LLM seam used by agent tests.

Each call returns the next scripted reply (an AIMessage, or a function of the messages the model
was given), streamed in small chunks like a real model. It records what it was shown.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCallChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

Reply = AIMessage | Callable[[list[BaseMessage]], AIMessage]


def tool_call(name: str, **args: Any) -> AIMessage:
    return AIMessage(
        "", tool_calls=[{"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:8]}"}]
    )


class ScriptedChatModel(BaseChatModel):
    replies: list[Any]
    seconds_per_chunk: float = 0.0
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _bound: list[list[Any]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[list[BaseMessage]]:
        return self._calls

    @property
    def bound_tools(self) -> list[list[Any]]:
        """The tool specs the graph bound before each call, in order."""
        return self._bound

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        self._bound.append(list(tools))
        return self

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        self._calls.append(messages)
        if len(self._calls) > len(self.replies):
            raise AssertionError(
                f"the model was called {len(self._calls)} times; script has {len(self.replies)}"
            )
        reply = self.replies[len(self._calls) - 1]
        message = reply(messages) if callable(reply) else reply
        return AIMessage(
            message.content,
            tool_calls=message.tool_calls,
            additional_kwargs=message.additional_kwargs,
            usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._next(messages)
        if reply.tool_calls:
            chunks = [
                ToolCallChunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i)
                for i, c in enumerate(reply.tool_calls)
            ]
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="", tool_call_chunks=chunks, usage_metadata=reply.usage_metadata
                )
            )
            return
        text = str(reply.content)
        for start in range(0, len(text), 8):
            last = start + 8 >= len(text)
            piece = text[start : start + 8]
            chunk = ChatGenerationChunk(
                message=AIMessageChunk(
                    content=piece,
                    usage_metadata=reply.usage_metadata if last else None,
                    additional_kwargs=reply.additional_kwargs if last else {},
                )
            )
            time.sleep(self.seconds_per_chunk)
            if run_manager is not None:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
