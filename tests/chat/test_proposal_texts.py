"""Issue 27, acceptance item 5: what the built-in model proposes to send is the message itself.

Every request of the blind dev half and of the demo set is understood against the demo
academy; each proposed body, e-mail subject and announcement title is then checked for *request
scaffolding*: the words a person uses to ask the assistant for something, which the recipient
should never read ("please", "can you", "tell her", "… thanks!", "문자 좀 보내줘",
"…보내달라고", "…넣어주세요"). The detector below is written from how people phrase requests,
not from the model's code. (The blind test half is never read here: only ``agent_eval --blind``
reports on it.)
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from actions.demo import demo_seed
from chat.builtin_model.router import CannotDo, Refuse, route_message
from chat.builtin_model.understanding import understand
from chat.builtin_model.understanding.context import classifier, load_directory
from tenants.models import Tenant
from tests.chat.conftest import People

EVALS = Path(__file__).resolve().parents[2] / "chat" / "evals"
SETS = (*sorted((EVALS / "blind" / "dev").glob("*.yaml")), EVALS / "demo_cases.yaml")

# How people ask someone else to pass a message on, in English and Korean. Each pattern is one
# habit of phrasing a request; a proposed text showing any of them still carries the request.
_SCAFFOLDING = {
    # "Could you cover Thursday's class?" and "Please bring a packed lunch" are the message's
    # own request to the recipient; "Could you tell her …", "Can you text …" and "Please send
    # Emma …" ask the assistant ("Please send me your agenda" asks the recipient again).
    "a polite opener": re.compile(
        r"^(?:please|pls|plz|kindly|can (?:you|u)|could you|would you|will you)\s+(?:please\s+)?"
        r"(?:text|sms|send|e-?mail|message|telegram|remind|announce|post|tell|let|ask|pass|"
        r"forward)\b(?!\s+(?:me|us)\b)|^(?:pls|plz|kindly)\b"
        # a question to the recipient may go on ("…today? I have a dentist appointment") or be
        # cut short as a subject ("Could you send me your lesson plans by the end of…")
        r"|^(?:can (?:you|u)|could you|would you|will you)\b(?![^?]*(?:\?|…$))",
        re.I,
    ),
    "a closing please or thanks": re.compile(
        r"[,.!\s](?:please|pls|plz|thanks?(?: you| so much| a lot)?|thx|ty|cheers)\s*[.!?~]*$",
        re.I,
    ),
    "the request verb": re.compile(
        r"^(?:text|sms|send|e-?mail|message|telegram|remind|announce|post|tell|let)\s+"
        r"(?:him|her|them|everyone|all|the\b|a\b|an\b|[A-Z][a-z]+\b)",
        re.I,
    ),
    "an instruction to relay": re.compile(
        r"\b(?:tell|ask|remind) (?:him|her|them)\b|\blet (?:him|her|them|everyone) know\b"
        r"|\b(?:send|text|e-?mail) (?:it|this|that) to\b",
        re.I,
    ),
    # Said to the assistant: the informal "…해 줘" and the reported "…달라고"; "…해 주세요"
    # alone may be the message's own polite request ("이름 꼭 써 주세요").
    "a Korean request ending": re.compile(
        r"(?:보내|전해|전달해|알려|남겨|넣어|올려|공지해|써|게시해|등록해|문자해|연락해)\s*"
        r"(?:줘|줄래|주실래요|주시겠어요|줄 수 있어|달라|달입니다|달라고|드려)"
    ),
    "a channel asked for": re.compile(
        r"(?:문자|메시지|메세지|메일|이메일|공지|카톡)\S*\s*(?:좀\s*|하나만\s*)?"
        r"(?:보내|넣어|남겨|올려|전해)\s*주세요"
    ),
    "a Korean channel with 좀": re.compile(r"(?:문자|메시지|메세지|메일|이메일|공지|카톡)\s*좀"),
    # "납부 부탁드립니다" and "자료 인쇄 좀 부탁드립니다" ask the recipient;
    # "문자 좀 부탁해" asks the assistant: a favour of sending.
    "a Korean request for a favour": re.compile(
        r"(?:문자|메시지|메세지|메일|이메일|공지|카톡|텔레그램|알림|리마인더|예약|발송|전달)"
        r"\S*\s*좀\s*부탁"
    ),
    "reported speech left unturned": re.compile(r"(?:라고|다고|자고|냐고)\s*(?:좀\s*)?[.!~]*$"),
}


def scaffolding(text: str) -> list[str]:
    """The request habits ``text`` still shows (empty: the text is the message alone)."""
    return [habit for habit, pattern in _SCAFFOLDING.items() if pattern.search(text.strip())]


def test_the_detector_knows_a_request_from_a_message() -> None:
    assert scaffolding("Can you tell her the trip is off, thanks!") == [
        "a polite opener",
        "a closing please or thanks",
        "an instruction to relay",
    ]
    assert scaffolding("내일 휴교입니다 문자 좀 넣어주세요") == [
        "a channel asked for",
        "a Korean channel with 좀",
    ]
    assert scaffolding("Could you text Emma the room changed?") == ["a polite opener"]
    assert scaffolding("Could you cover my Thursday class?") == []  # asks the recipient
    assert scaffolding("Please pack a towel and swimsuits") == []  # so does this
    assert scaffolding("Please text Emma that the room changed") == ["a polite opener"]
    assert scaffolding("도시락에 이름 꼭 써 주세요") == []
    assert scaffolding("Thanks to everyone who came to the open day!") == []
    assert scaffolding("내일 수업은 3시로 옮겨졌습니다") == []


def _requests() -> list[tuple[str, str]]:
    out = []
    for path in SETS:
        for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]:
            if isinstance(case.get("message"), str):
                out.append((case["key"], case["message"]))
    return out


def _texts(arguments: dict[str, Any]) -> list[tuple[str, str]]:
    """The words a recipient would read: body, subject, title (a reminder's inner call too)."""
    inner = arguments.get("arguments")
    if isinstance(inner, dict):
        arguments = {**arguments, **inner}
    return [
        (field, value)
        for field in ("body", "subject", "title")
        if isinstance(value := arguments.get(field), str)
    ]


@pytest.fixture
def academy(in_tenant_a: Tenant, people_a: People) -> People:
    demo_seed(schema_name=in_tenant_a.schema_name)
    return people_a


# About 500 requests through the real e5 classifier: minutes on a busy machine. A request the
# router refuses (harm) or cannot do reaches no model, so it proposes nothing to check.
@pytest.mark.timeout(1800)
def test_no_proposed_text_carries_the_request_that_asked_for_it(
    academy: People, tenant_a: Tenant
) -> None:
    directory, tz = load_directory(schema=tenant_a.schema_name, user_id=academy.staff.pk)
    # The writers' "now": 10:00 on an ordinary weekday (a Monday). The clock's own time would
    # make "at 3 today" a proposal in the morning and a passed time, asked again, at night.
    now = datetime(2026, 11, 23, 10, 0, tzinfo=tz)
    model = classifier()
    carried = []
    proposals = 0
    for key, message in _requests():
        if isinstance(route_message(message), Refuse | CannotDo):
            continue
        found = understand(message, directory=directory, now=now, tz=tz, classifier=model)
        if not found.tool or not found.arguments:
            continue
        proposals += 1
        for field, text in _texts(found.arguments):
            if _quoted_in(message, text):
                continue  # the requester's own words, in quotes: "'Please bring a packed lunch'"
            if habits := scaffolding(text):
                carried.append(f"{key} {field}={text!r}: {', '.join(habits)}")

    assert proposals > 100  # the sets do propose: an empty loop would prove nothing
    assert carried == [], "\n".join(carried)


def _quoted_in(message: str, text: str) -> bool:
    """The requester's own words, quoted or after a colon ("…telegram please: could you send
    Minji's costume"), are theirs to phrase."""
    # the text's first letter is capitalised when it goes out: "'pls send in the costume'"
    forms = (text, text[:1].lower() + text[1:])
    quotes = [("'", "'"), ('"', '"'), ("“", "”"), ("‘", "’")]  # noqa: RUF001
    if any(f"{q}{form}{end}" in message for q, end in quotes for form in forms):
        return True
    said = text.rstrip("?.!")
    return any(f": {form}" in message for form in (said, said[:1].lower() + said[1:]))
