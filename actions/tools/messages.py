"""send_sms, send_telegram and send_email: one message per recipient, through the channel's
configured delivery backend, queued on approval and sent by a worker."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from actions.models import OutboundMessage
from actions.selectors import RecipientError, RecipientPlan, Skipped, recipients_resolve
from actions.services.messages import outbound_messages_queue
from actions.tools.base import ToolArgumentsError, ToolContext, ToolResult, WriteTool
from actions.tools.common import (
    EmailBody,
    Recipients,
    SmsBody,
    Subject,
    TelegramBody,
    enabled_policy,
    quoted,
)
from actions.tools.words import ToolWords

_TO_HELP = (
    "Who receives it: contact names, group names, or {address}. A group sends to each of its "
    "members; members who opted out are skipped."
)


class SmsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    to: Recipients = Field(description=_TO_HELP.format(address="phone numbers with +country"))
    body: SmsBody = Field(description="The exact text to send (at most 1600 characters).")


class TelegramArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    to: Recipients = Field(description=_TO_HELP.format(address="Telegram chat ids"))
    body: TelegramBody = Field(description="The exact text to send (at most 4096 characters).")


class EmailArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    to: Recipients = Field(description=_TO_HELP.format(address="e-mail addresses"))
    subject: Subject = Field(description="The subject line.")
    body: EmailBody = Field(description="The exact plain-text body.")


class _MessageTool(WriteTool[Any]):
    """Shared behaviour; subclasses set the channel, the schema and the docstring."""

    channel: ClassVar[str]
    noun: ClassVar[str]  # what one message is called in a sentence: "SMS", "E-mail"
    progress_label: ClassVar[str] = "Approved — sending…"

    def validate(self, arguments: dict[str, Any]) -> Any:
        args = self.parse(arguments)
        self._plan(args)
        return args

    def describe(self, args: Any) -> str:
        plan = self._plan(args)
        return f"{self._what(args)} to {_audience(plan)}: {quoted(args.body)}{_skips(plan.skipped)}"

    def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        queued = outbound_messages_queue(
            action_id=ctx.action_id,
            channel=self.channel,
            resolve=lambda: self._plan(args),
            body=args.body,
            subject=getattr(args, "subject", ""),
        )
        count = len(queued.messages)
        skipped = queued.plan.skipped if queued.plan else []
        # The card's words (presenters.status_label: "Approved — sending…", then "Sent to 2 of
        # 2"): a reply that said "queued" beside a card that said "sent" read as two stories.
        recipients = f"{count} recipient{'s' if count != 1 else ''}"
        summary = f"{self.noun} to {recipients}: sending (the card shows each one as it is sent)"
        return ToolResult(
            summary=summary + _skips(skipped),
            data={
                "channel": self.channel,
                "messages": [_message_data(message) for message in queued.messages],
                "skipped": [{"name": s.name, "reason": s.reason} for s in skipped],
            },
        )

    def _what(self, args: Any) -> str:
        return self.noun

    def _plan(self, args: Any) -> RecipientPlan:
        policy = enabled_policy(self.name)
        try:
            return recipients_resolve(
                channel=self.channel, entries=args.to, max_recipients=policy.max_recipients
            )
        except RecipientError as error:
            raise ToolArgumentsError(f"to: {error}", problems=error.problems) from None


class SendSms(_MessageTool):
    """Send an SMS text message to contacts, groups of contacts or phone numbers.

    Use it when staff ask to text or message people by phone. The text is sent exactly as
    given, once per recipient, after a person approves it.
    """

    name = "send_sms"
    label = "Send SMS"
    args_schema = SmsArgs
    channel = OutboundMessage.Channel.SMS
    noun = "SMS"
    words = ToolWords(
        label="SMS messages",
        label_ko="문자(SMS)",
        one="SMS",
        one_ko="문자",
        request="send an SMS",
        example="Send an SMS to Emma Wilson saying class moved to 3pm",
        example_ko="학부모에게 수업이 3시로 옮겨졌다고 문자 보내줘",
        cue=re.compile(
            # a Latin word ends before a Korean particle too: "SMS로", "text로"
            r"(?<![A-Za-z])(?:sms|text(?:ing)?|txt)(?![A-Za-z])(?!\s+(?:say|said|says)\b)|문자",
            re.IGNORECASE,
        ),
        cues=("sms", "text message", "text", "문자", "문자메시지"),
        exemplars=(
            "text Sarah that practice is cancelled",
            "send an SMS to the parents saying school closes early",
            "can you send a text message to Mr Han",
            "message David by phone that his order is ready",
            "shoot a quick text to the team about the delay",
            "let Anna know by text that the room changed",
            "SMS all tutors: meeting at noon",
            "tell John the bus is late",
            "let Sam know the lesson is cancelled",
            "please text the group that we start at 10",
            "민수에게 문자 보내줘",
            "학부모님들께 내일 휴원이라고 문자 좀 보내주세요",
            "지현이한테 수업 취소됐다고 전해줘",
            "선생님들한테 회의 시간 바뀌었다고 문자해줘",
            "문자로 알려줘 오늘 늦는다고",
        ),
        shape="message",
        verbs=("text", "sms", "txt"),
        channel=OutboundMessage.Channel.SMS.value,
    )


class SendTelegram(_MessageTool):
    """Send a Telegram message to contacts, groups of contacts or Telegram chat ids.

    Use it when staff ask for a Telegram message. The text is sent exactly as given, once
    per recipient, after a person approves it.
    """

    name = "send_telegram"
    label = "Send Telegram message"
    args_schema = TelegramArgs
    channel = OutboundMessage.Channel.TELEGRAM
    noun = "Telegram message"
    words = ToolWords(
        label="Telegram messages",
        label_ko="텔레그램 메시지",
        one="Telegram message",
        one_ko="텔레그램 메시지",
        request="send a Telegram message",
        example="Send a telegram to Emma Wilson saying the bus is late",
        example_ko="엠마에게 버스가 늦는다고 텔레그램 보내줘",
        # Typed in a hurry: "telegrm", "tg", "텔그", "텔레로" (not 텔레비전).
        cue=re.compile(r"tele?gra?m|\btg\b|텔레그램|텔그|텔레(?!비)", re.IGNORECASE),
        cues=("telegram", "텔레그램"),
        exemplars=(
            "send a telegram message to the drivers",
            "telegram Chris that the van is outside",
            "post this to Mia on Telegram: see you soon",
            "ping the staff on telegram about lunch",
            "use telegram to tell the nurses the ward is full",
            "텔레그램으로 보내줘",
            "민호에게 텔레그램으로 도착했다고 알려줘",
            "간호사들한테 텔레그램 메시지 보내줘",
        ),
        shape="message",
        verbs=("telegram", "tg"),
        channel=OutboundMessage.Channel.TELEGRAM.value,
        precedence=2,
    )


class SendEmail(_MessageTool):
    """Send a plain-text e-mail to contacts, groups of contacts or e-mail addresses.

    Use it when staff ask to e-mail people. Subject and body are sent exactly as given,
    one e-mail per recipient, after a person approves it.
    """

    name = "send_email"
    label = "Send e-mail"
    args_schema = EmailArgs
    channel = OutboundMessage.Channel.EMAIL
    noun = "E-mail"
    words = ToolWords(
        label="E-mails",
        label_ko="이메일",
        one="e-mail",
        one_ko="이메일",
        request="send an e-mail",
        example="Email James Taylor subject Staff meeting saying it moves to Friday",
        example_ko="제임스에게 회의가 금요일로 바뀌었다고 이메일 보내줘",
        # "would you mind emailing the teachers …": the verb's forms name it too
        cue=re.compile(
            r"(?<![A-Za-z])e?-?mail(?:s|ing|ed)?(?![A-Za-z])|이메일|이멜|메일", re.IGNORECASE
        ),
        cues=("email", "e mail", "mail", "이메일", "이멜", "메일"),
        exemplars=(
            "email the teachers about the schedule change",
            "send an e-mail to Paul with subject invoice",
            "write an email to the parents saying the trip is confirmed",
            "mail Linda the agenda for tomorrow",
            "drop an email to the office manager",
            "compose a mail to all staff regarding the fire drill",
            "이메일 보내줘",
            "서연이에게 회의록 메일로 보내줘",
            "학부모님께 이메일로 일정 변경 안내해줘",
            "메일 써줘 제목은 공지",
        ),
        shape="message",
        verbs=("email", "e mail", "mail"),
        channel=OutboundMessage.Channel.EMAIL.value,
        subject=True,
        precedence=1,
    )

    def _what(self, args: Any) -> str:
        return f"E-mail {quoted(args.subject)}"


def _audience(plan: RecipientPlan) -> str:
    count = len(plan.recipients)
    noun = "recipient" if count == 1 else "recipients"
    return f"{count} {noun} ({', '.join(plan.sources)})"


def _skips(skipped: list[Skipped]) -> str:
    if not skipped:
        return ""
    return f". Skipped {len(skipped)}: {', '.join(str(s) for s in skipped)}"


def _message_data(message: OutboundMessage) -> dict[str, Any]:
    return {
        "id": str(message.uuid),
        "to": message.to_address,
        "contact_id": message.contact_id,
        "status": message.status,
    }
