"""The router in front of the agent: which messages need no model at all (pure: no Django but
the write tools' words, read from the registry by ``vocabulary.py``).

Small talk and help, a request for a tool, and "cancel that" are recognised here, in English
and Korean, from short cue lists over a normalised message (lower case, no punctuation, single
spaces). Only clear matches route: a greeting, thanks or a help question must be the whole
message; a tool request must be shaped like one ("send a telegram to …", "…에게 텔레그램
보내줘"); a cancel must be just that ("cancel that SMS", "never mind", "취소해줘"). Anything
else — "Can you help me send an SMS to Emma saying hi", "hello, what is our leave policy?" —
goes to the agent as before.

The sentences the router answers with live here too, so they can be read and tested in one
place; ``chat/services/routed_replies.py`` looks at the tenant and the conversation and picks
one.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from chat.builtin_model.boundaries import (
    Harm,
    Unsupported,
    asks_to_send,
    command_of,
    harm_in,
    unsupported_in,
)
from chat.builtin_model.keystrokes import as_meant
from chat.builtin_model.sentences import split_sentences
from chat.builtin_model.vocabulary import own_words, tool_words

# -- what the router recognises ------------------------------------------------------------------


SmallTalkKind = Literal[
    "greeting", "thanks", "goodbye", "help", "about_me", "memory", "sympathy", "remark"
]


@dataclass(frozen=True)
class SmallTalk:
    """A greeting, thanks or a question about what the assistant can do."""

    kind: SmallTalkKind
    korean: bool


@dataclass(frozen=True)
class ToolRequest:
    """A request for one write tool (answered here only when the tenant switched it off)."""

    tool: str
    korean: bool


@dataclass(frozen=True)
class Cancel:
    """Withdraw the requester's pending action; ``tool`` when they named which ("that SMS")."""

    tool: str | None
    korean: bool


@dataclass(frozen=True)
class Refuse:
    """A request to deceive or harm: refused in words, whatever tools are on."""

    harm: Harm


@dataclass(frozen=True)
class CannotDo:
    """A request for something the product has no tool for: say so, and what it can do."""

    unsupported: Unsupported


@dataclass(frozen=True)
class RulesQuestion:
    """A question about the assistant's own rules: who approves, does it go out at once, why a
    tool is off. ``tool`` when the question names one. Answered from the live policies."""

    tool: str | None
    korean: bool


Route = SmallTalk | ToolRequest | Cancel | Refuse | CannotDo | RulesQuestion


# Syllables, and the jamo "ㅎㅇ" or "ㄱㅅ" become once folded (NFKC).
_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3131-\u318e]")


_LATIN_THEN_HANGUL = re.compile(r"(?<=[a-z0-9])(?=[\uac00-\ud7a3])")


def normalise(text: str) -> str:
    """Lower case, compatibility forms folded, punctuation and emoji dropped, single spaces."""
    folded = unicodedata.normalize("NFKC", text).lower().replace("’", "'")  # noqa: RUF001
    kept = "".join(c if c.isalnum() or c in " '" else " " for c in folded)
    return " ".join(kept.replace("'", "").split())


def _whole(*alternatives: str) -> re.Pattern[str]:
    return re.compile(rf"^(?:{'|'.join(alternatives)})$")


# Small talk must be the whole message; a trailing address ("hi there", "thanks a lot") is fine.
_OPENERS = r"(?:(?:oh|ok|okay|well|hey|great|cool|perfect|good|please)\s+)*"
_GREETING = _whole(
    rf"{_OPENERS}(?:hi|hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening)|"
    r"morning)(?: there| all| everyone| assistant| countersign| bot)?",
    r"(?:안녕|안녕하세요|안녕하십니까|하이|반가워|반가워요|반갑습니다|좋은 아침|좋은 아침이에요)",
)
_THANKS = _whole(
    rf"{_OPENERS}(?:thanks|thank you|thx|ty|cheers|many thanks|much appreciated|"
    r"thanks a lot|thanks so much|thank you so much|thank you very much)"
    r"(?: again| a lot| so much| very much)?(?: for (?:that|your help|the help))?"
    r"(?: that ?s (?:all|it|everything)(?: for now| for today)?| all done| all good)?",
    r"(?:고마워|고마워요|고맙습니다|감사|감사해|감사해요|감사합니다|땡큐|"
    r"정말 고마워요?|정말 감사합니다)(?: (?:이제 )?(?:됐어|됐어요|다 됐어요?|그게 다예요))?",
)
_HELP = _whole(
    rf"{_OPENERS}(?:help|help me|help please|i need help|"
    r"what (?:can|do|else can) you do|what can (?:i|we) (?:ask|do)(?: here| with you)?|"
    r"what can i ask you|what are you able to do|what are you for|what do you help with|"
    r"how (?:do i|can i|should i) use (?:this|you|countersign)|how does this work|"
    r"what can you help (?:me )?with|what are your (?:features|capabilities|skills)|"
    r"who are you|what are you)",
    r"(?:도움말|도움|도와줘|도와주세요|사용법|뭘 할 수 있어|뭘 할 수 있어요|뭐 할 수 있어|"
    r"뭐 할 수 있어요|무엇을 할 수 있나요|무엇을 할 수 있어요|뭘 도와줄 수 있어|"
    r"뭘 도와줄 수 있어요|뭐 도와줄 수 있어|무엇을 도와줄 수 있나요|어떻게 써|어떻게 사용해|"
    r"어떻게 사용하나요|너는 누구야|넌 뭐야|넌 뭘 할 수 있어|기능 알려줘|할 수 있는 거 알려줘|"
    # "너 뭐 할 줄 아냐": what can you do, asked bluntly
    # "근데 이 봇 뭐 할 줄 알아? ㅋㅋ": the bot named, a laugh after
    r"(?:근데 |그럼 |그래서 )?(?:이 (?:봇|챗봇)(?:은|이)? |(?:봇|챗봇)(?:은|이) )?"
    r"(?:너 |넌 |니가 |네가 )?(?:뭐|뭘|무엇을|머) 할 줄 (?:알아|아냐|아니|알아요|아세요|알아\?)"
    r"(?: [\u1100-\u11ff\u3131-\u318e]+)?)",
)


def _unit(pattern: str) -> re.Pattern[str]:
    """A piece of small talk at the start of the rest of a message, ending at a word's end.
    Written in compatibility jamo ("ㅎㅇ"), folded like the messages are (NFKC)."""
    return re.compile(rf"{unicodedata.normalize('NFKC', pattern)}(?=\s|$)")


