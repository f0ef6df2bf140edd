"""The short questions and sentences the layer says back, in the language of the request;
a tool is named by its own words (``ToolWords.one`` / ``one_ko``)."""

from __future__ import annotations

import re

from actions.tools.words import ToolWords

_HANGUL = re.compile(r"[가-힣]")


def korean(text: str) -> bool:
    return bool(_HANGUL.search(text))


def noun(words: ToolWords | None, ko: bool) -> str:
    """What the tool makes, in the request's language: its words' ``one`` / ``one_ko``."""
    if words is None:
        return "메시지" if ko else "message"
    return words.one_ko if ko else words.one


def _object(word: str) -> str:
    """The word with its object particle: 을 after a final consonant, 를 after a vowel."""
    code = ord(word[-1]) - 0xAC00
    has_final = 0 <= code < 11172 and code % 28 != 0
    return word + ("을" if has_final else "를")


def who(words: ToolWords | None, ko: bool) -> str:
    if ko:
        return f"{_object(noun(words, ko))} 누구에게 보낼까요?"
    return f"Who should get this {noun(words, ko)}?"


def unknown(named: list[str], words: ToolWords | None, ko: bool) -> str:
    """Nobody has the name(s) the request gave: say so, and ask who it is for."""
    if ko:
        listed = ", ".join(f"'{name}'" for name in named)
        return f"{listed}(이)라는 연락처나 그룹이 없어요. {who(words, ko)}"
    listed = " or ".join(f"“{name}”" for name in named)
    return f"I don't know anyone called {listed}. {who(words, ko)}"


def which_one(described: list[str], words: ToolWords | None, ko: bool) -> str:
    """The request names a person only by their place in a group ("one of the teachers",
    "A반 담임 선생님"): the directory cannot tell who, so ask."""
    if ko:
        listed = ", ".join(f"'{name}'" for name in described)
        return f"{listed}이 누구인지 연락처로는 알 수 없어요. {who(words, ko)}"
    listed = " or ".join(f"“{name}”" for name in described)
    return f"The contacts don't say who {listed} is. {who(words, ko)}"


def which(names: list[str], ko: bool) -> str:
    listed = ", ".join(names[:-1]) + (" 또는 " if ko else " or ") + names[-1]
    return f"{listed} 중 누구를 말씀하시는 건가요?" if ko else f"Did you mean {listed}?"


def what(words: ToolWords | None, ko: bool) -> str:
    if ko:
        return f"{noun(words, ko)} 내용을 뭐라고 할까요?"
    return f"What should the {noun(words, ko)} say?"


def when(ko: bool) -> str:
    if ko:
        return '언제 보낼까요? 예: "내일 오전 9시"'
    return 'When should it go out? For example "tomorrow at 9am".'


def what_time(day: str, ko: bool) -> str:
    return f"{day} 몇 시에 보낼까요?" if ko else f"At what time {day}?"


def time_passed(phrase: str, ko: bool) -> str:
    if ko:
        return f'말씀하신 시간("{phrase}")이 이미 지났어요. 언제 보낼까요? 예: "내일 오전 9시"'
    return f'"{phrase}" has already passed. When should it go out? For example "tomorrow at 9am".'


def no_address_for_me(words: ToolWords | None, ko: bool) -> str:
    if ko:
        return (
            "제가 직접 연락드릴 수 있는 방법은 계정의 이메일뿐인데, 이 요청에는 쓸 수 없어요. "
            "받는 연락처나 그룹 이름을 알려 주세요."
        )
    return (
        f"I can only reach you by your account's e-mail address, so I can't send you this "
        f"{noun(words, ko)}. Name a contact or group instead, or ask for an e-mail or a reminder."
    )


def no_email_on_account(ko: bool) -> str:
    if ko:
        return (
            "계정에 이메일 주소가 없어서 알림을 보내 드릴 수 없어요. "
            "관리자에게 이메일 등록을 요청해 주세요."
        )
    return (
        "Your account has no e-mail address, so I can't send you a reminder. "
        "Ask an administrator to add one."
    )
