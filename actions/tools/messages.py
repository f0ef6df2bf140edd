"""send_sms, send_telegram and send_email: one message per recipient, through the channel's
configured delivery backend, queued on approval and sent by a worker."""

from __future__ import annotations

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
            raise ToolArgumentsError(f"to: {error}") from None


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
