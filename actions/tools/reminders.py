"""schedule_reminder: run another write action later, at a given time."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import timedelta
from typing import Any, Literal

from django.utils import timezone
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from actions.services.reminders import reminder_schedule
from actions.tools.base import (
    ToolArgumentsError,
    ToolContext,
    ToolResult,
    UnknownToolError,
    WriteTool,
)
from actions.tools.common import enabled_policy
from actions.tools.words import ToolWords
from tenants.selectors import tenant_zone

MAX_AHEAD = timedelta(days=366)
SCHEDULABLE = ("send_sms", "send_telegram", "send_email", "create_announcement")


class ReminderArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    due_at: AwareDatetime = Field(
        description="When to do it: an ISO 8601 time with its UTC offset, e.g. "
        "2026-05-01T09:00:00+09:00. Must be in the future."
    )
    tool: Literal["send_sms", "send_telegram", "send_email", "create_announcement"] = Field(
        description="Which action to run at that time."
    )
    arguments: dict[str, Any] = Field(description="That action's own arguments.")


class ScheduleReminder(WriteTool[ReminderArgs]):
    """Schedule a message or an announcement for later: at ``due_at`` the chosen action
    (send_sms, send_telegram, send_email or create_announcement) runs with its arguments.

    Use it for "remind the parents on Friday at 9" style requests. The whole plan is
    approved now; at the due time it runs once, without asking again.
    """

    name = "schedule_reminder"
    label = "Schedule reminder"
    args_schema = ReminderArgs
    words = ToolWords(
        label="Reminders",
        label_ko="알림 예약",
        one="reminder",
        one_ko="알림",
        request="schedule a reminder",
        example="Remind Emma Wilson tomorrow at 9am to bring the forms",
        example_ko="내일 오전 9시에 엠마에게 서류 가져오라고 알림 예약해줘",
        cue=re.compile(
            # "schedule a text", not "asking about the schedule" (a timetable)
            r"\bremind|\breminder\b|(?<!the )(?<!our )(?<!my )(?<!her )(?<!his )(?<!their )"
            r"(?<!class )(?<!new )(?<!bus )(?<!exam )\bschedule\b|don'?t let me forget|"
            r"리마인드|알림|예약|(?:후|뒤)에",
            re.IGNORECASE,
        ),
        cues=("reminder", "remind", "알림", "리마인더"),
        exemplars=(
            "remind me tomorrow morning to check the report",
            "set a reminder for Friday at 3pm to pay the rent",
            "remind the parents on Monday at 8 about the field trip",
            "schedule a text to Tom for next week at 10",
            "can you remind Kate at 5pm to lock up",
            "don't let me forget the meeting at 2",
            "내일 아침 9시에 알려줘",
            "금요일 오후 3시에 학부모님들께 리마인드 보내줘",
            "30분 후에 나한테 알려줘",
            "다음 주 월요일에 회의 있다고 리마인드 해줘",
            "모레 오전 10시에 민지에게 문자 예약해줘",
        ),
        shape="reminder",
        verbs=("remind",),
    )

    def __init__(self, schedulable: Iterable[WriteTool[Any]]) -> None:
        # The registry hands over the tools a reminder may run, so this module never imports
        # the registry that lists it.
        self._tools = {tool.name: tool for tool in schedulable}

    def _inner(self, name: str) -> WriteTool[Any]:
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownToolError(f"a reminder cannot run {name!r}") from None

    def validate(self, arguments: dict[str, Any]) -> ReminderArgs:
        args = self.parse(arguments)
        enabled_policy(self.name)
        now = timezone.now()
        if args.due_at <= now:
            raise ToolArgumentsError(
                f"due_at: {self._when(args)} is in the past; a reminder must be due later"
            )
        if args.due_at > now + MAX_AHEAD:
            raise ToolArgumentsError("due_at: a reminder can be at most a year ahead")
        inner = self._inner(args.tool)
        try:
            inner_args = inner.validate(args.arguments)
        except ToolArgumentsError as error:
            raise ToolArgumentsError(f"arguments: {error}") from None
        return args.model_copy(update={"arguments": inner_args.model_dump(mode="json")})

    def describe(self, args: ReminderArgs) -> str:
        inner = self._inner(args.tool)
        effect = inner.describe(inner.parse(args.arguments))
        return f"At {self._when(args)}: {effect}"

    def execute(self, args: ReminderArgs, ctx: ToolContext) -> ToolResult:
        reminder = reminder_schedule(
            action_id=ctx.action_id,
            due_at=args.due_at,
            tool=args.tool,
            arguments=args.arguments,
            description=self.describe(args),
            created_by_id=ctx.requested_by_id,
        )
        return ToolResult(
            summary=f"Reminder scheduled for {self._when(args)}",
            data={"reminder_id": reminder.pk, "due_at": reminder.due_at.isoformat()},
        )

    @staticmethod
    def _when(args: ReminderArgs) -> str:
        """The due time as the tenant's staff read it: in the tenant's own time zone."""
        local = args.due_at.astimezone(tenant_zone())
        return local.strftime("%Y-%m-%d %H:%M %Z")
