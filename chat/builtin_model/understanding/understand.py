"""From a message (and the conversation so far) to what the offline model should do.

Pure: no Django. The Django side (``context.py``) supplies the tenant's ``Directory``, its
time zone and the intent classifier, which carries the write tools' words: no tool is named
here, a tool is known by the slots it needs (its ``shape``: a message, an announcement, a
reminder; ``actions/tools/words.py``).

Flow: the classifier labels the message; a write request is split into head and body
(``body.py``); recipients are found in the head (``recipients.py``), a time for reminders
(``when.py``). The first missing or unclear slot becomes one short question and no tool call.
If the previous assistant line is the question the previous request produced, this message
answers it: the slot is filled and the request resolved again, so "Emma Wilson" after "Did you
mean Emma Wilson or Emma Park?" completes the pending SMS.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, cast
from zoneinfo import ZoneInfo

from rapidfuzz import fuzz, process

from actions.tools.words import Shape, ToolWords
from chat.builtin_model.keystrokes import as_meant
from chat.builtin_model.sentences import REMIND_ME_OF_A_FACT, split_sentences
from chat.builtin_model.understanding import questions as say
from chat.builtin_model.understanding.arguments import tool_arguments
from chat.builtin_model.understanding.body import (
    PASS_IT_ON,
    SENTENCE_END,
    SIGN_OFFS,
    TOPIC_FIRST,
    Split,
    addressed_to_them,
    answered_text,
    direct_if_reported,
    korean_direct,
    request_words_removed,
    split_message,
    subject_of,
    tidy,
    title_of,
    without_a_bare_request,
)
from chat.builtin_model.understanding.content import says_nothing
from chat.builtin_model.understanding.directory import Directory
from chat.builtin_model.understanding.draft import Draft
from chat.builtin_model.understanding.intent import Intent, IntentClassifier, Label
from chat.builtin_model.understanding.recipients import Found, find_recipients, gloss
from chat.builtin_model.understanding.when import (
    EN_DAY_WORDS,
    KO_DAY_WORDS,
    MissingTime,
    find_when,
    said_only_when,
)

Role = Literal["user", "assistant"]
Slot = Literal["to", "which", "when", "body"]
_MAX_FOLLOW_UPS = 4
# The requester is reached only through their account's e-mail address (``Requester``).
_REQUESTER_CHANNEL = "email"
_ACTION_WORDS = re.compile(
    r"\b(?:send|tell|let \w+ know|notify|inform|ping|message|write to|post|publish|forward|"
    r"pass (?:it|this|that|these|them) (?:on|along)|"
    # "would you mind emailing the teachers …", "give Yuna a heads up", "drop them a line"
    r"(?:sending|telling|emailing|e-mailing|texting|messaging|notifying|informing|posting)|"
    r"give \S+(?: \S+)? a (?:quick )?heads[- ]?up|"
    r"drop \S+(?: \S+){0,3} a (?:quick )?(?:line|note))\b|"
    # "비보를 전해 들었습니다": heard from someone, not passed on
    r"전해(?!\s?(?:들|듣))|전달|알려|보내|남겨|올려",
    re.IGNORECASE,
)
_NAMED = (
    re.compile(r"\bto\s+(?P<who>.+)$", re.IGNORECASE),
    re.compile(
        r"\b(?:text|txt|sms|e-?mail|telegram|message|tell|remind|notify|ping)\s+"
        r"(?!(?:an?|the)\s+(?:sms|text|message|e-?mail|telegram|reminder)\b)(?P<who>.+)$",
        re.IGNORECASE,
    ),
)
_KO_TITLE = r"(?:어머님|아버님|어머니|아버지|학부모님|선생님|쌤|님)"
_NAMED_END = re.compile(
    r"\s+(?:on|at|in|by|about|tomorrow|today|tonight|next|this|to|that|via|please)\b.*$", re.I
)
# Everyone, said in so many words: an announcement with no audience. Not "all teachers" or "모든
# 선생님" (a group), nor "전 직원" (staff, which may be one).
_EVERYONE = re.compile(
    r"\b(?:every(?:one|body)|all\s+(?:the\s+)?(?:parents|families|staff)\s+and\s+"
    r"(?:staff|teachers|parents|families)|(?:the\s+)?whole\s+school)\b"
    r"|모든\s*(?:분|사람)|(?:학부모님?|부모님)\S*\s*(?:이랑|와|과|하고)\s*(?:선생님|교직원)\S*\s*"
    r"(?:모두|다)|(?<!\S)모두\s*(?:다\s*)?(?:보시게|볼\s*수)",
    re.IGNORECASE,
)
_TIME_ONLY = re.compile(
    r"^(?:(?:tomorrow|today|tonight|at|on|in|by|next|this|morning|afternoon|evening|noon|"
    r"\w+day|\d{1,2}(?::\d{2})?\s*(?:am|pm)?)\b[\s,.]*)+$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Understanding:
    """What to do with a message.

    ``label``: one of ``intent.LABELS``; ``confidence``: the classifier's margin (0..1).
    ``tool`` + ``arguments``: a complete write-tool call, validated later by the tool itself.
    ``question``: a plain-text reply instead of a tool call: one short question for a missing
    or unclear slot, or a sentence saying why it cannot be done. Neither: not an action
    (answer from the knowledge base, the data, or let the router handle it).
    """

    label: Label
    confidence: float
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    question: str | None = None
    slot: Slot | None = None  # which slot ``question`` asks for
    # The readings ``question`` chooses between ("Emma Wilson", "Emma Park"), offered to the
    # person as buttons; each, sent back as the answer, completes the request.
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Result:
    understanding: Understanding
    draft: Draft | None = None


@dataclass(frozen=True)
class _Env:
    directory: Directory
    now: datetime
    tz: ZoneInfo
    classifier: IntentClassifier
    _asked_someone: dict[str, bool] = field(
        default_factory=dict, hash=False, compare=False, repr=False
    )

    def words(self, tool: str | None) -> ToolWords | None:
        return self.classifier.tools.get(tool) if tool else None

    def is_a(self, tool: str | None, shape: Shape) -> bool:
        words = self.words(tool)
        return words is not None and words.shape == shape

    def shaped(self, shape: Shape) -> list[str]:
        """The tools of ``shape``, in the registry's order."""
        return [name for name, words in self.classifier.tools.items() if words.shape == shape]

    def verbs(self, shape: Shape | None = None) -> tuple[str, ...]:
        """The tools' own verbs ("text", "email", "remind"), of ``shape`` or of every tool."""
        return tuple(
            verb
            for words in self.classifier.tools.values()
            if shape is None or words.shape == shape
            for verb in words.verbs
        )

    def named_tools(self, text: str) -> list[str]:
        """The write tools whose own cue words appear in ``text``."""
        return [
            tool for tool in self.classifier.write_tools if self.classifier.cues[tool].search(text)
        ]

    def own_words(self) -> set[str]:
        """The tools' own words (cues and verbs): a slipped letter in one is mended."""
        return {w for words in self.classifier.tools.values() for w in (*words.cues, *words.verbs)}

    def verb_then_someone(self, text: str) -> bool:
        """``_verb_then_someone``, once per text: three steps ask it of the same message, and
        each answer looks names up in the directory."""
        if text not in self._asked_someone:
            self._asked_someone[text] = _verb_then_someone(text, self)
        return self._asked_someone[text]


def understand(
    text: str,
    *,
    history: Sequence[tuple[Role, str]] = (),
    directory: Directory,
    now: datetime,
    tz: ZoneInfo,
    classifier: IntentClassifier,
) -> Understanding:
    """What ``text`` asks for, given the earlier ``history`` of (role, text) pairs.

    ``directory``: the run's tenant contacts, groups and requester; ``now``: an
    aware datetime; ``tz``: the tenant's zone (dates are read and shown in it); ``classifier``:
    an ``IntentClassifier`` (one per process: it embeds its examples once).
    """
    if not text.strip():
        return Understanding("knowledge", 0.0)  # nothing to act on: the answer path declines
    env = _Env(directory, now, tz, classifier)
    return _understand(text.strip(), list(history), env, depth=0).understanding


# Korean typed without spaces ("올리버아버님한테문자좀 …"), or in the written style ("발송하여
# 주십시오"): the particle of who, the channel and "좀" are set apart, and "-하여 주" is "-해 주",
# so every reading after this one sees the words as it knows them.
_GLUED_CHANNEL_KO = re.compile(
    r"(?:(?<=한테)|(?<=에게)|(?<=께))(?=문자|이메일|메일|텔레그램|텔레|텔그|공지)"
)
_GLUED_PLEASE_KO = re.compile(r"(?<=문자|메일|텔레|공지)(?=좀|ㄱㄱ)")
_WRITTEN_STYLE_KO = re.compile(r"(?<=[가-힣])하여(?=\s?주)")
# Voice input with no spaces at all ("김민지어머님한테문자보내줘내일수학시험은네시반에본다고"): the
# request's verb ends where the words to send begin, and a label of the words ("…제목은수강료안내
# 내용은…") starts a field of its own. Not before an ending that goes on the verb ("보내줘서",
# "보내줘야", "보내주세요라고").
_GLUED_REQUEST_KO = re.compile(
    r"(?P<verb>(?:보내|올려|전해|남겨|넣어|날려|써|알려)(?:주세요|주십시오|줘요|주셈|줘))"
    r"(?=[가-힣0-9])(?![서야도라봐요면고며여용욤유염잉])"
)
_GLUED_LABEL_KO = re.compile(
    r"(?<=[가-힣])(?=(?:내용|본문)은)|(?<=제목은|내용은|본문은)(?=[가-힣0-9])(?!요)"
)
# Laughter typed onto a clipped request ends it: "최유나쌤께 문자요ㅎㅎ 오늘 …" is "문자요. 오늘 …",
# so the request and the words to send are read apart. Only there: elsewhere ("정신없네ㅠㅠ 암튼
# …", "추울수있다고ㅠ 애들 …") the rules already read around it, and a full stop would cut them.
_FEELING_GLUED_KO = re.compile(r"(?<=(?:문자|메일|텔레|그램|공지)요)[ㅋㅎㅠㅜ]+(?=\s|$)")


# "(1) please email the class B parents (2) subject: Parents evening (3) text: it is on …": the
# points of a numbered list are its sentences.
_POINT = re.compile(r"(?:^|(?<=\s))\(?\d{1,2}\)\s+")


def _points_as_sentences(text: str) -> str:
    if len(_POINT.findall(text)) < 2:
        return text
    pieces = [p.strip().rstrip(".,;") for p in _POINT.split(text) if p.strip()]
    joined = pieces[0]
    for piece in pieces[1:]:  # "Body as follows: (1) lesson plans …" → "…: Lesson plans …"
        joined += f" {piece[:1].upper()}{piece[1:]}" if joined.endswith(":") else f". {piece}"
    return joined


# "…15분늦는다고좀..", "…온다고 좀요": the words told, then a clipped "please" that ends the
# message; the verb of telling it leaves unsaid is "전해줘".
_TOLD_THEN_PLEASE_KO = re.compile(r"(?<=[다라자냐]고)\s?좀요?\s*[.~…!]*$")


# "두 분 다 텔레그램을 쓰시니까 그쪽으로 … 알려 주세요": "that way" is the channel just named.
_THAT_WAY_KO = re.compile(
    r"(?P<channel>텔레그램|이메일|메일|문자)(?:을|를|은|는|도|만)?\s(?P<between>[^.?!]{0,20}?)그쪽으로"
)


# "선생님들 보라고 공지 하나. 다음 달 …", "학부모님들 보시게 공지 좀": who is to read the notice is
# its audience ("선생님들 대상으로 공지"), not its words.
_READERS_KO = re.compile(
    r"(?<=[가-힣])\s?(?:보(?:시)?라고|보(?:시)?게|보(?:시)?도록|읽(?:으)?(?:시)?라고|보실\s?수\s?있게)"
    r"\s*(?=(?:전체\s?)?공지)"
)


def _korean_spelled_out(text: str) -> str:
    if not say.korean(text):
        return text
    text = _READERS_KO.sub(" 대상으로 ", text)
    text = _TOLD_THEN_PLEASE_KO.sub(" 전해줘", text)
    text = _THAT_WAY_KO.sub(r"\g<channel> \g<between>\g<channel>로", text)
    glued = _GLUED_PLEASE_KO.sub(" ", _GLUED_CHANNEL_KO.sub(" ", _FEELING_GLUED_KO.sub(".", text)))
    glued = _GLUED_LABEL_KO.sub(" ", _GLUED_REQUEST_KO.sub(r"\g<verb> ", glued))
    return _WRITTEN_STYLE_KO.sub("해", glued)


# Who, given as a field of its own: "… 'Thank you for your patience.' Recipients: Mr Oliver
# Brown and Ms Emma Wilson.", "The recipient is Mrs Kim Minji (Class A).", "받는 분: 최유나 선생님".
_WHO_LABELLED = re.compile(
    r"(?:^|(?<=[.!?;'\"”’)])\s+)"  # noqa: RUF001
    r"(?:(?:the\s+)?recipients?(?:\s+(?:is|are|will be|should be))?\s*:?|"
    r"(?:to|send\s+(?:it\s+)?to|addressed\s+to)\s*:|"
    r"(?:받는\s?(?:분|사람)|수신(?:자|인|처)?|대상(?:자)?)\s*(?::|은|는)?)"
    r"\s+(?P<who>[^.!?;:'\"“‘]{2,80}?)\s*(?:[.!?;]+|$)(?=\s|$)",  # noqa: RUF001
    re.IGNORECASE,
)


_IN_BRACKETS = re.compile(r"\s*\([^()]*\)")


def _who_labelled_first(text: str, env: _Env) -> str:
    """A message whose recipients are a field of their own, said apart from the request, read
    as if they were named where it asks: "Please send the following SMS to Mr Oliver Brown and
    Ms Emma Wilson, verbatim: '…'". Only when the field names someone the directory knows, and
    only the first place a tool's own word appears is where they go."""
    field_ = _WHO_LABELLED.search(text)
    if field_ is None:
        return text
    # "Mrs Kim Minji (Class A)": a group in brackets after a name says which one, not who else
    who = _IN_BRACKETS.sub("", field_["who"]).strip()
    if not find_recipients(who, env.directory).names:
        who = field_["who"].strip()
        if not find_recipients(who, env.directory).names:
            return text
    rest = (text[: field_.start()] + " " + text[field_.end() :]).strip()
    cues = [
        match
        for tool in env.classifier.write_tools
        if (match := env.classifier.cues[tool].search(rest)) is not None
    ]
    if not cues:
        return text
    first = min(cues, key=lambda match: match.start())
    if say.korean(rest):  # "…께" before the tool's word; " to …" after it
        return f"{rest[: first.start()]}{who}께 {rest[first.start() :]}"
    return f"{rest[: first.end()]} to {who}{rest[first.end() :]}"


