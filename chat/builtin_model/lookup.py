"""Questions about the tenant's contacts, read against its own directory. Pure: no Django.

"What's Emma Wilson's email address?", "Oliver는 무슨 반 학부모야?", "who in class A can we reach
on Telegram?", "이메일이 없는 사람 있어요?": staff ask about the people they message far more
than about tables. A template for each sentence never generalises (issue 27), so a question is
read as three slots instead, each found on its own:

- **who**: the contacts and groups it names, found in the tenant's directory exactly as a send
  request's recipients are (``recipients.py``: fuzzy, Korean particles and titles, aliases);
- **what**: the fields it asks for (e-mail address, phone number, Telegram, groups, or all
  contact details), by the nouns people use for them in English and Korean;
- **which**: for a question about nobody in particular, whether it asks who *has* an address on
  a channel ("reach on Telegram", "연락 가능한") or who *lacks* one ("don't have an email for",
  "이메일이 없는").

A message is a lookup only when it is a question (or "tell me …"), not a request to send, and
the slots are filled: a named contact and a field, or a channel with "has" or "lacks". The SQL
goes through ``query_data`` like any model's (guard, read-only role, row cap).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from chat.builtin_model.dataqa import markdown_table, sql_literal
from chat.builtin_model.keystrokes import as_meant
from chat.builtin_model.sentences import REMIND_ME_OF_A_FACT, asking_sentence
from chat.builtin_model.understanding.directory import Directory
from chat.builtin_model.understanding.recipients import find_recipients
from chat.builtin_model.vocabulary import own_words

Field = Literal["email", "phone", "telegram", "groups"]
_I = re.IGNORECASE
_HANGUL = re.compile(r"[\uac00-\ud7af]")

# What a question asks *for*: an address as a noun ("Emma's email", "her phone number",
# "이메일 주소", "번호", "which class"). A channel named as the way to send ("by email",
# "on Telegram", "이메일로", "텔레그램으로") is a request to send, and never makes a lookup.
# "seojun's parent email?", "Minji's mom phone": the family member's address, asked in a hurry.
_FAMILY_S = r"\b(?:mom|mum|dad|mother|father|parent|guardian)(?:['’]?s)?\s+"  # noqa: RUF001
_FIELD_WORDS: dict[Field, re.Pattern[str]] = {
    "email": re.compile(
        r"\be-?mail\s+(?:address(?:es)?|addr|add)\b|\bmail\s+address\b"
        # "Emma Wilson 어머님 email address가 뭐예요?": a Korean particle glued to the noun
        r"|\be-?mail\s*address(?=[가-힣])"
        r"|'s\s+(?:work\s+|personal\s+|home\s+)?e-?mail\b"
        r"|\be-?mail\s+(?:for|of)\b"
        # "what email we have on file for James Taylor?"
        r"|\be-?mail\s+(?:address\s+)?(?:do\s+)?we\s+(?:have|hold|keep)\b"
        r"|\baddress(?:es)?\b|(?:이메일|메일)\s*주소|(?:이메일|메일)(?:이|은|는|가)(?=\s|$)|주소"
        rf"|{_FAMILY_S}e-?mail\b"
        # "which group James is in and what his email is": a person's, asked after another field
        r"|\b(?:his|her|their)\s+(?:work\s+|personal\s+)?e-?mail\b",
        _I,
    ),
    "phone": re.compile(
        r"\b(?:phone|mobile|cell)\s*(?:number|numbr|no\b|#)|'s\s+(?:phone|mobile|cell)\b"
        r"|\bnumbe?rs?\b|\bnumbr\b|(?:전화|휴대폰|핸드폰|폰)\s*번호|번호|폰번|전번"
        rf"|{_FAMILY_S}(?:phone|mobile|cell)\b|\b(?:his|her|their)\s+(?:phone|mobile|cell)\b",
        _I,
    ),
    "telegram": re.compile(
        r"'s\s+telegram\b|\btelegram\s+(?:id|handle|account|chat)\b|\bchat\s*id\b"
        r"|텔레그램\s*(?:아이디|id|계정)|텔레그램(?:이|은|는|가)(?=\s|$)",
        _I,
    ),
    "groups": re.compile(
        r"\b(?:which|what)\s+(?:class|group)(?:es)?\b|\b(?:class|group)(?:es)?\s+(?:is|are)\b"
        r"|(?:무슨|어느|어떤|몇)\s*(?:반|그룹)",
        _I,
    ),
}
# "같은 반", "the same class as Oliver": the groups of the contact named.
_SAME_GROUP = re.compile(r"같은\s*(?:반|그룹|클래스)|\bsame (?:class|group)\b|\bclassmates?\b", _I)
# The channel a "who can we reach on …" / "who has no … " question is about.
_CHANNEL_WORDS: dict[Field, re.Pattern[str]] = {
    "email": re.compile(r"\be-?mails?\b|이메일|메일", _I),
    "phone": re.compile(
        r"\b(?:phone|mobile|cell|number|sms|texts?)\b|전화|휴대폰|핸드폰|번호|문자", _I
    ),
    "telegram": re.compile(r"\btelegram\b|텔레그램", _I),
}
_ALL_DETAILS = re.compile(r"\bcontact\s+(?:details|info(?:rmation)?)\b|\bdetails\b|연락처", _I)
_HAS = re.compile(
    r"\breach(?:able|ed)?\b|\bget hold of\b|\bcontactable\b|\b(?:has|have|got)\s+(?:an?\s+)?"
    r"(?:e-?mail|phone|number|telegram)|\b(?:on|use|uses|using)\s+telegram\b|"
    r"연락\s*(?:가능|되는|할\s*수|돼|되)|받을\s*수|"
    r"(?:텔레그램|이메일|메일|문자)(?:이|가|로|으로)?\s*(?:연결|연동|등록|되는|돼|가능|쓰는|있는)",
    _I,
)
_LACKS = re.compile(
    r"\b(?:don'?t|do not|doesn'?t|does not|dont|not|without|no|missing|lack(?:s|ing)?)\s+"
    r"(?:have\s+|has\s+|got\s+)?(?:an?\s+|any\s+)?(?:e-?mail|phone|number|telegram)"
    # "which teachers cant get telegram msgs": who cannot be sent one that way
    r"|\b(?:can'?t|cannot|can not|unable to)\s+"
    r"(?:get|receive|use|be (?:reached|contacted) (?:on|by))\s+"
    r"(?:any\s+)?(?:e-?mails?|texts?|sms|telegram)"
    r"|(?:이메일|메일|전화\s*번호|번호|텔레그램)(?:\s*(?:주소|아이디|id))?(?:이|가)?\s*"
    r"(?:없는|없어|없나|안\s*되는|모르는|(?:등록|저장)(?:이)?\s*안\s*(?:된|되어\s*있는|돼\s*있는)|미등록)",
    _I,
)
_EN_QUESTION = re.compile(
    r"^\s*(?:what'?s|whats|what|which|who|who'?s|whose|where|how many|is|are|has|have|does|do|"
    r"did|can|could|"
    # "got a number for oliver brown": "have you got …" clipped
    r"(?:(?:have\s+)?(?:you|u|we)\s+)?got|"
    r"any|anyone|tell me|show me|give me|find|look ?up)\b|\?\s*$"
    # asked as a need: "…, I just need her number."
    r"|\b(?:just |only )?need (?:his|her|their) (?:\w+ )?(?:number|e-?mail(?: address)?|address|"
    r"contact details)\W*$"
    # asked as a check: "Please confirm the e-mail address held on record for Ms Choi Yuna."
    r"|^\s*(?:(?:please|pls|kindly|can you|could you)\s+)?"
    r"(?:confirm|check|verify|double[- ]check)\b"
    # asked as a wish to know: "It would be helpful to know which of the class B parents …"
    r"|^\s*(?:it(?:'d| would) be (?:helpful|good|great|useful|nice) to know|i(?:'d| would) like to "
    r"know|i need to know|i want to know|i wonder|let me know)\s+(?:which|who|whether|if|what)\b"
    # asked as a bare noun phrase: "Ms Choi's email please", "Oliver's number pls"
    r"|^[\w .'’-]{1,40}?['’]s\s+(?:e-?mail(?:\s+address)?|phone(?:\s+number)?|mobile|number"  # noqa: RUF001
    r"|telegram(?:\s+id)?|contact details)\s*(?:please|pls|plz)?\s*[.!]*$"
    # asked as the list wanted: "Names and e-mail addresses of all Class B parents, please"
    r"|^\s*(?:(?:the|a)\s+)?(?:full\s+)?(?:names?|e-?mail\s+addresses|e-?mails|phone\s+numbers|"
    r"numbers|contact\s+details|telegram\s+ids|list)\b(?:\s*(?:,|and|&)\s*(?:e-?mail\s+addresses|"
    r"e-?mails|phone\s+numbers|numbers|telegram\s+ids))*\s+(?:of|for)\b",
    _I,
)
_KO_QUESTION = re.compile(
    r"\?\s*$|뭐|무엇|누구|어느|무슨|어떤|몇|알려|있나|있어요|있어\s*$|인가|였지|이었|였나|예요|에요|임\s*$"
    # "…거부한 분이 있는지 확인 부탁드립니다", "…목록 요망": asked as a task
    r"|(?:있는지|없는지|인지|는지|계신지|있으신지)\s*(?:좀\s*)?(?:확인|체크)|"
    # "최유나 선생님의 휴대전화 번호를 확인하여 주시기 바랍니다": the detail, to be looked up
    r"(?:번호|주소|연락처|아이디)(?:를|을)?\s*(?:좀\s*)?(?:확인|조회|찾아)|(?:목록|명단|리스트)\s*(?:좀\s*)?(?:요망|바람|부탁|보여|알려)"
    r"|야\s*$|니\s*$|죠\s*$|지\s*$|나요|까요"
    # "테일러 쌤 번호 좀", "민지 어머님 메일 주소요": the noun, asked for
    r"|(?:번호|전화\s*번호|이메일(?:\s*주소)?|메일\s*주소|연락처|텔레그램\s*아이디)\s*(?:좀|요|주세요)?\s*[.!]*$"
    # "Oliver Brown씨 연락처 좀, 메일이랑 폰번호 둘다": the noun asked for, then which of it
    r"|(?:번호|연락처|주소)\s*좀(?=[\s,.]|$)"
)
# A request to send or post carries the same nouns ("email Emma her address", "번호로 문자
# 보내줘"); it is a write, never a lookup. "Tell me" asks the assistant, so it is not one.
_SENDS = re.compile(
    r"^\s*(?:(?:so|and|then|but|ok|okay|also|now)\s+)?"  # "…, so could you message her …"
    r"(?:(?:please|pls|can you|could you|would you)\s+(?:please\s+)?)?"
    r"(?:e-?mail|text|txt|sms|send|tell(?!\s+me\b)|remind|announce|post|message|msg|"
    r"telegram|notify|ping)\b|\b(?:saying|that says)\b"
    # "Yuna checks Telegram more than her e-mail, so could you message her there that …"
    r"|\b(?:could|can|would|will)\s+(?:you|u)\s+(?:please\s+)?(?:e-?mail|text|txt|sms|send|"
    r"remind|announce|post|message|msg|telegram|notify|ping)\s+(?!me\b)"
    r"|(?:보내|전해|전달해|남겨|올려|게시해|공지해|여쭤\s*봐|여쭈어\s*봐|물어\s*봐)\s*"
    r"(?:줘|주세요|줄래|주실|드려|달라)",
    _I,
)
# A lead-in where the asker will do the sending themselves, before the question.
_MYSELF_THEN = re.compile(
    r"^.*\b(?:myself|ourselves|personally|from my own \w+)\b[^?]*?(?:\s[-–—]\s|[.,;:]\s+|\s+so\s+)",  # noqa: RUF001
    _I,
)
# "…phone number i need to call him from my cell": why the asker wants it, not a rule.
_ASKERS_PURPOSE = re.compile(
    r"\b(?:i|we)\s+(?:need|want|have|ve got|got)\s+to\s+(?:call|ring|phone|reach|contact|text|"
    r"visit|see|talk\s+to|speak\s+to|get\s+hold\s+of)\b.*$|"
    r"(?:전화|연락)\s*(?:해야|드려야|하려고|드리려고)\S*",
    _I,
)
# "May I ask what is the email address of Mr. Oliver Brown?": asking leave to ask, not the rules.
_POLITE_ASK = re.compile(
    r"\b(?:may|can|could|might)\s+i\s+(?:please\s+)?(?:ask|know|enquire|inquire|check)\b"
    r"(?:\s+you)?(?:\s+(?:please|kindly))?",
    _I,
)
# "…메일 주소가 어떻게 되는지요? 상담 자료를 따로 보내 드리려고 합니다.": after the question,
# the writer's own plan; it asks nothing of us.
_OWN_PLAN_KO = re.compile(
    r"(?:드리려고|하려고|보내려고|드릴게요|할게요|드리겠습니다|하겠습니다|드리려\s?합니다|하려\s?합니다)"
    r"[^?]*$"
)


def _asked_ko(text: str) -> str:
    asking = asking_sentence(text)
    rest = text[len(asking) :]
    return asking if asking != text and _OWN_PLAN_KO.search(rest) else text


# "What if a parent doesn't have a phone?" asks the rules, not the contacts list.
_ABOUT_RULES = re.compile(
    r"\b(?:what if|can i|could i|may i|should|allowed|policy|procedure|how do|how to|"
    # "I just need her number" needs a detail of ours, not a rule
    r"(?<!no )need(?!\s+(?:his|her|their|the)\s+(?:\w+\s+)?(?:number|e-?mail|address|details)\b)|"
    r"required?)\b|해야|방법|규정|정책|필요|절차",
    _I,
)
# Who has or lacks an address is asked about people: "who", "anyone", a group, "사람", "명단".
_PEOPLE = re.compile(
    r"\b(?:who|whom|anyone|anybody|which|contacts?|people|parents?|teachers?|staff)\b"
    r"|누가|누구|사람|연락처|명단|분들?|학부모|선생님",
    _I,
)
_OPTED_OUT = re.compile(
    r"\bopted[- ]?out\b|\bopt(?:s|ing)?[- ]out\b|\bunsubscribed\b|\bdon'?t want (?:any )?"
    r"(?:messages|texts)\b|수신\s*거부|수신을?\s*(?:거부|원하지)"
    # "메시지 수신을 거부하신 분", "문자 받기를 원하지 않으신 분"
    r"|(?:수신|받기|받는\s*것)(?:을|를)?\s*(?:거부|거절|원하지\s*않|싫어)"
    # "has anyone asked not to receive messages from us?"
    r"|\b(?:asked|asks|wants?|wanted|wish(?:es|ed)?|prefers?|prefer(?:red)?) not to "
    r"(?:receive|get|be (?:sent|messaged|contacted|texted))\b"
    r"|\b(?:doesn'?t|don'?t|do not|does not) want to (?:receive|get)"
    r"(?: any)? (?:messages|texts|emails|e-mails)\b",
    _I,
)
# "텔레그램 되는 사람 누구. 수신거부 빼고.", "…except the ones who opted out": those who opted
# out are left out of the answer, not asked about.
_OPTED_OUT_LEFT_OUT = re.compile(
    r"수신\s*거부(?:하신|한)?\s*(?:분|사람|분들|사람들)?\s*(?:은|는)?\s*(?:빼고|제외|말고)|"
    r"\b(?:except|excluding|minus|not counting|apart from|leaving out|but not)\s+(?:the\s+)?"
    r"(?:ones?\s+|those\s+|people\s+|anyone\s+|contacts\s+)?(?:who\s+(?:have\s+|has\s+)?)?"
    r"(?:opted[- ]?out|unsubscribed)\b",
    _I,
)
# Who belongs to a group, asked of a group the question names.
_WHO_IS_IN = re.compile(
    r"명단|누구누구|누가\s*(?:있|속|들어|계)|누구(?:야|예요|에요|인지|있|세요)|어느\s*분|어떤\s*분|"
    r"\bwho(?:['\u2019]?s|\s+(?:is|are|else is))?\s+(?:actually\s+|exactly\s+|currently\s+|now\s+)?"
    r"(?:in|on|part of)\b|\bwho belongs?\b|"
    r"\bmembers?\b|"
    # "Who've we got in the Class B lot again?"
    r"\bwho(?:['\u2019]?ve|\s+have|\s+do)\s+we\s+(?:got|have)\s+(?:in|on)\b|"
    r"\bnames\b|\broster\b|\bwho (?:are|r|re) the\b|(?:\+|\band|&) who\W*$|"
    r"\blist (?:of )?(?:the |all )?(?:names|members|people|parents|teachers|contacts)\b",
    _I,
)
# ... unless it asks about what was sent to the group or is waiting for it.
_ABOUT_MESSAGES = re.compile(
    r"\b(?:sent|send|received|messages?|texts?|e-?mails?|reminders?|announcements?|scheduled)\b|"
    r"보낸|나간|받은|문자|메일|알림|리마인더|공지|예약",
    _I,
)
_COLUMN_SQL = {
    "email": "c.email",
    "phone": "c.phone",
    "telegram": "c.telegram_chat_id AS telegram",
}
_JOINS = (
    " LEFT JOIN actions_contact_groups cg ON cg.contact_id = c.id"
    " LEFT JOIN actions_contactgroup g ON g.id = cg.contactgroup_id"
)


@dataclass(frozen=True)
class Lookup:
    """A question about contacts, as one SELECT and what the reply needs."""

    sql: str
    fields: tuple[Field, ...]
    contacts: tuple[str, ...] = ()  # the stored names asked about
    groups: tuple[str, ...] = ()  # the groups the question narrows to
    lacking: bool = False  # who has no address on ``fields[0]``
    korean: bool = False
    members: bool = False  # the fields of every contact of ``groups``


def find_lookup(text: str, directory: Directory) -> Lookup | None:
    """The lookup ``text`` asks for, or None when it is not a question about contacts."""
    text = as_meant(" ".join(text.replace("\x00", " ").split())[:300], own_words())
    korean = bool(_HANGUL.search(text))
    question = _KO_QUESTION if korean else _EN_QUESTION
    if not text:
        return None
    # "I need to write to Ms Choi myself - what's her e-mail address?": the asker does the
    # writing; what is asked of the assistant is the clause that asks.
    # An English question may name a Korean contact ("What's 최 선생님's email?"): asked in English.
    # "혹시 do you have 최 선생님's phone number?": a Korean filler word first changes nothing
    english = not korean or bool(
        re.match(r"(?:(?:혹시|저기|저|근데|그런데|아|음)\s+)?[A-Za-z]", text)
    )
    asked = asking_sentence(_MYSELF_THEN.sub("", text)) if english else _asked_ko(text)
    asks = question.search(asked) or (english and _EN_QUESTION.search(asked))
    purpose = _ASKERS_PURPOSE.sub("", _POLITE_ASK.sub("", asked))
    sends = _SENDS.search(asked) and not REMIND_ME_OF_A_FACT.search(asked)
    if sends or _ABOUT_RULES.search(purpose) or not asks:
        return None
    found = find_recipients(text, directory)
    known = {entry.name for entry in directory.contacts}
    # "Emma's email" with two Emmas: both are answered, there is nothing to choose between.
    named = [*found.names, *(name for names in found.ambiguous for name in names)]
    contacts = tuple(dict.fromkeys(name for name in named if name in known))
    groups = tuple(
        dict.fromkeys(
            [
                *(name for name in found.names if name in directory.groups),
                *_by_part(text, directory),
                # "학부모 중에 …", "which parents …": a kind of group is every group of it
                *(
                    name
                    for names in found.ambiguous
                    if all(name in directory.groups for name in names)
                    for name in names
                ),
            ]
        )
    )
    fields = _fields(text) or (_named_channels(text) if contacts else ())
    if contacts and _SAME_GROUP.search(text):  # "who else is in Oliver's class?"
        shared = tuple(
            dict.fromkeys(
                group
                for entry in directory.contacts
                if entry.name in contacts
                for group in sorted(entry.groups)
            )
        )
        if shared:
            return Lookup(_members(shared, ()), (), groups=shared, korean=korean, members=True)
    if contacts and fields:
        return Lookup(_about(contacts, fields), fields, contacts=contacts, korean=korean)
    reachable = bool(_OPTED_OUT_LEFT_OUT.search(text))
    text = _OPTED_OUT_LEFT_OUT.sub(" ", text)
    channels = [f for f, words in _CHANNEL_WORDS.items() if words.search(text)]
    lacking = bool(_LACKS.search(text))
    asks_who = bool(groups or _PEOPLE.search(text))
    if not contacts and asks_who and _OPTED_OUT.search(text):
        return Lookup(
            _holders("opted_out", groups, lacking=False), (), groups=groups, korean=korean
        )
    if not contacts and len(channels) == 1 and asks_who and (lacking or _HAS.search(text)):
        sql = _holders(channels[0], groups, lacking=lacking, reachable=reachable)
        return Lookup(sql, (channels[0],), groups=groups, lacking=lacking, korean=korean)
    if not contacts and groups and fields and "groups" not in fields:
        # "선생님들 메일주소가 어떻게 되지?", "the teachers' phone numbers?": each member's
        return Lookup(_members(groups, fields), fields, groups=groups, korean=korean, members=True)
    if not contacts and groups and _WHO_IS_IN.search(text) and not _ABOUT_MESSAGES.search(text):
        # "A반 학부모 그룹에 어느 분들이 속해 계신지 명단을…", "선생님 그룹엔 몇명있어? 누구누구?"
        return Lookup(_members(groups, ()), (), groups=groups, korean=korean, members=True)
    return None


def _by_part(text: str, directory: Directory) -> list[str]:
    """Groups named by the part of their name that tells them apart: "in class B" is
    "Parents - Class B" when no other group has a part "Class B"."""
    parts: dict[str, list[str]] = {}
    for group in directory.groups:
        for part in re.split(r"\s+-\s+|\s*[/:|]\s*", group):
            if part and part != group:
                parts.setdefault(part.lower(), []).append(group)
    lowered = text.lower()
    return [
        groups[0]
        for part, groups in parts.items()
        if len(groups) == 1 and re.search(rf"(?<!\w){re.escape(part)}(?!\w)", lowered)
    ]


# A contact's address asked in a hurry: "whats emma wilsons email again" (the possessive
# without its apostrophe), "The phone of Oliver Brown, which one is it?". Only in a message
# with no verb of sending: "could you email Seojun's dad", "drop Mr Taylor an email" are
# requests, whatever nouns they share.
_HURRIED_FIELDS: dict[Field, re.Pattern[str]] = {
    "email": re.compile(
        r"\b\w+s\s+(?:work\s+|personal\s+)?e-?mail\b|\bthe\s+e-?mail(?:\s+address)?\s+of\b", _I
    ),
    "phone": re.compile(
        r"\b\w+s\s+(?:phone|mobile|cell)\b|\bthe\s+(?:phone|mobile|cell)(?:\s+number)?\s+of\b", _I
    ),
}
_SENDING = re.compile(
    r"\b(?:send|sent|write|drop|tell|let \w+ know|to say|saying|remind|ping|forward|cc|gets?)\b"
    r"|\ban?\s+e-?mail\b|^\s*(?:(?:please|pls|can you|could you)\s+)?(?:e-?mail|text|message)\b",
    _I,
)


def _named_channels(text: str) -> tuple[Field, ...]:
    if _HANGUL.search(text) or _SENDING.search(text):
        return ()
    return tuple(field for field, words in _HURRIED_FIELDS.items() if words.search(text))


def _fields(text: str) -> tuple[Field, ...]:
    named = tuple(field for field, words in _FIELD_WORDS.items() if words.search(text))
    if _ALL_DETAILS.search(text):  # "연락처 좀, 메일이랑 폰번호 둘다": all, the named among them
        return tuple(dict.fromkeys(("phone", "email", "telegram", *named)))
    return named


def _about(contacts: tuple[str, ...], fields: tuple[Field, ...]) -> str:
    plain = ["c.name", *(_COLUMN_SQL[f] for f in fields if f != "groups")]
    names = ", ".join(sql_literal(name) for name in contacts)
    where = f" WHERE c.name IN ({names})"
    if "groups" not in fields:
        return f"SELECT {', '.join(plain)} FROM actions_contact c{where} ORDER BY c.name"
    grouped = ", ".join(column.split(" AS ")[0] for column in plain)
    return (
        f"SELECT {', '.join(plain)}, string_agg(g.name, ', ' ORDER BY g.name) AS groups"
        f" FROM actions_contact c{_JOINS}{where} GROUP BY {grouped} ORDER BY c.name"
    )


def _members(groups: tuple[str, ...], fields: tuple[Field, ...]) -> str:
    shown = ", ".join(["c.name", *(_COLUMN_SQL[f] for f in fields)])
    named = ", ".join(sql_literal(g) for g in groups)
    return (
        f"SELECT DISTINCT {shown} FROM actions_contact c{_JOINS}"
        f" WHERE g.name IN ({named}) ORDER BY c.name"
    )


def _holders(
    field: Field | Literal["opted_out"],
    groups: tuple[str, ...],
    *,
    lacking: bool,
    reachable: bool = False,
) -> str:
    """Who has (or lacks) an address on a channel, or who opted out, within ``groups``;
    ``reachable``: those who opted out are left out ("수신거부 빼고")."""
    if field == "opted_out":
        where, shown = ["c.opted_out"], "c.name"
    else:
        column = _COLUMN_SQL[field].split(" AS ")[0]
        where = [f"coalesce({column}, '') {'=' if lacking else '<>'} ''"]
        shown = "c.name, c.opted_out" if lacking else f"c.name, {_COLUMN_SQL[field]}, c.opted_out"
        if reachable:
            where.append("NOT c.opted_out")
    source = "actions_contact c"
    if groups:
        source += _JOINS
        where.append(f"g.name IN ({', '.join(sql_literal(g) for g in groups)})")
    return f"SELECT DISTINCT {shown} FROM {source} WHERE {' AND '.join(where)} ORDER BY c.name"


# -- the reply --------------------------------------------------------------------------------

_EN_FIELD = {
    "email": "e-mail address",
    "phone": "phone number",
    "telegram": "Telegram chat id",
    "groups": "groups",
}
_KO_FIELD = {
    "email": "이메일 주소",
    "phone": "전화번호",
    "telegram": "텔레그램 ID",
    "groups": "그룹",
}
_KO_CHANNEL = {"email": "이메일", "phone": "전화번호", "telegram": "텔레그램"}


def lookup_reply(lookup: Lookup, result: dict[str, Any]) -> str:
    """One sentence for one contact and one field, else a short intro and a table."""
    columns: list[str] = list(result.get("columns", []))
    rows: list[list[Any]] = list(result.get("rows", []))
    if lookup.contacts or lookup.members:
        if len(rows) == 1 and len(lookup.fields) == 1:
            return _one_fact(lookup, rows[0])
        intro = "연락처에 저장된 내용입니다:" if lookup.korean else "From the contacts list:"
        return f"{intro}\n\n{markdown_table(columns, rows)}"
    return _holders_reply(lookup, columns, rows)


def _one_fact(lookup: Lookup, row: list[Any]) -> str:
    name, value, field = row[0], row[1], lookup.fields[0]
    if lookup.korean:
        if not value:
            return f"{name}의 {_KO_FIELD[field]}는 저장되어 있지 않습니다."
        return f"{name}의 {_KO_FIELD[field]}: {value}"
    if not value:
        return f"No {_EN_FIELD[field]} is stored for {name}."
    if field == "groups":
        return f"{name} is in {value}."
    return f"{name}'s {_EN_FIELD[field]} is {value}."


def _holders_reply(lookup: Lookup, columns: list[str], rows: list[list[Any]]) -> str:
    if not lookup.fields:
        return _opted_out_reply(lookup, rows)
    field = lookup.fields[0]
    within = f" in {', '.join(lookup.groups)}" if lookup.groups else ""
    within_ko = f"{', '.join(lookup.groups)}에서 " if lookup.groups else ""
    if not rows:
        if lookup.korean:
            state = "없는" if lookup.lacking else "있는"
            return f"{within_ko}{_KO_CHANNEL[field]} 주소가 {state} 연락처는 없습니다."
        state = "without" if lookup.lacking else "with"
        return f"No contact{within} is {state} a stored {_EN_FIELD[field]}."
    opted = sum(1 for row in rows if row[-1])
    if lookup.korean:
        state = "없는" if lookup.lacking else "있는"
        intro = f"{within_ko}{_KO_CHANNEL[field]} 주소가 {state} 연락처 {len(rows)}명입니다"
        note = f" (그중 {opted}명은 수신 거부)" if opted else ""
    else:
        state = "no" if lookup.lacking else "a"
        people = "contact" if len(rows) == 1 else "contacts"
        intro = f"{len(rows)} {people}{within} with {state} {_EN_FIELD[field]}"
        note = f" ({opted} of them opted out of messages)" if opted else ""
    return f"{intro}{note}:\n\n{markdown_table(columns, rows)}"


def _opted_out_reply(lookup: Lookup, rows: list[list[Any]]) -> str:
    names = ", ".join(str(row[0]) for row in rows)
    within = f" in {', '.join(lookup.groups)}" if lookup.groups else ""
    within_ko = f"{', '.join(lookup.groups)}에서 " if lookup.groups else ""
    if lookup.korean:
        return (
            f"{within_ko}수신 거부한 연락처: {names}"
            if rows
            else f"{within_ko}수신 거부한 연락처는 없습니다."
        )
    if not rows:
        return f"No contact{within} has opted out of messages."
    verb = "has" if len(rows) == 1 else "have"
    return f"{names}{within} {verb} opted out of messages."
