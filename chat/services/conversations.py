"""A user's own conversations: rename and delete (soft). Turns live in ``turns``."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from chat.models import Conversation, PendingAction
from chat.services.realtime import conversation_for_user


class ConversationTitleInvalid(Exception):
    """A title that is blank or too long (the message says which, for people)."""


class ConversationHasPendingAction(Exception):
    """The conversation waits for a decision: deleting it would hide the request's outcome
    from its requester while an approver can still carry it out."""


def conversation_title_clean(title: object) -> str:
    """``title`` on one line, trimmed; blank or over ``Conversation.TITLE_MAX_CHARS`` raises."""
    if not isinstance(title, str):
        raise ConversationTitleInvalid("The title must be text.")
    cleaned = " ".join(title.split())
    if not cleaned:
        raise ConversationTitleInvalid("The title is empty. Type a few words.")
    if len(cleaned) > Conversation.TITLE_MAX_CHARS:
        raise ConversationTitleInvalid(
            f"The title is {len(cleaned)} characters long; "
            f"the most is {Conversation.TITLE_MAX_CHARS}."
        )
    return cleaned


def conversation_rename(*, user: User, conversation_uuid: str, title: object) -> Conversation:
    """Give ``user``'s conversation a new title. Another user's, another tenant's or a deleted
    conversation is not found. The list order stays: renaming is not activity."""
    conversation = conversation_for_user(user=user, conversation_uuid=conversation_uuid)
    conversation.title = conversation_title_clean(title)
    # ``update`` rather than ``save``: ``updated_at`` (auto_now) orders and groups the list.
    Conversation.objects.filter(pk=conversation.pk).update(title=conversation.title)
    return conversation


@transaction.atomic
def conversation_delete(*, user: User, conversation_uuid: str) -> Conversation:
    """Delete ``user``'s conversation for them: it leaves their list and its address answers
    404 through every door. The rows stay (soft delete): its actions' audit trail and usage
    outlive it, and an approver can still open it as the context of a decided action."""
    conversation = conversation_for_user(user=user, conversation_uuid=conversation_uuid)
    if conversation.actions.filter(status__in=PendingAction.UNDECIDED).exists():
        raise ConversationHasPendingAction(
            "This conversation has a request waiting for approval. Withdraw it, or wait for "
            "the decision, before deleting the conversation."
        )
    deleted_at = timezone.now()
    Conversation.objects.filter(pk=conversation.pk).update(deleted_at=deleted_at)
    conversation.deleted_at = deleted_at
    return conversation