def _understand(text: str, history: list[tuple[Role, str]], env: _Env, depth: int) -> _Result:
    # "문ㅈ자", "이메ㅣㄹ", "emial": a slipped key is read as the word meant
    text = _points_as_sentences(_korean_spelled_out(text))
    text = _who_labelled_first(text, env)
    text = _after_the_dismissed(as_meant(text, env.own_words()), env)
    text = _mind_changed_on_the_day(_mind_changed_on_the_tool(text, env))
    text = _mind_changed_on_the_title(_mind_changed_on_the_time(text))
    intent = env.classifier.classify(text)
    pending = _pending(history, env, depth)
    if pending is not None and not _new_request(intent.label, text, env):
        draft, slot = pending
        return _resolve(_fill(draft, slot, text, env), env)
    intent = replace(intent, label=_needed_tool(intent, text, env))
    intent = replace(intent, label=_generic_send(intent, text, env))
    intent = replace(intent, label=_addressed_request(intent, text, env))
    intent = replace(intent, label=_told_to_a_person(intent, text, env))
    if intent.label not in env.classifier.write_tools:
        return _Result(Understanding(intent.label, intent.confidence))
    label = _scheduled_not_sent(_sent_not_reminded(intent, text, env), text, env)
    label = _unnamed_and_unsure(replace(intent, label=label), text, env)
    if label not in env.classifier.write_tools:
        return _Result(Understanding(label, intent.confidence))
    return _fresh(text, label, intent.confidence, env)


# What the writer waves away before the request: "is the heater fixed? ugh never mind, I'll
# check. what I actually need: text Ms Wilson …", "do we have budget left? I'll ask finance :)
# but could you e-mail the class B parents …". Only when what is waved away asks for no tool.
_DISMISSAL = re.compile(
    r"\b(?:never ?mind|nvm|forget (?:it|that|about (?:it|that)))\b[^.!?:]*[.!?:]+|"
    r"\bwhat i (?:actually|really|mainly) (?:need|want)(?: (?:is|from you is|you to do is))?\s*:|"
    r"\banyway(?:s)?[,.:!]+|\bbut (?=(?:could|can|would|will) you\b)",
    re.IGNORECASE,
)


def _after_the_dismissed(text: str, env: _Env) -> str:
    ends = [m.end() for m in _DISMISSAL.finditer(text)]
    if not ends:
        return text
    head, rest = text[: ends[-1]], text[ends[-1] :].strip()
    if _ACTION_WORDS.search(head) or env.named_tools(head) or not env.named_tools(rest):
        return text
    if _TO_ONE_PERSON.search(rest) and _the_one_spoken_of(head, env):
        return text  # "not sure if I should just ask 최 선생님 …, but could you email her …"
    return rest


# The writer changes their mind on the way: "text Emma — no wait, email her", "email the class A
# parents … — no actually make it an announcement", "선생님들께 문자로 돌릴까 하다가... 아냐 그냥
# 공지로", "유나쌤한테 텔레그램... 아니 그냥 문자로 예약해줘". In Korean a bare "아니" starts many
# sentences ("아니 근데 …"), so it counts only after a trailing-off ("...", "…") or "하다가".
_CHANGE_OF_MIND = re.compile(
    r"(?:\s*[—–]+\s*|\s+-+\s+|[,.;?!]\s*|\s+)"  # noqa: RUF001
    r"(?:no,? wait|wait,? no|no,? actually|actually,? no|(?:sorry,? )?scratch that|hang on,? no|"
    r"no,? make (?:that|it)|on second thoughts?|or rather)\b[,.:!]*\s*"
    r"|(?:\.{2,}|…|하다가\.*)\s*(?:아\s+)?(?:아니다|아냐|아니야|아니)(?![가-힣])[,.]*\s*",
    re.IGNORECASE,
)
_FIRST_CLAUSE = re.compile(r"^[^.,;:!?—–…]+")  # noqa: RUF001
_CLAUSES = re.compile(r"[^.,;:!?—–…\s][^.,;:!?—–…]*")  # noqa: RUF001
_ORPHAN_PARTICLE = re.compile(r"(?<=\s)(?:으로|로)(?=\s|$)")


def _second_thought(text: str) -> tuple[str, str, str] | None:
    """The words before the writer's last change of mind, the first clause after it (what they
    changed to) and the whole rest; None without one."""
    changes = list(_CHANGE_OF_MIND.finditer(text))
    if not changes:
        return None
    before, after = text[: changes[-1].start()], text[changes[-1].end() :]
    lead = _FIRST_CLAUSE.match(after)
    return (before, lead.group(), after) if lead else None


def _mind_changed_on_the_tool(text: str, env: _Env) -> str:
    """The message with the tool the writer took back replaced by the one they changed to:
    "telegram Oliver that the kit list is ready — no wait, email him" reads "email Oliver that
    the kit list is ready". The words after the change stay, but a bare "email him" (nothing
    but the tool and who) is said already."""
    thought = _second_thought(text)
    if thought is None:
        return text
    before, lead, after = thought
    said_before = env.named_tools(before)
    if not [tool for tool in env.named_tools(lead) if tool not in said_before]:
        # "메일로… 아 아니다, 메일은 잘 안 보신대요. 그냥 문자로 보내주세요": the reason first, then
        # the channel changed to, in a later clause
        for clause in _CLAUSES.finditer(after):
            if [tool for tool in env.named_tools(clause.group()) if tool not in said_before]:
                after = after[clause.start() :]
                lead = clause.group()
                break
    now_named = env.named_tools(lead)
    taken_back = [tool for tool in said_before if tool not in now_named]
    if not now_named or not taken_back:
        return text
    word = _whole_words_of(env.classifier.cues[now_named[0]]).search(lead)
    said = word.group() if word else ""
    for tool in taken_back:
        before = _whole_words_of(env.classifier.cues[tool]).sub(said, before, count=1)
    before = _WAS_GOING_TO.sub("", before)
    before = re.sub(r"\s+", " ", _ORPHAN_PARTICLE.sub(" ", before)).strip(" ,.;—–-…")  # noqa: RUF001
    rest = lead.replace(said, " ", 1) if said else lead
    if not _PRONOUNS.sub(" ", rest).split():
        after = after[len(lead) :].lstrip(" ,;—–-")  # noqa: RUF001
    return f"{before}, {after}" if after else before


# The days a change of mind may move a request to: "the day after tomorrow at 7pm — no, make
# that tomorrow, same time".
_A_DAY = rf"{EN_DAY_WORDS}|{KO_DAY_WORDS}|in (?:\d+|two|three|four|five|six|seven) days|이따"
_DAY = re.compile(rf"(?<!\w)(?:{_A_DAY})(?!\w)", re.IGNORECASE)
_ONLY_A_DAY = re.compile(
    rf"^\s*(?:(?:make (?:that|it)|rather|then|instead|actually)\s+)*(?P<day>{_A_DAY})"
    r"(?:\s+(?:instead|then|please|pls))*\s*$",
    re.IGNORECASE,
)
_SAME_TIME = re.compile(
    r"^[\s,;]*(?:(?:at )?(?:the )?same time|같은 시간(?:에|으로)?)[\s,.;—–-]*",  # noqa: RUF001
    re.I,
)


def _mind_changed_on_the_day(text: str) -> str:
    """The message with the day the writer took back replaced by the one they changed to, when
    all the words after the change name is that day: "sms Emma the day after tomorrow at 7pm —
    no, make that tomorrow, same time — 'bring the costume'" is for tomorrow at 7pm."""
    thought = _second_thought(text)
    if thought is None:
        return text
    before, lead, after = thought
    day = _ONLY_A_DAY.match(lead)
    if day is None or not _DAY.search(before):
        return text
    before = _DAY.sub(day["day"], before, count=1).rstrip(" ,;—–-")  # noqa: RUF001
    after = _SAME_TIME.sub("", after[len(lead) :]).strip(" ,.;—–-")  # noqa: RUF001
    joint = ": " if after[:1] in "'\"‘“" else ", "  # a quoted text after it is the text  # noqa: RUF001
    return f"{before}{joint}{after}" if after else before


# "no, make it 8", "no wait, 9am": the clock time changed to, and nothing else
_ONLY_A_TIME = re.compile(
    r"^\s*(?:(?:make (?:that|it)|rather|then|instead|actually)\s+)*"
    r"(?P<clock>\d{1,2}(?::\d{2})?)(?P<half>\s*(?:am|pm|a\.m\.|p\.m\.))?"
    r"(?:\s+(?:instead|then|please|pls))*\s*$",
    re.IGNORECASE,
)
_A_CLAUSE = re.compile(r"\s+-+\s+|[.,;:!?—–…]")  # noqa: RUF001
_CLOCK = re.compile(
    r"(?<![\d:])\d{1,2}(?::\d{2})?(?P<half>\s*(?:am|pm|a\.m\.|p\.m\.))?(?![\d:])", re.I
)


def _mind_changed_on_the_time(text: str) -> str:
    """ "Remind James … the day after tomorrow at 8:30 in the morning - no, make it 8 - that
    …" is at 8 in the morning: the last clock time before the change becomes the one changed
    to (its half of the day kept unless the new one says its own), and the rest stays."""
    thought = _second_thought(text)
    if thought is None:
        return text
    before, _, after = thought
    lead, rest = _changed_to(after)
    new = _ONLY_A_TIME.match(lead)
    old = list(_CLOCK.finditer(before))
    if new is None or not old:
        return text
    last = old[-1]
    clock = new["clock"] + (new["half"] or last["half"] or "")
    before = f"{before[: last.start()]}{clock}{before[last.end() :]}".rstrip(" ,;—–-")  # noqa: RUF001
    return f"{before} {rest}" if rest else before


def _changed_to(after: str) -> tuple[str, str]:
    """What the writer changed to (the first clause after the change; " - " ends one too) and
    the rest of the message."""
    lead = _A_CLAUSE.split(after, maxsplit=1)[0]
    return lead, after[len(lead) :].strip(" ,;—–-")  # noqa: RUF001


# "title Science Week - oh wait, call it STEM Week - and the body: …": the title changed to
_TITLE_CHANGED_TO = re.compile(r"^\s*(?:call|name|title) it\s+(?P<title>.+?)\s*$", re.I)
_TITLE_SAID = re.compile(
    r"(?P<word>\btitled?|\bcalled)\s+(?:'[^']*'|\"[^\"]*\"|[^,.;:!?—–]+?)\s*[-—–,]*\s*$",  # noqa: RUF001
    re.IGNORECASE,
)
_OH_WAIT = re.compile(r"\s+[-—–]+\s*oh,? wait,?\s+|[,.]\s*oh,? wait,?\s+", re.I)  # noqa: RUF001


def _mind_changed_on_the_title(text: str) -> str:
    """The title said before "oh wait, call it …" replaced by the one after it; the rest stays."""
    found = list(_OH_WAIT.finditer(text))
    if not found:
        return text
    before, after = text[: found[-1].start()], text[found[-1].end() :]
    lead, rest = _changed_to(after)
    new = _TITLE_CHANGED_TO.match(lead)
    said = _TITLE_SAID.search(before)
    if new is None or said is None:
        return text
    before = f"{before[: said.start()]}{said['word']} {new['title']}"
    return f"{before} - {rest}" if rest else before


# "메일로 하려다가", "문자로 돌릴까 하다가": what the writer was about to do, now not
_WAS_GOING_TO = re.compile(
    r"(?:\s+\S*까)?(?:\s*(?:하려다가|하려다|하다가|하려고\s*했는데|했다가))?[\s.…]*$"
)
_PRONOUNS = re.compile(r"\b(?:him|her|them|it|instead|please|pls|just|then|to)\b|그냥|대신", re.I)


def _whole_words_of(cue: re.Pattern[str]) -> re.Pattern[str]:
    """``cue`` widened to the whole word it is part of ("email" in "email,", "문자" in "문자로")."""
    return re.compile(rf"[^\s,.;:!?]*(?:{cue.pattern})[^\s,.;:!?]*", cue.flags)


_SENTENCE_END = re.compile(r"[.!?:](?:\s|$)")


def _without_the_second_thought(text: str, directory: Directory) -> str:
    """The message without the sentence that changed its mind ("— sorry, scratch that, just Mr
    Taylor, Ms Choi already knows."), when more follows it: that sentence names who, not what
    to say."""
    thought = _second_thought(text)
    if thought is None:
        return text
    before, _, after = thought
    end = _SENTENCE_END.search(after)
    rest = after[end.end() :].strip() if end else ""
    if rest:
        return f"{before.rstrip(' ,;—–-')}. {rest}"  # noqa: RUF001
    # "유나쌤한테 문자로... 아니 제임스쌤한테 보내줘, 내일 …": the new request is the rest; of
    # the words before it, all but the ones naming the people taken back still count
    kept = [word for word in before.split() if not find_recipients(word, directory).names]
    return " ".join([*kept, after]).replace("...", " ").replace("…", " ")


def _recipients_on_second_thought(text: str, env: _Env) -> Found | None:
    """Who the writer named instead, right after a change of mind: "sms the teachers … — sorry,
    scratch that, just Mr Taylor", "telegram Minji's mum … — hang on, no, it's Oliver Brown
    who's on the committee"."""
    thought = _second_thought(text)
    if thought is None:
        return None
    found = find_recipients(thought[1], env.directory)
    return found if found.names and not found.ambiguous else None


# "I need to put up an announcement, can you help?", "공지 하나 띄워야 되는데": a need stated for
# what one tool makes is a request for it, whatever the rest of the words sounded like.
_NEED = re.compile(
    r"(?:\b(?:i|we)\s+(?:really\s+)?(?:need|have|want|got|gotta|would like|d like)|^(?:need|have|"
    r"want))\s+(?:to\s+)?(?:get\s+)?(?:send|text|e-?mail|message|post|put (?:up|out)|publish|"
    r"make|write|draft|do|schedule|set up|announce|remind)\b|"
    r"(?:보내|써|올려|띄워|넣어|남겨|걸어)야\s?(?:되|하|돼)|"
    r"(?:보내|써|올리|띄우|남기)고\s?싶",
    re.IGNORECASE,
)


# "I want to read the announcement about the trip", "I need to know what the policy says
# about SMS": a need to know is a question, whatever tool its words name.
_NEED_TO_KNOW = re.compile(
    r"\b(?:need|want|like|have|wanted)\s+to\s+(?:know|read|see|check|find|look|understand|"
    r"learn|understand|remember)\b|알고\s?싶|읽고\s?싶|보고\s?싶|확인하고\s?싶",
    re.IGNORECASE,
)


