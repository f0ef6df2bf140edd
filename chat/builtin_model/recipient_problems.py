"""Why a message could not be addressed, said in Korean: the built-in model answers a Korean
request in Korean, and a tool's reason ("박지우 (Park Jiwoo) has opted out of messages") would
otherwise come back in English inside a Korean sentence.

The tool reports each problem as data (``actions.selectors.Problem``: a kind, the entry or name
concerned, the channel); this module says each kind once. Sentences are built so that no
particle depends on the last syllable of a name the user typed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

_ADDRESS_NOUN: Final[dict[str, str]] = {
    "sms": "전화번호",
    "telegram": "텔레그램 채팅 ID",
    "email": "이메일 주소",
}


def _address(problem: Mapping[str, str]) -> str:
    return _ADDRESS_NOUN.get(problem.get("channel", ""), "연락처")


_SAY: Final[dict[str, Callable[[Mapping[str, str]], str]]] = {
    "empty": lambda p: "받는 사람 칸 하나가 비어 있어요.",
    "unknown": lambda p: f"'{p['subject']}' 이름의 연락처나 그룹을 찾지 못했어요.",
    "ambiguous": lambda p: (
        f"'{p['subject']}' 이름의 연락처가 여러 명이에요. {_address(p)}를 직접 적어 주세요."
    ),
    "opted_out": lambda p: f"{p['subject']} 님은 메시지 수신을 거부하셨어요.",
    "no_address": lambda p: f"{p['subject']} 님은 저장된 {_address(p)}가 없어요.",
    "owner_opted_out": lambda p: (
        f"{p['subject']} 번호(주소)의 주인인 {p['detail']} 님이 수신을 거부하셨어요."
    ),
    "bad_phone": lambda p: (
        f"'{p['subject']}' 번호로는 보낼 수 없어요. 국가번호를 붙이거나(예: +82 10-1234-5678) "
        "저장된 연락처 이름으로 적어 주세요."
    ),
    "bad_email": lambda p: f"'{p['subject']}' 주소는 올바른 이메일 주소가 아니에요.",
    "no_group": lambda p: f"'{p['subject']}' 이름의 그룹이 없어요.",
    "nobody": lambda p: (
        f"보낼 사람이 남지 않았어요 (수신 거부했거나 {_address(p)}가 없는 분: {p['subject']})."
        if p.get("subject")
        else "보낼 사람이 없어요."
    ),
    "over_limit": lambda p: (
        f"받는 사람이 {p['subject']}명이라 한 번에 보낼 수 있는 {p['detail']}명을 넘어요."
    ),
}


# Every kind of ``actions.selectors.ProblemKind`` has its sentence (a unit test checks).


def in_korean(problems: object) -> str | None:
    """The problems a tool reported, one Korean sentence each; None when there are none or one
    of them is not a problem this module knows (the caller then shows the tool's own text)."""
    if not isinstance(problems, list) or not problems:
        return None
    sentences: list[str] = []
    for problem in problems:
        say = _SAY.get(str(problem.get("kind"))) if isinstance(problem, dict) else None
        if say is None:
            return None
        sentences.append(say({key: str(value) for key, value in problem.items()}))
    return " ".join(sentences)
