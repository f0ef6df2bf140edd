"""Adding a tool is one module plus one registry line: a dummy read tool and a dummy write tool,
registered through the registries alone, reach the model's tool list (with the read tool's
stage), the approval card and the tenant admin's policy page; a policy switched off in one
tenant leaves the other tenant's tool list alone. A dummy write tool that carries its own words
is proposed by the built-in model, in English and Korean, with nothing but its module."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django_tenants.utils import tenant_context
from pydantic import BaseModel, ConfigDict, Field

import actions.tools.registry as write_registry
import chat.tools.registry as tool_registry
from actions.models import Contact, ToolPolicy
from actions.tools.base import (
    ReadContext,
    ReadResult,
    ReadTool,
    ToolContext,
    ToolResult,
    WriteTool,
)
from actions.tools.common import Recipients, SmsBody
from actions.tools.words import ToolWords
from chat.builtin_model.model import OfflineChatModel
from chat.models import PendingAction
from chat.tools.registry import model_tools
from tenants.models import Tenant
from tenants.roles import TENANT_ADMIN
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.conftest import host_client
from tests.tenants.factories import PASSWORD, http_login, make_user


class EchoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(description="The text to say back.")


class Echo(ReadTool[EchoArgs]):
    """Say a text back, unchanged (a tool that exists only in this test)."""

    name = "echo_text"
    label = "Echo a text"
    stage = "echoing"
    args_schema = EchoArgs

    def run(self, arguments: dict[str, Any], ctx: ReadContext) -> ReadResult:
        return ReadResult(json.dumps({"echo": arguments.get("text"), "user": ctx.user_id}))


class BellArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    room: str = Field(min_length=1, description="The room whose bell should ring.")


class RingBell(WriteTool[BellArgs]):
    """Ring the bell of a room (a tool that exists only in this test)."""

    name = "ring_bell"
    label = "Ring a bell"
    args_schema = BellArgs

    def validate(self, arguments: dict[str, Any]) -> BellArgs:
        return self.parse(arguments)

    def describe(self, args: BellArgs) -> str:
        return f"Ring the bell in {args.room}"

    def execute(self, args: BellArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(summary=f"Rang the bell in {args.room}", data={})


@pytest.fixture
def dummy_tools(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The one line each registry gets for a new tool.
    monkeypatch.setattr(tool_registry, "READ_TOOLS", (*tool_registry.READ_TOOLS, Echo()))
    monkeypatch.setitem(write_registry._TOOLS, RingBell.name, RingBell())
    yield


class PageArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    to: Recipients = Field(description="Contact names whose pagers should beep.")
    body: SmsBody = Field(description="The page's text, exactly as it should appear.")


class SendPage(WriteTool[PageArgs]):
    """Page contacts on their pagers (a tool that exists only in this test)."""

    name = "send_page"
    label = "Send a page"
    args_schema = PageArgs
    words = ToolWords(
        label="Pages",
        label_ko="호출기 메시지",
        one="page",
        one_ko="호출기 메시지",
        request="send a page",
        example="Page Kim Minji that the lab is open",
        example_ko="김민지에게 실험실이 열렸다고 호출기로 알려줘",
        cue=re.compile(r"\bpager?s?\b|\bpaged?\b|호출기|삐삐", re.IGNORECASE),
        cues=("pager", "page", "호출기", "삐삐"),
        verbs=("page",),
        exemplars=(
            "page Kim Minji that the lab is open",
            "send a page to the nurses on duty",
            "beep the doctors on their pagers about the delay",
            "put a message on the technicians' pagers: the lab is closed",
            "page the on-call staff that the ward is full",
            "can you page David that his patient arrived",
            "김민지에게 실험실이 열렸다고 호출기로 알려줘",
            "당직 간호사들한테 삐삐 쳐줘",
            "호출기로 의사 선생님들께 지연된다고 보내줘",
            "기술자들 호출기에 실험실 닫았다고 보내주세요",
        ),
        shape="message",
        channel="pager",
    )

    def validate(self, arguments: dict[str, Any]) -> PageArgs:
        return self.parse(arguments)

    def describe(self, args: PageArgs) -> str:
        return f"Page {', '.join(args.to)}: {args.body}"

    def execute(self, args: PageArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(summary=f"Paged {len(args.to)} contacts", data={})


@pytest.fixture
def paging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The one registry line; its words come with its class.
    monkeypatch.setitem(write_registry._TOOLS, SendPage.name, SendPage())
    yield


def _bound_names(model: ScriptedChatModel) -> list[list[str]]:
    return [[spec["function"]["name"] for spec in specs] for specs in model.bound_tools]


def test_new_tools_reach_the_model_and_the_read_tool_runs_with_its_own_stage(
    dummy_tools: None, ask: TurnRunner, people_a: People
) -> None:
    model = ScriptedChatModel(
        replies=[tool_call("echo_text", text="hello"), tool_call("ring_bell", room="Room 3")]
    )

    turn = ask("please run the new tools", model=model)

    assert all({"echo_text", "ring_bell"} <= set(names) for names in _bound_names(model))
    echo = model.calls[1][-1]
    assert json.loads(str(echo.content)) == {"echo": "hello", "user": people_a.staff.pk}
    assert ("status", "echoing") in turn.events.events
    action = PendingAction.objects.get(conversation=turn.conversation)
    assert (action.tool, action.description) == ("ring_bell", "Ring the bell in Room 3")


def test_the_new_write_tool_gets_an_approval_card_with_its_label_and_fields(
    dummy_tools: None, ask: TurnRunner, people_a: People, tenant_a: Tenant
) -> None:
    turn = ask("ring it", model=ScriptedChatModel(replies=[tool_call("ring_bell", room="Hall")]))
    action = PendingAction.objects.get(conversation=turn.conversation)
    approver = host_client(tenant_a)
    assert http_login(approver, people_a.approver.get_username())

    card = approver.get(f"/actions/{action.id}/card/").content.decode()

    assert "Ring a bell" in card
    assert "Ring the bell in Hall" in card
    assert 'name="room"' in card
    assert 'data-testid="approve"' in card


def test_the_tenant_admin_lists_and_edits_the_new_tools_policy(
    dummy_tools: None, tenant_a: Tenant, tenant_b: Tenant
) -> None:
    admin = host_client(tenant_a)
    make_user(tenant_a, "alice", role=TENANT_ADMIN)
    admin.post("/admin/login/?next=/admin/", {"username": "alice", "password": PASSWORD})

    page = admin.get("/admin/actions/toolpolicy/").content.decode()
    with tenant_context(tenant_a):
        policy = ToolPolicy.objects.get(tool_name="ring_bell")
    response = admin.post(
        f"/admin/actions/toolpolicy/{policy.pk}/change/",
        {
            "enabled": "",
            "approver_group": "",
            "max_recipients": 50,
            "expires_after_hours": 24,
            "edit_confirmed_by": "requester",
        },
    )

    assert "ring_bell" in page and "Ring a bell" in page
    assert response.status_code == 302
    with tenant_context(tenant_a):
        assert "ring_bell" not in [tool.name for tool in model_tools()]
        assert "echo_text" in [tool.name for tool in model_tools()]
    with tenant_context(tenant_b):
        assert "ring_bell" in [tool.name for tool in model_tools()]


@pytest.mark.parametrize(
    ("contact", "request_text", "body"),
    [
        ("Kim Minji", "page Kim Minji that the lab results are ready", "The lab results are ready"),
        ("김민지", "호출기로 김민지에게 실험 결과가 나왔다고 보내줘", "실험 결과가 나왔습니다"),
    ],
)
def test_the_built_in_model_proposes_a_new_write_tool_from_the_words_in_its_module(
    paging: None, ask: TurnRunner, in_tenant_a: Tenant, contact: str, request_text: str, body: str
) -> None:
    Contact.objects.create(name=contact, phone="+12025550101")

    turn = ask(request_text, model=OfflineChatModel())

    action = PendingAction.objects.get(conversation=turn.conversation)
    assert action.tool == "send_page"
    assert action.arguments == {"to": [contact], "body": body}
    assert turn.events.of("pending") == [action]