# An announcement or a reminder read by meaning alone, by a hair and with none of its words:
# "B반 학부모님 명단을 정리하고 있는데요, … 누구누구인지 알려주실 수 있을까요?" came out an
# announcement by 0.005. A message to someone named has its recipients to go on; these two,
# asked as a question, have nothing, so the best reading that is not a write answers instead.
# So does any request whose writer asks how *they* would make it ("how do I send something to
# the teachers from here?", "how can I email the class A parents?"), however clear the tool:
# that asks for the way, not for the message.
_MIN_UNNAMED_MARGIN = 0.1
_HOW_ONE_WOULD = r"\bhow (?:do|can|would|should) "
_HOW_DO_I = re.compile(
    _HOW_ONE_WOULD + r"(?:i|we)\b|"
    # "와이파이는 어떻게 안내해 드리면 되는지 제가 잘 몰라서요": how the asker should do it
    r"어떻게\s*(?:\S+\s*){0,2}?(?:하면|드리면|해야|드려야)\s*(?:되는지|될지|돼요|되나요|하는지|할지|될까요)",
    re.IGNORECASE,
)


def _unnamed_and_unsure(intent: Intent, text: str, env: _Env) -> Label:
    if intent.label not in env.classifier.write_tools:
        return intent.label
    if not _HOW_DO_I.search(text) and (
        env.is_a(intent.label, "message")
        or intent.confidence >= _MIN_UNNAMED_MARGIN
        or intent.label in env.named_tools(text)
        or not any(mark in text for mark in "?\uff1f")  # "board post for class B: bake sale"
    ):
        return intent.label
    others = {k: v for k, v in intent.scores.items() if k not in env.classifier.write_tools}
    return cast(Label, max(others, key=others.__getitem__)) if others else intent.label


def _needed_tool(intent: Intent, text: str, env: _Env) -> Label:
    if REMIND_ME_OF_A_FACT.search(text):
        return "knowledge" if intent.label in env.classifier.write_tools else intent.label
    verbs = {m.group(0).lower() for m in _ACTION_WORDS.finditer(text)} - {"알려", "tell"}
    asks_me = _ASKED_OF_YOU.search(text)  # "…, could you text him?"
    if _NEED_TO_KNOW.search(text) and not (
        _NEED.search(text) or verbs or asks_me or env.verb_then_someone(text)
    ):
        return "knowledge" if intent.label in env.classifier.write_tools else intent.label
    if intent.label in env.classifier.write_tools or not _NEED.search(text) or asks_about(text):
        return intent.label
    named = env.named_tools(text)
    return cast(Label, named[0]) if len(named) == 1 else intent.label


# "message oliver", "msg Yuna", "ping James about …": a verb of sending that names no channel.
_GENERIC_SEND = re.compile(
    r"^(?:(?:please|pls|can you|could you)\s+)?(?:message|msg|ping|contact|reach out to)\s+\S",
    re.IGNORECASE,
)


def _best_scored(intent: Intent, tools: Sequence[str]) -> Label:
    """The one of ``tools`` the message's meaning scored highest."""
    return cast(Label, max(tools, key=lambda tool: intent.scores.get(tool, 0.0)))


def _generic_send(intent: Intent, text: str, env: _Env) -> Label:
    """A verb of sending with no channel, addressed to someone in the directory, asks for a
    message: the message tool that scored best (the draft then asks for what is missing)."""
    sends = env.shaped("message")
    if intent.label in env.classifier.write_tools or not sends or not _GENERIC_SEND.match(text):
        return intent.label
    found = find_recipients(text, env.directory)
    if not found.anyone:
        return intent.label
    return _best_scored(intent, _reachable(sends, found, env))


def _reachable(tools: Sequence[str], found: Found, env: _Env) -> Sequence[str]:
    """Of the message ``tools`` a request left to choose from, those every contact it names can
    receive ("send Emma a message": not Telegram, which Emma has no chat id for); all of them
    when none is."""
    contacts = [c for c in env.directory.contacts if c.name in found.names]
    fitting = [
        tool
        for tool in tools
        if all(env.classifier.tools[tool].channel in c.channels for c in contacts)
    ]
    return fitting or tools


# "How do I text a parent?", "what did we send Emma?", "이거 어떻게 보내요?": asking how or
# what, not asking for it.
_ASKS_HOW = re.compile(
    _HOW_ONE_WOULD + r"(?:i|we|you)\b|^\W*(?:what|which|when|who|why|where|did|"
    r"was|were|has|have|had)\b|어떻게|뭐였|언제",
    re.IGNORECASE,
)

_ASKS_DATA = re.compile(
    r"\bhow (?:many|much|often)\b|\bnumber of\b|\b(?:list|show|count)\b|몇|얼마나|목록|보여", re.I
)


# A margin this wide is not narrow: "…B반에 등록된 학부모님이 누구누구인지 알려주실 수 있을까요?"
# names a group and "알려", and is a question about our data all the same.
_CLEAR_MEANING = 0.5


def _addressed_request(intent: Intent, text: str, env: _Env) -> Label:
    """ "can you send this to Minji?": a verb of sending addressed to someone in the directory
    is a request, however close its words sit to "what can you do?", to a greeting or to a
    question for the documents, none of which names a recipient; so the slots outweigh a narrow
    margin of meaning. The write tool whose own words appear wins, else the best-scored message
    tool."""
    if (
        intent.label not in ("help", "smalltalk", "knowledge", "data")
        or (intent.confidence >= _CLEAR_MEANING and not env.verb_then_someone(text))
        or _ASKS_HOW.search(text)
    ):
        return intent.label
    if (
        intent.label == "data"
        and _ASKS_DATA.search(text)  # "how many texts did we send Emma?"
        and not env.verb_then_someone(text)  # "email class b parents the kit list"
    ):
        return intent.label
    named = env.named_tools(text)
    if not (named or _ACTION_WORDS.search(text)):
        return intent.label
    found = find_recipients(text, env.directory)
    if not (found.names or found.addresses):  # "could you tell me whether …" asks the assistant
        return intent.label
    tools = named or _reachable(env.shaped("message"), found, env)
    if not tools:
        return intent.label
    return _best_scored(intent, tools)


def _told_to_a_person(intent: Intent, text: str, env: _Env) -> Label:
    """ "Give Yuna a heads up that the printer is jammed again": news for one person the
    directory knows, with no word of a notice, is a message to them, however much it reads
    like news for everyone."""
    if not env.is_a(intent.label, "announcement") or env.classifier.cues[intent.label].search(text):
        return intent.label
    if not _ACTION_WORDS.search(text):
        return intent.label
    found = find_recipients(text, env.directory)
    contacts = {c.name for c in env.directory.contacts}
    if not found.names or not set(found.names) <= contacts:
        return intent.label
    return _best_scored(intent, _reachable(env.shaped("message"), found, env))


# "email class b parents tournament kit list pls …", "Is it possible that you email Mr Brown
# about the photo consent form?": a channel's verb at the start of a clause with someone from
# the directory right after it asks for that channel, however confidently the rest of the
# words read as a question for the documents ("text messages to parents need approval?" has
# nobody after its verb).
def _verb_at_a_clause(env: _Env) -> re.Pattern[str]:
    return _verb_at_a_clause_of(env.verbs("message"))


@functools.lru_cache(maxsize=8)
def _verb_at_a_clause_of(verbs: tuple[str, ...]) -> re.Pattern[str]:
    # the message tools' own verbs (from the registry), and "msg", which names none of them
    return re.compile(
        r"(?:^|[.!?,;:]\s*|\b(?:you|u|pls|please|plz|kindly|and|then|to)\s+)"
        rf"(?:{_alternation((*verbs, 'msg'))})\s+(?P<rest>\S+(?:\s+\S+)?)",
        re.IGNORECASE,
    )


def _alternation(words: Iterable[str]) -> str:
    """``words`` as a regex alternation; a space inside one may be a hyphen or nothing ("e mail",
    "e-mail", "email")."""
    return "|".join(re.escape(word).replace(r"\ ", r"[\s-]?") for word in words)


def _verb_then_someone(text: str, env: _Env) -> bool:
    return any(
        find_recipients(match["rest"], env.directory).names
        for match in _verb_at_a_clause(env).finditer(text)
    )


# "문자 예약 걸어줘", "예약 발송해줘", "schedule a text to the parents": sent later, at a time
# still to be said.
_SCHEDULED = re.compile(
    r"예약\s*(?:발송|문자|메일|걸|해|좀|해\s*놔|해\s*둬)|"
    r"\bschedule(?:d)?\s+(?:a|an|the|this|that|my)?\s*(?:text|sms|e-?mail|message|telegram)\b",
    re.IGNORECASE,
)


def _scheduled_not_sent(label: Label, text: str, env: _Env) -> Label:
    """A message asked to be sent later is a reminder that sends it, even with no time yet (the
    draft then asks when)."""
    reminders = env.shaped("reminder")
    if not env.is_a(label, "message") or not reminders or not _SCHEDULED.search(text):
        return label
    return cast(Label, reminders[0])


def _sent_not_reminded(intent: Intent, text: str, env: _Env) -> Label:
    """ "tell Emma the meeting is tomorrow at 9": a time makes the request look like a reminder,
    but with no word of reminding and a verb of sending to someone it is a message whose text
    holds the time; the best-scored send tool takes it."""
    if not env.is_a(intent.label, "reminder") or env.classifier.cues[intent.label].search(text):
        return intent.label
    verbs = [m.group(0).lower() for m in _ACTION_WORDS.finditer(text)]
    if not [v for v in verbs if v != "알려"] or re.search(r"\btell me\b", text, re.IGNORECASE):
        return intent.label
    sends = env.shaped("message")
    if not sends:
        return intent.label
    return _best_scored(intent, sends)


def _new_request(label: str, text: str, env: _Env) -> bool:
    """Whether ``text`` starts over instead of answering the question asked. A cancel is short
    ("never mind", "됐어"); a longer answer that reads like one ("내용은 이번 주 토요일 보강
    취소됐다고") is what the message should say."""
    cue = env.classifier.cues.get(label)
    asks_anew = label in env.classifier.write_tools and cue is not None and bool(cue.search(text))
    cancels = label == "cancel" and len(text.split()) <= _MAX_CANCEL_WORDS
    return cancels or asks_anew


_MAX_CANCEL_WORDS = 4


def _pending(history: list[tuple[Role, str]], env: _Env, depth: int) -> tuple[Draft, Slot] | None:
    """The draft and slot the last assistant line asked about, if it was our question."""
    if depth >= _MAX_FOLLOW_UPS or len(history) < 2 or history[-1][0] != "assistant":
        return None
    (role, asked), (_, answered) = history[-2], history[-1]
    if role != "user":
        return None
    earlier = _understand(asked, history[:-2], env, depth + 1)
    slot = earlier.understanding.slot
    if earlier.draft is None or slot is None or earlier.understanding.question != answered:
        return None
    return earlier.draft, slot


# "Mr Taylor's travel claim has reached my desk … could you write to him by e-mail": the one
# person the message speaks of is who "him" or "her" is.
_TO_ONE_PERSON = re.compile(
    r"\b(?:to|e-?mail|text|txt|message|tell|ping|let|remind|inform|notify|contact|ask|send|"
    r"write|drop|give)\s+(?:him|her)\b",
    re.IGNORECASE,
)


_SENT_TO = re.compile(
    r"\b(?:e-?mail|text|message|sms|telegram|note|letter)\s+to\s+(?P<who>\S.*)$", re.IGNORECASE
)


def _sent_to_later(rest: str, env: _Env) -> Found | None:
    """Who "an email to …" names after a topic ("about …") was cut from the head."""
    sent = _SENT_TO.search(rest)
    found = find_recipients(sent["who"], env.directory) if sent else None
    return found if found is not None and found.anyone else None


def _me_where_asked(people: str, env: _Env) -> bool:
    """Whether the sentence that asks (the last of ``people``) names the writer."""
    asking = _SENTENCE_BREAK.split(people.strip())[-1]
    return find_recipients(asking, env.directory).me


def _the_one_spoken_of(people: str, env: _Env) -> Found | None:
    spoken_of = find_recipients(people, env.directory, spoken_of=True)
    if len(spoken_of.names) != 1 or spoken_of.ambiguous or spoken_of.addresses:
        return None
    return spoken_of


def _recipients(people: str, rest: str, split: Split, text: str, env: _Env) -> tuple[Found, Split]:
    """Who the request's ``people`` words name; when they name nobody, the places a request
    may name them instead (the split's body loses a name read from it)."""
    found = find_recipients(people, env.directory)
    if not found.anyone and _TO_ONE_PERSON.search(people):
        # "not sure if I should just ask Ms Choi directly, but could you email her …": "her"
        # is the one person named before the request
        before = text[: text.find(people)] if people and people in text else ""
        found = _the_one_spoken_of(people, env) or _the_one_spoken_of(before, env) or found
    if not found.anyone:  # "… asking about the pick-up: an email to the Class A parents …"
        found = _sent_to_later(rest, env) or found
    if not found.anyone and split.body and say.korean(text):
        # "James쌤 오늘 3호차 운행 안 함. 문자로 전달 ㄱ": who, then what, then the request
        first, _, after = split.body.partition(" ")
        lead = find_recipients(first, env.directory)
        if lead.names and not lead.ambiguous and after.strip():
            found, split = lead, replace(split, body=after.strip())
    return _one_whose_name_is_forgotten(found, text, env), split


# "…한 분한테만 보내야 되는데 성함이 기억이 안 나요", "one of the B parents, can't remember her
# name": the writer means one person of the group they named, and does not know which.
_NAME_FORGOTTEN = re.compile(
    r"(?:성함|이름)(?:이|을|는)?\s?(?:잘\s?)?(?:기억(?:이|이\s?잘)?\s?(?:안|않)|생각(?:이)?\s?(?:안|않)|"
    r"까먹|깜빡)|"
    r"\b(?:can ?t|cannot|can not|don ?t|do not) (?:remember|recall) (?:his|her|their|the) "
    r"(?:name|surname)|\bforg(?:ot|otten|et) (?:his|her|their|the) (?:name|surname)",
    re.IGNORECASE,
)


def _one_whose_name_is_forgotten(found: Found, text: str, env: _Env) -> Found:
    groups = env.directory.groups
    if found.ambiguous or not found.names or not set(found.names) <= set(groups):
        return found
    if not _NAME_FORGOTTEN.search(text):
        return found
    members = env.directory.members(found.names)
    return replace(found, names=[], ambiguous=[members]) if len(members) > 1 else found


