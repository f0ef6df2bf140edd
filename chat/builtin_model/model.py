"""The offline model: deterministic, grounded and extractive, used when no LLM is configured.

It behaves like a tool-calling chat model so the graph cannot tell the difference:

* a request for an action ("Can you text Emma that class moved to 3pm?", "엠마에게 …라고
  전해줘") becomes a write-tool call, or one short question when a recipient, a time or the
  text is missing or unclear (``chat.builtin_model.understanding``);
* a data question of a common shape ("How many contacts do we have?", "메시지 상태별로 몇 개야?")
  becomes a ``query_data`` call with SQL compiled by ``dataqa.py``, answered with a sentence
  or a small table;
* anything else becomes a ``search_knowledge`` call with a bounded query derived from the
  message (``search_query.py``), and the passages that come back are answered extractively:
  the few sentences closest in meaning to the question, each passage cited ``[n]``, or a plain
  statement that the knowledge base does not cover it (``extractive.py``);
* after an action was executed or rejected it confirms in one sentence.

Its answer streams in small chunks, like a real model's.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
from django.conf import settings
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
from langchain_core.runnables import ensure_config

from chat.builtin_model.dataqa import DataQuestion, data_reply, plan_data_question
from chat.builtin_model.extractive import MIN_SCORE, MIN_STANDING_ACROSS, compose_answer
from chat.builtin_model.lookup import Lookup, find_lookup, lookup_reply
from chat.builtin_model.recipient_problems import in_korean
from chat.builtin_model.router import asks_nothing, help_reply, remark_by_meaning
from chat.builtin_model.search_query import derive_search_query
from chat.builtin_model.understanding.context import (
    RunRequest,
    classifier,
    run_request,
    understand_request,
)
from chat.builtin_model.understanding.questions import korean
from chat.builtin_model.vocabulary import tool_words
from chat.tools.query_data import QUERY_DATA_TOOL_NAME
from chat.tools.search_knowledge import SEARCH_TOOL_NAME
from core import clock
from knowledge.crosslingual import QuestionScale, language_of, question_scale
from knowledge.embedder import get_embedder
from knowledge.embeddings import Embedder, EmbeddingError
from tenants.selectors import tenant_zone

OFFLINE_MODEL_NAME = "offline-extractive"
NOT_COVERED = "The knowledge base does not cover that, so I can't answer it reliably."
NOT_COVERED_KO = "지식 베이스에는 그 내용이 없어서 확실하게 답할 수 없어요."
# Sentence vectors by (model, text): the same passages come back turn after turn.
_VECTORS: dict[tuple[str, str], np.ndarray] = {}
_VECTOR_CACHE_SIZE = 4096
# When retrieval itself says the best hit is far, a quote must be closer still.
_WEAK_RETRIEVAL_MARGIN = 0.02


def _last_question(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return str(message.content)
    return ""


def extractive_answer(question: str, passages: list[dict[str, Any]], *, weak: bool) -> str:
    """The sentences of the passages that answer the question, cited ``[n]``, or a refusal.

    Ranking and thresholds are in ``extractive.py``; this supplies the embedding model.
    """
    answer = compose_answer(
        derive_search_query(question),
        passages,
        similarity=_similarity,
        min_score=MIN_SCORE + (_WEAK_RETRIEVAL_MARGIN if weak else 0.0),
    )
    return answer.text or not_covered(question)


def not_covered(question: str) -> str:
    """The plain decline, in the language the question was asked in."""
    return NOT_COVERED_KO if korean(question) else NOT_COVERED


def _similarity(question: str, texts: Sequence[str]) -> list[float]:
    """Cosine similarity of each text to the question with the configured embedder, a text in
    another language than the question's put on its scale (knowledge/crosslingual.py:
    otherwise any sentence in the question's language outranks the one that answers it). A
    text in another language that does not stand ``MIN_STANDING_ACROSS`` above ordinary
    sentences of its language counts as unrelated.

    Worker threads share the cache, so each call reads it once into its own dict: a clear by
    another thread can cost a recomputation, never a missing key."""
    embedder = get_embedder()
    query = np.asarray(embedder.embed_query(question))
    scale = question_scale(embedder, question, query)
    cosines = _cosines(embedder, query, texts)
    languages = [language_of(text) for text in texts]  # once: each is read three times
    return [
        0.0 if _across(scale, language) and (standing or 0.0) < MIN_STANDING_ACROSS else similarity
        for similarity, standing, language in zip(
            scale.comparable(cosines, texts, languages),
            scale.standing(cosines, languages),
            languages,
            strict=True,
        )
    ]


def _across(scale: QuestionScale, language: str | None) -> bool:
    """Whether a text in ``language`` is in another known language than the question's."""
    return None not in (language, scale.language) and language != scale.language


