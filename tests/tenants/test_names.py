"""DESIGN.md §4: Redis keys, channel-layer groups and LangGraph thread ids are prefixed with the
tenant schema and built on the server. ``tenants/names.py`` is the one place that builds them."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

import pytest

from tenants import names
from tests.source_lines import lines_matching

CONVERSATION = uuid.UUID("6f1c2a4e-9b7d-4e0a-8c3f-2d5e6a7b8c9d")
DIGEST = "ab" * 32
RUN = uuid.UUID("0b5e7c1d-2a3f-4e6b-9c8d-7a6b5c4d3e2f")

# Every builder, called for one tenant; the rule must hold for each of them.
BUILDERS: dict[str, Callable[[str], str]] = {
    "conversation_seq_key": lambda s: names.conversation_seq_key(s, CONVERSATION),
    "conversation_events_key": lambda s: names.conversation_events_key(s, CONVERSATION),
    "conversation_lock_key": lambda s: names.conversation_lock_key(s, CONVERSATION),
    "conversation_cancel_key": lambda s: names.conversation_cancel_key(s, CONVERSATION, RUN),
    "turn_requeues_key": lambda s: names.turn_requeues_key(s, CONVERSATION),
    "turn_ending_key": lambda s: names.turn_ending_key(s, CONVERSATION),
    "turn_claim_key": lambda s: names.turn_claim_key(s, RUN),
    "message_announced_key": lambda s: names.message_announced_key(s, RUN),
    "action_announced_key": lambda s: names.action_announced_key(s, RUN),
    "digest_scheduled_key": lambda s: names.digest_scheduled_key(s, 7),
    "approvals_group": lambda s: names.approvals_group(s),
    "session_user_group": lambda s: names.session_user_group(s, 7),
    "session_token_group": lambda s: names.session_token_group(s, DIGEST),
    "checkpoint_thread_id": lambda s: names.checkpoint_thread_id(s, CONVERSATION),
    "process_cache_key": lambda s: names.process_cache_key(s, "d1g3st"),
}


def test_every_builder_is_checked_by_this_test() -> None:
    public = {
        name
        for name, value in vars(names).items()
        if callable(value) and not name.startswith("_") and value.__module__ == names.__name__
    }
    assert public == set(BUILDERS)


@pytest.mark.parametrize("builder", BUILDERS, ids=list(BUILDERS))
def test_each_name_carries_the_tenant_schema_as_its_own_segment(builder: str) -> None:
    build = BUILDERS[builder]
    for schema in ("academy", "clinic_2"):
        name = build(schema)
        segments = re.split(r"[.:]", name)
        assert schema in segments[:2], name


@pytest.mark.parametrize("builder", BUILDERS, ids=list(BUILDERS))
def test_two_tenants_never_share_a_name_even_when_one_schema_prefixes_the_other(
    builder: str,
) -> None:
    build = BUILDERS[builder]
    assert build("shop") != build("shop_2")
    assert not build("shop_2").startswith(build("shop") + ".")


def test_the_stored_formats_stay_exactly_as_existing_data_and_streams_expect() -> None:
    c = str(CONVERSATION)
    assert names.conversation_seq_key("academy", c) == f"cs:academy:conv:{c}:seq"
    assert names.conversation_events_key("academy", c) == f"cs:academy:conv:{c}:events"
    assert names.conversation_lock_key("academy", c) == f"cs:academy:conv:{c}:running"
    run = str(RUN)
    assert names.conversation_cancel_key("academy", c, run) == f"cs:academy:conv:{c}:cancel:{run}"
    assert names.turn_requeues_key("academy", c) == f"cs:academy:turn:{c}:requeues"
    assert names.turn_ending_key("academy", c) == f"cs:academy:turn:{c}:ended"
    assert names.turn_claim_key("academy", c) == f"cs:academy:turn:{c}:claim"
    assert names.message_announced_key("academy", c) == f"cs:academy:turn:{c}:announced"
    assert names.action_announced_key("academy", c) == f"cs:academy:action:{c}:announced"
    assert names.digest_scheduled_key("academy", 7) == "cs:academy:notify:7:scheduled"
    assert names.approvals_group("academy") == "academy.approvals"
    assert names.session_user_group("academy", 7) == "academy.session.user.7"
    assert names.session_token_group("academy", DIGEST) == f"academy.session.token.{DIGEST[:40]}"
    assert names.checkpoint_thread_id("academy", c) == f"academy:{c}"
    assert names.process_cache_key("academy", "d1g3st") == "academy:d1g3st"


@pytest.mark.parametrize(
    "schema", ["", "Academy", "a.b", "a:b", "a*", "public academy", "x" * 64, None]
)
def test_a_schema_that_could_escape_its_prefix_is_refused(schema: object) -> None:
    with pytest.raises(ValueError, match="schema"):
        names.conversation_events_key(schema, CONVERSATION)  # type: ignore[arg-type]


@pytest.mark.parametrize("conversation", ["*", "abc", f"{CONVERSATION}:x", "", "1" * 40])
def test_a_conversation_id_that_is_not_a_uuid_is_refused(conversation: str) -> None:
    with pytest.raises(ValueError, match="uuid"):
        names.conversation_events_key("academy", conversation)


@pytest.mark.parametrize("spelling", [str(CONVERSATION).upper(), f"{{{CONVERSATION}}}"])
def test_two_spellings_of_one_conversation_name_one_key(spelling: str) -> None:
    expected = names.conversation_events_key("academy", CONVERSATION)
    assert names.conversation_events_key("academy", spelling) == expected


@pytest.mark.parametrize("user_id", [-1, True, "7", "7:x"])
def test_a_user_id_that_is_not_a_primary_key_is_refused(user_id: object) -> None:
    with pytest.raises(ValueError, match="primary key"):
        names.session_user_group("academy", user_id)  # type: ignore[arg-type]


def test_a_token_group_is_named_only_after_a_digest() -> None:
    with pytest.raises(ValueError, match="digest"):
        names.session_token_group("academy", "secret-token.with.dots")


# Shapes of a hand-built tenant-prefixed name: "cs:{…}", "{schema}.…", "{schema}:…".
_HAND_BUILT = re.compile(r"f[\"']cs:\{|f[\"']\{[a-z_.()]*schema[a-z_.()]*\}[.:](?!\s)")


def test_no_module_outside_tenants_names_builds_a_tenant_prefixed_name() -> None:
    offenders = lines_matching(_HAND_BUILT, except_in="tenants/names.py")
    assert offenders == []
