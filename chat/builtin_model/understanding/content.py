"""Whether a drafted text says anything beyond the request for it. Pure: no Django.

"Emma Wilson 님께 이메일을 한 통 보내야 하는데요, 준비 좀 부탁드려도 될까요?" names a person and
a channel and asks politely, and every word of what is left after the recipient is the request
itself: sending it as the e-mail's text would send the request. So would "I need that you
publish an announcement" and "공지사항을 하나 올려야 할 것 같습니다". Listing such requests one
phrasing at a time never ends; this reads the text instead: take out the words that name a
tool (a word its own cue pattern finds, from the registry) and the closed classes a request is
made of (verbs of sending and writing, modal and polite endings, pronouns, articles,
counters), and a text with no word left says nothing to its reader.

The classes are the language's, not one request's: a text with one word of its own ("내일
휴강", "see you at 4", "thanks!") keeps it and is sent as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _words(text: str) -> list[str]:
    return text.split()


# English closed classes a request for a message is made of: pronouns and articles, modal and
# auxiliary verbs, politeness, the verbs of making and sending a text, and the nouns a text is
# called by (the tools' own words are taken out by their cue patterns).
_EN = frozenset(
    _words(
        """
    i me my we us our you your it its this that these those he him his she her they them their
    a an the one some any another new quick short little small brief same
    am is are be been being can could will would shall should may might must d ll s m re ve
    need needs want wants like love wish gonna wanna
    please pls plz kindly just also again now asap real quick
    send sent sending write written writing draft drafting make making made create creating
    prepare preparing put putting post posting publish publishing share sharing set setting
    up out off on to for of with about in at by from and or so if then
    help hand favour favor something thing anything stuff message messages note text texts
    get got getting start started starting going
    lets let ready when whenever
    """
    )
)

# Korean: the stems a request is made of, matched at a word's start (particles and endings
# vary: 보내야, 보내주세요, 부탁드려도). A word counts only when all of it is such stems, one
# after another, and endings from ``_KO_ENDINGS``.
_KO_STEMS = (
    "보내",
    "보낼",
    "보냈",
    "올려",
    "올리",
    "올릴",
    "띄워",
    "띄우",
    "남겨",
    "남기",
    "넣어",
    "써",
    "쓰",
    "작성",
    "준비",
    "발송",
    "전달",
    "부탁",
    "요청",
    "진행",
    "게시",
    "하",
    "해",
    "했",
    "할",
    "한",
    "합",
    "되",
    "돼",
    "될",
    "됩",
    "것",
    "거",
    "같",
    "좀",
    "하나",
    "통",
    "건",
    "개",
    "번",
    "주",
    "줘",
    "줄",
    "드려",
    "드리",
    "드릴",
    "드립",
    "싶",
    "필요",
    "수",
    "있",
    "그거",
    "그것",
    "이거",
    "저거",
    "아까",
    "사항",
    "제가",
    "저희",
    "우리",
    # "아까 말씀드린 그거": what was said before, not said here
    "말씀",
    "드린",
    "지난번",
    "저번",
    "전에",
    "얘기",
    "말한",
    # a title left beside the recipient ("James Taylor 선생에게 메일 발송할 것")
    # the formal order's ending ("발송 바람", "회신 바랍니다", "조치 요망")
    "바람",
    "바랍",
    "요망",
    "선생",
    "쌤",
    "님",
    "씨",
)
_KO_ENDINGS = re.compile(
    r"(?:[요죠다네까나지고서며면도은는을를이가의에게께한테로]|야|어|아|는데|ㄴ데|데요|"
    r"세요|시고|셔서|시|니다|습니다|니까|습니까|겠|어요|아요|해요|래요|게요|을게요|ㄹ게요|고자|자|"
    r"도록|려고|려면|시면|실|실까요|을까요|ㄹ까요|까요)*$"
)


def says_nothing(text: str, cues: Iterable[re.Pattern[str]]) -> bool:
    """Whether ``text`` is made only of a request's own words: nothing to send to anyone."""
    patterns = list(cues)
    return not any(
        _is_content(word) and not any(cue.search(word) for cue in patterns)
        for word in _WORD.findall(text.lower())
    )


def _is_content(word: str) -> bool:
    if word.isascii():
        return word not in _EN and not word.isdigit()
    return not _request_word_ko(word)


def _request_word_ko(word: str) -> bool:
    """Stems of ``_KO_STEMS`` one after another, then endings: 부탁+드려+도, 보내+야."""
    if _KO_ENDINGS.fullmatch(word):
        return True
    return any(word.startswith(stem) and _request_word_ko(word[len(stem) :]) for stem in _KO_STEMS)
