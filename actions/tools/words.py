"""A write tool's words: how people ask for it and how the product names it back, in English
and Korean. Pure: no Django.

Each write tool declares its ``ToolWords`` on its class (``words``), next to its schema, so a
tool carries everything the built-in model (``chat/builtin_model/``) learns it from: the
intent layer's exemplars and cue pattern, the router's cue words and examples, the nouns of the
questions it asks, and the phrase the fixed outcome replies name a request by. Nothing else
lists tools by name; adding a tool with its words teaches the built-in model that tool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

# Which slots the built-in model fills for the tool, and how its arguments are built:
# "message": recipients ("to") and a text ("body"), plus a subject line when ``subject``;
# "announcement": a title, a text and an optional audience group;
# "reminder": a time ("due_at") and a message tool's call to make then.
Shape = Literal["message", "announcement", "reminder"]


@dataclass(frozen=True)
class ToolWords:
    """How people name a write tool, and how the product names it back."""

    label: str  # plural, for sentences: "SMS messages are turned off for this organisation."
    label_ko: str  # "이 조직에서는 문자(SMS) 기능이 꺼져 있어요."
    one: str  # one of them: "Who should get this SMS?", "There is no pending SMS …"
    one_ko: str  # "문자를 누구에게 보낼까요?"
    request: str  # outcome replies: "The request to {request} to Emma Wilson was approved …";
    # may name an argument, "publish the announcement '{title}'"
    example: str  # a request shown by "what can you do?"
    example_ko: str
    cue: re.Pattern[str]  # a word that names the tool: a bonus to its intent score
    cues: tuple[str, ...]  # the router's cue words (EN whole words, KO stems)
    exemplars: tuple[str, ...]  # example requests, English and Korean: the intent layer's memory
    shape: Shape
    verbs: tuple[str, ...] = ()  # verbs that are the tool's own name: "text Emma …"
    channel: str | None = None  # "message": the contact address it sends to (sms, email, …)
    subject: bool = False  # "message": it has a subject line
    precedence: int = 0  # "message": when several tools' cues name the channel, the highest
    # wins ("text them on Telegram" is a Telegram message)