# Small talk is often several pieces in a row ("hi! first time here. what can you do?",
# "ㄱㅅㄱㅅ 오늘은 여기까지"): pieces of greeting, thanks, goodbye and chit-chat are taken off the
# front one by one; a message that is nothing else is small talk, and one whose rest is a
# question about what the assistant can do is help.
_UNITS: tuple[tuple[SmallTalkKind | None, re.Pattern[str]], ...] = (
    (
        "greeting",
        _unit(
            r"^(?:(?:hi|hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening)|"
            r"morning)"
            r"(?: there| all| everyone| folks| team)?|안녕|안녕하세요|안녕하십니까|하이|하이요|"
            r"(?:ㅎㅇ)+|안뇽|반가워요?|반갑습니다|좋은 아침(?:이에요|입니다)?|"
            # the weather, remarked on as a greeting: "It is a very beautiful day today, isn't it?"
            r"(?:it ?s|it is|what|such) (?:a )?(?:(?:very|really|so|such a) )?(?:beautiful|lovely|"
            r"nice|gorgeous|great|fine|sunny|glorious) (?:day|morning|afternoon|weather)"
            r"(?: it is| it s)?(?: today| out(?:side)?| out there)?(?: isn ?t it| eh| huh)?|"
            r"(?:오늘 )?(?:날씨|하늘)(?:가|이)? (?:진짜 |정말 |너무 )?(?:좋|맑|화창)\S*"
            r"(?: 그쵸| 그죠| 그치)?)"
        ),
    ),
    (
        "thanks",
        _unit(
            r"^(?:thanks|thank you|thx|ty|cheers|many thanks|much appreciated|appreciate it|"
            r"고마워요?|고맙습니다|고맙다|고맙네요?|감사(?:해요|합니다|드려요|해)?|감사감사|(?:ㄱㅅ)+|ㄳ+|땡큐|"
            # "수고했다": good work, said as thanks at the end of a task
            r"(?:오늘\s?)?수고(?:했다|했어요?|했네요?|많았어요?|많았다)|"
            r"정말|진짜|너무)"
            r"(?: (?:a lot|so much|very much|again|for (?:that|your help|the help)))?"
        ),
    ),
    (
        "goodbye",
        _unit(
            r"^(?:bye|bye bye|goodbye|good bye|see you|see ya|later|talk (?:to you )?later|"
            r"have a (?:good|nice|great) (?:day|evening|weekend|one)(?: 해요| 하세요| 보내세요)?|"
            r"that ?s (?:all|it|everything)"
            r"(?: for (?:now|today))?|i ?m done(?: for today)?|all done|all good|"
            r"(?:오늘은 |이제 )?여기까지(?: ?(?:요|예요|할게요|하겠습니다|할래요|입니다|만))?|"
            r"수고하세요|수고하셨습니다|"
            r"(?:오늘(?: 하루)?도? |하루도 )?수고 ?많(?:았어요?|았습니다|으셨어요|으셨습니다)|"
            r"수고해요?|잘 있어요?|다음에 (?:봐요|뵐게요|또)|또 봐요|안녕히 (?:계세요|가세요)|"
            r"ㅂㅂ+|ㅂㅇ+|바이|이제 됐어요?|다 됐어요?)"
        ),
    ),
    (
        None,  # chit-chat that asks nothing
        _unit(
            r"^(?:(?:오늘 )?처음 (?:써 ?봐요|써 ?보는데요?|써 ?봅니다|사용해 ?봐요|왔어요|이에요)|"
            r"처음이에요|처음입니다|처음인데요?|i ?m new(?: here)?|"
            r"(?:it ?s |it is |this is |today is )?my first (?:time|day)(?: here| (?:using|trying|"
            r"with|on) (?:(?:this|the) (?:assistant|app|bot|tool|system)|this|it|you)(?: out)?)?|"
            r"first time (?:here|using (?:this|it|you)|trying (?:this|it|you)(?: out)?)|"
            # "I've only just been given access to you, so forgive me if this is silly, but …"
            r"(?:i ?ve |i have |i )?(?:only )?just (?:been given|got|gotten|received) access"
            r"(?: to (?:you|this|it|the (?:assistant|app|bot|tool|system)))?|"
            r"(?:so )?(?:forgive me|sorry|excuse me|pardon me) if (?:this|that|it) (?:is|s|sounds) "
            r"(?:a )?(?:silly|stupid|dumb|odd|strange|weird|daft)(?: question)?(?: but)?|"
            r"(?:i )?hope (?:you ?re|you are|you re) (?:well|doing well|"
            r"having a (?:good|nice|great) "
            r"day)|how are you(?: doing)?(?: today)?|"
            r"hope your day is going well|잘 지내셨어요|잘 지냈어요|좋은 하루(?: 보내세요)?|"
            # "당신은 기분 어때요?": how the assistant is, asked as of a person
            r"(?:당신은 |너는 |넌 |그쪽은 )?(?:오늘 )?기분(?:은|이)? (?:좀 )?(?:어때요?|어떠세요|"
            r"어떠신가요|괜찮아요?)|(?:요즘 )?어떻게 지내(?:요|세요|셨어요)|"
            r"요|ㅎㅎ+|ㅋㅋ+|ㅠㅠ+|ok|okay|오케이|넵|네|"
            # praise for the help just given
            r"(?:brilliant|great|awesome|perfect|amazing|lovely|wonderful|fantastic|excellent|"
            r"superb|nice one|nice|cool|sweet)(?: stuff| work| job)?|"
            r"you (?:just )?saved me(?: \S+){0,4}|you ?re (?:a lifesaver|a star|the best)|"
            r"that was (?:quick|fast|easy|helpful)|that (?:helps|helped)(?: a lot)?|"
            r"최고(?:예요|야|다|에요)?|짱(?:이다|이야)?|덕분에 살았(?:어요|다|어)?|"
            # "답장 개빠르네": the speed of the reply, remarked on
            r"(?:답장|답|대답|반응)(?:이|도|은)? "
            r"(?:진짜 |정말 |엄청 |되게 |완전 |개)?(?:빠르|빨라)\S*|"
            # "…, 간단하게 알려주실 수 있어요?": the ask after a question about the assistant
            r"(?:좀 |간단하게 |간단히 |자세히 |쉽게 )?(?:알려|설명해|가르쳐) ?"
            r"(?:줘요?|주세요|줄래요?|주실래요|주실 수 있(?:어요|나요|을까요)|줄 수 있어요?|"
            r"주시겠어요)|"
            r"(?:can|could) you (?:tell|show|explain)(?: me| it| us)?(?: please)?|"
            r"(?:please )?explain(?: please)?)"
        ),
    ),
    (
        "help",  # questions about the assistant itself, in pieces ("너는 누구야? 사람이야 봇이야")
        _unit(
            r"^(?:(?:are|r) (?:you|u) (?:a )?(?:real )?(?:person|human|bot|robot|ai|machine)"
            r"(?: or (?:a )?(?:real )?(?:bot|robot|ai|person|human|machine))?|"
            r"what (?:sorts?|kinds?|types?) of (?:things|stuff|tasks|questions|requests|jobs) "
            r"(?:can|do|could) (?:you|i) (?:help (?:me |us )?with|do|ask(?: you)?|handle)|"
            r"(?:너는 |넌 |당신은 )?(?:누구야|누구예요|누구세요|뭐야|정체가 뭐야)|"
            r"(?:(?:근데|그런데|혹시) )?(?:(?:너|넌|너는|당신|당신은) )?"
            r"(?:사람|봇|로봇|ai|기계)(?:이야|이에요|예요|야|인가요|임)|"
            r"(?:이거 |이건 )?어떻게 (?:쓰는|사용하는) (?:거|건)(?:예요|에요|야|지|죠|인가요)?|"
            r"예시(?:로|를|좀)? (?:\S+ ){0,5}(?:보여|알려)\S*)"
        ),
    ),
)
_HELP_REST = re.compile(
    r"^(?:so |then |but |and |please |그럼 |근데 |그래서 )?(?:"
    r"(?:여기서 |이걸로 |이거로 |이거 |너는 |넌 |당신은 )?(?:뭘|뭐|무엇을|무얼|어떤 걸|어떤 것을|"
    r"어떤 일을?|어떤 기능이?)\s?(?:할 수 있|해 줄 수 있|해줄 수 있|도와줄 수 있|도와 줄 수 있|"
    r"도와 주실 수 있|도와주실 수 있|할 줄 알|도와주|도와 주|할 수 있는 건|해 주)\S*(?: \S+)?|"
    r"(?:어떤 기능|무슨 기능|기능)(?:이|은|들이)?\s?(?:있|뭐)\S*|"
    r"(?:what|which) (?:can|do|could) (?:you|i) (?:do|ask|help with|use you for)(?: here| for me)?|"
    r"what (?:are|is) (?:you|this)(?: for)?|how (?:do|does|can|should) (?:i|this|it) (?:use this|"
    r"use you|work|get started)|where do i start"
    r")$"
)
# Which languages: a question about the assistant itself, answered with the help list.
_LANGUAGES = re.compile(
    r"\b(?:what|which) languages?\b|\b(?:can|may) i (?:write|talk|speak|ask)(?: to you| you)? "
    r"in (?:korean|english)\b|(?:영어|한국어|한글)로 (?:물어|말해|써|해|질문해)\S*도|"
    r"몇 개 (?:국어|언어)|(?:어떤|무슨|어느) 언어"
)


def _small_talk_pieces(words: str) -> SmallTalk | None:
    korean = bool(_HANGUL.search(words))
    rest, kinds = words, list[SmallTalkKind | None]()
    while rest:
        for kind, unit in _UNITS:
            match = unit.match(rest)
            if match:
                kinds.append(kind)
                rest = rest[match.end() :].lstrip()
                break
        else:
            break
    if not rest and any(kinds):
        closing: tuple[SmallTalkKind, ...] = ("thanks", "goodbye", "greeting", "help")
        return SmallTalk(next(kind for kind in closing if kind in kinds), korean)
    if rest and (_HELP_REST.match(rest) or _HELP.match(rest)) and len(rest.split()) <= 8:
        return SmallTalk("help", korean)
    asked_of_us = korean or _TO_US.search(words) or len(words.split()) <= 3  # "which languages?"
    # "Which languages you speak? My English is not so perfect, I can write you in Korean also?"
    short = len(words.split()) <= 20
    if _MEMORY.search(words) and short and asked_of_us:
        return SmallTalk("memory", korean)
    if _LANGUAGES.search(words) and short and asked_of_us:
        return SmallTalk("help", korean)
    if len(words.split()) > 20 or _ASKS_SOMETHING.search(words):
        return None
    if _PRAISE_OF_YOU.search(words):
        return SmallTalk("thanks", korean)
    return None


def _a_rough_day(text: str, words: str, *, korean: bool) -> SmallTalk | None:
    """How the day went, told and asking nothing (after a word to the assistant's own day,
    "…너도 고생 많았어", which is answered about the assistant)."""
    if len(words.split()) > 20 or _ASKS.search(text) or _ASKS_SOMETHING.search(words):
        return None  # "today's been so long, how do I reset my password?" asks
    if not _ROUGH_DAY.search(words):
        return None
    return SmallTalk("sympathy", korean)


# How the day went, told to the assistant and asking nothing: "ugh today's been sooo long, 3
# kids cried and the printer jammed twice", "오늘 진짜 정신없었다 ㅠㅠ".
_ROUGH_DAY = re.compile(
    r"^(?:(?:ugh|urgh|oh|ah|man|wow|phew|omg|honestly|well)\s+)*(?:today|this day|the day|"
    r"this week|my day|this morning|this afternoon)(?: ?s| has| is| was)?(?: been)?\s+"
    r"(?:(?:so+|really|such an?|very|pretty|super|absolutely|a)\s+)?(?:long|rough|tough|hard|crazy|"
    r"hectic|exhausting|busy|awful|terrible|nightmare|mess|madness)\b|"
    r"^(?:(?:ugh|oh|man|honestly)\s+)*(?:i m|im|i am) (?:so+ |really |completely |totally )?"
    r"(?:tired|exhausted|knackered|worn out|wiped out|shattered|drained)\b|"
    r"^(?:\S+\s+){0,2}오늘\s?(?:진짜|정말|너무|완전|하루\s?종일)?\s?(?:정신\s?없|힘들|피곤|길었|바빴|"
    r"고단|지치|지쳤)"
)