def _cosines(embedder: Embedder, query: np.ndarray, texts: Sequence[str]) -> list[float]:
    keys = [(embedder.model_name, text) for text in texts]
    known = {key: vector for key in keys if (vector := _VECTORS.get(key)) is not None}
    missing = list(dict.fromkeys(key for key in keys if key not in known))
    if missing:
        vectors = embedder.embed_passages([text for _, text in missing])
        fresh = dict(zip(missing, (np.asarray(v) for v in vectors), strict=True))
        if len(_VECTORS) + len(fresh) > _VECTOR_CACHE_SIZE:
            _VECTORS.clear()
        _VECTORS.update(fresh)
        known.update(fresh)
    return [float(known[key] @ query) for key in keys]


def _data_question(text: str, request: RunRequest | None) -> DataQuestion | None:
    """The data question ``text`` compiles to, with "today" and "this week" read in the run's
    tenant time zone (the deployment's outside a run) and a group checked against the run's
    tenant's groups."""
    if request is not None:  # its directory and zone are read already
        return plan_data_question(
            text, now=clock.now(), tz=request.tz, groups=request.directory.groups
        )
    schema = ensure_config().get("configurable", {}).get("schema")
    zone = tenant_zone(schema_name=schema) if schema else ZoneInfo(settings.TIME_ZONE)
    return plan_data_question(text, now=clock.now(), tz=zone)


def _a_remark(text: str) -> bool:
    """Whether ``text`` is a remark that asks nothing (router.remark_by_meaning). Every
    question reaches here on its way to the documents: the patterns go first, so a question
    is never embedded a second time (``understand_request`` read it already)."""
    if not asks_nothing(text):
        return False
    try:
        scores = classifier().classify(text).scores
    except EmbeddingError:  # no embeddings: the documents are searched, as before
        return False
    return remark_by_meaning(text, scores=scores) is not None


def _names_a_tool(text: str) -> bool:
    return any(words.cue.search(text) for words in tool_words().values())


def _lookup(request: RunRequest | None) -> Lookup | None:
    """The question about contacts the run's request asks, read against its tenant's
    directory, or None (outside a run, or not such a question)."""
    return find_lookup(request.text, request.directory) if request is not None else None


def _confirmation(message: ToolMessage, *, ko: bool) -> str:
    """The outcome of a write tool, in the language the request was written in (the tool's
    own summary stays as the tool wrote it; so does its error, unless it is about recipients,
    which a Korean reply says in Korean)."""
    try:
        outcome = json.loads(str(message.content))
    except json.JSONDecodeError:
        return str(message.content)
    status = outcome.get("status")
    if status == "executed":
        summary = outcome.get("summary", "the action was carried out")
        return f"완료했어요: {summary}." if ko else f"Done: {summary}."
    if status == "rejected":
        if ko:
            return "알겠어요 — 그 작업은 거절되어 아무것도 하지 않았어요."
        return "Understood — that action was rejected, so nothing was done."
    if status == "invalid":
        if ko:
            why = in_korean(outcome.get("problems"))
            if why is not None:
                return f"그 작업은 준비하지 못해서 아무것도 제안하지 않았어요. {why}"
            return (
                f"그 작업은 준비하지 못해서 아무것도 제안하지 않았어요: {outcome.get('message')}."
            )
        return f"I couldn't prepare that action, so nothing was proposed: {outcome.get('message')}."
    return str(outcome.get("message") or outcome.get("summary") or message.content)


