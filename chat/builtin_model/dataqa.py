"""Data questions answered without an LLM (pure: no Django).

The offline model cannot write SQL, but most data questions staff ask have a few shapes —
how many / list / which … in group X / sent today / this week / by status — over the tables
``query_data`` allows. This module recognises those shapes in English and Korean and compiles
them to one SELECT. The SQL then goes through ``query_data`` like any model's SQL (guard,
read-only role, timeout, row cap): compiling is a convenience, never a second door.

A question it cannot compile (or a knowledge question such as "How many days of leave do I
get?") returns ``None`` and the caller searches the knowledge base instead.

Entry points: ``compile_data_question(text, *, now, tz)`` → SQL or ``None``;
``plan_data_question`` (the same with what the reply needs); ``data_reply`` (a sentence or a
small markdown table from the rows).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo
from typing import Any, Literal

from sqlglot import exp

from chat.builtin_model.keystrokes import mended
from chat.builtin_model.sentences import asking_sentence, without_remind_me
from chat.builtin_model.understanding.recipients import GROUP_KINDS, gloss, variants

MAX_QUESTION_CHARS = 300
LIST_LIMIT = 50
TABLE_ROWS = 20

Shape = Literal["count", "rows", "breakdown"]


@dataclass(frozen=True)
class Entity:
    """A queryable kind of row: its table, the columns a list shows, its time column."""

    key: str
    table: str
    columns: str
    order: str
    time_column: str
    english: tuple[str, str]  # singular, plural
    korean: str
    statuses: tuple[str, ...] = ()
    channel: str = ""


_ENTITIES = {
    "contacts": Entity(
        "contacts",
        "actions_contact",
        "c.name, c.phone, c.email",
        "c.name",
        "created_at",
        ("contact", "contacts"),
        "연락처",
    ),
    "groups": Entity(
        "groups",
        "actions_contactgroup",
        "c.name, c.description",
        "c.name",
        "created_at",
        ("group", "groups"),
        "그룹",
    ),
    "messages": Entity(
        "messages",
        "actions_outboundmessage",
        "c.created_at, c.channel, c.to_address, c.status, left(c.body, 60) AS body",
        "c.created_at DESC",
        "created_at",
        ("message", "messages"),
        "메시지",
        ("queued", "sending", "sent", "failed"),
    ),
    "reminders": Entity(
        "reminders",
        "actions_reminder",
        "c.due_at, c.tool, c.status, left(c.description, 80) AS description",
        "c.due_at",
        "due_at",
        ("reminder", "reminders"),
        "리마인더",
        ("scheduled", "fired", "failed", "cancelled"),
    ),
    "announcements": Entity(
        "announcements",
        "actions_announcement",
        "c.title, c.published_at",
        "c.created_at DESC",
        "created_at",
        ("announcement", "announcements"),
        "공지",
    ),
    "documents": Entity(
        "documents",
        "knowledge_document",
        "c.title, c.status, c.created_at",
        "c.title",
        "created_at",
        ("document", "documents"),
        "문서",
        ("pending", "ready", "failed"),
    ),
}

# Cue → (entity, channel filter). Checked in order; the first that matches wins.
_ENTITY_CUES: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"\b(sms|texts?|text messages?)\b|문자", re.I), "messages", "sms"),
    (re.compile(r"\be-?mails?\b|이메일|메일", re.I), "messages", "email"),
    (re.compile(r"\btelegrams?\b|텔레그램", re.I), "messages", "telegram"),
    (re.compile(r"\bmessages?\b|메시지|메세지", re.I), "messages", ""),
    (re.compile(r"\breminders?\b|리마인더|알림", re.I), "reminders", ""),
    (re.compile(r"\bannouncements?\b|\bnotices?\b|공지", re.I), "announcements", ""),
    (re.compile(r"\bdocuments?\b|문서", re.I), "documents", ""),
    (re.compile(r"\bcontact groups?\b|연락처\s*그룹", re.I), "groups", ""),
    # "연락처에 그룹이 몇 개나 있는지, 각각 그룹 이름도": the groups counted or named
    (
        re.compile(
            r"\bhow many groups\b|\bgroups? names?\b|\bnames? of (?:the |our |all )?groups\b|"
            r"그룹\s*(?:이|은|는|들이|들은)?\s*(?:몇|뭐|무슨|어떤|어느)|그룹\s*(?:이름|목록|리스트)",
            re.I,
        ),
        "groups",
        "",
    ),
    (re.compile(r"\bcontacts?\b|\bpeople\b|연락처|주소록|명단", re.I), "contacts", ""),
    (re.compile(r"\bgroups?\b|그룹", re.I), "groups", ""),
]
# The directory named in so many words: a question with these is about it whatever it asks.
_DIRECTORY_NAMED = re.compile(
    r"\bcontacts?\b|\bgroups?\b|연락처|주소록|그룹|수신\s*거부|\bopted", re.I
)
# "group" alone is also a word about the world ("What type of group is the Islamic State?"):
# a question about our groups is made of the data vocabulary, a name or two, or says "our".
_GROUP_ONLY = re.compile(r"\bgroups?\b", re.I)
_OURS = re.compile(r"\b(?:we|our|us|my|i)\b", re.I)
_MAX_UNACCOUNTED_FOR_GROUPS = 2
_OPTED_OUT = re.compile(
    r"\bopted[- ]?out\b|\bopt[- ]?outs\b|\bunsubscribed\b|수신\s*거부|"
    # "which parent doesn't want messages from us?", "…is not want to receive messages"
    r"\b(?:who|which (?:parent|contact|person|one)s?)\b[^?.]{0,20}?\b(?:doesn['’ ]?t|don['’ ]?t|"  # noqa: RUF001
    r"does not|do not|is not|isn['’ ]?t|not) (?:want|wanna|like)(?: to)? (?:receive|get)?\s*"  # noqa: RUF001
    r"(?:any )?(?:messages|texts|sms|emails)\b",
    re.I,
)
_COUNT = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b|\btotal\b|몇|개수|숫자|총", re.I)
_LIST = re.compile(
    r"\b(list|show|which|what|who|give me|display)\b|목록|보여|알려|어떤|누가|누구|뭐|무엇", re.I
)
# "how many groups have we got and what are they called?": the count and the names.
_NAMES_TOO = re.compile(
    r"\bwhat are (?:they|their names) called\b|\bwhat are their names\b|\bname them\b"
    r"|\bwhich (?:ones|are they)\b|\band what are they\b|이름(?:은|이|도)?|뭐뭐|어떤 (?:것|거)",
    re.I,
)
_PEOPLE_COUNTED = re.compile(r"몇\s*(?:명|분)|인원|(?<![가-힣])수(?:가|는)?\s*몇")
_BY_STATUS = re.compile(r"\b(by|per|for each) status\b|상태별|상태 별", re.I)
_BY_CHANNEL = re.compile(r"\b(by|per|for each) channel\b|채널별", re.I)
_BY_GROUP = re.compile(r"\b(by|per|in each|for each) group\b|그룹별|그룹마다", re.I)
# Policy questions mention messages or documents too; they belong to the knowledge base.
_NOT_DATA = re.compile(
    r"\b(can i|could i|may i|should|allowed|policy|how do|how to|how long|how much|need|"
    r"required?)\b|해야|방법|규정|정책|필요|"
    # whom to turn to: "it's after hours now — who do I contact and how?"
    r"\bwho (?:do|can|shall|would) (?:i|we) "
    r"(?:contact|call|ring|ask|tell|report|speak|talk|go|turn)\b|"
    r"누구(?:한테|에게|께)\s*(?:연락|문의|보고|신고|말)",
    re.I,
)
# A request to send something carries its own words, which may well say "how many" or
# "count": the request is a write, never a question about the data ("email … saying please
# count the chairs", "…개수 세어 달라고 문자 보내줘").
_WRITE_REQUEST = re.compile(
    r"^\s*(?:(?:please|pls|can you|could you|would you)\s+)?"
    r"(?:e-?mail|text|txt|sms|send|tell|remind|announce|post|message|msg|telegram|notify|ping)"
    r"\b(?!\s+messages?\b)|\b(?:saying|that says|with the text)\b"
    r"|(?:보내|전해|전달해|남겨|올려|게시해|공지해)\s*(?:줘|주세요|줄래|주실|드려)",
    re.I,
)
# What a group's name never holds: a clause ("in May, how many weeks do I get"), a question
# word, a pronoun or a verb of having. Such an "in …" ends a sentence, it does not name a group.
_NOT_A_NAME = re.compile(
    r"[,;]|\b(?:how|what|when|where|why|who|which|do|does|did|i|we|you|my|our|your|get|got|"
    r"have|has|is|are|was|were|will|can)\b",
    re.I,
)
# "Which contacts are parents?", "who are the teachers?": the members of a kind of group.
_EN_ROLE = re.compile(
    r"\b(?:contacts|people|who)\b.*?\b(?:are|r)\s+(?:the\s+|our\s+)?"
    r"(?P<part>(?:class|year|grade|group)\s+[a-z0-9]\s+)?(?P<kind>[a-z]+)\s*[?!.]*$",
    re.I,
)
# "remind me who the class A parents are": a role question asked inside a sentence.
_EN_ROLE_EMBEDDED = re.compile(
    r"\bwho\s+(?:the\s+|our\s+)(?P<part>(?:class|year|grade|group)\s+[a-z0-9]\s+)?"
    r"(?P<kind>[a-z]+)\s+(?:are|r)\s*[?!.]*$",
    re.I,
)
_GROUP_EN = re.compile(
    r"\bin\s+(?:the\s+)?(?:group\s+)?[\"'“‘]?(?P<name>[^\"“”?!.]+?)[\"'”’]?"  # noqa: RUF001
    r"(?:\s+group)?\s*[?!.]*$",
    re.I,
)
# "B반 학부모는 누구누구예요?", "선생님들이 누구야?": the members of a kind of group.
_KO_MEMBERS = re.compile(r"^(?P<name>\S+(?:\s\S+)?)\s+(?:누구누구|누구|누가)")
# "Teachers 그룹에 누구누구 들어가 있어?", "교사 그룹 멤버 알려줘": who is in a group.
_GROUP_KO = re.compile(
    r"^(?:.*?\s)??[\"'“‘]?(?P<name>[^\"“”]+?)[\"'”’]?\s*(?:그룹|반)?\s*(?:(?:에서|에는|에|엔)\s*"  # noqa: RUF001
    r"(?:몇\s*(?:명|분)(?:이나|이)?\s*)?(?:누구누구|누구|누가)?\s*"
    # "…그룹에는 어떤 선생님들이 들어가 계신지": who, said in a word or two, and honoured
    r"(?:(?:어떤|어느|무슨)\s+\S+\s+)?"
    r"(?:있는|속한|속해|들어\s*(?:가\s*)?있|들어\s*(?:가\s*)?계|계신|계시|있나|있어|있음|있니|있냐|누가|포함)"
    r"|(?:의\s*)?(?:멤버|구성원|소속(?:된)?\s*(?:사람|인원)|명단)(?:들)?(?:은|이|을|좀)?\s)"
)
_PERIODS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\btoday\b|오늘", re.I), "today"),
    (re.compile(r"\byesterday\b|어제", re.I), "yesterday"),
    (re.compile(r"\bthis week\b|이번\s*주", re.I), "week"),
    (re.compile(r"\bthis month\b|이번\s*달", re.I), "month"),
]
_STATUS_WORDS = {
    "failed": "failed",
    "실패": "failed",
    "queued": "queued",
    "대기": "queued",
    "scheduled": "scheduled",
    "예약": "scheduled",
    "cancelled": "cancelled",
    "canceled": "cancelled",
    "취소": "cancelled",
    "fired": "fired",
}
_HANGUL = re.compile(r"[\uac00-\ud7af]")
# "in total", "in the system": an "in …" that names no group.
_NOT_GROUPS = frozenset(["total", "all", "system", "database", "list", "each", "every", "any"])


@dataclass(frozen=True)
class DataQuestion:
    """A compiled question: the SQL and what the reply needs to phrase the rows."""

    sql: str
    shape: Shape
    entity: Entity
    korean: bool
    group: str = ""
    period: str = ""


def compile_data_question(text: str, *, now: datetime, tz: tzinfo) -> str | None:
    """One SELECT answering ``text`` over the query_data tables, or ``None``."""
    plan = plan_data_question(text, now=now, tz=tz)
    return plan.sql if plan else None


_GROUP_THEN_WHO = re.compile(
    r"^(?P<group>[^?.!,:\-–—]{3,40}?)\s*(?:[-–—,:]+|\?)\s*who(?:'s|s| is| are)\s+in\s+"  # noqa: RUF001
    r"(?:there|it|that(?: one| group)?|this(?: one| group)?|them)\s*[?!.]*$",
    re.IGNORECASE,
)


def plan_data_question(
    text: str, *, now: datetime, tz: tzinfo, groups: Sequence[str] | None = None
) -> DataQuestion | None:
    """``compile_data_question`` with the shape of the answer; ``now`` must be aware.

    ``groups``, the tenant's group names when known: a question that does not name the
    directory in its own words ("contacts", "연락처") is about it only when it names one of
    them. "How many people lived in London?" is a question for the knowledge base, not a
    count of the contacts in a group called London."""
    text = without_remind_me(mended(" ".join(text.replace("\x00", " ").split())))
    # "class a parents - who's in there", "teachers group, who's in it?": the group said first
    text = _GROUP_THEN_WHO.sub(r"who is in \g<group>?", text)
    if not text or len(text) > MAX_QUESTION_CHARS or _NOT_DATA.search(text):
        return None
    if _WRITE_REQUEST.search(text):
        return None
    opted_out = bool(_OPTED_OUT.search(text))
    members = _KO_MEMBERS.match(text)
    if members and _names_a_kind_of_group(members["name"]) and _entity(text) is None:
        found: tuple[Entity, str] | None = (_ENTITIES["contacts"], "")  # "B반 학부모는 누구예요?"
    else:
        found = (_ENTITIES["contacts"], "") if opted_out else _entity(text)
    named_group = _group_name(text) or _role(text)
    if found is None and named_group and (_LIST.search(text) or _COUNT.search(text)):
        found = (_ENTITIES["contacts"], "")  # "list the parents in class B"
    # A kind of group counted, with no contacts named, is a count of people ("A반 학부모 몇
    # 명이야?"); "쌤들 연차 1년에 몇 개예요?" and "강사가 … 몇 주 쓸 수 있어요?" count other things.
    if found is None and _HANGUL.search(text) and _PEOPLE_COUNTED.search(text):
        kinds = [w for w in text.split() if _names_a_kind_of_group(w)]
        if kinds:
            found = (_ENTITIES["contacts"], "")  # "A반 학부모 몇 명이야?"
    if found is None:
        return None
    entity, channel = found
    group = named_group if entity.key in ("contacts", "groups") else ""
    if not group and entity.key == "contacts" and _HANGUL.search(text):
        group = " ".join(w for w in text.split() if _names_a_kind_of_group(w))  # "A반 학부모 명단"
    if not group and members and _names_a_kind_of_group(members["name"]):
        group = members["name"]
    if group:  # "who is in group X" asks for the contacts of X
        entity = _ENTITIES["contacts"]
    if (
        groups is not None
        and entity.key in ("contacts", "groups")
        and not _DIRECTORY_NAMED.search(text)
        and not opted_out
        and not (group and known_group(group, groups))
    ):
        return None
    if (
        entity.key in ("contacts", "groups")
        and not (group and groups is not None and known_group(group, groups))
        and _about_the_world(text, group)
    ):
        return None
    shape = _shape(text, entity, group)
    if shape is None:
        return None
    if entity.key not in ("contacts", "groups") and len(_unaccounted(text)) > _MAX_UNACCOUNTED:
        return None  # "How many telegrams did Marconi send in 1901?" is about the world
    period = next((name for pattern, name in _PERIODS if pattern.search(text)), "")
    where = _conditions(text, entity, channel, period, now, tz)
    if opted_out:  # "which contacts opted out of messages" is about contacts, not messages
        where.append("c.opted_out")
    sql = _select(shape, entity, where, group, by_channel=bool(_BY_CHANNEL.search(text)))
    return DataQuestion(sql, shape, entity, bool(_HANGUL.search(text)), group, period)


# Every word a question about the tenant's messages, reminders, announcements or documents
# is made of: what it counts or lists, when, in what state, by whom ("we"). A question with more
# words than these is about something else that shares a noun: "How many telegrams did Marconi
# send in 1901?", "한글은 몇 개의 문자로 이루어져 있나요?".
_DATA_WORDS = (
    "how many much number of count total what which who whom list show me give display tell "
    "all the a an are is was were be been there do does did done we i you our my us have has "
    "had send sent sending go went out gone by per for each in on at this that these those "
    "today yesterday week month so far now currently still yet please any and or with their "
    "them they status statuses channel channels sms text texts message messages email emails "
    "e-mail e-mails mail telegram telegrams reminder reminders announcement announcements "
    "notice notices document documents doc docs file files failed fail queued scheduled "
    "cancelled canceled fired pending ready delivered waiting due upcoming posted published "
    "made created uploaded knowledge base kb system database parents parent teachers teacher "
    "staff students student class group groups contact contacts everyone anyone someone "
    "people to from about up e mails "
    "몇 개 건 통 명 있어 있어요 있나요 있니 있냐 있는지 돼 됐어 됐나요 보낸 "
    "보냈어 보냈나요 발송 발송한 발송된 우리 우리가 내가 제가 오늘 어제 이번 주 "
    "달 상태별 채널별 그룹별 전체 총 모두 다 목록 보여줘 보여 주세요 알려줘 알려 "
    "리스트 실패 실패한 대기 대기중 예약 예약된 취소 취소된 문자 메시지 메세지 "
    "이메일 메일 텔레그램 알림 리마인더 공지 공지사항 문서 자료 올린 올라온 등록된 "
    "지금 현재 개야 개예요 개인가요 개지 몇개 몇개야 건이야 건인가요 나갔어 "
    "나갔나요 나간 갔어 왔어 받은 올라와 올라온 들어온 들어와 받았어 쌓인 남은 "
)
_DATA_VOCABULARY = frozenset(_DATA_WORDS.split()) | GROUP_KINDS
_MAX_UNACCOUNTED = 0


def _unaccounted(text: str) -> list[str]:
    """The words of ``text`` a question about the tenant's rows is not made of (Korean
    particles stripped)."""
    words = re.findall(r"[^\W_]+", text.lower())
    return [
        w for w in words if not ({w, gloss(w), *variants(w)} & _DATA_VOCABULARY) and not w.isdigit()
    ]


def _about_the_world(text: str, group: str) -> bool:
    """An English question that names the directory only by "group", in words of its own (not
    the group's name, not closing words) and not as ours: "Iran has assisted what type of
    groups in Iraq?"."""
    if _HANGUL.search(text) or _OURS.search(text):
        return False
    named = _DIRECTORY_NAMED.findall(text)
    if not named or not all(_GROUP_ONLY.fullmatch(word) for word in named):
        return False
    own = set(re.findall(r"[^\W_]+", group.lower()))
    words = _unaccounted(_TRAILING_FILLER.sub("", text))
    return len([w for w in words if w not in own and len(w) > 1]) > _MAX_UNACCOUNTED_FOR_GROUPS


def known_group(name: str, groups: Sequence[str]) -> bool:
    """Whether ``name`` names one of ``groups`` as ``_group_condition`` would match it."""
    lowered = [group.lower() for group in groups]
    if _HANGUL.search(name):
        parts = _glossed(name)
    else:
        parts = _words(name)
        if any(name.lower() in group for group in lowered):
            return True
    return bool(parts) and any(all(part in group for part in parts) for group in lowered)


def _entity(text: str) -> tuple[Entity, str] | None:
    for pattern, key, channel in _ENTITY_CUES:
        if pattern.search(text):
            return _ENTITIES[key], channel
    return None


def _shape(text: str, entity: Entity, group: str) -> Shape | None:
    if _BY_STATUS.search(text) and entity.statuses:
        return "breakdown"
    if _BY_CHANNEL.search(text) and entity.key == "messages":
        return "breakdown"
    if _BY_GROUP.search(text) and entity.key in ("contacts", "groups"):
        return "breakdown"
    if _COUNT.search(text):  # "몇 개야? 이름도 같이": the rows, counted in the intro
        return "rows" if _NAMES_TOO.search(text) else "count"
    if _LIST.search(text) or group:
        return "rows"  # "… and what are they called?": the rows, counted in the intro
    return None


# Words that close a question without naming anything: "who's in the teachers group again?",
# "list the parents in Class A for me, please?".
_TRAILING_FILLER = re.compile(
    r"(?:[\s,]+(?:again|please|pls|for me|for us|now|right now|rn|atm|then|exactly|currently|"
    r"at the moment|these days|thanks|thank you))+(?=\s*[?!.]*\s*$)",
    re.I,
)


_KO_LEAD_IN = re.compile(r"^(?:(?:혹시|그럼|저기|저기요|근데|그런데|그리고|아|음|참)\s+)+")


def _group_name(text: str) -> str:
    text = _TRAILING_FILLER.sub("", text) if not _HANGUL.search(text) else text
    match = _GROUP_EN.search(text) if not _HANGUL.search(text) else _GROUP_KO.search(text)
    if not match:
        return ""
    name = match.group("name").strip(" \"'“”‘’")  # noqa: RUF001
    name = re.sub(r"^(?:the\s+)?group\s+|\s+group$", "", name, flags=re.I).strip()
    name = _KO_LEAD_IN.sub("", name)  # "혹시 Teachers 그룹에는 …": the name is "Teachers"
    if name.lower() in _NOT_GROUPS or any(p.search(name) for p, _ in _PERIODS):
        return ""
    if not _HANGUL.search(name) and (_NOT_A_NAME.search(name) or len(name.split()) > 5):
        return ""
    return name[:120]


def _role(text: str) -> str:
    """The kind of group a role question asks about ("which contacts are parents?"), with the
    part that tells the group apart when it is said ("who r the class b parents again")."""
    if _HANGUL.search(text):
        return ""
    asked = _TRAILING_FILLER.sub("", asking_sentence(text))
    match = _EN_ROLE.search(asked) or _EN_ROLE_EMBEDDED.search(asked)
    kind = match["kind"].lower() if match else ""
    if kind not in GROUP_KINDS:
        return ""
    return f"{match['part'] or ''}{kind}" if match else ""


def _conditions(
    text: str, entity: Entity, channel: str, period: str, now: datetime, tz: tzinfo
) -> list[str]:
    where: list[str] = []
    if channel:
        where.append(f"c.channel = {sql_literal(channel)}")
    lowered = text.lower()
    for word, status in _STATUS_WORDS.items():
        if word in lowered and status in entity.statuses:
            where.append(f"c.status = {sql_literal(status)}")
            break
    if period:
        start, end = period_bounds(period, now=now, tz=tz)
        column = f"c.{entity.time_column}"
        where.append(f"{column} >= {sql_literal(start.isoformat())}")
        where.append(f"{column} < {sql_literal(end.isoformat())}")
    return where


def period_bounds(period: str, *, now: datetime, tz: tzinfo) -> tuple[datetime, datetime]:
    """[start, end) of today / yesterday / this week (Monday first) / this month in ``tz``."""
    local = now.astimezone(tz)
    today = datetime.combine(local.date(), time(), tzinfo=tz)
    if period == "yesterday":
        return today - timedelta(days=1), today
    if period == "week":
        monday = today - timedelta(days=local.weekday())
        return monday, monday + timedelta(days=7)
    if period == "month":
        first = today.replace(day=1)
        following = (first + timedelta(days=32)).replace(day=1)
        return first, following
    return today, today + timedelta(days=1)


def _select(shape: Shape, entity: Entity, where: list[str], group: str, *, by_channel: bool) -> str:
    source = f"{entity.table} c"
    if group:
        source += (
            " JOIN actions_contact_groups cg ON cg.contact_id = c.id"
            " JOIN actions_contactgroup g ON g.id = cg.contactgroup_id"
        )
        where = [*where, *_group_condition(group)]
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    if shape == "count":
        return f"SELECT count(DISTINCT c.id) AS count FROM {source}{clause}"
    if shape == "breakdown":
        return _breakdown(entity, source, clause, by_channel=by_channel)
    return (
        f"SELECT {entity.columns} FROM {source}{clause} ORDER BY {entity.order} LIMIT {LIST_LIMIT}"
    )


def _breakdown(entity: Entity, source: str, clause: str, *, by_channel: bool) -> str:
    if entity.key in ("contacts", "groups") and not entity.statuses:
        return (
            "SELECT g.name AS group_name, count(cg.contact_id) AS contacts"
            " FROM actions_contactgroup g"
            " LEFT JOIN actions_contact_groups cg ON cg.contactgroup_id = g.id"
            " GROUP BY g.name ORDER BY g.name"
        )
    column = "channel" if by_channel else "status"
    return (
        f"SELECT c.{column} AS {column}, count(*) AS count FROM {source}{clause}"
        f" GROUP BY c.{column} ORDER BY c.{column}"
    )


def _names_a_kind_of_group(phrase: str) -> bool:
    return any(gloss(word) != word.lower() for word in phrase.split())


_FILLER = frozenset({"the", "group", "of", "in", "our", "a", "an"})


def _words(group: str) -> list[str]:
    """The parts a group's name must hold: "parents class b" → "parents", "class b" (a class
    keeps its letter: "b" alone would match any name with a b in it)."""
    out: list[str] = []
    for word in re.findall(r"\w+", group.lower()):
        if out and out[-1] == "class":  # before the filler: "class a" is not "class" + "a"
            out[-1] = f"class {word}"
        elif word not in _FILLER:
            out.append(word)
    return out


def _group_condition(group: str) -> list[str]:
    """A group named in English is matched whole; one named in Korean ("B반 학부모") by the
    English words of its kind ("class b", "parents"), as the groups are named."""
    if not _HANGUL.search(group):  # "Teachers", "class B"; "parents class b": each part
        whole = f"lower(g.name) LIKE lower({sql_literal('%' + group + '%')})"
        parts = [f"lower(g.name) LIKE {sql_literal('%' + word + '%')}" for word in _words(group)]
        if len(parts) < 2:
            return [whole]
        return [f"({whole} OR ({' AND '.join(parts)}))"]
    return [f"lower(g.name) LIKE {sql_literal('%' + word + '%')}" for word in _glossed(group)]


def _glossed(name: str) -> list[str]:
    """The English group words a Korean group name says ("B반 학부모" → "class b", "parents")."""
    return [gloss(word) for word in name.split() if gloss(word) != word.lower()]


def sql_literal(value: str) -> str:
    """A PostgreSQL string literal, quotes escaped by sqlglot (never by hand)."""
    return str(exp.Literal.string(value).sql(dialect="postgres"))


# -- the reply --------------------------------------------------------------------------------


def data_reply(plan: DataQuestion | None, result: dict[str, Any]) -> str:
    """A short sentence for a count, else a small markdown table introduced by a sentence."""
    columns: list[str] = list(result.get("columns", []))
    rows: list[list[Any]] = list(result.get("rows", []))
    if plan is not None and plan.shape == "count" and rows and len(rows[0]) == 1:
        return _count_sentence(plan, rows[0][0])
    if not rows:
        return _nothing_sentence(plan)
    if len(rows) == 1 and len(columns) == 1:
        label = columns[0].replace("_", " ")
        return (
            f"The {label} is {rows[0][0]}."
            if plan is None or not plan.korean
            else (f"결과는 {rows[0][0]}입니다.")
        )
    return f"{_table_intro(plan, len(rows), bool(result.get('truncated')))}\n\n" + markdown_table(
        columns, rows
    )


def markdown_table(columns: list[str], rows: list[list[Any]]) -> str:
    """At most ``TABLE_ROWS`` rows as a markdown table, pipes in values escaped."""
    header = "| " + " | ".join(_cell(c) for c in columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows[:TABLE_ROWS]]
    return "\n".join([header, rule, *body])


def _cell(value: Any) -> str:
    text = "" if value is None else " ".join(str(value).split())
    return text.replace("|", "\\|")


def _scope(plan: DataQuestion) -> str:
    parts = []
    if plan.group:
        parts.append(f"in ‘{plan.group}’")  # noqa: RUF001
    if plan.period:
        parts.append(
            {"today": "today", "yesterday": "yesterday"}.get(plan.period, f"this {plan.period}")
        )
    return (" " + " ".join(parts)) if parts else ""


def _scope_ko(plan: DataQuestion) -> str:
    period = {"today": "오늘 ", "yesterday": "어제 ", "week": "이번 주 ", "month": "이번 달 "}
    group = f"‘{plan.group}’의 " if plan.group else ""  # noqa: RUF001
    return period.get(plan.period, "") + group


def _count_sentence(plan: DataQuestion, count: Any) -> str:
    if plan.korean:
        noun = plan.entity.korean
        return f"{_scope_ko(plan)}{noun}{_particle(noun, '은', '는')} 모두 {count}개입니다."
    singular, plural = plan.entity.english
    noun = singular if count == 1 else plural
    verb = "is" if count == 1 else "are"
    return f"There {verb} {count} {noun}{_scope(plan)}."


def _nothing_sentence(plan: DataQuestion | None) -> str:
    if plan is None:
        return "The query found no matching rows."
    if plan.korean:
        noun = plan.entity.korean
        return f"{_scope_ko(plan)}{noun}{_particle(noun, '이', '가')} 없습니다."
    return f"I found no {plan.entity.english[1]}{_scope(plan)}."


def _table_intro(plan: DataQuestion | None, shown: int, truncated: bool) -> str:
    more = " (more exist; showing the first ones)" if truncated or shown > TABLE_ROWS else ""
    if plan is None:
        return f"Here is what the query found{more}:"
    if plan.korean:
        return f"{_scope_ko(plan)}{plan.entity.korean} 결과입니다:"
    if plan.shape == "breakdown":
        return f"Here are the {plan.entity.english[1]}{_scope(plan)}, counted{more}:"
    if not more and shown > 1:  # the whole list: say how many it holds
        return f"Here are the {shown} {plan.entity.english[1]}{_scope(plan)}:"
    return f"Here are the {plan.entity.english[1]}{_scope(plan)}{more}:"


def _particle(noun: str, after_consonant: str, after_vowel: str) -> str:
    """The Korean particle form that fits the noun's last syllable (받침 or not)."""
    last = noun[-1:]
    if "\uac00" <= last <= "\ud7a3" and (ord(last) - 0xAC00) % 28:
        return after_consonant
    return after_vowel