# Whether it remembers: "너 내가 전에 한 얘기 기억해?", "do you remember what I asked yesterday?"
# What was said, not a record: "do you remember Emma's number?" asks the contacts.
_MEMORY = re.compile(
    r"(?:^|\s)(?:너|넌|니가|네가)\s(?:\S+\s){0,4}(?:얘기|이야기|대화|질문|요청|말)\S*\s"
    r"(?:\S+\s){0,2}기억\S*|"
    r"\b(?:do|can|will|would) (?:you|u) (?:still |even )?remember (?:what|our|my|previous|"
    r"earlier|past|the (?:conversation|chat)|things|anything|everything|me|stuff|this chat)\b"
)
# Praise of the assistant itself: "와 너 일 진짜 잘한다ㅋㅋ", "you're a lifesaver", "good bot".
_PRAISE_OF_YOU = re.compile(
    r"(?:^|\s)(?:너|넌|니가|네가|얘)\s(?:\S+\s){0,3}(?:잘한다|잘하네|잘해|똑똑\S*|최고\S*|짱\S*|"
    r"대박\S*|에이스\S*|천재\S*)|"
    r"\b(?:you re|youre|you are|ur) (?:a |an |the )?(?:real |absolute |total )?(?:lifesaver|"
    r"star|legend|genius|champ|gem|the best)\b|\bgood bot\b|"
    # "You are a very good helper, much better than the old system we had."
    # "ur actually so helpful thx"
    r"^(?:(?:wow|oh|honestly|seriously)\s+)*(?:you re|youre|you are|ur|u r) (?:a |an |such an? )?"
    r"(?:(?:really|very|so|super|truly|actually|honestly|seriously|literally) )*"
    r"(?:good|great|amazing|brilliant|fantastic|excellent|"
    r"wonderful|helpful|quick|fast|smart|clever)\b(?: (?:helper|assistant|bot|at this|at it))?"
)


# A question about the assistant or its use says so: "what languages do you speak?", "which
# language can I write in?"; "What language other than English has the parliament used?" and
# "What type of T cells help with immunity?" are about the world.
_TO_US = re.compile(
    r"\b(?:you|u|ya|your|yours|i|me|my|we|us|our|this|here|it|assistant|bot|countersign)\b"
)


# Questions about the assistant's own rules (who approves, does it go out at once, why is a
# tool off, how long a request waits): answered from the live policies, never from the
# knowledge base, whose documents are about the organisation, not about this assistant.
_RULES_EN = re.compile(
    r"\bwho (?:actually |really |exactly |else )?(?:approves|has to approve|must approve|"
    r"needs to approve|can approve|should approve|signs? off|checks|reviews|okays|oks)\b|"
    r"\b(?:approval|approver|approvers|approve|approved)\b.*\b(?:who|how|need|needed|required|"
    r"before|first)\b|\b(?:who|how|need|needed|required)\b.*\b(?:approval|approver|approved)\b|"
    r"\b(?:go|goes|going|sent|get sent|gets sent|posted|published|send|sends) (?:out )?"
    r"(?:straight away|immediately|right away|directly|at once|automatically)\b|"
    r"\bsomeone (?:check|checks|approve|approves|review|reviews|look at|looks at)\b|"
    r"\bwhy (?:can t|cant|cannot|can not|won t|wont|doesn t|does not|isn t|is not|couldn t) "
    r"(?:i |you |we |it )?(?:send|use|post|text|email|schedule|telegram|sms|work|allowed)|"
    r"\b(?:is|are) (?:sms|telegram|email|e mail|announcements?|reminders?)\w* (?:turned off|"
    r"disabled|switched off|allowed|enabled|on)\b|"
    r"\bhow long (?:does|do|will|until|before)\b.*\b(?:wait|pending|approv\w*|expire\w*)\b|"
    # "Can you send the message alone, without nobody approve it?"
    r"\bwithout (?:\w+ ){0,3}(?:approv\w*|sign ?off|signing off|review\w*|checking)\b"
)
_RULES_KO = re.compile(
    r"누가\s?(?:\S+\s)?(?:승인|결재|확인|검토|허락|허가|체크)|"
    r"승인(?:은|이|을|는)?\s?(?:누가|어떻게|필요|받아야|거쳐|받나|되나|해야)|"
    r"바로\s?(?:나가|보내지|보내져|발송|올라가|전송|게시)|"
    r"왜\s?(?:\S+\s?){0,3}(?:못|안)\s?(?:보내|써|올려|돼|되)|"
    r"(?:꺼져|막혀|비활성)\s?(?:있|있어|있나)|얼마나 (?:기다|대기)|언제 (?:나가|발송|승인)|"
    # "…발송 건의 승인 절차 및 승인 권한자를 보고하기 바람"
    r"승인\s?(?:절차|과정|권한|권자|규정|방식|흐름)|결재\s?(?:라인|절차|권한)"
)
_ABOUT_THE_ASSISTANT = re.compile(
    r"\b(?:if|when|once|after) (?:i|we)(?:ve| ve| have)? ask(?:ed)? you\b|"
    r"\byour (?:requests?|actions?|messages?)\b|\bgo(?:es)? out\b|"
    r"\b(?:you|assistant) (?:send|sends|post|posts|publish|publishes|propose|proposes|do|does)\b|"
    r"\bby (?:itself|yourself)\b|\bon (?:its|your) own\b|"
    r"(?:요청|부탁)하면|달라고 하면|해 달라고 하면|네가 보내|도우미|"
    r"(?:본|이|이번) 시스템|시스템에서|제안된|제안한|제안하는"
)
_ASKED_WITHOUT_A_MARK = re.compile(
    r"\b(?:what happens|does it|do they|will it|is it|can you|who)\b.*\bor (?:what|not|nah)$"
)
# A question, or the formal "tell me" of a report: "…보고하기 바람", "…설명 요망".
_QUESTION_END_KO = re.compile(
    r"(?:요|까|나|니|지|죠|야|어|가)$|(?:보고|설명|안내|회신)\s?(?:하기\s?)?(?:바람|바랍니다|요망)$"
)


def _rules_question(text: str, words: str, *, korean: bool) -> RulesQuestion | None:
    asked = (
        "?" in text
        or "\uff1f" in text
        or (korean and _QUESTION_END_KO.search(words))
        # "…does it go out straight away or what": asked without its question mark
        or (not korean and _ASKED_WITHOUT_A_MARK.search(words))
    )
    if not asked or not (_RULES_KO if korean else _RULES_EN).search(words):
        return None
    tool = _first_cue(words)
    if tool is None and not _ABOUT_THE_ASSISTANT.search(words):
        return None  # "do claims over 500 euros need approval?" is about the organisation
    return RulesQuestion(tool, korean)


_TOOL_NOUNS_EN = r"(?:sms|text|text message|message|telegram|email|e mail|announcement|reminder)"
# "so please do not proceed with that message after all": the request is not to go on
_NOT_GOING_ON = r"(?:dont|don t|do not) (?:proceed|go ahead|go on) with"
_CANCEL = _whole(
    r"(?:(?:oh|ok|okay|actually|wait|no|sorry|please|hmm|um|hold on|on second thought|so)\s+)*"
    r"(?:cancel|withdraw|scrap|drop|undo|call off|forget|never ?mind|nvm|dont send|do not send|"
    rf"{_NOT_GOING_ON}|"
    # one word each after the verb: no backtracking blow-up
    r"stop|disregard|ignore)(?: (?:it|that|this|the|my|last|latest|one))*"
    rf"(?: (?P<tool>{_TOOL_NOUNS_EN}))?(?: (?:request|action))?"
    # "please don't send it after all": the change of mind said with it
    r"(?: after all| anymore| any more)?(?: please| thanks| thank you)?",
    r"(?:(?:아니|아니야|아니요|아|앗|음|그냥|잠깐|잠깐만)\s*)*"
    r"(?:(?:그거|그것|이거|저거|방금 거|방금 것|방금 그거|방금|아까 거|아까 그거|아까|"
    r"그|이|저)\s*)?"
    r"(?:(?P<tool_ko>문자|sms|텔레그램|이메일|메일|공지|알림|리마인더)(?:는|은|를|을|도)?\s*)?"
    r"(?:취소|취소해|취소해줘|취소해 줘|취소해주세요|취소해 주세요|취소할게|취소할래|취소요|"
    r"보내지 마|보내지마|보내지 마세요|보내지 말아줘|보내지 말아 줘|보내지 말아주세요|"
    r"철회|철회해|철회해줘|철회해 줘|철회해주세요|됐어|됐어요|안 보내도 돼|안 보내도 돼요)",
)
# Small talk and cancels are short; anything longer is a real message for the agent.
_MAX_WHOLE_MESSAGE = 80
# Bare "stop", "drop" or "forget" are too vague to withdraw anything: they need an object.
_VAGUE_ALONE = frozenset({"stop", "drop", "forget", "undo", "scrap", "no stop"})