_TOPIC_WORD = re.compile(r"\s+(?:about|subject|titled)\b", re.IGNORECASE)


def _asks_for_a_tool(sentence: str, env: _Env) -> bool:
    """Whether ``sentence`` is the one that asks: a verb of sending or a tool's own word."""
    return bool(_ACTION_WORDS.search(sentence) or env.named_tools(sentence))


def _told_first(head: str, env: _Env) -> int:
    """Where the sentence that asks starts in ``head``: after the sentences told before it
    ("Oliver's dad rang about the fees. Please email Emma and Oliver that …"), whose "about" is
    no topic of the request."""
    start = 0
    sentences = split_sentences(head)
    for index, sentence in enumerate(sentences[:-1]):
        if _asks_for_a_tool(sentence, env) and not _only_told(
            sentence, sentences[index + 1 :], env
        ):
            break
        start = head.find(sentence, start) + len(sentence)
    return start


def _only_told(sentence: str, later: list[str], env: _Env) -> bool:
    """ "…a fire drill this afternoon that nobody bothered to tell staff about. Could you text
    the teachers …?": a verb of sending in a sentence that asks nobody (no "could you", no
    imperative), before a sentence that does ask."""
    if _ASKED_OF_YOU.search(sentence) or _imperative(env.verbs()).match(sentence):
        return False
    return any(_asks_for_a_tool(s, env) and _ASKED_OF_YOU.search(s) for s in later)


# The language's verbs of passing words on, whichever tool carries them; each tool's own verbs
# ("text", "email", "remind", "announce") come from the registry.
_VERBS_OF_SENDING = (
    "send", "tell", "let", "post", "message", "msg", "notify", "ping", "inform", "forward"
)  # fmt: skip