def _reply_after_tool(messages: Sequence[BaseMessage], tool: ToolMessage) -> str:
    if tool.name == SEARCH_TOOL_NAME:
        result = json.loads(str(tool.content))
        return extractive_answer(
            _last_question(messages), result.get("passages", []), weak=bool(result.get("weak"))
        )
    if tool.name == QUERY_DATA_TOOL_NAME:
        result = json.loads(str(tool.content))
        if "error" in result:
            return f"Sorry — I couldn't answer that from the data ({result['error']})."
        request = run_request(messages)  # the same reading that made the call
        lookup = _lookup(request)
        if lookup is not None:
            return lookup_reply(lookup, result)
        return data_reply(_data_question(_last_question(messages), request), result)
    return _confirmation(tool, ko=korean(_last_question(messages)))


def _tool_call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(
        "", tool_calls=[{"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}"}]
    )


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
        request = run_request(messages)
        lookup = _lookup(request) if QUERY_DATA_TOOL_NAME in self.tool_names else None
        if lookup is not None:  # "what's Emma's email?": the contacts list, before any intent
            return _tool_call(QUERY_DATA_TOOL_NAME, {"sql": lookup.sql})
        understood = understand_request(request) if request is not None else None
        if understood is not None and understood.label == "help" and _names_a_tool(text):
            # "예약 발송 같은 것도 되나요? 어떻게 쓰는 건지 알려주세요": how to use one of the
            # assistant's own tools, read by meaning where the router's patterns and margin did
            # not reach. The documents do not answer that; the list of what it does here does.
            # Without a tool's word the documents may: "How do I book a meeting room?", "What's
            # the capital of Mongolia?" and "What is a mechanism that can help plants block
            # virus replication?" all sit nearest the help examples, the last by a wide margin
            # (the word "help" is a cue).
            known = tool_words()  # once, not once per name
            tools = [name for name in self.tool_names if name in known]
            return AIMessage(help_reply("help", tools=tools, korean=korean(text)))
        if understood is not None and understood.label not in self.tool_names:
            understood = None  # a tool this run may not call
        if understood is not None and understood.tool and not understood.question:
            return _tool_call(understood.tool, understood.arguments)
        data = self._data_question(text, request)
        # "What SMS did we send today?" reads like an SMS request with no text; a message of a
        # data question's shape is a question about the data, not a request to clarify.
        if understood is not None and understood.question and data is None:
            # The readings it chooses between travel with the reply (chat/services/turns.py
            # stores them; the page shows them as buttons).
            extra = {"choices": list(understood.choices)} if understood.choices else {}
            return AIMessage(understood.question, additional_kwargs=extra)
        if data is None and _a_remark(text):
            # "quiet night tonight just me and the mop lol": nothing asked of the documents
            known = tool_words()
            tools = [name for name in self.tool_names if name in known]
            return AIMessage(help_reply("remark", tools=tools, korean=korean(text)))
        return self._read_call(text, data)

    def _data_question(self, text: str, request: RunRequest | None) -> DataQuestion | None:
        return _data_question(text, request) if QUERY_DATA_TOOL_NAME in self.tool_names else None

    def _read_call(self, text: str, data: DataQuestion | None) -> AIMessage:
        """A data question (compiled once, by the caller) goes to ``query_data``; anything else
        searches the knowledge base with a bounded query derived from the message, so no length
        can fail the tool."""
        if data is not None:
            return _tool_call(QUERY_DATA_TOOL_NAME, {"sql": data.sql})
        query = derive_search_query(text)
        if query and SEARCH_TOOL_NAME in self.tool_names:
            return _tool_call(SEARCH_TOOL_NAME, {"query": query})
        return AIMessage(not_covered(text))

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
            chunk = AIMessageChunk(
                content=piece,
                usage_metadata=usage if last else None,  # type: ignore[arg-type]
                additional_kwargs=reply.additional_kwargs if last else {},
            )
            if index and self.seconds_per_chunk:
                time.sleep(self.seconds_per_chunk)
            if run_manager is not None:
                run_manager.on_llm_new_token(piece, chunk=ChatGenerationChunk(message=chunk))
            yield ChatGenerationChunk(message=chunk)