# A cancel followed by its reason ("sorry, can you withdraw that? the date isn't confirmed",
# "그거 취소해줘 원장님이 아직 확정 안 하셨대"): the message opens with a withdrawal of
# something already referred to (it, that, that one, the SMS), and the rest asks for nothing
# new. "Cancel the staff meeting" names no earlier request, so it is not one.
_CANCEL_REFERENT = r"(?:it|that|this|the|my|last|latest|previous|just|one)"
_CANCEL_UNIT_EN = (
    r"(?:(?:take (?:it|that|this)(?: one)? back|(?:never ?mind|nvm)(?! (?:the|about|my|your)\b)|"
    r"forget (?:it|that|about it))|"
    r"(?:(?:cancel|withdraw|scratch|scrap|drop|undo|call off|forget|pull|retract|disregard|ignore|"
    rf"stop|hold off on|hold|dont send|do not send|don t send|never ?mind|nvm|{_NOT_GOING_ON})\s*)+"
    rf"(?:(?:{_CANCEL_REFERENT} )*(?:{_TOOL_NOUNS_EN})|"
    rf"(?:{_CANCEL_REFERENT} )*(?:it|that|this|one|everything)))"
    r"(?: (?:request|action|one|please|thanks|thank you|after all))*"
)
# One or more withdrawals in a row ("never mind, don't send it"); the tool is the first named.
_CANCEL_OPENING_EN = re.compile(
    r"^(?:(?:oh|ok|okay|actually|wait|no|nope|sorry|please|pls|hmm|um|uh|ah|oops|hey|so|"
    r"hold on|on second thought|on reflection|can you|could you|would you|will you|i want to|"
    r"i d like to|"
    r"lets|let s)\s+)*"
    rf"{_CANCEL_UNIT_EN}(?: {_CANCEL_UNIT_EN})*(?= |$)"
)
_TOOL_NAMED_EN = re.compile(rf"\b(?P<tool>{_TOOL_NOUNS_EN})\b")
_CANCEL_OPENING_KO = re.compile(
    unicodedata.normalize(
        "NFKC",
        r"^(?:(?:아|아니|아냐|아니다|아니야|아니요|ㄴㄴ|노노|잠깐|잠깐만|잠깐만요|앗|음|그냥|죄송한데|죄송해요|"
        r"미안|미안한데|미안해요|혹시|저기|됐다|됐어|됐어요)\s*)*"
        r"(?:(?:그거|그것|이거|저거|방금 거|방금 것|방금 그거|방금 건|아까 건|그 건|방금|아까 거|"
        r"아까 그거|아까|위 건|위의 건|해당 건|이 건|그|이|저|그 요청|방금 요청|아까 요청)\s*)?"
        r"(?:(?P<tool_ko>문자|sms|텔레그램|이메일|메일|공지|알림|리마인더)(?:는|은|를|을|도)?\s*)?"
        r"(?:(?:취소|철회|보류)(?:\s?(?:해|할|하|좀|요|시켜|부탁|바람|바랍니다|요망))\S*|(?:취소|철회)$|"
        r"취소\s?취소\S*|"
        r"보내지\s?(?:마|말)\S*|없던\s?(?:걸로|일로|거로)\S*|"
        r"안 보내도\s?\S+|올리지\s?(?:마|말)\S*)(?= |$)",
    )
)
# "아냐 됐어": "no, never mind" (a bare "됐어" may also mean "it's done").
_NEVER_MIND_KO = re.compile(r"^(?:아냐|아니|아니다|아니야|아니요)\s+됐어\S*(?= |$)")
# What makes the rest of a message a new request rather than the reason for cancelling.
_NEW_REQUEST_EN = re.compile(
    r"\b(?:send|text|email|e mail|mail|post|announce|remind|schedule|message|notify|instead)\b"
)
_NEW_REQUEST_KO = re.compile(r"(?:보내|올려|예약|전해|공지해|대신)\s?(?:줘|주세요|줄래|주실|해)")
_MAX_CANCEL_WITH_REASON = 200
_QUESTION_EN = re.compile(
    r"\b(?:what|how|who|when|where|which|why)s?\b|^ ?(?:can|could|is|are|do|does|will|should)\b"
)


# A reason that someone else will do it ("the principal wants to announce it herself") names a
# verb of sending that is not a new request to us.
_SOMEONE_ELSE_WILL = re.compile(
    r"\b(?:(?:he|she|they|the \w+|\w+) (?:wants?|is going|are going|plans?|prefers?|would rather|"
    r"will|ll|is about)|shell|hell|theyll) (?:to )?(?:\w+ )?(?=(?:send|text|email|e mail|mail|"
    r"post|announce|remind|message|notify)\b)\w+"  # "she'll" is "shell" once normalised
)


# "hold off on that one, dont schedule it": a verb of sending said not to be done asks nothing.
_NOT_TO_BE_SENT = re.compile(
    r"\b(?:dont|don t|do not|no need to|not|never)\s+(?:\w+\s+)?(?:send|text|email|e mail|mail|"
    r"post|announce|remind|schedule|message|notify)\w*"
)


# "don't send it yet, make it 5pm": held back to be changed, not withdrawn.
_EDIT_EN = re.compile(
    r"(?:^|\b(?:and|then|please|pls|just|but|instead|yet)\s+)"
    r"(?:make|change|move|switch|update|reschedule|push)\s+(?:it|that|this|the)\b"
)


def _new_request_in(rest: str, *, korean: bool) -> bool:
    if korean:
        return bool(_NEW_REQUEST_KO.search(rest))
    if _EDIT_EN.search(rest):
        return True
    rest = _NOT_TO_BE_SENT.sub(" ", _SOMEONE_ELSE_WILL.sub(" ", rest))
    return bool(_NEW_REQUEST_EN.search(rest))


def _cancel_in_a_clause(text: str, *, korean: bool) -> Cancel | None:
    """A cancel said as the first or last clause, its reason in the others: "never mind, the
    drill got moved. cancel the reminder please", "oops wrong person. forget it", "hmm actually
    don't, I'll call her myself. cancel". The other clauses must ask for nothing new."""
    clauses = [c for c in (normalise(part) for part in _CLAUSES.split(text)) if c]
    while len(clauses) > 2 and _FILLER_CLAUSE.match(clauses[0]):
        clauses = clauses[1:]  # "Oh, actually, please disregard that — …": the cancel comes next
    if len(clauses) < 2:
        return None
    for at in (0, len(clauses) - 1):
        cancel = _CANCEL.match(clauses[at])
        # "앗 아니에요 그거 없던 걸로 해주세요, 장소가 아직 확정이 안 됐대요": a closing withdrawal
        closing = korean and cancel is None and _cancel_at_the_end(clauses[at]) is not None
        if (cancel is None and not closing) or clauses[at] in _VAGUE_ALONE:
            continue
        others = " ".join(clauses[:at] + clauses[at + 1 :])
        if _new_request_in(others, korean=korean):
            continue  # "never mind, … drop the e-mail": the other end may be the cancel
        if not korean and _QUESTION_EN.search(others):
            continue
        named = cancel.group("tool") or cancel.group("tool_ko") if cancel else None
        return Cancel(tool=_tool_named(named) if named else None, korean=korean)
    return None


_FILLER_CLAUSE = re.compile(
    r"^(?:(?:oh|ok|okay|actually|wait|sorry|hmm|um|uh|ah|oops|no|hold on|on second thought|"
    r"아|앗|아니|잠깐|잠깐만|죄송해요|죄송합니다|미안해요|음)\s*)+$"
)
_CLAUSES = re.compile(r"[.,!?;:\n。…~]+|\s+[-–—]\s+")  # noqa: RUF001


def _cancel_with_reason(words: str, *, korean: bool) -> Cancel | None:
    if len(words) > _MAX_CANCEL_WITH_REASON:
        return None
    opening = (_CANCEL_OPENING_KO if korean else _CANCEL_OPENING_EN).match(words)
    if opening is None and korean:  # "never mind 그냥 내가 직접 말할게": withdrawn in English
        opening = _NEVER_MIND_KO.match(words) or _CANCEL_OPENING_EN.match(words)
    if opening is None:
        return None
    rest = words[opening.end() :]
    if _new_request_in(rest, korean=korean):
        return None
    if not korean and _QUESTION_EN.search(rest):
        return None  # "never mind that, what is the leave policy?" asks something new
    named = opening.groupdict().get("tool_ko")
    if not korean:
        tool = _TOOL_NAMED_EN.search(opening.group(0))
        named = tool.group("tool") if tool else None
    return Cancel(tool=_tool_named(named) if named else None, korean=korean)


# A request: optional politeness, then a verb that asks for an effect, naming a tool.
_REQUEST_EN = re.compile(
    r"^(?:(?:please|pls|hey|ok|okay|so|now)\s+)*"
    r"(?:(?:can|could|would|will) you (?:please )?|i (?:want|need|would like|d like) (?:you )?to |"
    r"lets |let us )?"
    r"(?P<verb>send|text|sms|email|e mail|mail|telegram|message|post|publish|announce|remind|"
    r"schedule|set|create|notify)\b"
)
_REQUEST_KO = re.compile(
    r"(?:보내|전해|올려|게시해|등록해|예약해|설정해|공지해|전송해|발송해)\s?"
    r"(?:줘|줘요|주세요|줄래|줄래요|주실래요|줄 수 있어|줄 수 있어요|주시겠어요)?$"
)


# A span in quotes is the text to send: "titled 'Follow us on Instagram'" names no channel to use.
_QUOTED_SPAN = re.compile(r"[\"“”«»「『][^\"“”«»」』]{2,}[\"“”«»」』]|(?<!\w)'[^']{2,}'(?!\w)")
_ASKS_FOR_A_CHANNEL = re.compile(r"\binstead\b|대신|말고")
_POLITE_WORDS = r"(?:(?:please|pls|plz|can|could|would|will|you|u|just|ok|okay|and|then)\s+)*"