@functools.lru_cache(maxsize=8)
def _imperative(verbs: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(
        r"^\W*(?:(?:ok|okay|so|and|now|then)\s+)?"
        rf"(?:{_alternation((*verbs, *_VERBS_OF_SENDING))})\b",
        re.IGNORECASE,
    )


def _named_where_asked(found: Found, head: str, env: _Env) -> Found:
    """ "Mr Brown just phoned — his boy has a dentist appointment. Could you text Ms Choi …?": when
    the sentence that asks names people itself, the people named only in the sentences before
    it are spoken of (who called, whose child), not written to."""
    sentences = split_sentences(head)
    if len(sentences) < 2 or len(found.names) < 2:
        return found
    asking = next((s for s in reversed(sentences) if _asks_for_a_tool(s, env)), None)
    if asking is None or asking == sentences[0]:
        return found
    own = find_recipients(asking, env.directory)
    if not own.names or own.ambiguous or not set(own.names) < set(found.names):
        return found
    return replace(found, names=[name for name in found.names if name in own.names])


# "… there will be a small tea party. Perhaps we might title it 'Farewell'.": the title, named
# in a sentence of its own after everything else
_TITLE_SAID_LAST = re.compile(
    r"(?<=[.!?])\s+(?:(?:perhaps|maybe|and|oh and|also)\s*,?\s+)?"
    r"(?:(?:we|you|i)\s+(?:might|could|can|should|would)\s+|let\s*'?s\s+|please\s+)?"
    r"(?:title|call|name|head)\s+it\s+['\"‘“](?P<title>[^'\"’”\n]{2,60})['\"’”]"  # noqa: RUF001
    r"\s*[.!]*\s*$",
    re.IGNORECASE,
)


def _title_said_last(text: str) -> tuple[str, str | None]:
    said = _TITLE_SAID_LAST.search(text)
    if said is None:
        return text, None
    return text[: said.start()].rstrip(), said["title"].strip()


def _says_nothing(text: str, env: _Env) -> bool:
    return says_nothing(text, (words.cue for words in env.classifier.tools.values()))


def _fresh(text: str, label: Label, confidence: float, env: _Env) -> _Result:
    text = _without_pleasantries(text)
    text, title_last = _title_said_last(text)
    instead = _recipients_on_second_thought(text, env)
    split = split_message(_without_the_second_thought(text, env.directory) if instead else text)
    if title_last and not split.heading:
        split = replace(split, heading=title_last)
    if split.heading and split.body and _says_nothing(split.body, env):
        # "…일정을 안내해 주실 수 있을까요? 제목은 '교사 연수 안내'로 부탁드립니다.": what follows
        # the title is the asking; the words are read from the request
        split = replace(split, body=None)
    label = _told_by_head(label, split, env)
    words = env.words(label)
    # A labelled, quoted subject counts for any e-mail, a scheduled one too.
    asks_subject = words is not None and words.subject
    asked_from = _told_first(split.head, env)
    subject = split.heading or (subject_of(split.head[asked_from:]) if asks_subject else None)
    suggested = _SUGGESTION.sub("", split.head)  # "How about texting Emma …"
    told = _told_first(suggested, env)
    people = suggested[:told] + _TOPIC_WORD.split(suggested[told:])[0]
    found, split = _recipients(people, suggested[len(people) :], split, text, env)
    if instead is not None:
        found = replace(instead, end=found.end)
    else:
        found = _named_where_asked(found, split.head, env)
    if env.is_a(label, "announcement"):
        found = _everyone_if_said(found, text, env)
    if not _actionable(label, text, found, env):
        return _Result(Understanding("knowledge", confidence))
    after = (
        None
        if split.body
        else (env.is_a(label, "message") and _news_told_first(split.head))
        or _after_recipients(label, people, found, env)
        # "…30분 늦춰집니다. … A반 학부모님들께 문자로 알려 주시기 바랍니다.": the news stated
        # before the sentence that asks, which holds nothing but the asking
        or (say.korean(split.head) and words is not None and _told_beside_ko(split.head, words))
        or None
    )
    if after:  # "Emma Wilson - text her pls - her son's inhaler is …": who, the ask, the words
        after = without_a_bare_request(after)
    when_first = None
    if after and env.is_a(label, "message"):
        # "telegram oliver at 3pm today his kit bag is in the office": a clock time before the
        # words is when to send them, not part of them
        lead = _WHEN_FIRST.match(after)
        if lead is None or len(after[lead.end() :].split()) < _MIN_TOLD_WORDS:
            # a break after the time sets the words apart, so fewer of them are enough
            broken = _time_words_then_break(after, env)
            lead = broken if broken and len(after[broken.end() :].split()) >= 2 else None
        if lead:
            when_first, after = lead.group(0), tidy(after[lead.end() :])
    if after and found.me and not find_recipients(people[: found.end], env.directory).me:
        found = replace(found, me=False)  # "text Emma to start without me": "me" is in the text
    if found.me and found.names and not _me_where_asked(people, env):
        # "…I was hoping Yuna might swap with me … could you send her a telegram asking …":
        # "me" in the story before the request is not one of its recipients
        found = replace(found, me=False)
    if not split.body and not after and env.is_a(label, "announcement"):
        after = _announced_topic(split.head) or _told_around(split.head, env.words(label))
    draft = Draft(
        tool=label,
        confidence=confidence,
        ko=say.korean(text),
        found=found,
        named=found.described or ([] if found.anyone else _named(people)),
        body=direct_if_reported(
            _said_then_rago(
                _pointing_back(
                    _told_before(
                        _it_named(_with_topic(split.body or after, split.head), split.head),
                        text,
                        label,
                        env,
                    ),
                    split.head,
                )
            )
        ),
        subject=subject,
        title=(split.heading or title_of(split.head) or _leftover_title(split.head, found))
        if env.is_a(label, "announcement")
        else None,
        channel=_channel(split.head, env),
    )
    if _NO_WORDS_YET.search(text):  # the writer says the words are still to come: ask for them
        draft = replace(draft, body=None)
    if env.is_a(label, "announcement"):
        draft = replace(draft, body=_participle_told(draft.body))
    if draft.ko:  # "…께 문자로 내일 휴강을 안내해 주세요": the news named, not yet said
        draft = replace(draft, body=_object_told_of(draft.body), subject=_topic_of(draft.subject))
    if (
        env.is_a(label, "reminder")
        # "상담 예약 확정됐다고 안내해줘": a booking the text tells of is not "예약" of the sending
        and not _LATER.search(split.head if split.body else text)
        and _sent_now(draft, split.head, env)
    ):
        draft = replace(draft, tool=cast(Label, draft.channel), channel=None)
    elif env.is_a(label, "reminder"):
        draft = _with_when(draft, split.head, text, env)
    elif env.is_a(label, "message"):
        # The words after the recipients are the message: a time in them is content.
        timed = split.head[: found.end] if after else split.head
        draft = _scheduled_if_timed(draft, f"{timed} {when_first}" if when_first else timed, env)
        reminders = env.shaped("reminder")
        if draft.tool == label and _LATER.search(split.head) and reminders:
            # "schedule a telegram to Yuna saying …": for later, and no time said: ask when
            draft = replace(draft, tool=reminders[0], channel=label)
    elif env.is_a(label, "announcement"):
        # "put up an announcement for everyone in 5 days at 9:00 saying …": scheduled; the
        # words left in the head are the time, not a title.
        # A statement read from the request is content, its times too ("announce parent
        # teacher evening starts 6pm in the main hall" is posted now).
        timed = _without_said(split.head, after) if after and not split.body else split.head
        scheduled = _scheduled_if_timed(draft, timed, env)
        if scheduled is not draft:
            draft = replace(scheduled, title=split.heading or title_of(split.head))
    return _resolve(draft, env)


# "Good day! Kindly send …", "Buenos días. Please send …", "… Thank you po.", "… Muchas gracias.":
# a sentence of greeting before the request, or of thanks after it, is said to us; it is never
# the message, and it is not the story the request explains itself with either.
_GREETING_FIRST = re.compile(
    r"^\s*(?:(?:good\s+(?:morning|day|afternoon|evening)|hello|hi|hey|hiya|greetings|morning|"
    r"buenos\s+d[ií]as|buenas(?:\s+(?:tardes|noches))?|hola|bonjour|안녕하세요|안녕하십니까)"
    r"(?:\s+(?:there|all|team|everyone|ma'?am|sir|po))?)\s*[!.~]+\s+(?=\S)",
    re.IGNORECASE,
)
_THANKS_LAST = re.compile(
    r"(?:(?<=[.!~])\s+(?:(?:(?:lovely|great|brilliant|perfect|super)[,!]?\s+)?"
    r"(?:thank\s+you|thanks|thx|ty|many\s+thanks|thanks\s+again|ta|"
    r"cheers(?:\s+(?:mate|mates|love|all))?|"
    r"(?:muchas\s+)?gracias|merci(?:\s+beaucoup)?|감사합니다|고맙습니다)"
    r"(?:\s+(?:so\s+much|a\s+lot|very\s+much|po|in\s+advance|for\s+(?:your|the)\s+help))*"
    r"|have\s+a\s+(?:good|nice|great)\s+(?:one|day))"
    # "… for me? I'd be so grateful."
    r"|(?<=[.!~?])\s+i\s*(?:'|\u2019)?d\s+be\s+(?:so\s+|very\s+|most\s+|really\s+|ever\s+so\s+)?"
    r"(?:grateful|thankful|obliged))\s*[!.~^]*\s*$",
    re.IGNORECASE,
)


# "…an e-mail to Mr Taylor, if that would not be too much bother.", "…James Taylor please, if
# that's ok": a courtesy that closes the request says nothing to send.
_COURTESY_LAST = re.compile(
    r"[,;]?\s+if\s+(?:(?:it|that|this)\s*(?:'|\u2019)?\s*(?:is|s|would|will|isn't|wouldn't)"
    r"(?:\s+not)?(?:\s+be)?(?:\s+(?:too\s+much|much|any|a)\s+(?:trouble|bother|hassle))|"
    r"(?:it|that|this)\s*(?:'|\u2019)?\s*(?:is|s|would\s+be)\s+(?:ok|okay|alright|all\s+right|fine)"
    r"(?:\s+with\s+you)?|you\s+(?:would|could|'d)\s+be\s+so\s+kind|"
    r"you\s+(?:don't|do\s+not|dont)\s+mind)\s*[!.~^]*\s*$",
    re.IGNORECASE,
)


def _without_pleasantries(text: str) -> str:
    plain = _THANKS_LAST.sub("", _GREETING_FIRST.sub("", text, count=1)).strip()
    plain = _COURTESY_LAST.sub("", plain).strip()
    return plain or text


# A clock time (with its day, either side) that opens the words after the recipients.
_CLOCK_FIRST = (
    r"(?:at\s+|@\s*)?\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock)|at\s+\d{1,2}(?::\d{2})?"
)
_DAY_FIRST = r"today|tonight|tomorrow|tmrw?|this (?:morning|afternoon|evening)"
_WHEN_FIRST = re.compile(
    rf"^\s*(?:(?:{_DAY_FIRST})\s+)?(?:{_CLOCK_FIRST})(?:\s+(?:{_DAY_FIRST}))?\b\s*[,:;-]*\s+",
    re.IGNORECASE,
)


# "…for ms wilson in 2 days at 4:30pm, her library books r overdue": words of time alone, then
# a break, open the words after the recipients; they say when to send the rest.
_LEAD_BEFORE_BREAK = re.compile(
    r"^\s*(?P<lead>(?:[^,;:–—]|(?<=\d):(?=\d)){2,40}?)\s*(?:[,;]|:(?!\d)|\s[-–—])\s*"  # noqa: RUF001
)


def _time_words_then_break(after: str, env: _Env) -> re.Match[str] | None:
    lead = _LEAD_BEFORE_BREAK.match(after)
    if lead is None or not said_only_when(lead["lead"]):
        return None
    try:
        return lead if find_when(lead["lead"], now=env.now, tz=env.tz) is not None else None
    except MissingTime:
        return None


# "Can you put an announcement out? I haven't a clue what it should say yet.", "내용은 아직 못
# 정했어요": whatever else the message tells, it is not the words.
# A Korean text that is only the object of the request's verb ("내일 휴강을 [안내해 주세요]")
# names the news; sent, it says that news is given ("내일 휴강 안내드립니다.").
_OBJECT_LEFT_KO = re.compile(r"^(?P<topic>[^.?!]*[가-힣])(?:을|를)$")


def _object_told_of(body: str | None) -> str | None:
    topic = _topic_of(body)
    return f"{topic} 안내드립니다." if topic != body else body


def _topic_of(text: str | None) -> str | None:
    left = _OBJECT_LEFT_KO.match(text.strip()) if text else None
    return left["topic"] if left else text


_NO_WORDS_YET = re.compile(
    r"\b(?:i\s+)?(?:haven'?t|have\s+no|don'?t\s+have|do\s+not\s+have|have\s+not\s+got)\s+"
    r"(?:a|any|the\s+(?:faintest|slightest))?\s*(?:clue|idea)\s+what\s+(?:it|the\s+\w+|to)\s+"
    r"(?:should|will|is\s+going\s+to|needs\s+to)?\s*say|"
    r"\b(?:not\s+sure|no\s+idea|don'?t\s+know)\s+(?:yet\s+)?what\s+(?:it\s+should|to)\s+say\b|"
    r"(?:내용|문구|뭐라고\s?(?:쓸|할|적을))\S*\s?(?:은|는)?\s?아직\s?(?:못|안)\s?(?:정했|정해|썼)|"
    r"(?:내용|문구)(?:은|는)?\s?(?:아직\s?)?미정|"
    # "I'll think about the wording in a minute", "내용은 이따가 생각해 볼게요"
    r"\b(?:i['’ ]?ll|i\s+will|let\s+me)\s+(?:have\s+a\s+)?think\s+(?:about|of|over)\s+"  # noqa: RUF001
    r"(?:the\s+)?(?:wording|words|text|content|what\s+(?:it\s+should|to)\s+say)\b|"
    r"(?:내용|문구)\S*\s?(?:은|는)?\s?(?:이따가?|나중에|좀\s?있다가?)\s?(?:\S+\s)?(?:생각|정할|정해)|"
    # the words forgotten mid-request: "what was I going to say", "뭐라고 하려고 했더라"
    r"\bwhat\s+was\s+i\s+(?:going\s+to|gonna|about\s+to)\s+(?:say|write|tell)\b|"
    r"\blost\s+my\s+train\s+of\s+thought\b|"
    r"뭐라고\s?(?:하려고|쓰려고|보내려고|말하려고)\s?했더라",
    re.IGNORECASE,
)


def _without_said(head: str, said: str) -> str:
    """``head`` without the statement ``said`` was read from (tidied: its first letter and its
    end may differ); all of ``head`` when it cannot be found."""
    core = said.strip().rstrip(".!?").strip()
    at = head.lower().find(core[1:].lower()) - 1 if len(core) > 1 else -1
    if at < 0:
        return head
    return head[:at] + head[at + len(core) :]


def _told_by_head(label: Label, split: Split, env: _Env) -> Label:
    """ "text Emma: I sent the receipt by email", "Emma한테 문자: 메일함 확인 부탁드려요": the
    channel the request itself names is the tool; another channel's word inside the message is
    what it says. With no channel named in the request ("문ㅈ자", a typo) and the chosen tool's
    word only in the message, the request's words alone choose among the message tools."""
    if not split.body or not (env.is_a(label, "message") or env.is_a(label, "announcement")):
        return label
    # "Title 'Photo day', text: …. Have that announcement go up tomorrow": "text" was a label
    asked = env.named_tools(split.head)
    if len(asked) == 1 and not env.classifier.cues[label].search(split.head):
        return cast(Label, asked[0])
    named = _channel(split.head, env)
    if named is not None:
        preferred = env.classifier.cues[label].search(_RATHER_THAN.sub(" ", split.head))
        return label if preferred else cast(Label, named)
    if not env.is_a(label, "message") or not env.classifier.cues[label].search(split.body):
        return label
    scores = env.classifier.classify(split.head).scores
    return max(env.shaped("message"), key=lambda tool: scores.get(tool, 0.0))


# "put something on the board thanking everyone who came to the open day", "a notice for the
# teachers about the staff photo, wear something smart": what the announcement is to say.
_THANKING = re.compile(r"\b(?:thanking|to thank)\s+(?P<who>.+?)\s*[?.!]*$", re.IGNORECASE)
_ABOUT = re.compile(r"\babout\s+(?:the\s+)?(?P<topic>.+?)\s*[?.!]*$", re.IGNORECASE)
_MIN_TOPIC_WORDS = 4  # "about the fire drill" names a subject, not yet what to say
# "put up an announcement the afternoon bus route has a detour starting today …": the notice
# noun, then at once a statement of its own (a subject and a verb), with no "that" or colon.
_NOTICE_THEN_SAID = re.compile(
    r"\b(?:announcement|notice|post)\b(?:\s+(?:for|to)\s+(?:everyone|everybody|all|the \w+))?\s+"
    r"(?P<said>(?:the|our|there|all|we|this|tomorrow|today|no)\b(?:\s+\S+){4,})$",
    re.IGNORECASE,
)
_A_VERB = re.compile(
    r"\b(?:is|are|has|have|had|will|was|were|won ?t|can ?t|cannot|might|may|must|needs?|"
    r"starts?|begins?|ends?|closes?|opens?|runs?|\w+ed|"
    # what a notice tells its readers: a state ("heating off", "gym shut") or what to do
    r"off|shut|late|wear|bring|use|come|remember|check|keep|avoid|collect|return|don ?t|"
    r"no need)\b",
    re.IGNORECASE,
)


# "교재비 안내문자 보내줘 … 입금 부탁드린다구": the request names what the text is about, and a
# Korean notice opens with it in brackets ("[교재비 안내] …").
_KO_NOTICE_TOPIC = re.compile(
    r"(?:^|\s)(?P<topic>[가-힣A-Za-z0-9]{2,}(?:\s[가-힣A-Za-z0-9]{2,})?)\s*(?:안내\s*"
    r"(?:문자|메일|이메일|메시지|메세지|텔레그램)"
    # "…간담회 개최 사실을 안내하시기 바랍니다": the news told of
    r"|(?:사실|소식)(?:을|를)\s*안내(?:하|해|드))"
)
_KO_ADDRESSEE_END = re.compile(r"(?:께|에게|한테|님|님들|들|분들|으로|로)$")


def _with_topic(body: str | None, head: str) -> str | None:
    topic = _KO_NOTICE_TOPIC.search(head) if body and say.korean(head) else None
    if not body or topic is None:
        return body
    words = topic["topic"].split()
    if _KO_ADDRESSEE_END.search(words[0]):
        words = words[1:]  # "B반 부모님들께 교재비 안내문자": the first word is who
    if not words or _KO_ADDRESSEE_END.search(words[-1]) or words[-1] in body:
        return body
    return f"[{' '.join(words)} 안내] {body}"


# "Yuna was asking about the projector in room 3 - can you text her that it's been fixed?": the
# text's "it" is what she asked about, and she reads it without the request around it.
_ASKED_ABOUT = re.compile(
    r"\b(?:ask(?:ed|ing)|wonder(?:ed|ing)|wanted to know|enquir(?:ed|ing)|inquir(?:ed|ing)|"
    r"worried|complain(?:ed|ing))\s+about\s+(?P<np>(?:the|her|his|their|our|my)\s+[^,.;!?]{2,40}?)"
    r"(?=\s*(?:[-–—,.;!?]|$)|\s+(?:and|but|so)\b)",  # noqa: RUF001
    re.IGNORECASE,
)
_IT_FIRST = re.compile(r"^it(?P<verb>'s been|'s|\s+is|\s+has|\s+was|\s+will|\s+got)\b", re.I)
_IT_VERBS = {"'s been": " has been", "'s": " is"}


def _it_named(body: str | None, head: str) -> str | None:
    asked = _ASKED_ABOUT.search(head) if body else None
    it = _IT_FIRST.match(body) if body and asked else None
    if body is None or asked is None or it is None:
        return body
    np = re.sub(r"^(?:her|his|their)\b", "your", asked["np"].strip(), flags=re.I)
    verb = it["verb"].lower()
    verb = _IT_VERBS.get(verb, " " + verb.strip())
    return f"{np[:1].upper()}{np[1:]}{verb}{body[it.end() :]}"


# "Minji left her violin behind, it's at the front desk. … could you let her know there?": a
# message whose request says nothing of its own (or says "it") carries what was told before it.
# Told means a statement about someone else: not a question, not the writer's own situation
# ("I'm at home", "my …"), not how to reach them ("Her mum mostly reads Telegram").
_SAYS_NOTHING = re.compile(
    r"^(?:there|then|too|as well|asap|now|please|pls|for me|thanks?|right away|today)?[.!?]*$",
    re.IGNORECASE,
)
_IT = re.compile(r"\bit\b|\bit'?s\b", re.IGNORECASE)
_THE_WRITER = re.compile(r"\b(?:i|i'm|im|i've|i'd|me|my|you|your|dear|hi|hello|morning)\b", re.I)


# Why the message goes, not what it says: "…text Ms Choi so she's not surprised when he leaves".
_ONLY_WHY = re.compile(
    r"^so(?: that)? (?:she|he|they|everyone|the \w+)(?:'s|'re|\s+is|\s+are|\s+isn't|\s+aren't|"
    r"\s+won't be|\s+doesn't get|\s+don't get)?\s+(?:not\s+)?(?:surprised|worried|confused|"
    r"caught out|aware|in the loop|knows?|panic)(?:\s+when\b[^.?!]*)?[.?!]*$",
    re.IGNORECASE,
)


def _told_before(body: str | None, text: str, label: Label, env: _Env) -> str | None:
    if not env.is_a(label, "message") or say.korean(text):
        return body
    if body is not None and _ONLY_WHY.match(body.strip()):
        body = None
    if body is not None and not _SAYS_NOTHING.match(body.strip()) and not _IT.search(body):
        return body
    sentences = split_sentences(text)
    told: list[str] = []
    for sentence in sentences:
        if _asks_for_a_tool(sentence, env):
            break
        told.append(sentence)
    else:
        return body  # no request sentence: nothing was told before it
    if not told or any(s.endswith("?") or _THE_WRITER.search(s) for s in told):
        return body
    if body is None or _SAYS_NOTHING.match(body.strip()):
        return tidy(" ".join(told))
    return tidy(f"{' '.join(told)} {body}")


def _announced_topic(head: str) -> str | None:
    """The text an announcement request describes instead of quoting, or None."""
    if thanks := _THANKING.search(head):
        return f"Thank you to {thanks['who']}."
    about = _ABOUT.search(head)
    if (
        about
        and len(about["topic"].split()) >= _MIN_TOPIC_WORDS
        and not _POINTING.match(about["topic"])
    ):
        return tidy(about["topic"])
    if reminding := _NOTICE_REMINDING.search(head):
        return _told_as_said(reminding)
    said = _NOTICE_THEN_SAID.search(head) or _ANNOUNCE_THEN_SAID.search(head)
    if said and _A_VERB.search(said["said"]):
        return tidy(said["said"])
    return None


# "announce to everyone the parking lot is closed tmrw for resurfacing, park on the street pls",
# "announce parent teacher evening starts 6pm in the main hall": the verb, an audience perhaps,
# then at once a statement (the caller wants its verb: "announce the new timetable" says
# nothing yet).
_ANNOUNCE_THEN_SAID = re.compile(
    r"^(?:(?:pls|please|can you|could you|would you)\s+)*"
    # "announcement water off in the building tomorrow 1 till 3 …", "post announcement now fire
    # drill tomorrow at 11 …": the notice named, then at once what it says
    r"(?:announce|(?:(?:post|put up|make|do|new)\s+)?(?:an?\s+)?(?:announcement|notice)"
    r"(?:\s+(?:now|pls|please|asap))?)\s+"
    r"(?:to\s+(?:everyone|everybody|all|the \w+)\s+)?(?:that\s+)?"
    r"(?P<said>(?!(?:a|an|it|this|that|pls|please|now)\b)\w\S*(?:\s+\S+){3,})$",
    re.IGNORECASE,
)
# "make an announcement, title 'Lab safety', reminding students to always wear goggles …": the
# notice, then what it does to its readers, said as a participle.
# How a notice's request says what it tells its readers, and how the text says it.
_REMINDING_AS = {
    "reminding": "Reminder: please ",
    "asking": "Please ",
    "telling": "",
    "inviting": "You are warmly invited to ",
    "encouraging": "Please ",
    "urging": "Please ",
}
_AUDIENCE = (
    r"(?:(?:all|the|our)\s+)?(?:students|pupils|kids|children|parents|families|staff|teachers|"
    r"everyone|everybody|people)"
)
# "…, inviting families and staff to bring in …": the participle, one audience or two, "to"
_PARTICIPLE = (
    rf"(?P<how>{'|'.join(_REMINDING_AS)})\s+"
    rf"{_AUDIENCE}(?:\s+(?:and|&)\s+{_AUDIENCE})?\s+(?:to|that)\s+"
)
_NOTICE_REMINDING = re.compile(
    rf"\b(?:announcement|notice|post)\b[^.?!]{{0,40}}?,?\s+{_PARTICIPLE}"
    r"(?P<said>\S+(?:\s+\S+){2,}?)\s*[?.!]*$",
    re.IGNORECASE,
)
# The same participle opening the split-off text: "…titled 'Art Swap', inviting students and
# parents to bring in …" → "You are warmly invited to bring in …".
_PARTICIPLE_OPENS = re.compile(
    rf"^{_PARTICIPLE}(?P<said>\S+(?:\s+\S+){{2,}})$", re.IGNORECASE | re.DOTALL
)


def _participle_told(body: str | None) -> str | None:
    opens = _PARTICIPLE_OPENS.match(body.strip()) if body else None
    return _told_as_said(opens) if opens else body


def _told_as_said(participle: re.Match[str]) -> str:
    return tidy(f"{_REMINDING_AS[participle['how'].lower()]}{participle['said']}")


# "about it? call it Coding Club": the topic points back at what was said before the request.
_POINTING = re.compile(r"(?:it|this|that|these|them)\b", re.IGNORECASE)
# "겨울방학 특강 신청 받는다고 공지 하나 띄워줘 …", "…주차가 안 된다고 다들 알아야 할 것 같은데
# 공지 좀 부탁드려도 될까요": what to announce, told in reported speech before the request.
_TOLD_BEFORE_KO = re.compile(
    r"^(?P<told>.+(?:다고|라고))\s+(?:\S+\s+){0,8}?(?=공지|안내문)|"
    # "…확인하라는 내용으로 공지를 올려 주십시오": what it says, as "the content that …"
    r"^(?P<content>.+(?:다|라|자))는\s*(?:내용|취지|말)(?:으로|을|로)?\s+(?:\S+\s+){0,3}?(?=공지|안내문)|"
    # "공지사항에 마스크 챙겨오라고 하나 올려줘": the notice first, then what it says
    r"^(?:.+\s)?(?:공지|공지사항|안내문)(?:에|으로|로|에다)?\s+(?P<after>.+(?:다고|라고))\s+"
    r"(?:\S+\s+){0,1}(?:올려|띄워|써|남겨|게시|붙여)"
)
_MIN_TOLD_WORDS = 4


def _told_around(head: str, words: ToolWords | None) -> str | None:
    """What an announcement should say when the request only stands beside it: the reported
    speech before "공지", or the statements around the English sentence that asks ("Can we put
    a notice up? There's a new lost-and-found box by the main entrance.")."""
    told = _TOLD_BEFORE_KO.match(head)
    if told:
        said = told["told"] or told["after"] or f"{told['content']}고"
        return korean_direct(_last_sentence(said)) or None
    if words is None:
        return None
    if say.korean(head):
        return _told_beside_ko(head, words)
    sentences = [s.strip() for s in _STATEMENTS.split(head) if s.strip()]
    asking = [s for s in sentences if words.cue.search(s)]
    if len(asking) != 1:
        return None
    told_lines = [
        s
        for s in sentences
        if s is not asking[0]
        and not s.rstrip().endswith("?")
        and len(s.split()) >= _MIN_TOLD_WORDS
        and not _TITLE_NAMED.match(s)
    ]
    return tidy(" ".join(told_lines)) if told_lines else None


_STATEMENTS = re.compile(r"(?<=[.!?])\s+")


def _news_told_first(head: str) -> str | None:
    sentences = [s.strip() for s in SENTENCE_END.split(head.strip()) if s.strip()]
    if len(sentences) < 2 or not PASS_IT_ON.search(sentences[-1]):
        return None
    told = [s for s in sentences[:-1] if not s.endswith("?") and len(s.split()) >= _MIN_TOLD_WORDS]
    if not told:
        return None
    # told to the one it is about: "Mr Brown's son left …" → "Your son left …"
    return tidy(_POSSESSOR_FIRST.sub("Your ", " ".join(told).rstrip("….")))


_POSSESSOR_FIRST = re.compile(
    r"^(?:(?:Mr|Mrs|Ms|Dr)\.?\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?['’]s\s+(?=[a-z])"  # noqa: RUF001
)
_MIN_TOLD_WORDS_KO = 3


# "모레 오전 9시에 선생님들 앞으로 그 내용을 이메일로 보내 드리도록": "that content" is what the
# sentences before the request said.
_POINTS_BACK_KO = re.compile(
    r"^(?:\S+\s)?(?:그|이|위|해당)\s?(?:내용|소식|사항|얘기|이야기)(?:을|를|도)?(?:\s|$)"
)


# "선생님들께서 일정을 비워 두실 수 있도록 문자로 미리 기별을 드려 주시기 바랍니다.": the body
# read is the sentence that asks (its channel and its request), so what to say came before it.
_ONLY_THE_ASKING_KO = re.compile(
    r"(?:문자|메일|이메일|텔레그램|메시지|메세지)(?:로|으로)\s(?:\S+\s){0,6}?\S*"
    r"(?:주시기\s?바랍니다|주세요|주십시오|주시겠습니까|주실\s?수|부탁\S*|"
    # "…텔레그램으로 … 알려 드려야겠습니다": the writer's own need to tell, asked of us
    r"드려야겠\S*|드려야\s?(?:해요|합니다|할\s?것\s?같\S*))[.?!]*$|"
    # "알려 주시기 바랍니다.": nothing but the verb of telling and its politeness, perhaps after
    # the news retold ("출발 시간이 바뀌었다고 알려 드려야겠습니다.")
    r"^(?:[^.?!]*(?:다고|라고)\s)?(?:좀\s)?(?:알려|전해|보내|전달해)\s?"
    r"(?:주시기\s?바랍니다|주세요|주십시오|드리세요|드려야겠\S*|드려야\s?(?:해요|합니다))[.!]*$"
)
# "메일 한 통 보내 주시겠어요?": a channel and a count, then only the asking; with nothing told
# before it, there is no text yet.
_NOTHING_BUT_THE_ASKING_KO = re.compile(
    r"^(?:문자|메일|이메일|텔레그램|메시지|메세지)\s?(?:한\s?(?:통|개|건)\s?|하나\s?|좀\s?)*"
    r"(?:보내|써|남겨|넣어)\s?(?:주시겠어요|주시겠습니까|주실래요|주실\s?수\s?있\S*|주세요|줄래요?|"
    r"줘요?|주십시오)[.?!]*$"
)


# "최유나 선생님 이메일에 보내 주세요 please. 제 수업 자료 … 확인해 주세요, 라고요.": the request
# first, then the words, closed by "라고요".
_THEN_SAID_RAGO = re.compile(r"[.!?]\s+(?P<said>[^.!?]+?)[,\s]*(?:이?라고|하고)\s?요[.!]*\s*$")
_ASKS_A_CHANNEL_KO = re.compile(
    r"(?:문자|메일|이메일|텔레그램|메시지|메세지)\S*\s(?:\S+\s){0,2}?(?:보내|전해|남겨|넣어)"
)


def _said_then_rago(body: str | None) -> str | None:
    said = _THEN_SAID_RAGO.search(body) if body else None
    if body is None or said is None or not _ASKS_A_CHANNEL_KO.search(body[: said.start() + 1]):
        return body
    return tidy(said["said"])


def _pointing_back(body: str | None, head: str) -> str | None:
    asking_only = body is not None and _NOTHING_BUT_THE_ASKING_KO.match(body) is not None
    if not body or not (
        asking_only or _POINTS_BACK_KO.match(body) or _ONLY_THE_ASKING_KO.search(body)
    ):
        return body
    sentences = [s.strip() for s in _STATEMENTS.split(head) if s.strip()]
    before = _statements_before_ko(sentences) if len(sentences) > 1 else None
    return before or (None if asking_only else body)


def _last_sentence(text: str) -> str:
    return [s for s in _STATEMENTS.split(text.strip()) if s.strip()][-1]


def _told_beside_ko(head: str, words: ToolWords) -> str | None:
    """ "기쁜 소식이 있습니다. 저희 학원 학생 셋이 … 입상하였습니다. … 공지를 띄워 축하해
    주었으면 합니다.": the news told in full sentences before the sentence that asks."""
    sentences = [s.strip() for s in _STATEMENTS.split(head) if s.strip()]
    asking = [s for s in sentences if words.cue.search(s)]
    if len(asking) != 1 or asking[0] is not sentences[-1]:
        return None
    return _statements_before_ko(sentences)


def _statements_before_ko(sentences: list[str]) -> str | None:
    """The sentences before the last (the one that asks) that state something in full."""
    told_lines = [
        s
        for s in sentences[:-1]
        if s.rstrip().endswith((".", "!"))
        and _KO_STATEMENT_END.search(s)
        and len(s.split()) >= _MIN_TOLD_WORDS_KO
    ]
    return " ".join(told_lines) if told_lines else None


# A sentence that states, politely: "…입상하였습니다.", "…열립니다!", "…예정이에요."
_KO_STATEMENT_END = re.compile(r"(?:니다|예요|이에요|어요|아요)[.!]+$")
# "call it Coding Club": the title, said on its own.
_TITLE_NAMED = re.compile(r"\W*(?:call|name|title)\s+it\b", re.IGNORECASE)


def _everyone_if_said(found: Found, text: str, env: _Env) -> Found:
    """ "for all parents and staff", "모든 분들 보시게": an announcement for everyone (no
    audience), not one for a parents' group, nor a question about which."""
    groups = env.directory.groups
    if (
        found.ambiguous
        and not found.names
        and all(name in groups for names in found.ambiguous for name in names)
    ):
        # "학부모님들 보실 수 있게 공지", "a notice for parents": several parents' groups, and an
        # announcement has one audience; one for everyone reaches them all (the approver sees it)
        return replace(found, ambiguous=[])
    if not _EVERYONE.search(text):
        return found
    return replace(found, names=[n for n in found.names if n not in groups], ambiguous=[])


# "I have a dentist appointment tomorrow at 2pm, so I can't make it. Please email James …",
# "The trip leaves Friday at 8am. Text the parents …", "제가 내일 오후에 병원 예약이 있거든요.
# 제임스 선생님께 …": a sentence before the request that explains it is background, and a time
# in it is when something else happens, not when to send. A short fragment ("Tomorrow at
# 9am.", "내일 오전 9시요.") or a sentence about the sending itself ("It's for Monday at 8.",
# "Schedule it for 9.") still says when, unless it explains (the asker's doings, a reason).
# A title's full stop ends no sentence: "Tomorrow at noon, an email to Mr. Taylor, …".
_SENTENCE_BREAK = re.compile(
    r"(?<=[.!?\uff1f])(?<![Mm]r\.)(?<![Mm]s\.)(?<![Dd]r\.)(?<![Mm]rs\.)\s+|(?<=[요다죠])[.,]\s+|\n+"
)
_EXPLAINING = re.compile(
    # "so" explains ("…, so I can't make it"); "so that" is the request's own purpose
    r"\b(?:i|i ?m|i ?ve|i ?ll|i ?d|my|me|we|we ?re|we ?ve|our|because|since|so(?! that))\b|"
    r"제가|저는|저희|내가|나는|거든|어서|아서|해서|니까|는데",
    re.IGNORECASE,
)


_ABOUT_SENDING = re.compile(
    r"\b(?:it|this|that)\b|\bsend|\bschedul|\bremind|\bgo(?:es)? out\b|"
    r"보내|예약|발송|나가도록|나가게",
    re.IGNORECASE,
)
_MAX_WHEN_FRAGMENT_WORDS = 4


_LEAD_IN_WORDS = 2


def _request_clause(head: str) -> str:
    """The head without the sentences before the request that explain it."""
    head = TOPIC_FIRST.sub("", head.strip())  # the topic's time is not when to send
    *before, last = _SENTENCE_BREAK.split(head.strip()) or [""]
    kept = [
        s
        for s in before
        if not _EXPLAINING.search(s)
        and (len(s.split()) <= _MAX_WHEN_FRAGMENT_WORDS or _ABOUT_SENDING.search(s))
    ]
    if before and before[-1] not in kept and len(last.split()) <= _LEAD_IN_WORDS:
        # "…gets a text today at 3pm? Just: '…'": the last sentence only leads in to the text
        kept.append(before[-1])
    return " ".join([*kept, last])


# "schedule a telegram to Yuna saying …" with no time asks when; it is never sent at once.
# "schedule a telegram …", "scheduled for later"; not "asking about the schedule" (a timetable)
_LATER = re.compile(
    # not "now (not scheduled)", "no need to schedule it", "don't schedule it"
    r"(?<!the )(?<!our )(?<!my )(?<!her )(?<!his )(?<!their )(?<!class )(?<!new )(?<!not )"
    r"(?<!no need to )(?<!don't )(?<!dont )(?<!do not )(?<!no )\bschedul\w*|"
    r"\bfor later\b|예약(?!\s?(?:말고|하지\s?말|없이|안\s?하))|"
    # "리마인더 하나 걸어 주세요. 이서준 님께 … 문자요.": a reminder set, its time not yet said
    r"리마인더\s?(?:\S+\s?)?(?:걸어|걸어줘|걸어주|잡아|설정|등록|만들어)|"
    r"\bset (?:up )?(?:a |the )?reminder\b",
    re.IGNORECASE,
)


def _sent_now(draft: Draft, head: str, env: _Env) -> bool:
    """ "Remind the teachers by text that report cards are due Friday": a reminder to others
    on a named channel with no time in the request's own words is a message sent now (a day
    inside the message is what it says, not when to send it)."""
    if draft.channel is None or draft.found.me or not draft.found.anyone or not draft.body:
        return False
    try:
        return find_when(_request_clause(head), now=env.now, tz=env.tz) is None
    except MissingTime:
        return False


def _scheduled_if_timed(draft: Draft, head: str, env: _Env) -> Draft:
    """ "Tomorrow at 7pm text James …", "내일 오전 9시에 엠마한테 문자 보내줘": a message with a
    stated time of sending is a scheduled one, a reminder on that channel. Only a full time in
    the request's own words counts (a day alone, or a time inside the message, does not)."""
    try:
        when = find_when(_request_clause(head), now=env.now, tz=env.tz)
    except MissingTime:
        return draft
    reminders = env.shaped("reminder")
    if when is None or not reminders:
        return draft
    scheduled = replace(draft, tool=reminders[0], channel=draft.tool)
    if when.at <= env.now:  # "today at 4" at six: ask, rather than send now or schedule a past time
        return replace(scheduled, passed_time=when.phrase)
    return replace(scheduled, when=when)


# After a Korean name, its title and particle and the channel it goes by ("박지우 학부모님께 텔레로
# …", "민지 어머님한테 문자로 …") still address the message; the message starts after them.
_ADDRESSED_BY = re.compile(
    r"^(?:\S*(?:님|쌤|씨)(?:께|에게|한테)?\s+)?"
    r"(?:(?:문자|텔레그램|텔레|텔그|메일|이메일|메시지|메세지)(?:로|으로)\s+)?"
    # "…the teachers by email - staff meeting moved": how, then a dash or colon, then the text
    r"(?:(?:by|via|over|on)\s+(?:e-?mail|sms|text|telegram)\b\s*[-–—:,]?\s*)?"  # noqa: RUF001
    # "send oliver brown a telegram his headlights r on": the thing sent, named after who
    r"(?:(?:a|an)\s+(?:quick\s+)?(?:text|sms|telegram|tg|e-?mail|message|msg)"
    r"(?:\s+message)?\b\s*[-–—:,]?\s*)?",  # noqa: RUF001
    re.IGNORECASE,
)


def _after_recipients(label: str, head: str, found: Found, env: _Env) -> str | None:
    """ "tell Oliver the trip is cancelled": with no marker, the words after the last named
    recipient are the message, if they are a sentence rather than a stray word or a time. So
    for a reminder whose request names a message channel ("tomorrow at 8am text the class A
    parents to pack swimsuits"): read as a reminder or as a text, the words are the same."""
    timed_message = env.is_a(label, "reminder") and _channel(head, env) in env.shaped("message")
    if not (env.is_a(label, "message") or timed_message) or not found.end:
        return None
    rest = _ADDRESSED_BY.sub("", re.sub(r"^\W+", "", head[found.end :]).strip())
    rest = _CHANNEL_NAMED_KO.sub("", rest)
    rest = _MEMO_SUBJECT.sub("", rest)  # "전체 선생님 문자 건. 내일 …": a memo's "re: SMS"
    if say.korean(rest) and _A_GLUED_STATEMENT_KO.match(rest) and not _says_nothing(rest, env):
        return tidy(rest)  # "선생님들한테 문자 오늘셔틀없어요": Korean typed fast, in one word
    # "Emma한테 문자 좀 해줘": three words after her name, all of them the request itself.
    if len(request_words_removed(rest).split()) < 2 or _TIME_ONLY.match(rest):
        return None
    if len(rest.split()) < 3 or _ONLY_THAT_IT_ARRIVES.match(rest):
        return None
    told = _TOLD_TO.match(rest)
    if told is None:
        # "…께 이메일로 다음 주 연수 일정을 안내해 주실 수 있을까요? 제목은 …": the asking that
        # closes a Korean request is not part of the words
        return tidy(request_words_removed(rest) if say.korean(rest) else rest)
    asked = _WHETHER.match(rest[told.end() :].strip()) if told["verb"].lower() == "ask" else None
    if asked is not None:  # "to ask whether Sam can stay behind? I wasn't sure …" → "Can Sam …?"
        return f"{asked['modal'].capitalize()} {asked['subject']} {asked['rest'].strip()}?"
    # …addressed to them now: "to check their pigeonholes" → "Please check your pigeonholes";
    # "can you text her to bring the remote? 감사합니다": the "?" and thanks were the request's
    after = _REQUESTS_OWN_END.sub("", rest[told.end() :])
    reminded = _REMINDED_OF.match(after) if told["verb"].lower() == "remind" else None
    if reminded is not None:  # "to remind her abt the photocopies" → "Reminder: the photocopies"
        return tidy(f"Reminder: {addressed_to_them(reminded['topic'] or reminded['doing'])}")
    # "to ask her …": the one it is sent to is "you" after a verb of a person, and "her" is
    # "your" elsewhere ("to bring her books")
    if told["verb"].lower() in _VERBS_OF_A_PERSON:
        after = _OBJECT_FIRST.sub(" you", after)  # "to ask her to …", not "to bring her books"
    said = addressed_to_them(after)
    return tidy(f"please {told['verb']}{said}")


# "to remind her abt the photocopies", "to remind him submitting his lesson plans"
_REMINDED_OF = re.compile(
    r"^\s*(?:him|her|them)\s+(?:(?:about|abt|of|re)\s+(?P<topic>.+)|(?P<doing>\w+ing\b.+))$", re.I
)
_OBJECT_FIRST = re.compile(r"^\s+(?:him|her|them)\b", re.IGNORECASE)
_VERBS_OF_A_PERSON = frozenset({"ask", "tell", "remind", "let", "help", "thank", "invite", "warn"})


# "오늘셔틀없어요": a statement typed without spaces, ending as one does.
_A_GLUED_STATEMENT_KO = re.compile(r"^[가-힣0-9]{5,}(?:요|다|니다|세요)[.!~]*$")
# The channel alone, before the words: "선생님들한테 문자 오늘셔틀없어요".
_CHANNEL_NAMED_KO = re.compile(r"^(?:문자|텔레그램|텔레|이메일|메일)\s+(?=\S{5,})")
_MEMO_SUBJECT = re.compile(r"^(?:문자|메일|이메일|공지|텔레(?:그램)?|카톡)\s*건\s*[.:,]\s*")
# "It'd be good if Oliver got a Telegram from us at some point", "…have Emma Wilson get an SMS
# the day after tomorrow at 10 about her library books": that one arrives, and when, and on
# what topic; never what it says (a "saying …" or "that …" would have been split off before).
_ONLY_THAT_IT_ARRIVES = re.compile(
    r"^(?:gets?|got|receives?|received|has|had|hears?)\s+(?:a|an|one|some|the)\s+(?:quick\s+)?"
    r"(?:telegram|text|sms|e-?mail|message|note|line|word)\b",
    re.IGNORECASE,
)
# "text the Class A parents to bring packed lunches": what they are told to do goes out as
# "Please bring packed lunches.", not as "To bring packed lunches."
_TOLD_TO = re.compile(
    r"^to\s+(?!(?:me|you|him|her|them|us|the|a|an|all|every\w*|my|our|his|their)\b)"
    r"(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)
_WHETHER = re.compile(
    r"^(?:whether|if)\s+(?P<subject>[^,?]{1,40}?)\s+"
    r"(?P<modal>can|could|will|would|should|is|are|has|have)\s+(?P<rest>[^?]{3,}?)\s*(?:\?|$)",
    re.IGNORECASE,
)
_REQUESTS_OWN_END = re.compile(
    r"\s*\?(?:\s+(?:thanks?(?: you)?|thx|ty|cheers|감사합니다|감사해요|고마워요?)[.!~]*)?\s*$",
    re.IGNORECASE,
)


def _actionable(label: str, text: str, found: Found, env: _Env) -> bool:
    """An action needs a sign of one: its cue word, a verb of sending, or a known recipient in
    a message that is not a question ("Who is in the Teachers group?" names a group but asks
    about data); otherwise it goes to the knowledge base."""
    if (asks_about(text) and not env.verb_then_someone(text)) or _DOING_IT_MYSELF.search(text):
        return False
    cue = env.classifier.cues.get(label)
    named = found.anyone and not text.rstrip().endswith(("?", "？"))  # noqa: RUF001
    verbs = [m.group(0).lower() for m in _ACTION_WORDS.finditer(text)]
    # "급식 메뉴 좀 알려줘" / "tell me the opening hours" asks the assistant, not someone else.
    sends = [v for v in verbs if v not in {"알려", "tell"}] or (verbs and found.anyone)
    return bool((cue and cue.search(text)) or sends or named)


# "do you have Ms Choi's phone number? I'd like to text her myself": the writer sends it.
_DOING_IT_MYSELF = re.compile(
    r"\b(?:i['’ ]?d like to|i['’ ]?ll|i will|i want to|i can|i could|let me|so i can|"  # noqa: RUF001
    r"i['’ ]?m going to|i['’ ]?m gonna)\s+(?:just\s+)?"  # noqa: RUF001
    r"(?:text|txt|e-?mail|call|ring|message|telegram|tell|send|contact|write|reach out)"
    # "I will write to him from my own account": the writer sends it, not us
    r"\b[^.?!]{0,30}\b(?:myself|personally|from my (?:own|personal|work)\b)|"
    r"제가\s?(?:직접|따로)\s?(?:연락|문자|전화|메일|이메일|텔레그램)\S*\s?(?:하려고|할게|할께|드리려고|드릴게|"
    r"보내려고|보낼게|하고\s?싶|드리고\s?싶)|"
    # "상담 자료를 따로 보내 드리려고 합니다": the writer will send it, separately
    r"(?:따로|직접)\s?(?:연락|문자|전화|메일|이메일|보내)\S*\s?(?:드리려고|하려고|드릴게|할게|드리려|하려)",
    re.IGNORECASE,
)
_SUGGESTION = re.compile(r"^\W*(?:how|what)\s+about\s+", re.IGNORECASE)
# "Who invented the telegram?", "세종대왕이 새 문자를 만든 해는 언제인가요?", "공지사항은 보통 누가
# 써요?": a question about something that names a channel is not a request to use it.
_WH_EN = re.compile(
    r"^\W*(?:so\s+|and\s+|but\s+|ok\s+)?(?:what|who|whom|whose|when|where|which|why|how)\b"
    r"(?!\s+about\b)(?!\s+(?:do|can|could|should)\s+i\s+(?:send|text|email|message|tell)\b)",
    re.IGNORECASE,
)
_WH_KO = re.compile(r"언제|누가|누구|무엇|무슨|뭐|뭘|어디|어떤|어떻게|몇|왜|얼마")
_KO_ASKING = re.compile(r"(?:\?|？|요|까|니|냐|나|죠|지|야|더라|던가|던데)\s*[.!~]*\s*$")  # noqa: RUF001
# … unless it asks the assistant to do it: "can you …", "…보내줄래요?", "…부탁해요", or to ask
# someone else a question ("몇 시에 끝나는지 물어봐요").
_ASKED_OF_YOU = re.compile(
    r"\b(?:can|could|would|will)\s+you\b|\bplease\b|\bpls\b"
    r"|줘|주세요|줄래|주실|주시|주십|부탁|드려|해\s*줄|할\s*수\s*있|보낼\s*수|는지|인지|냐고",
    re.IGNORECASE,
)


# The writer's own wondering: "엘베 타도 되는지 궁금하네요", "언제까지인지 알고 싶어요". Its "는지"
# is not the "…는지 물어봐 줘" of a question to pass on.
_WONDERS_KO = re.compile(
    r"(?:는지|은지|인지|ㄴ지|을지|할지|될지|되는지)\s*(?:좀\s*)?(?:궁금|알고\s*싶|모르겠)"
)
# A Korean sentence that asks with a question word and a question mark, wherever it stands:
# "불나면 애들 어디로 모이게 해야 됨? 집결지 까먹었어 ㅋㅋ".
_KO_WH_QUESTION = re.compile(rf"(?:^|[.!?\n])[^.!?\n]*(?:{_WH_KO.pattern})[^.!?\n]*[?\uff1f]")
# …or a yes/no question, "?" typed, with a remark after it: "낼 애들 샌들 신고 와도 돼요?? 다들
# 쪼리 신고 옴ㅠ".
_KO_YES_NO = re.compile(r"(?:돼|되|될까|되나|나|까|니|냐|죠|지|어|아|야|요)\S{0,2}\s*[?？]")  # noqa: RUF001
# …unless anything in it asks for a send: "몇 시에 오시는지 물어봐", "언제 오는지 문자 보낼래?";
# a message that came in ("링크 메일로 왔는데 …", "문자 받았는데") is what happened, not a send.
_ASKS_A_SEND_KO = re.compile(
    r"줘|주세요|줄래|줄\s*수|주실|주시|주십|부탁|드려|해\s*줄|보내|보낼|물어|여쭤|전해|전달|공지|"
    r"올려|예약|써|알려|"
    r"(?:문자|메일|메시지|텔레|카톡)(?!\S*\s*(?:왔|온|받았|받은|받고|도착))"
)


def asks_about(text: str) -> bool:
    """Whether ``text`` is a question about something rather than a request to act."""
    korean_question = (
        _WONDERS_KO.search(text) or _KO_WH_QUESTION.search(text) or _KO_YES_NO.search(text)
    )
    if korean_question and re.search(r"[가-힣]", text) and not _ASKS_A_SEND_KO.search(text):
        return True
    if _ASKED_OF_YOU.search(text):
        return False
    if _WH_EN.match(text) and text.rstrip().endswith(("?", "？")):  # noqa: RUF001
        return True
    if _asks_after_telling(text):
        return True
    return bool(_WH_KO.search(text) and _KO_ASKING.search(text) and re.search(r"[가-힣]", text))


# "I hit 'forgot password' and the reset email came … how long is the link in that email
# valid? do i need a new one?": what happened, then the question, and nothing asked of us.
_YES_NO_EN = re.compile(
    # not "would it …": "Would it be possible to text the parents?" asks for an action
    r"^\W*(?:do|does|did|is|are|was|were|has|have|can i|should i|will (?:it|the|that|this|my|they)|"
    r"am i)\b",
    re.I,
)
_IMPERATIVE_SEND = re.compile(
    r"^\W*(?:(?:please|pls|ok|so)\s+)?(?:text|sms|send|e-?mail|message|telegram|tell|remind|"
    r"announce|post|publish|let)\b",
    re.IGNORECASE,
)


def _asks_after_telling(text: str) -> bool:
    sentences = split_sentences(text.strip())
    if len(sentences) > 1 and not any(_IMPERATIVE_SEND.match(s) for s in sentences):
        return any(
            (_WH_EN.match(s) or _YES_NO_EN.match(s)) and s.endswith("?") for s in sentences[1:]
        )
    return _asked_last_in_a_clause(text)


def _asked_last_in_a_clause(text: str) -> bool:
    """ "fyi james locked himself out again, the reset link that goes to his email, how long is
    it good for": what happened, then a question in the last clause, with no mark, and no clause
    that asks anyone to send anything."""
    clauses = [c for c in _CLAUSE_SPLIT.split(text.strip()) if c.strip()]
    if len(clauses) < 2 or any(_IMPERATIVE_SEND.match(c) for c in clauses):
        return False
    if _ABOUT_APPROVAL.search(clauses[-1]):  # "…, who would have to approve it if an SMS …?"
        return False  # a question about the rules, which the router answers
    return bool(_WH_EN.match(clauses[-1]) and len(clauses[-1].split()) >= 3)


_ABOUT_APPROVAL = re.compile(r"\bapprov\w*|\bsign(?:s|ed)? off\b|\bcountersign", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(r"[,;:.!?]+\s+|\s+[-–—]+\s+")  # noqa: RUF001


def _named(head: str) -> list[str]:
    """Recipient words that matched nobody ("Nobody Known"), as written: the question that
    follows names them."""
    match = _NAMED[0].search(head) or _NAMED[1].search(head)
    if match is None:  # "민수 어머님께": the name with its title
        return re.findall(rf"((?:\S+\s+(?={_KO_TITLE}))?\S+?)(?:에게|한테|께)(?=\s|$)", head)[:1]
    who = _NAMED_END.sub("", match["who"]).strip(" ,.?!")
    parts = [p.strip() for p in re.split(r"\s*,\s*|\s+and\s+|\s*및\s*", who) if p.strip()]
    return [p for p in parts if p.lower() not in {"me", "us", "them", "him", "her"}]


# What is left of an announcement's request once its own words and audience are gone is its
# title only when it reads as one: "Announce Holiday: …" → "Holiday", "휴교 안내 공지 올려줘: …"
# → "휴교 안내"; never the rest of a sentence about the asking ("We need", "하나").
_ANNOUNCE_WORDS = re.compile(
    r"\b(?:please|pls|plz|can you|could you|an+oun+c\w*|post|publish|put up|make|an?|the|notice|"
    r"for|to|titled|called|everyone)\b|전체|공지(?:사항)?(?:를|을|으로|로|요|염|용)?[~!.]*|올려\S*|띄워\S*|게시\S*|"
    r"등록\S*|(?<!\S)수\s*있\S*|(?<!\S)대상으로(?!\S)|"
    r"해\s*줘\S*|해\s*주세요|주세요|좀|(?<!\S)(?:줘|줄래|줄래요|주실래요)(?!\S)",
    re.IGNORECASE,
)
_NOT_A_TITLE = re.compile(
    r"\b(?:we|i|you|us|me|my|our|need|needs|want|wanna|should|must|can|could|would|let|have|"
    r"got|some|something|smth|sth|somethin|anything|one|it|this|that|and|so|just|quick|quickly|"
    r"kindly|please|pls|staff|everyone|everybody|all|"
    r"up|on|about)\b|하나|한\s*개|뭐|"
    r"우리|저희|해야|필요|보시는|보시게|보는|볼\s*수|(?:줄|주실|할)\s*수|주십시오|주시기|바랍니다|주세요",
    re.IGNORECASE,
)


def _leftover_title(head: str, found: Found) -> str | None:
    for name in found.names:
        head = re.sub(re.escape(name), " ", head, flags=re.IGNORECASE)
        for word in re.findall(r"\w+", name):  # "class a parents" names "Parents - Class A"
            head = re.sub(rf"\b{re.escape(word)}\b", " ", head, flags=re.IGNORECASE)
    named = {word.lower() for name in found.names for word in re.findall(r"\w+", name)}
    head = " ".join(word for word in head.split() if not _names_a_group(word, named))
    title = re.sub(r"\s+", " ", _ANNOUNCE_WORDS.sub(" ", head)).strip(" ,.:-")
    if not title or len(title.split()) > 6 or _NOT_A_TITLE.search(title):
        return None
    return title[:1].upper() + title[1:]


def _names_a_group(word: str, named: set[str]) -> bool:
    """ "학부모", "A반": a Korean word for (part of) a group the request already named."""
    glossed = gloss(word)
    return glossed != word.lower() and set(glossed.split()) <= named


# A channel named only to be passed over: "문자보다 텔레그램이", "by telegram rather than text".
_RATHER_THAN = re.compile(
    r"\S+보다(?=\s|$)|\b(?:rather than|instead of|not by|not (?:a|an))\s+\S+", re.IGNORECASE
)


def _channel(head: str, env: _Env) -> str | None:
    """The message tool whose cue the request's own words name; when several do, the one of
    highest ``precedence`` ("text them on Telegram" is a Telegram message); else the
    announcement tool when they name it."""
    head = _RATHER_THAN.sub(" ", head)  # "문자보다 텔레그램이 편하다고": not the SMS
    sends = env.shaped("message")
    for tool in sorted(sends, key=lambda name: -env.classifier.tools[name].precedence):
        if env.classifier.cues[tool].search(head):
            return tool
    # "7일 후 오전 11시에 전체 공지로 … 예약해 둬": a scheduled announcement
    posts = env.shaped("announcement")
    return next((tool for tool in posts if env.classifier.cues[tool].search(head)), None)


def _with_when(draft: Draft, head: str, text: str, env: _Env) -> Draft:
    # "상담은 모레 오후고. 그러니까 내일 저녁 6시에 … 예약 걸어줘": a whole time in the request's
    # own sentence wins over a day said in the sentence before it
    last = _SENTENCE_BREAK.split(head.strip())[-1]
    try:
        own = find_when(last, now=env.now, tz=env.tz) if last != head.strip() else None
    except MissingTime:
        own = None
    if own is not None and own.at > env.now:
        return replace(draft, when=own)
    for source in (_request_clause(head), text):
        try:
            when = find_when(source, now=env.now, tz=env.tz)
        except MissingTime as missing:
            return replace(draft, missing_time=missing.phrase)
        if when is not None and when.at <= env.now:
            return replace(draft, passed_time=when.phrase)
        if when is not None:
            return replace(draft, when=when)
    return draft


def _fill(draft: Draft, slot: Slot, answer: str, env: _Env) -> Draft:
    """The draft with ``answer`` put into the slot that was asked about."""
    if slot == "body":
        return replace(draft, body=answered_text(answer, ko=draft.ko))
    if slot == "when":
        phrase = f"{draft.missing_time} {answer}" if draft.missing_time else answer
        return _with_when(replace(draft, missing_time=None, passed_time=None), phrase, phrase, env)
    if slot == "which":
        return replace(draft, found=_choose(draft.found, answer))
    found = find_recipients(answer, env.directory)
    return replace(draft, found=found, named=[] if found.anyone else _named(f"to {answer}"))


def _choose(found: Found, answer: str) -> Found:
    """Settle the first ambiguity with the name the person picked."""
    options = found.ambiguous[0]
    best = process.extractOne(answer, options, scorer=fuzz.WRatio, score_cutoff=60)
    if best is None:
        return found
    return replace(found, names=[*found.names, best[0]], ambiguous=found.ambiguous[1:])


def _resolve(draft: Draft, env: _Env) -> _Result:
    for check in (_check_recipients, _check_when, _check_body):
        asked = check(draft, env)
        if asked is not None:
            return _Result(asked, draft)
    arguments = tool_arguments(draft, env.directory, env.classifier.tools)
    return _Result(Understanding(draft.tool, draft.confidence, draft.tool, arguments), draft)


MAX_CHOICES = 5  # more readings than that are a list to read, not buttons to press


def _ask(
    draft: Draft, question: str, slot: Slot | None, choices: Sequence[str] = ()
) -> Understanding:
    return Understanding(
        draft.tool, draft.confidence, question=question, slot=slot, choices=tuple(choices)
    )


def _check_recipients(draft: Draft, env: _Env) -> Understanding | None:
    found = draft.found
    if found.ambiguous:
        options = found.ambiguous[0]
        return _ask(draft, say.which(options, draft.ko), "which", options[:MAX_CHOICES])
    if env.is_a(draft.tool, "announcement") or env.is_a(draft.channel, "announcement"):
        return None  # an announcement, now or scheduled, has an audience or none
    if found.me and not _reaches_requester(draft, env):
        return _ask(draft, say.no_address_for_me(env.words(draft.tool), draft.ko), None)
    if found.me and not (env.directory.requester and env.directory.requester.email):
        return _ask(draft, say.no_email_on_account(draft.ko), None)
    if not (found.names or found.addresses or found.me or draft.named):
        return _ask(draft, say.who(env.words(draft.tool), draft.ko), "to")
    if found.described:  # "one of the teachers", "A반 담임 선생님": a person nobody named
        return _ask(draft, say.which_one(found.described, env.words(draft.tool), draft.ko), "to")
    if draft.named and not found.anyone:
        # Only names nobody has ("Daniel's mum", "the principal", "민수 어머님"): say so and ask
        # who it is for; the answer completes the same draft.
        return _ask(draft, say.unknown(draft.named, env.words(draft.tool), draft.ko), "to")
    return None


def _reaches_requester(draft: Draft, env: _Env) -> bool:
    """A tool that sends to the requester's account address; a reminder on one, or on no
    channel named (it then goes by e-mail, ``arguments.py``)."""
    if env.is_a(draft.tool, "reminder") and draft.channel is None:
        return True
    tool = draft.channel if env.is_a(draft.tool, "reminder") else draft.tool
    words = env.words(tool)
    return words is not None and words.channel == _REQUESTER_CHANNEL


def _check_when(draft: Draft, env: _Env) -> Understanding | None:
    if not env.is_a(draft.tool, "reminder") or draft.when is not None:
        return None
    if draft.missing_time:
        return _ask(draft, say.what_time(draft.missing_time, draft.ko), "when")
    if draft.passed_time:
        return _ask(draft, say.time_passed(draft.passed_time, draft.ko), "when")
    return _ask(draft, say.when(draft.ko), "when")


# "공지 하나 띄워야 되는데 좀 해줄래?": what is left where the text would be only asks for help;
# the text is still to be said.
_ONLY_ASKING = re.compile(
    r"^(?:(?:되는데|하는데|해야|해야 돼|돼서|좀|하나|한번|한 번|빨리|급하게|얼른|"
    r"(?:문자|메일|이메일|메시지|메세지|텔레그램|텔레|공지|알림)(?:를|을)?|"
    r"(?:보내|써|올려|띄워|넣어|남겨)야|"
    r"부탁(?:해|해요|드려요|드립니다|합니다)?|해\s?줄래요?|해\s?줘요?|해\s?주세요|해\s?주실래요|"
    r"도와\s?줘요?|도와\s?주세요|please|pls|help|me|out|can|could|you|give|a|hand|thanks?)"
    r"[\s?!.~,]*)+$",
    re.IGNORECASE,
)


# "the usual message", "the same text as last time", "늘 보내던 문자": a text the assistant has
# never seen; ask for it rather than send the words.
_ONLY_A_REFERENCE = re.compile(
    r"^(?:the|our|my)\s+(?:us\w{1,3}al|normal|regular|standard|same)\s+(?:\w+\s+)?"
    r"(?:message|text|sms|e-?mail|one|thing|notice|reminder)"
    r"(?:\s+(?:as|like)\s+(?:last time|before|always|usual|yesterday|last week))?[\s.!]*$|"
    r"^(?:늘|항상|매번|평소에?|저번에?|지난번에?|지난 번에?)\s*(?:보내던|보낸|하던|쓰던)\s*"
    r"(?:(?:거|것|문자|메일|메시지|내용)\S*)?[\s.!]*$",
    re.IGNORECASE,
)


# "내용은 좀 이따 정할게요", "wording to follow": the writer will give the text later.
_TEXT_LATER = re.compile(
    r"^(?:(?:내용|문구|본문|텍스트)\S*\s*)?(?:좀\s*)?(?:이따|나중에|추후에?|곧|다음에)\s*"
    r"(?:\S+\s*){0,2}(?:정할|정해|알려|말씀|말할|드릴|줄|쓸|보낼)\S*[\s.!~ㅎㅋ]*$|"
    r"^(?:the )?(?:text|wording|words|content|details|message)?\s*(?:is |are )?"
    r"(?:tbd|tba|to follow|later|to be (?:decided|confirmed))[\s.!]*$|"
    r"^(?:(?:please|pls|plz)\W+)?i['’ ]?(?:ll|will) (?:tell|send|give|let) (?:you|u)(?: know)?"  # noqa: RUF001
    r"(?: what to say| (?:the|what) \w+(?: to say)?)? later[\s.!]*$",
    re.IGNORECASE,
)


# "e-mail Oliver Brown for me? Thank you, dear.": courtesy to the assistant, no text.
_ONLY_COURTESY = re.compile(
    # each word whole ("xx" kisses; 2,000 "x"s are a text, however odd)
    r"^(?:for me(?:\W+|$))?(?:(?:thank you|thanks|thx|cheers|ta|please|pls|dear|so much|"
    r"very much|a lot|in advance|love|x{1,4}|"
    # how soon, not what: "TEXT THE CLASS B PARENTS RIGHT NOW!!! HURRY UP!!!"
    r"right now|now|asap|a\.s\.a\.p|urgent(?:ly)?|quick(?:ly)?|hurry(?: up)?|fast|immediately|"
    r"straight away|right away|급해요?|급함|빨리|빨리요|당장|지금 당장|얼른|ㄱㄱ|ㅃㄹ|"
    # when it suits the assistant: "…e-mail James Taylor for me when you get a moment?"
    r"when(?:ever)? you (?:get|have) (?:a )?(?:moment|minute|sec|second|chance|time)|"
    r"when(?:ever)? you can|at your (?:earliest )?convenience|if you (?:can|could|don ?t mind)|"
    # "…an e-mail to Mr. Taylor this afternoon, if you would be so kind.": when, and manners
    r"if you (?:would|wouldn ?t mind|would not mind|do not mind)(?: be so kind)?|be so kind|"
    r"kindly|(?:this|tomorrow|today ?s?) (?:morning|afternoon|evening)|tonight|today|tomorrow|"
    r"later(?: today| on)?|soon|"
    rf"{SIGN_OFFS})"
    # …and the name it is signed with: "Thanks, Karen"
    r"(?:,\s*(?-i:[A-Z][a-z]+))?(?:\W+|$))*$",
    re.IGNORECASE,
)

# "내용은 알아서 잘 써주시고요", "write whatever you think is best": the writing left to the
# assistant, which sends people's own words only, so it asks for them.
_WRITE_IT_YOURSELF = re.compile(
    r"^(?:(?:내용|문구|본문|제목)\S*\s*)?(?:은|는)?\s*알아서\s*(?:잘\s*)?(?:좀\s*)?"
    r"(?:써|작성|정해|만들어|채워)\S*(?:\s+\S+)?[\s.!~^ㅎㅋ]*$|"
    r"^(?:just )?(?:write|make|come up with|draft) (?:something|whatever|it yourself|anything)"
    r"(?: (?:you think|that sounds|nice|appropriate|suitable|good)\b.*)?[\s.!]*$|"
    r"^(?:you )?(?:decide|choose|pick) (?:the )?(?:wording|what (?:to|it should) say)[\s.!]*$|"
    # the words not decided yet: "뭐라고 써야 할지는 아직 잘 모르겠지만요…", "not sure what it
    # should say yet"
    r"^(?:근데\s*|그런데\s*|다만\s*)?(?:뭐라고|무슨\s*내용(?:으로|을)?|어떻게)\s*"
    r"(?:(?:써야|적어야|해야)\s*(?:할지|될지|하는지)|쓸지|적을지|할지)(?:는|도)?\s*(?:아직\s*)?(?:잘\s*)?"
    r"(?:모르|못\s*정|안\s*정)\S*[\s.!~…ㅠㅜㅎ]*$|"
    r"^(?:(?:but|please|pls)\W+)?(?:i['’ ]?m |i am |i )?"  # noqa: RUF001
    r"(?:not sure|no idea|unsure|haven['’ ]?t decided|don['’ ]?t know) "  # noqa: RUF001
    r"(?:yet )?(?:what|how) (?:to|it should|i want to|we should) (?:say|word|write)\w*"
    r"(?: it)?(?: yet)?[\s.!…]*$",
    re.IGNORECASE,
)


# "꼭 전해 드릴 말씀이 있어서 그러는데,", "I have something I need to tell him": that there is
# something to say, not what it is.
_SOMETHING_TO_SAY = re.compile(
    r"^(?:꼭\s*|좀\s*|급히\s*|따로\s*)*(?:전해\s?드릴|전할|드릴|여쭐|여쭤\s?볼|알려\s?드릴|할)\s?"
    r"(?:말씀|말|얘기|이야기|내용|게|것|거)\S*\s(?:좀\s)?(?:있어서|있는데|있어|있습니다)\S*"
    r"(?:\s그러는데\S*)?[\s,.~]*$|"
    r"^(?:i (?:have|ve got|need to tell (?:her|him|them))|there ?s) something"
    r"(?: (?:important|urgent))?(?: i (?:need|want|have) to (?:tell|say to|ask) (?:her|him|them))?"
    r"[\s,.!]*$",
    re.IGNORECASE,
)


def _check_body(draft: Draft, env: _Env) -> Understanding | None:
    body = (draft.body or "").strip()
    if (
        body
        and not _SOMETHING_TO_SAY.match(body)
        and not _ONLY_ASKING.match(body)
        and not _ONLY_A_REFERENCE.match(body)
        and not _TEXT_LATER.match(body)
        and not _ONLY_COURTESY.match(body)
        and not _WRITE_IT_YOURSELF.match(body)
        and not _says_nothing(body, env)
    ):
        return None
    # A scheduled SMS is still an SMS to the person asking: name the channel they named.
    return _ask(draft, say.what(env.words(draft.channel or draft.tool), draft.ko), "body")
