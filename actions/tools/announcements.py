"""create_announcement: publish a notice for a group of contacts or for everyone."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from actions.models import ContactGroup
from actions.selectors import (
    RecipientError,
    announcement_of_action,
    audience_group,
    audience_size,
)
from actions.services.announcements import announcement_publish
from actions.tools.base import ToolArgumentsError, ToolContext, ToolResult, WriteTool
from actions.tools.common import AnnouncementBody, Title, enabled_policy, quoted
from actions.tools.words import ToolWords


class AnnouncementArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: Title = Field(description="A short headline.")
    body: AnnouncementBody = Field(description="The full text of the announcement.")
    audience: str | None = Field(
        default=None, description="A contact group's name, or null for everyone."
    )


class CreateAnnouncement(WriteTool[AnnouncementArgs]):
    """Publish an announcement (a title and a text) for one group of contacts or everyone.

    Use it when staff ask to announce or post a notice. It is published as written once a
    person approves it; nobody is messaged individually.
    """

    name = "create_announcement"
    label = "Publish announcement"
    args_schema = AnnouncementArgs
    words = ToolWords(
        label="Announcements",
        label_ko="공지",
        one="announcement",
        one_ko="공지",
        request="publish the announcement '{title}'",
        example="Announce Sports day: Sports day is on Friday",
        example_ko="운동회 공지 올려줘: 운동회는 금요일입니다",
        cue=re.compile(
            # "how much notice", "give notice", "at short notice": a notice period, not a post
            r"\ban+oun+c|(?<!much )(?<!advance )(?<!short )(?<!give )(?<!giving )(?<!enough )"
            r"(?<!weeks )(?<!days )(?<!weeks' )(?<!days' )\bnotice\b(?! period)"
            r"|\bnews (?:item|post)\b|\bbulletin\b|공지|게시판|어나운스"
            # "…권고하는 안내문을 게시하기 바랍니다": a notice put up ("안내문을 보내" is a letter)
            r"|안내문\S*\s*(?:\S+\s+)?(?:게시|올려|올리|붙여|붙이)"
            # "put something on the board", "parents should see this on the board" (not "the
            # photos are up on the board": that is what a message says)
            r"|\b(?:put|post|pin|stick|see this|see it)\b[^.:]{0,30}\bon the (?:notice ?)?board\b",
            re.IGNORECASE,
        ),
        cues=("announcement", "announce", "notice", "공지", "어나운스"),
        exemplars=(
            "announce that the office is closed on Monday",
            "post an announcement: the library reopens next week",
            "publish a notice for everyone about the holidays",
            "put up a notice that parking is closed",
            "make an announcement to the parents about picture day",
            "share some news on the board: the gym floor has been redone",
            "put a news post up saying we hired two new tutors",
            "공지 올려줘",
            "전체 공지로 다음 주 휴무라고 올려줘",
            "공지사항 등록해줘: 주차장 공사 안내",
            "학부모 대상으로 공지 게시해줘",
            "게시판에 이번 주 행사 소식 올려줘",
            "복도 청소 시간 변경 안내문 게시해 주세요",
        ),
        shape="announcement",
        verbs=("announce",),
    )

    def validate(self, arguments: dict[str, Any]) -> AnnouncementArgs:
        args = self.parse(arguments)
        self._audience(args)
        return args

    def describe(self, args: AnnouncementArgs) -> str:
        group = self._audience(args)
        size = audience_size(group=group)
        who = f"group '{group.name}'" if group else "everyone"
        return (
            f"Publish announcement {quoted(args.title)} for {who} ({size} contacts): "
            f"{quoted(args.body)}"
        )

    def execute(self, args: AnnouncementArgs, ctx: ToolContext) -> ToolResult:
        # A re-execution finds the announcement without re-checking the audience or policy.
        announcement = announcement_of_action(action_id=ctx.action_id)
        if announcement is None:
            announcement = announcement_publish(
                action_id=ctx.action_id,
                title=args.title,
                body=args.body,
                audience=self._audience(args),
                created_by_id=ctx.requested_by_id,
            )
        group = announcement.audience
        return ToolResult(
            summary=f"Announcement {quoted(announcement.title)} published",
            data={
                "announcement_id": announcement.pk,
                "audience": group.name if group else None,
                "published_at": announcement.published_at.isoformat()
                if announcement.published_at
                else None,
            },
        )

    def _audience(self, args: AnnouncementArgs) -> ContactGroup | None:
        enabled_policy(self.name)
        try:
            return audience_group(name=args.audience)
        except RecipientError as error:
            raise ToolArgumentsError(f"audience: {error}", problems=error.problems) from None