def _channel_only_told_of(text: str) -> bool:
    """Whether a message that asks for one of our own tools names another channel only as
    something it tells of: in quotes, or in a sentence that asks nothing be sent ("We're
    finally on Instagram!!"), or as what the text is about ("…ask whether she'd be OK with us
    sharing it on our Instagram", "…saying we are now on Instagram"). A channel in the part of a
    sentence that asks, as its medium ("text Emma on WhatsApp") or instead of ours ("카톡으로
    보내줘"), is still asked for."""
    if _first_cue(normalise(text)) is None:
        return False
    for sentence in split_sentences(_QUOTED_SPAN.sub(" ", text)):
        said = _LATIN_THEN_HANGUL.sub(" ", normalise(sentence))
        korean = bool(_HANGUL.search(said))
        command = command_of(said, korean=korean)
        missing = unsupported_in(command, head=command, korean=korean)
        if missing is None or missing.missing != "channel":
            continue
        # "WhatsApp her instead": the channel as the verb asks for it too
        as_verb = re.match(rf"{_POLITE_WORDS}{re.escape(missing.channel.lower())}\b", said)
        if asks_to_send(said) or _ASKS_FOR_A_CHANNEL.search(said) or as_verb:
            return False
    return True


def _verb_tools() -> dict[str, str]:
    """Verbs that are a tool's own name ("text Emma …", "email James …"), from its words."""
    return {verb: name for name, words in tool_words().items() for verb in words.verbs}


def route_message(text: str) -> Route | None:
    """The route of a clear message, or None (the agent answers)."""
    text = as_meant(text, own_words())
    # "whatsapp으로", "slack에": a Latin word with a Korean particle is still a word
    words = _LATIN_THEN_HANGUL.sub(" ", normalise(text))
    if not words:
        return None
    korean = bool(_HANGUL.search(words))
    # Harm and missing tools first: a tool request that deceives, or asks for a channel the
    # product lacks, must never reach a model that could propose a substitute.
    harm = harm_in(words, korean=korean)
    if harm is not None:
        return Refuse(harm)
    if len(words) <= _MAX_WHOLE_MESSAGE:
        whole = _whole_message_route(words, korean=korean) or _thanks_and_a_remark(
            text, words, korean=korean
        )
        if whole is not None:
            return whole
    if len(words) <= _MAX_CANCEL_WITH_REASON:
        cancel = _cancel_in_a_clause(text, korean=korean)
        if cancel is not None:
            return cancel
    missing = unsupported_in(words, head=normalise(text.split(":", 1)[0]), korean=korean)
    if missing is not None and missing.missing == "channel" and _channel_only_told_of(text):
        missing = None  # "We're finally on Instagram!! Could you post an announcement …?"
    if missing is not None:
        return CannotDo(missing)
    if _can_you_also().match(words):
        return SmallTalk("help", korean)
    if _requested_tool(words, korean=korean) is None:
        rules = _rules_question(text, words, korean=korean)
        if rules is not None:
            return rules
        if len(words) <= _MAX_WHOLE_MESSAGE * 2:
            pieces = (
                _small_talk_pieces(words)
                or _about_the_assistant_itself(text, korean=korean)
                or _a_rough_day(text, words, korean=korean)
            )
            if pieces is not None:
                return pieces
            if _HOW_TO_USE.search(words):  # "… 예약발송도 되는지 사용법 좀 알려주세요"
                return SmallTalk("help", korean)
        if _WHAT_YOU_CAN_DO.search(words) and len(words.split()) <= _MAX_HELP_QUESTION_WORDS:
            return SmallTalk("help", korean)
    return _tool_request(words, korean=korean)


# What the assistant can do, asked inside a longer message that asks for no tool: "I've just
# joined … Before I dive in, could you give me a quick overview of what you can and can't do for
# me?". "What can you do about my leave?" asks something else, and is left to the agent.
_WHAT_YOU_CAN_DO = re.compile(
    r"\b(?:overview|rundown|summary|idea|list|sense) of (?:what|everything|all) (?:you|u) "
    r"(?:can|could|are able to)\b|"
    r"\bwhat (?:you|u) (?:can|could|are able to)(?: and (?:can ?t|cannot|can not|couldn ?t|"
    r"are not able to|aren ?t able to))? (?:do|help (?:me |us )?with)\b"
    r"(?! (?:about|with|for) (?:the|my|our|this|a|an|his|her|their)\b)|"
    # "an overview of the sorts of tasks you are able to help with"
    r"\b(?:sorts?|kinds?|types?) of (?:things|stuff|tasks|jobs|requests|work) (?:that )?"
    r"(?:you|u) (?:can|could|are able to|might be able to) (?:do|help|handle|take on)\b|"
    # "이 도우미로 어떤 일들을 처리할 수 있는지 … 설명해 주시겠습니까"
    r"(?:도우미|챗봇|봇|비서|이걸로|이거로|여기서|너는?|당신은?)\S*\s(?:\S+\s){0,2}"
    r"(?:어떤|무슨)\s?(?:일|것|기능)\S*\s(?:\S+\s)?(?:처리|할|해|도와)\S*\s?수\s?있"
)
_MAX_HELP_QUESTION_WORDS = 60


# Which channels it has, asked by naming them and nobody to send to: "can u send emails too or
# just texts", "can you do emails as well as texts?", "이메일도 보낼 수 있어요?".
# The whole message, normalised; a request names someone ("…emails to the parents too") and
# is read as one.
@functools.cache
def _can_you_also() -> re.Pattern[str]:
    # The kinds are every tool's cue words, from the registry (in the plural too), and the
    # language's words for any of them ("messages"; "예약", a sending booked for later).
    cues = [cue for words in tool_words().values() for cue in words.cues]
    english = "|".join(re.escape(c).replace(r"\ ", " ?") for c in cues if c.isascii())
    korean = "|".join(re.escape(c) for c in cues if not c.isascii())
    kinds_en = rf"(?:(?:{english})(?:e?s)?(?: messages)?|messages)"
    kinds_ko = rf"(?:{korean}|예약)"
    return re.compile(
        r"^(?:(?:and|so|also|btw|hey|oh|wait|hi|quick question)\s+)*"
        r"(?:can|could|do|are|will) (?:you|u)(?: also| even)? (?:be )?(?:able to )?"
        r"(?:send|do|handle|post|make|schedule|set up|write|manage)(?: out)? "
        rf"{kinds_en}(?: (?:too|as well|also))?"
        r"(?: (?:as well as|and|or|or (?:just|only)|not just|besides) "
        rf"{kinds_en}(?: (?:too|as well))?)?"
        r"(?: (?:too|as well|also|or not))?$"
        rf"|^(?:혹시 )?{kinds_ko}(?:만|도) (?:\S+ )?(?:보낼|보내|할|올릴|걸|잡을|예약할) ?수 ?"
        r"있(?:어|나|나요|어요|습니까|을까요|는지)?\S*(?: (?:아니면|혹은) \S+ ?(?:도|만)? ?\S*)?$"
    )


# A question whose subject is the assistant and that asks neither for an action nor for what it
# knows ("are you tired?", "do you ever sleep?", "너는 안 피곤하냐", "넌 주말에도 일해?") is about
# the assistant itself: the organisation's documents cannot answer it, so it is small talk.
# Sentences before it may only tell ("6 classes in a row today.. 너는 안 피곤하냐"); a question
# before it is the point of the message and reaches the agent.
_SENTENCES = re.compile(r"(?<=[.!?\uff1f~…])\s+|\.{2,}\s*|\n+")
# In English "you" is also anyone ("do you get paid for overtime?", "are you entitled to carry
# leave over?"): only a short question is about the assistant, two words after "are you" or
# after the verb of "do you".
_ABOUT_YOU_EN = re.compile(
    r"^(?:(?:and|so|but|also|btw|anyway|hey|oh)\s+)*(?:"
    r"(?:are|were|r|aren ?t) (?:you|u)(?! (?:able|allowed|sure|aware|going to|gonna|free to)\b)"
    r"(?: \S+){1,2}|"
    r"(?:do|did|does|don ?t|have|will|would) (?:you|u) (?:ever |still |even |also |really )?"
    r"(?!(?:know|have|remember|understand|recall|mind|think|happen|see|want|need|mean|speak|"
    r"support|handle|send|text|email|post|schedule|remind|do|answer|read|get paid|"
    # asked to act on what was said before: "… through an announcement. Would you set that up?"
    r"set|make|put|create|arrange|organi[sz]e|write|draft|prepare|add|publish|share|forward|"
    r"let|tell|book|check|look|fix|update|change|help|pass|get)\b)\w+"
    r"(?: \S+){0,2}|"
    r"what ?s your (?:name|favou?rite \w+)|what is your (?:name|favou?rite \w+)|"
    r"how old are you|where do you live|who (?:made|built|created|programmed) you|"
    r"how ?s (?:your|ur) (?:day|morning|afternoon|week)(?: going| been| so far)*|"
    r"how (?:is|was) (?:your|ur) (?:day|morning|afternoon|week)(?: going| so far)?|"
    r"how about (?:you|u)"
    r")\s*\?*$"
)
_YOU_KO = r"(?:너|넌|너는|너도|니가|네가|너한테는|당신은?|당신도)"
_ABOUT_YOU_KO = re.compile(rf"(?:^|\s)(?P<you>{_YOU_KO})\s+(?P<rest>(?:\S+\s+){{0,3}}\S+)$")
# …what it knows or has ("너 와이파이 비번 알아?", "너 그 양식 있어?"), or asks it to act ("너 이거
# 보내줄래?"). "You too" compares the assistant with the asker: "당신도 힘든 날이 있어요?".
_NOT_ABOUT_YOU_KO = re.compile(
    r"알아|알고|아니|아냐|아세요|아나요|알려|할 수|해 줄|해줄|보내|줄래|줘|주세요|도와"
)
_HAS_KO = re.compile(r"있어|있니|있나|있으")
_TOIL_KO = re.compile(r"(?:오늘\s?)?(?:수고|고생)\s?(?:가\s?|이\s?)?(?:많|했|하)")
_ONLY_LAUGHTER = re.compile(r"^[\sㅋㅎㅠㅜ^~!?.\uff1f]*$")
_KO_QUESTION = re.compile(r"(?:[?\uff1f]|냐|니|나요|야|지|까|요|음|임)[\s?\uff1f!~.ㅋㅎ]*$")


