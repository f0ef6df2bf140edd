"""The write tools the built-in model knows, with their words, read from the registry.

Every table of the built-in model that concerns a write tool (the intent labels, exemplars and
cues, the router's names and examples, the questions' nouns) is built from here, so a tool
teaches the built-in model through its own module (``words`` on its class,
``actions/tools/words.py``) and nothing here lists tools by name. Read at every call: the
registry is a short fixed table, and a test may register a tool of its own.
"""

from __future__ import annotations

from actions.tools.registry import write_tools
from actions.tools.words import Shape, ToolWords


def tool_words() -> dict[str, ToolWords]:
    """The words of every write tool that declares them, by name, in the registry's order."""
    return {tool.name: tool.words for tool in write_tools() if tool.words is not None}


def words_of(name: str | None) -> ToolWords | None:
    """The words of write tool ``name``, or None for a name the built-in model does not know."""
    return tool_words().get(name) if name else None


def shaped(shape: Shape) -> list[str]:
    """The names of the tools of ``shape`` ("message", "announcement", "reminder"), in order."""
    return [name for name, words in tool_words().items() if words.shape == shape]


def is_shaped(name: str | None, shape: Shape) -> bool:
    words = words_of(name)
    return words is not None and words.shape == shape


def own_words() -> list[str]:
    """The tools' own English words (cues and verbs), for mending a slipped letter in them."""
    return sorted({w for words in tool_words().values() for w in (*words.cues, *words.verbs)})
