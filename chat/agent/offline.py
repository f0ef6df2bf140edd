"""The offline model: deterministic, grounded and extractive, used when no LLM is configured.

It behaves like a tool-calling chat model so the graph cannot tell the difference:

* a request for an action ("Can you text Emma that class moved to 3pm?", "엠마에게 …라고
  전해줘") becomes a write-tool call, or one short question when a recipient, a time or the
  text is missing or unclear (``chat.agent.understanding``);
* anything else becomes a ``search_knowledge`` call, and the passages that come back are
  answered extractively: the sentences sharing most words with the question, each cited
  ``[n]``, or a plain statement that the knowledge base does not cover it;
* after an action was executed or rejected it confirms in one sentence.

Its answer streams in small chunks, like a real model's.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from chat.agent.understanding.context import understand_run

OFFLINE_MODEL_NAME = "offline-extractive"
NOT_COVERED = "The knowledge base does not cover that, so I can't answer it reliably."
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "to",
        "of",
        "in",
        "on",
        "for",
        "and",
        "or",
        "what",
        "when",
        "where",
        "who",
        "how",
        "which",
        "do",
        "does",
        "can",
        "i",
        "we",
        "you",
        "my",
        "our",
        "your",
        "it",
        "this",
        "that",
        "with",
        "at",
        "by",
        "from",
        "as",
        "about",
        "please",
        "tell",
        "me",
    ]
)


def _words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOPWORDS}


def _last_question(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return str(message.content)
    return ""


def extractive_answer(question: str, passages: list[dict[str, Any]], *, weak: bool) -> str:
    """The best-matching sentences of the passages, each followed by its ``[n]``."""
    wanted = _words(question)
    scored: list[tuple[float, int, str]] = []
    for passage in passages:
        for sentence in _SENTENCE.split(str(passage.get("text", ""))):
            sentence = sentence.strip()
            overlap = len(wanted & _words(sentence))
            if overlap and len(sentence) > 15:
                scored.append(
                    (overlap / (1 + len(_words(sentence)) ** 0.5), passage["n"], sentence)
                )
    if not scored or (weak and max(score for score, _, _ in scored) < 0.5):
        return NOT_COVERED
    best = sorted(scored, key=lambda item: -item[0])[:2]
    return " ".join(f"{sentence} [{n}]" for _, n, sentence in best)


def _confirmation(message: ToolMessage) -> str:
    try:
        outcome = json.loads(str(message.content))
    except json.JSONDecodeError:
        return str(message.content)
    status = outcome.get("status")
    if status == "executed":
        return f"Done: {outcome.get('summary', 'the action was carried out')}."
    if status == "rejected":
        return "Understood — that action was rejected, so nothing was done."
    if status == "invalid":
        return f"I couldn't prepare that action, so nothing was proposed: {outcome.get('message')}."
    return str(outcome.get("message") or outcome.get("summary") or message.content)


def _reply_after_tool(messages: Sequence[BaseMessage], tool: ToolMessage) -> str:
    if tool.name == "search_knowledge":
        result = json.loads(str(tool.content))
        return extractive_answer(
            _last_question(messages), result.get("passages", []), weak=bool(result.get("weak"))
        )
    if tool.name == "query_data":
        result = json.loads(str(tool.content))
        if "error" in result:
            return f"I couldn't query the data: {result['error']}"
        rows = result.get("rows", [])
        columns = result.get("columns", [])
        if not rows:
            return "The query returned no rows."
        lines = [" | ".join(columns)] + [" | ".join(str(v) for v in row) for row in rows[:20]]
        return "\n".join(lines)
    return _confirmation(tool)


class OfflineChatModel(BaseChatModel):
    """A deterministic tool-calling chat model (see module docstring)."""

    tool_names: list[str] = []
    chunk_chars: int = 12
    # Pause between chunks, so the answer streams like a real model's (OFFLINE_MODEL_CHUNK_MS).
    seconds_per_chunk: float = 0.0

    @property
    def _llm_type(self) -> str:
        return OFFLINE_MODEL_NAME

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> OfflineChatModel:
        names = [getattr(tool, "name", None) or tool["function"]["name"] for tool in tools]
        return self.model_copy(update={"tool_names": names})

    def _decide(self, messages: Sequence[BaseMessage]) -> AIMessage:
        last = messages[-1] if messages else HumanMessage("")
        if isinstance(last, ToolMessage):
            return AIMessage(_reply_after_tool(messages, last))
        text = str(last.content)
        understood = understand_run(messages)
        if understood is not None and understood.label in self.tool_names:
            if understood.question:
                return AIMessage(understood.question)
            if understood.tool:
                call = {
                    "name": understood.tool,
                    "args": understood.arguments,
                    "id": f"call_{uuid.uuid4().hex[:12]}",
                }
                return AIMessage("", tool_calls=[call])
        if "search_knowledge" in self.tool_names:
            call = {
                "name": "search_knowledge",
                "args": {"query": text},
                "id": f"call_{uuid.uuid4().hex[:12]}",
            }
            return AIMessage("", tool_calls=[call])
        return AIMessage(NOT_COVERED)

    @staticmethod
    def _usage(messages: Sequence[BaseMessage], reply: AIMessage) -> dict[str, int]:
        prompt = sum(len(str(m.content)) for m in messages) // 4 + 1
        output = len(str(reply.content)) // 4 + (10 if reply.tool_calls else 0)
        return {"input_tokens": prompt, "output_tokens": output, "total_tokens": prompt + output}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._decide(messages)
        reply.usage_metadata = self._usage(messages, reply)  # type: ignore[assignment]
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._decide(messages)
        usage = self._usage(messages, reply)
        if reply.tool_calls:
            call = reply.tool_calls[0]
            chunk = AIMessageChunk(
                content="",
                tool_call_chunks=[
                    {
                        "name": call["name"],
                        "args": json.dumps(call["args"]),
                        "id": call["id"],
                        "index": 0,
                    }
                ],
                usage_metadata=usage,  # type: ignore[arg-type]
            )
            yield ChatGenerationChunk(message=chunk)
            return
        text = str(reply.content)
        pieces = [text[i : i + self.chunk_chars] for i in range(0, len(text), self.chunk_chars)]
        for index, piece in enumerate(pieces):
            last = index == len(pieces) - 1
            chunk = AIMessageChunk(content=piece, usage_metadata=usage if last else None)  # type: ignore[arg-type]
            if index and self.seconds_per_chunk:
                time.sleep(self.seconds_per_chunk)
            if run_manager is not None:
                run_manager.on_llm_new_token(piece, chunk=ChatGenerationChunk(message=chunk))
            yield ChatGenerationChunk(message=chunk)