_ASKS = re.compile(r"[?\uff1f]|(?:냐|니|까|나요|가요)\W*$")


def _about_the_assistant_itself(text: str, *, korean: bool) -> SmallTalk | None:
    sentences = [s.strip() for s in _SENTENCES.split(text.strip()) if not _ONLY_LAUGHTER.match(s)]
    if not sentences:
        return None
    *before, last = sentences
    last_words = normalise(last)
    if korean:
        bare = re.sub(r"[\s?\uff1f!~.ㅋㅎ]+$", "", last)
        found = _ABOUT_YOU_KO.search(bare)
        about_you = bool(
            _KO_QUESTION.search(last)
            and found
            and not _NOT_ABOUT_YOU_KO.search(found["rest"])
            and (found["you"].endswith("도") or not _HAS_KO.search(found["rest"]))
        ) or bool(  # "…정신없다… 너도 수고 많다 ㅎㅎ": the day's toil, wished back
            found and found["you"].endswith("도") and _TOIL_KO.match(found["rest"])
        )
    else:
        # "the kids are wild today haha, how's your day going?": the question after a remark
        about_you = bool(
            _ABOUT_YOU_EN.match(last_words)
            or _ABOUT_YOU_EN.match(normalise(last.rsplit(",", 1)[-1]))
        )
    if not about_you or any(_ASKS.search(sentence) for sentence in before):
        return None
    return SmallTalk("about_me", korean)


# Small talk the patterns above miss ("hi there, good morning", "what are you able to help me
# with?") is recognised by meaning: the intent classifier's label, for a short message only and
# with a clear margin, so "hello, what is our leave policy?" still reaches the agent. A greeting
# is short; a question about what the assistant can do may run longer ("hey, what kind of stuff
# can you actually help me with?"), and is never a greeting before a real question.
_MAX_SMALL_TALK_WORDS = 8
_MAX_HELP_WORDS = 12
# A thank-you or a question about what the assistant can do, read twice as clearly as the bar,
# may run longer: "Thank you very much for the help of today, eres un sol!" is a thank-you
# however many words it has, when nothing else comes close.
_MAX_CLEAR_WORDS = 24
_CLEAR_MARGIN = 0.6
# The intent labels answered with a small-talk reply: either one is the same answer.
SMALL_TALK_LABELS = frozenset({"smalltalk", "help"})
_MIN_SMALL_TALK_MARGIN = 0.3


def small_talk_by_meaning(text: str, *, label: str, confidence: float) -> SmallTalk | None:
    """Small talk recognised by the intent classifier (``label``, ``confidence``) rather than
    by the patterns, or None."""
    words = normalise(text)
    longest = _MAX_HELP_WORDS if label == "help" else _MAX_SMALL_TALK_WORDS
    if confidence >= _CLEAR_MARGIN and (label == "help" or _THANKS_WORD.search(words)):
        longest = _MAX_CLEAR_WORDS  # never a greeting before a real question
    if not words or len(normalise(after_a_greeting(text)).split()) > longest:
        return None
    if label not in SMALL_TALK_LABELS or confidence < _MIN_SMALL_TALK_MARGIN:
        return None
    korean = bool(_HANGUL.search(words))
    if label == "help" and not korean and not _TO_US.search(words):
        return None
    if label == "help":
        return SmallTalk("help", korean)
    return SmallTalk("thanks" if _THANKS_WORD.search(words) else "greeting", korean)


# A remark that asks nothing ("quiet night tonight just me and the mop lol", "오늘 상담만 다섯
# 건을 했더니 목이 다 쉬었네요… 그냥 좀 얘기하고 싶었어요ㅎㅎ"): no question, no request, no tool
# named, and of the routes that are not a tool, small talk or help reads closest. The documents
# have nothing to say to it, and "the knowledge base does not cover that" answers a question
# nobody asked.
_QUESTION_WORD = re.compile(
    r"\b(?:what|whats|when|where|who|whom|whose|which|why|how|is|are|am|do|does|did|can|"
    r"could|would|will|should|shall|may|have|has|any|tell|explain|show|give|list|find|need|"
    r"want|wonder)\b|"
    r"뭐|무엇|무슨|언제|어디|누구|누가|몇|며칠|얼마|어떻게|어떤|어느|왜|는지|인지|을까|ㄹ까|"
    r"알려|설명|궁금"
)
# A Korean question's ending, where a sentence ends ("…했더니 목이" is no question).
_ASKED_KO = re.compile(r"(?:나요|가요|까요|냐|니|래|지)(?=[\sㅋㅎ~]*(?:[.?!…]|$))")


def asks_nothing(text: str) -> bool:
    """Whether ``text`` has no question word or ending, no request and no tool's word in it
    (the patterns alone: cheap, so a caller asks this before it embeds anything)."""
    words = normalise(text)
    asked = _ASKS.search(text.strip()) or _ASKED_KO.search(text.strip())
    if not words or asked or _QUESTION_WORD.search(words):
        return False
    return not (
        _ASKS_SOMETHING.search(words) or _requested_tool(words, korean=False) or _first_cue(words)
    )


def remark_by_meaning(text: str, *, scores: Mapping[str, float]) -> SmallTalk | None:
    """A remark that asks nothing, read by the intent classifier's ``scores``, or None."""
    if not asks_nothing(text):
        return None
    routes = {label: score for label, score in scores.items() if label not in tool_words()}
    if not routes or max(routes, key=lambda label: routes[label]) not in SMALL_TALK_LABELS:
        return None
    return SmallTalk("remark", bool(_HANGUL.search(text)))


_INTRODUCTION = re.compile(
    r"^\W*(?:hi|hello|hey|morning|good (?:morning|afternoon|evening)|안녕\S*)\b|"
    r"\b(?:i m|im|i am) (?:the |a )?(?:\w+ )?new\b|\bfirst (?:day|time)\b|첫 출근|처음|"
    # "I was only given access to the assistant yesterday"
    r"\b(?:given|got|have|had) (?:\w+ )?access\b",
    re.IGNORECASE,
)


_MAX_INTRODUCTION_WORDS = 10


def after_a_greeting(text: str) -> str:
    """The last sentence of a message whose sentences before it only greet or introduce the
    writer ("Hi! I'm the new receptionist - what can you help me with?"); else the message."""
    *before, last = [
        sentence
        for piece in re.split(r"(?<=~)\s+|\s+[-–—]\s+", text.strip())  # noqa: RUF001
        for sentence in split_sentences(piece)
    ]
    if before and all(
        _INTRODUCTION.search(normalise(p)) and len(p.split()) <= _MAX_INTRODUCTION_WORDS
        for p in before
    ):
        return last
    return text


# A withdrawal the patterns miss ("hmm, on second thoughts please don't - cancel it, sorry!",
# "원장님이 직접 올리신다네요 ㅎㅎ 없던 걸로 해주세요") is recognised by meaning: the classifier's
# "cancel" with a clear margin, in a message short enough to be only that and its reason, that
# asks for nothing new and asks no question. With nothing pending it only says so.
_MAX_CANCEL_BY_MEANING_WORDS = 24
_MIN_CANCEL_MARGIN = 0.4
_NOT_SENDING_EN = re.compile(
    r"\b(?:don ?t|do not|not|never)\s+(?:\w+\s+)?(?:send|post|email|text)\b"
)


def cancel_by_meaning(text: str, *, label: str, confidence: float) -> Cancel | None:
    """A cancel recognised by the intent classifier (``label``, ``confidence``), or None."""
    words = normalise(text)
    if label != "cancel" or confidence < _MIN_CANCEL_MARGIN or not words:
        return None
    if len(words.split()) > _MAX_CANCEL_BY_MEANING_WORDS:
        return None
    korean = bool(_HANGUL.search(words))
    if korean:
        if _NEW_REQUEST_KO.search(words) or "?" in text or not _WITHDRAW_KO.search(words):
            return None  # "내용은 토요일 보강 취소됐다고": news of a cancellation, not one
    elif _NEW_REQUEST_EN.search(_NOT_SENDING_EN.sub(" ", words)) or _QUESTION_EN.search(words):
        return None
    elif not _EARLIER_REQUEST_EN.search(words):
        return None  # "cancel the staff meeting": names no request of ours
    return Cancel(tool=None, korean=korean)


# A verb of withdrawing, said to the assistant: "취소해", "없던 걸로", not "취소됐다고".
_WITHDRAW_KO = re.compile(
    r"취소\s?(?:해|할|하|좀|요|시켜|부탁)|철회|없던\s?(?:걸로|일로|거로)|캔슬|"
    r"(?:보내|올리|하)지\s?(?:마|말)|안 보내도"
)
# What refers back to the request being withdrawn: "cancel it", "don't send that", "never mind".
_EARLIER_REQUEST_EN = re.compile(rf"\b(?:it|that|this|one|never ?mind|{_TOOL_NOUNS_EN})\b")


# With an action of the requester's still pending in the conversation, a take-back need not be
# the whole message or open it: staff give the reason first and withdraw last, in any register
# ("아 최 선생님이 벌써 돌리셨다네요 ㅎㅎ 이건 안 보내셔도 돼요", "…그거 취소해 주실 수 있을까요?",
# "ugh wrong person lol, don't send that"). The caller asks this only when something is
# pending (chat/services/routed_answers.py); the words of withdrawing must still be said to us
# ("취소됐다고" is news, "cancelled" a state) and the message must ask for nothing new.
_TAKE_BACK_KO = re.compile(
    r"취소\s?(?:해|하|좀|요|시켜|부탁|바람|바랍|요망|할게|할래)|철회|캔슬|보류|"
    r"없던\s?(?:걸로|일로|거로|것으로)|(?:보내|올리|돌리|하|넣)지\s?(?:마|말)|"
    r"안\s?(?:보내|올려|올리|돌려|해|하)\S*\s?(?:도|셔도)\s?(?:돼|되|될|괜찮)|"
    r"(?:보낼|올릴|할)\s?필요\s?(?:없|는\s?없)|"
    # "앗 ㄴㄴ 취소!! 내가 날짜 잘못 봄": the bare word, said alone ("취소라고", "취소됐대요" are
    # news)
    r"(?:^|\s)취소(?=\s|$)|"
    # English words inside a Korean message: "아 never mind, 그거 cancel 해줘"
    r"\bcancel\s?(?:해|하|좀|요|시켜|부탁)|\bnever ?mind\b|\bnvm\b|"
    # "방금 그 리마인더는 빼 주세요": the request itself taken out ("이서준 님은 빼 주세요" edits
    # the recipients, so the thing taken out must be the request or a word pointing back at it)
    r"(?:그거|그건|그것|이거|이건|리마인더|예약|공지|문자|메일|메시지)(?:는|은|도)?\s?(?:좀\s?)?"
    r"빼\s?(?:줘|주|버려)"
)
_TAKE_BACK_EN = re.compile(
    r"\b(?:cancel|withdraw|scrap|scratch|retract|undo|call off|drop|disregard|ignore|"
    r"hold off(?: on)?|take back|pull)\s+(?:it|that|this|the|my|those|these|last|one)\b|"
    r"\b(?:cancel|withdraw|scrap|retract|undo)\s*(?:it|that|this)?\s*$|"
    r"\b(?:take|taking) (?:it|that|this) back\b|\bnever ?mind\b|\bnvm\b|"
    r"\bforget (?:it|that|about it|about that|i asked)\b|"
    r"\b(?:dont|don t|do not|no need to|not|never) (?:\w+ )?(?:send|post|publish|schedule) "
    r"(?:it|that|this|the|those|them|anything)\b|"
    r"\b(?:no need|not needed|don ?t need it|no longer needed?)\b(?! to (?:\w+ )?(?:ask|check))"
)
# What makes a message with a take-back in it a new request or an edit of the pending one
# ("cancel that and text class B instead", "don't send it yet, make it 5pm"): it goes on.
_NEW_OR_EDIT_EN = re.compile(
    r"\binstead\b|(?:^|\b(?:and|then|please|pls|but|just|yet|can you|could you|would you)\s+)"
    r"(?:change|make|move|switch|update|reschedule|add|remove|send|text|email|e mail|mail|post|"
    r"announce|remind|schedule|message|notify|tell|let)\b"
)
_NEW_OR_EDIT_KO = re.compile(
    r"대신|(?:보내|돌려|전해|알려|올려|띄워|남겨|넣어|예약해|공지해|작성해|만들어|바꿔|고쳐|수정해|"
    r"변경해)\s?(?:줘|주|드려|주세요|줄래|주실|주시|달라|놔|둬)"
)
_CLAUSES_BEFORE_A_QUESTION = re.compile(r"[^.,!;:?\n]+(?=\?)")
_WH = re.compile(r"\b(?:what|how|who|when|where|which|why)\b")
_MAX_TAKE_BACK_CHARS = 300


def _not_ours(words: str) -> str:
    """``words`` without the sending someone else will do or we are told not to do."""
    return " ".join(_NOT_TO_BE_SENT.sub(" ", _SOMEONE_ELSE_WILL.sub(" ", words)).split())


def takes_back_what_is_pending(text: str) -> Cancel | None:
    """A withdrawal anywhere in a message sent while the requester has an action pending, or
    None. Only the caller knows something is pending; without it, this reading is too loose."""
    if len(text) > _MAX_TAKE_BACK_CHARS:
        return None
    words = normalise(text)
    korean = bool(_HANGUL.search(words))
    if korean and _TAKE_BACK_KO.search(words):
        return None if _NEW_OR_EDIT_KO.search(words) else Cancel(tool=None, korean=True)
    if korean and _NEW_OR_EDIT_KO.search(words):
        return None
    # English words may take it back inside a Korean message: "oh no, 죄송해요 — don't post it"
    found = _TAKE_BACK_EN.search(words)
    if found is None:
        return None
    around = (words[: found.start()], words[found.end() :])
    if any(_NEW_OR_EDIT_EN.search(_not_ours(part)) for part in around):
        return None
    asked = [normalise(c) for c in _CLAUSES_BEFORE_A_QUESTION.findall(text)]
    if any(_WH.search(c) and not _TAKE_BACK_EN.search(c) for c in asked):
        return None  # "never mind that, what is the leave policy?"
    return Cancel(tool=None, korean=korean)


def may_be_read_by_meaning(text: str) -> bool:
    """Whether a message is short enough to be small talk or a cancel read by meaning."""
    return 0 < len(normalise(text).split()) <= _MAX_CANCEL_BY_MEANING_WORDS


_THANKS_WORD = re.compile(r"\b(?:thanks?|thank you|thx|cheers|appreciated?)\b|고마|감사|땡큐")


# Thanks, then a remark that asks nothing: "ㅋㅋ 고마워 덕분에 오늘 칼퇴각", "thanks, that saved me
# loads of time", "cheers, you're a star". A question or a new request after the thanks is the
# point of the message and goes on.
_THANKS_FIRST = re.compile(
    # a laugh in bare letters (NFKC turns "ㅋㅋ" into conjoining jamo)
    r"^(?:(?:[\u1100-\u11ff\u3131-\u318e]+|아|와|오|헐|우와|oh|ah|ok|okay|great|perfect|brilliant|lovely|cool|awesome|"
    r"amazing|wow)\s+)*(?:(?:thanks|thank you|thx|cheers|ta)\b|고마워|고마워요|고맙|감사|땡큐)|"
    # what was done, then the thanks: "항상 신속하게 처리해 주셔서 감사드립니다"
    r"^(?:\S+\s+){0,5}?\S*(?:주셔서|줘서|주어서)\s+(?:(?:정말|너무|진심으로|항상|늘)\s+)?(?:감사|고마|고맙)\S*|"
    # the work praised as thanks: "그간 여러모로 수고가 많았습니다. 덕분에 … 수월해졌습니다"
    r"^(?:(?:그간|그동안|오늘|올해|이번\s?학기|정말|진짜|여러모로|많이)\s+){0,3}"
    r"수고\s?(?:가\s?)?(?:많았|많으셨|하셨|했)\S*"
)
_MAX_THANKS_REMARK_WORDS = 10
_ASKS_SOMETHING = re.compile(
    r"\b(?:can|could|would|will) you\b|\bplease\b|\bpls\b|\b(?:send|text|email|post|remind|"
    r"schedule|tell|also|and then)\b|줘|주세요|줄래|주실|해\s*줘|보내|올려|알려|부탁"
)


# Asking how to use the assistant itself, anywhere in a short message that asks for no tool.
# In Korean the thing used comes first: "복합기 사용법" is about the copier, so what precedes
# must be nothing, the assistant, or the end of a clause ("…되는지 사용법").
_HOW_TO_USE = re.compile(
    r"(?:^|(?:이거|너|니|당신|챗봇|어시스턴트|봇|여기|이 앱|앱|기능)\s*(?:의\s*)?|"
    r"\S*(?:는지|건지|인지|이라|라서|니까|는데|인데|지만|어서|아서|해서|고|요|죠)\s+)"
    r"(?:사용법|사용 방법|쓰는 법|쓰는 방법|이용 방법|이용법)|"
    # "…직원입니다 이거 어떻게 쓰는건지": the assistant itself, at the start of a clause
    # ("복합기 이거 어떻게 쓰는 건지" is about the copier)
    r"(?:^|(?:다|요|죠|고|는데|데)[.!~]*\s+)"
    r"(?:이거|이건|이 앱|이 챗봇|이 서비스|여기|너|얘)\s*(?:는|은)?\s*"
    r"어떻게\s*(?:쓰|사용하|이용하)\S*|"
    r"\bhow (?:do i|do you|to|can i) use (?:this|you|it|the assistant|countersign)\b|"
    r"\bhow does (?:this|it|the assistant) work\b"
)


def _thanks_and_a_remark(text: str, words: str, *, korean: bool) -> SmallTalk | None:
    if "?" in text or "？" in text or len(words.split()) > _MAX_THANKS_REMARK_WORDS:  # noqa: RUF001
        return None
    thanks = _THANKS_FIRST.match(words)
    if thanks is None or _ASKS_SOMETHING.search(words[thanks.end() :]):
        return None
    return SmallTalk("thanks", korean)


def _whole_message_route(words: str, *, korean: bool) -> Route | None:
    small_talk: tuple[tuple[SmallTalkKind, re.Pattern[str]], ...] = (
        ("greeting", _GREETING),
        ("thanks", _THANKS),
        ("help", _HELP),
    )
    for kind, pattern in small_talk:
        if pattern.match(words):
            return SmallTalk(kind, korean)
    cancel = _CANCEL.match(words)
    if cancel and words not in _VAGUE_ALONE:
        named = cancel.group("tool") or cancel.group("tool_ko")
        return Cancel(tool=_tool_named(named) if named else None, korean=korean)
    return _cancel_with_reason(words, korean=korean) or (
        _cancel_at_the_end(words) if korean else None
    )


# A Korean sentence ends on its verb, so a withdrawal often closes the message after its reason:
# "원장님이 직접 올리신다네요 ㅎㅎ 없던 걸로 해주세요", "방금 전화로 말씀드렸대 캔슬해".
_CANCEL_CLOSING_KO = re.compile(
    r"(?:없던\s?(?:걸로|일로|거로)|캔슬|철회|"
    r"(?<=\s)하지\s?마(?:요|세요)?$|(?<=\s)하지 말아\S*$)\s?\S*"  # "…직접 하신대요 하지 마세요"
    r"(?:\s(?:주세요|줘요?|줄래요?|주실래요|부탁해요?|부탁드려요|부탁드립니다))?$|"
    # "요청드린 예약은 취소해 주시겠어요": the request itself named, then cancelled
    r"(?:요청(?:드린|한|했던|하신)|방금|아까)\s?(?:예약|문자|메일|이메일|공지|알림|건|거|것|요청)"
    r"(?:은|는|을|를|도)?\s?취소(?:해|하|시켜)\S*"
    r"(?:\s(?:주시겠어요|주세요|줘요?|줄래요?|주실래요|주실\s?수\s?있을까요|부탁\S*))?$"
)


def _cancel_at_the_end(words: str) -> Cancel | None:
    if not _CANCEL_CLOSING_KO.search(words) or _NEW_REQUEST_KO.search(words):
        return None
    return Cancel(tool=None, korean=True)


def _tool_request(words: str, *, korean: bool) -> ToolRequest | None:
    tool = _requested_tool(words, korean=korean)
    return ToolRequest(tool, korean) if tool else None


def _tool_named(word: str) -> str | None:
    for name, words in tool_words().items():
        if word in words.cues:
            return name
    return None  # "message": any tool


def _requested_tool(words: str, *, korean: bool) -> str | None:
    """The tool a request-shaped message names first, or None."""
    if korean:
        if not _REQUEST_KO.search(words):
            return None
        return _first_cue(words)
    request = _REQUEST_EN.match(words)
    if request is None:
        return None
    verb = request.group("verb")
    verbs = _verb_tools()
    if verb in verbs and not words[request.end() :].startswith((" a ", " an ", " the ")):
        return verbs[verb]  # "text Emma that …", "remind me …"
    return _first_cue(words[request.start("verb") :])


def _first_cue(words: str) -> str | None:
    """The tool whose cue appears first (as a whole word in English, a stem in Korean)."""
    found: list[tuple[int, str]] = []
    for name, tool in tool_words().items():
        for cue in tool.cues:
            pattern = re.escape(cue) if _HANGUL.search(cue) else rf"\b{re.escape(cue)}s?\b"
            match = re.search(pattern, words)
            if match:
                found.append((match.start(), name))
    return min(found)[1] if found else None


# -- what the router says ------------------------------------------------------------------------

_OPENING = {
    ("greeting", False): "Hello! ",
    ("thanks", False): "You're welcome! ",
    ("goodbye", False): "Goodbye for now! ",
    ("goodbye", True): "안녕히 가세요! ",
    ("help", False): "",
    ("greeting", True): "안녕하세요! ",
    ("thanks", True): "천만에요! ",
    ("help", True): "",
    ("about_me", False): "I'm your organisation's assistant, a program: no days off or tiredness "
    "here, and always glad to help. ",
    ("about_me", True): "저는 조직의 업무를 돕는 어시스턴트 프로그램이라 피곤하거나 쉬는 날은 "
    "없어요. 언제든 편하게 불러 주세요. ",
    # What the graph's checkpoints keep: one conversation's turns, not the others'.
    ("memory", False): "I remember what was said in this conversation; a new conversation "
    "starts fresh, so say again there what I need to know. ",
    ("memory", True): "이 대화에서 나눈 내용은 기억해요. 새 대화는 처음부터 시작하니, 필요한 "
    "내용은 거기서 다시 알려 주세요. ",
    ("sympathy", False): "That sounds like a long day. I hope the rest of it is kinder. ",
    ("sympathy", True): "오늘 정말 고생 많으셨어요. ",
    ("remark", False): "Thanks for telling me. ",
    ("remark", True): "이야기해 주셔서 고마워요. ",
}


def help_reply(kind: SmallTalkKind, *, tools: list[str], korean: bool) -> str:
    """What the assistant can do here: questions, and the tenant's enabled tools with examples."""
    opening = _OPENING[(kind, korean)]
    known = tool_words()
    if korean:
        lines = [
            f"{opening}지식 베이스의 문서에 대한 질문에 출처와 함께 답하고, "
            "데이터에 대한 질문에도 답해요. 한국어나 영어로 편하게 물어보세요.",
        ]
        if tools:
            lines.append("승인을 거쳐 이런 일도 할 수 있어요:")
            lines += [
                f'- {known[t].label_ko}: "{known[t].example_ko}"' for t in tools if t in known
            ]
        else:
            lines.append("이 조직에서는 메시지 보내기 같은 작업이 모두 꺼져 있어요.")
        return "\n".join(lines)
    lines = [
        f"{opening}I answer questions from your organisation's documents, with sources, and "
        "questions about your data, in English or Korean."
    ]
    if tools:
        lines.append("With a person's approval I can also do these:")
        lines += [f'- {known[t].label}: "{known[t].example}"' for t in tools if t in known]
    else:
        lines.append("Actions such as sending messages are all turned off for this organisation.")
    return "\n".join(lines)


def disabled_reply(tool: str, *, korean: bool) -> str:
    words = tool_words()[tool]
    if korean:
        return f"이 조직에서는 {words.label_ko} 기능이 꺼져 있어요."
    return f"{words.label} are turned off for this organisation."


def nothing_to_cancel_reply(tool: str | None, *, korean: bool) -> str:
    if korean:
        what = f"{tool_words()[tool].label_ko} 요청이" if tool else "요청이"
        return f"이 대화에는 취소할 대기 중인 {what} 없어요."
    what = tool_words()[tool].one if tool else "request"
    return f"There is no pending {what} of yours in this conversation, so nothing to cancel."


def withdrawn_reply(description: str, *, korean: bool) -> str:
    if korean:
        return f"요청을 취소했어요. 아무것도 보내거나 바꾸지 않았어요. ({description})"
    return f"Okay — I withdrew that request. Nothing was sent or changed. ({description})"


_STATUS_KO = {
    "approved": "승인된",
    "rejected": "거절된",
    "executing": "실행 중인",
    "executed": "실행된",
    "failed": "실패한",
    "expired": "만료된",
    "withdrawn": "이미 취소된",
}


def too_late_reply(status: str, *, korean: bool) -> str:
    if korean:
        return f"이미 {_STATUS_KO.get(status, status)} 요청이라 취소할 수 없어요."
    return f"That request was already {status}, so it can no longer be withdrawn."


@dataclass(frozen=True)
class ToolRule:
    """One write tool's live policy, as the rules answer reads it."""

    tool: str
    enabled: bool
    approver_group: str | None  # None: anyone with the approver role
    self_approval: bool
    expires_after_hours: int


def rules_reply(question: RulesQuestion, *, rules: list[ToolRule]) -> str:
    """How actions are approved here, from the live policies: the tool asked about, or all."""
    asked = [rule for rule in rules if question.tool in (None, rule.tool)] or rules
    if question.korean:
        lines = [
            "제가 바로 보내는 것은 없어요. 요청하시면 먼저 승인 카드로 제안하고, "
            "승인한 사람이 있어야 실행돼요."
        ]
        lines += [_rule_line_ko(rule) for rule in asked]
        return "\n".join(lines)
    lines = [
        "Nothing goes out on my word alone: I propose each action as a card, and it runs only "
        "once a person approves it."
    ]
    lines += [_rule_line_en(rule) for rule in asked]
    return "\n".join(lines)


def _rule_line_en(rule: ToolRule) -> str:
    label = tool_words()[rule.tool].label
    if not rule.enabled:
        return f"- {label}: turned off for this organisation, so I can't propose them."
    who = f"a member of {rule.approver_group}" if rule.approver_group else "an approver"
    own = "" if rule.self_approval else " (not the person who asked)"
    return (
        f"- {label}: approved by {who}{own}; a request waits up to "
        f"{rule.expires_after_hours} hours for a decision."
    )


def _rule_line_ko(rule: ToolRule) -> str:
    label = tool_words()[rule.tool].label_ko
    if not rule.enabled:
        return f"- {label}: 이 조직에서는 꺼져 있어서 제안할 수 없어요."
    who = f"{rule.approver_group} 그룹 구성원" if rule.approver_group else "승인 권한이 있는 사람"
    own = "" if rule.self_approval else "(요청한 본인 제외)"
    return (
        f"- {label}: {who}{own}이 승인해요. 요청은 결정을 "
        f"최대 {rule.expires_after_hours}시간 기다려요."
    )
