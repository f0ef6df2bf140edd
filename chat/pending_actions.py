"""Pending actions: proposed by the graph, decided by a person, executed exactly once.

Every state change is a conditional UPDATE on the row's status, so among concurrent deciders or
executors exactly one wins, whatever the graph state, a retried task or a replayed resume says.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from actions.models import EditConfirmer
from actions.tools.base import ToolContext, ToolDisabledError, ToolError
from actions.tools.registry import approval_refusal, get_tool, tool_policy
from chat.audit.services import audit_event_record
from chat.models import ActionEvent, Conversation, PendingAction
from chat.selectors import nobody_else_can_approve
from chat.signals import action_pending
from core import tracing
from core.metrics import HITL_DECISIONS, WORKER_LOST_RECOVERIES
from tenants.models import UnapprovableRequests
from tenants.selectors import tenant_unapprovable_requests

logger = logging.getLogger(__name__)
Status = PendingAction.Status
Decision = Literal["approve", "reject"]
# The note of a request refused when proposed because nobody but its requester may approve it
# (the tenant setting ``unapprovable_requests = reject``): the card and the reply say it.
NOBODY_ELSE_MAY_APPROVE = (
    "Nobody else may approve this, so it was not sent: ask a tenant admin to add an approver."
)
# What the confirmer of an approver's edit says (docs/web.md, "Four eyes on the final text").
Confirmation = Literal["confirm", "decline"]


class ActionNotFound(Exception):
    """No such action in this tenant (also what another tenant's action id looks like)."""


class ActionPermissionDenied(Exception):
    pass


class ActionStateError(Exception):
    """The action is not in a state that allows this (already decided, executing, …)."""


class ActionExpired(ActionStateError):
    """The action waited longer than its tool policy allows; it can never be approved."""


class ActionInvalidArguments(Exception):
    """Edited arguments fail the tool's schema or the tenant's rules."""


@dataclass(frozen=True)
class ExecutionOutcome:
    status: str  # executed | failed | executing (stuck, reported) | rejected | withdrawn | expired
    summary: str
    result: dict[str, Any]


def arguments_hash(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _validated(tool_name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Schema + tenant checks; returns the normalised arguments and the card description."""
    tool = get_tool(tool_name)
    args = tool.validate(arguments)
    return args.model_dump(mode="json"), tool.describe(args)


@transaction.atomic
def pending_action_propose(
    *,
    conversation: Conversation,
    tool_call_id: str,
    tool: str,
    arguments: dict[str, Any],
    requested_by_id: int,
) -> PendingAction:
    """Create the pending action for one tool call, or return the one that already exists.

    Raises ``ToolError`` (unknown/disabled tool, bad arguments) before anything is stored.
    """
    existing = PendingAction.objects.filter(
        conversation=conversation, tool_call_id=tool_call_id
    ).first()
    if existing is not None:
        return existing
    policy = tool_policy(tool)
    if not policy.enabled:
        raise ToolDisabledError(f"the tool {tool} is switched off for this organisation")
    normalised, description = _validated(tool, arguments)
    action, created = PendingAction.objects.get_or_create(
        conversation=conversation,
        tool_call_id=tool_call_id,
        defaults={
            "tool": tool,
            "arguments": normalised,
            "arguments_hash": arguments_hash(normalised),
            "description": description,
            "requested_by_id": requested_by_id,
            "expires_at": timezone.now() + timedelta(hours=policy.expires_after_hours),
            "trace_context": tracing.current_traceparent(),  # the resume continues the turn
        },
    )
    if created:
        audit_event_record(
            action=action,
            kind=ActionEvent.Kind.PROPOSED,
            actor_id=requested_by_id,
            data={"arguments": normalised, "description": description},
        )
        if _refused_for_want_of_approvers(action):
            return action  # nobody is told of a request that will never be decided
        action_pending.send(sender=PendingAction, action=action)
    return action


def _refused_for_want_of_approvers(action: PendingAction) -> bool:
    """Under the tenant setting ``reject``, refuse a request nobody but its requester may
    approve at once, rather than let it wait to expire (docs/web.md, "Nobody else can
    approve"). No actor: the rule refused it; the audit event says why."""
    if tenant_unapprovable_requests() != UnapprovableRequests.REJECT:
        return False
    if not nobody_else_can_approve(tool=action.tool, requested_by_id=action.requested_by_id):
        return False
    if not _move(
        action.pk,
        to=Status.REJECTED,
        only_from=Status.PENDING,
        decided_at=timezone.now(),
        note=NOBODY_ELSE_MAY_APPROVE,
    ):
        return False
    audit_event_record(
        action=action,
        kind=ActionEvent.Kind.REJECTED,
        data={"reason": "no_eligible_approver", "note": NOBODY_ELSE_MAY_APPROVE},
    )
    HITL_DECISIONS.labels(decision=str(ActionEvent.Kind.REJECTED)).inc()
    action.refresh_from_db()
    return True


def refused_for_want_of_approvers(action: PendingAction) -> bool:
    """Whether ``action`` was refused when proposed because nobody else may approve it."""
    return (
        action.status == Status.REJECTED
        and action.decided_by_id is None
        and action.note == NOBODY_ELSE_MAY_APPROVE
    )


def _move(
    action_id: uuid.UUID | str,
    *,
    to: str,
    only_from: str | None = None,
    unexpired: bool = False,
    **changes: Any,
) -> int:
    """Move the action to status ``to`` if its current status allows it
    (``PendingAction.TRANSITIONS``; with ``only_from``, only from that one) and, with
    ``unexpired``, its waiting time has not run out: one conditional UPDATE, so among
    concurrent callers exactly one wins. Returns 1 for the winner, 0 otherwise."""
    sources = PendingAction.preceding(to)
    if only_from is not None:
        sources = [status for status in sources if status == only_from]
    movable = PendingAction.objects.filter(pk=action_id, status__in=sources)
    if unexpired:
        movable = movable.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
    return movable.update(status=to, updated_at=timezone.now(), **changes)


def action_get(*, action_id: uuid.UUID | str) -> PendingAction:
    try:
        return PendingAction.objects.select_related("conversation").get(pk=action_id)
    except (PendingAction.DoesNotExist, ValueError) as error:
        raise ActionNotFound(f"no action {action_id}") from error


def is_overdue(action: PendingAction) -> bool:
    """Still undecided past its expiry: the sweep has not reached it yet, but it is expired."""
    return (
        action.status in PendingAction.UNDECIDED
        and action.expires_at is not None
        and action.expires_at <= timezone.now()
    )


def expired_message(action: PendingAction) -> str:
    return (
        f"this request expired after {waited_hours(action)} h without a decision; "
        "it can no longer be approved"
    )


def waited_hours(action: PendingAction) -> int:
    """How long the action could wait, in whole hours (its policy's, at proposal)."""
    if action.expires_at is None:
        return 0
    return round((action.expires_at - action.created_at).total_seconds() / 3600)


def decide_refusal(*, action: PendingAction, user: AbstractBaseUser) -> str | None:
    """Why ``user`` may not decide ``action`` now (the tenant's current policy), or None."""
    return approval_refusal(
        policy=tool_policy(action.tool), user=user, requested_by_id=action.requested_by_id
    )


def pending_action_decide(
    *,
    action_id: uuid.UUID | str,
    user: User,
    decision: Decision,
    arguments: dict[str, Any] | None = None,
    note: str = "",
) -> PendingAction:
    """Approve or reject; exactly one decision wins. Approving with edited arguments does not
    approve: it makes them a counter-proposal (status ``edited``) that someone other than the
    editor confirms (``pending_action_confirm``): four eyes on the final text.

    Empty ``arguments`` (``{}``, as in the documented frame) mean "no edit": no tool takes
    zero arguments, so an edit to nothing is never what a caller means."""
    if decision not in ("approve", "reject"):
        raise ActionStateError(f"unknown decision {decision!r}; use approve or reject")
    action = action_get(action_id=action_id)
    refusal = decide_refusal(action=action, user=user)
    if refusal is not None:
        raise ActionPermissionDenied(refusal)
    if action.status == Status.EXPIRED or is_overdue(action):
        raise ActionExpired(expired_message(action))
    if action.awaits_confirmation:
        raise ActionStateError(AWAITING_CONFIRMATION)
    if not action.is_decidable:
        raise ActionStateError(f"this action is already {action.status}")
    edit: dict[str, Any] | None = None
    if decision == "approve" and arguments and arguments_hash(arguments) != action.arguments_hash:
        # An edit may hold only what its editor could have asked for themselves: the checks of
        # a new request (schema; every recipient a contact, group or address of this tenant,
        # opted-out contacts refused, the policy's recipient cap; the tool switched on).
        try:
            normalised, description = _validated(action.tool, arguments)
        except ToolError as error:
            raise ActionInvalidArguments(str(error)) from error
        edit = {
            "arguments": normalised,
            "description": description,
            "arguments_hash": arguments_hash(normalised),
        }
        # Only a change is a counter-proposal: spaces the tool trims away change nothing.
        if edit["arguments_hash"] != action.arguments_hash:
            return _record_counter_proposal(action=action, user=user, edit=edit, note=note)
    return _record_decision(action=action, user=user, decision=decision, note=note)


AWAITING_CONFIRMATION = (
    "an approver's edit of this action waits for confirmation; it can only be confirmed, "
    "declined or withdrawn now"
)


def _refuse_lost_move(action: PendingAction) -> None:
    """Why a conditional UPDATE found the action moved on: expired, or decided meanwhile."""
    action.refresh_from_db()
    if action.status == Status.EXPIRED or is_overdue(action):
        raise ActionExpired(expired_message(action))
    if action.awaits_confirmation:
        raise ActionStateError(AWAITING_CONFIRMATION)
    raise ActionStateError(f"this action is already {action.status}")


@transaction.atomic
def _record_counter_proposal(
    *, action: PendingAction, user: User, edit: dict[str, Any], note: str
) -> PendingAction:
    """An approver's edit is not an approval: the edited arguments become the action's next
    version, which someone other than the editor confirms (``pending_action_confirm``) before
    anything runs. Only a pending action can be edited, so there are at most two versions."""
    won = _move(
        action.pk,
        to=Status.EDITED,
        unexpired=True,
        version=F("version") + 1,
        edited_by=user,
        note=note[:2000],
        **edit,
    )
    if not won:
        _refuse_lost_move(action)
    audit_event_record(
        action=action,
        kind=ActionEvent.Kind.EDITED,
        actor=user,
        data={
            "version": action.version + 1,
            "before": action.arguments,
            "after": edit["arguments"],
            "description": edit["description"],
            "note": note[:2000],
        },
    )
    HITL_DECISIONS.labels(decision="edited").inc()
    action.refresh_from_db()
    return action


def confirm_refusal(*, action: PendingAction, user: AbstractBaseUser) -> str | None:
    """Why ``user`` may not confirm (or decline) an approver's edit of ``action``, or None.

    The confirmer is never the editor. By the tool's policy it is the requester
    (``edit_confirmed_by = requester``, the default) or any other approver of the tool
    (``another_approver``: the approval rules apply, self-approval included). When the editor
    is the requester (a self-approving approver who edited their own request), the requester
    cannot confirm, so another approver does."""
    if not user.is_authenticated or not user.is_active:
        return "you are not signed in"
    if action.edited_by_id is not None and user.pk == action.edited_by_id:
        return "you edited this action; someone else must confirm your edit"
    if confirmed_by_requester(action):
        if user.pk != action.requested_by_id:
            return "only the person who asked for this action can confirm an approver's edit"
        return None
    return approval_refusal(
        policy=tool_policy(action.tool), user=user, requested_by_id=action.requested_by_id
    )


def confirmed_by_requester(action: PendingAction) -> bool:
    """Whether the requester (rather than another approver) confirms ``action``'s edit."""
    policy = tool_policy(action.tool)
    return (
        policy.edit_confirmed_by == EditConfirmer.REQUESTER
        and action.edited_by_id != action.requested_by_id
    )


def pending_action_confirm(
    *, action_id: uuid.UUID | str, user: User, decision: Confirmation, note: str = ""
) -> PendingAction:
    """Confirm an approver's edit (the action is approved, and runs, with the edited text) or
    decline it (the action is rejected: nothing runs; the requester may ask again). Exactly one
    of confirm, decline, withdraw and expiry wins: one conditional UPDATE from ``edited``."""
    if decision not in ("confirm", "decline"):
        raise ActionStateError(f"unknown decision {decision!r}; use confirm or decline")
    action = action_get(action_id=action_id)
    refusal = confirm_refusal(action=action, user=user)
    if refusal is not None:
        raise ActionPermissionDenied(refusal)
    if action.status == Status.EXPIRED or is_overdue(action):
        raise ActionExpired(expired_message(action))
    if not action.awaits_confirmation:
        if action.status == Status.PENDING:
            raise ActionStateError("nobody has edited this action; there is no edit to confirm")
        raise ActionStateError(f"this action is already {action.status}")
    return _record_confirmation(action=action, user=user, decision=decision, note=note)


@transaction.atomic
def _record_confirmation(
    *, action: PendingAction, user: User, decision: Confirmation, note: str
) -> PendingAction:
    now = timezone.now()
    if decision == "confirm":
        # The editor approved this text by writing it; the confirmer saw it. ``decided_at`` is
        # now: the resume that runs it is due from here (the stranded-approval sweep reads it).
        won = _move(
            action.pk,
            to=Status.APPROVED,
            only_from=Status.EDITED,
            unexpired=True,
            decided_by_id=action.edited_by_id,
            decided_at=now,
        )
    else:
        won = _move(
            action.pk,
            to=Status.REJECTED,
            only_from=Status.EDITED,
            unexpired=True,
            decided_by=user,
            decided_at=now,
            note=note[:2000],
        )
    if not won:
        _refuse_lost_move(action)
    kind = ActionEvent.Kind.CONFIRMED if decision == "confirm" else ActionEvent.Kind.DECLINED
    audit_event_record(
        action=action,
        kind=kind,
        actor=user,
        data={"version": action.version, "note": note[:2000]},
    )
    HITL_DECISIONS.labels(decision=str(kind)).inc()
    action.refresh_from_db()
    return action


@transaction.atomic
def _record_decision(
    *,
    action: PendingAction,
    user: User,
    decision: Decision,
    note: str,
) -> PendingAction:
    new_status = Status.APPROVED if decision == "approve" else Status.REJECTED
    changes: dict[str, Any] = {
        "decided_by": user,
        "decided_at": timezone.now(),
        "note": note[:2000],
    }
    # Not yet expired, in the same conditional UPDATE: a decision and the expiry sweep racing
    # each other cannot both win. Only from ``pending``: an edited action is confirmed by
    # someone else, never approved as is by an approver.
    if not _move(action.pk, to=new_status, only_from=Status.PENDING, unexpired=True, **changes):
        _refuse_lost_move(action)
    kind = ActionEvent.Kind.APPROVED if decision == "approve" else ActionEvent.Kind.REJECTED
    audit_event_record(action=action, kind=kind, actor=user, data={"note": note[:2000]})
    HITL_DECISIONS.labels(decision=str(kind)).inc()
    action.refresh_from_db()
    return action


@transaction.atomic
def pending_action_withdraw(
    *,
    action_id: uuid.UUID | str,
    user: User,
    note: str = "",
    message_id: uuid.UUID | None = None,
    via: str | None = None,
) -> PendingAction:
    """Withdraw a pending action on behalf of the person who asked for it.

    Only the requester may withdraw, and only before a decision (pending, or an approver's
    edit waiting for confirmation): the same conditional UPDATE as a decision, so a
    withdrawal and an approval (or confirmation) racing each other cannot both win, and a
    withdrawn action can never be approved (hence never executed).
    ``message_id`` names the chat message that asked for it ("cancel that"), for the audit log
    and so that a redelivered turn finds its own withdrawal. ``via`` names another way it came
    ("cancel": the requester cancelled the turn waiting on it), for the audit log and the reply.
    """
    action = action_get(action_id=action_id)
    if action.requested_by_id != user.pk:
        raise ActionPermissionDenied("only the person who asked for this action can withdraw it")
    won = _move(action.pk, to=Status.WITHDRAWN, note=note[:2000])
    if not won:
        action.refresh_from_db()
        raise ActionStateError(f"this action is already {action.status}")
    data = (
        {"note": note[:2000]}
        | ({"message": str(message_id)} if message_id else {})
        | ({"via": via} if via else {})
    )
    audit_event_record(action=action, kind=ActionEvent.Kind.WITHDRAWN, actor=user, data=data)
    HITL_DECISIONS.labels(decision="withdrawn").inc()
    action.refresh_from_db()
    return action


def pending_action_execute(
    *, action_id: uuid.UUID | str, resume_interrupted: bool = False
) -> ExecutionOutcome:
    """Run an approved action's tool. Re-running reports the recorded outcome instead.

    approved → executing is claimed with a conditional UPDATE; the claimer calls the tool.
    An action found in ``executing`` was interrupted (its worker died mid-execution). With
    ``resume_interrupted`` (the caller holds the conversation lock, so the interrupted run is
    dead, not slow: the graph's approval node, inside a resumed turn) the tool runs again to
    finish it: write tools are idempotent under the action id (CONTRIBUTING, "Exactly once"),
    so the rerun finds the effect rows the dead run made instead of adding new ones, and
    messages already handed to a provider are not sent again. Without it, it is reported.
    """
    claimed = _move(action_id, to=Status.EXECUTING)
    action = action_get(action_id=action_id)
    if not claimed:
        if not (resume_interrupted and action.status == Status.EXECUTING):
            return _recorded_outcome(action)
        logger.warning("action %s was interrupted while executing; finishing it", action.id)
        WORKER_LOST_RECOVERIES.inc()
    return _run(action)


def _run(action: PendingAction) -> ExecutionOutcome:
    tool = get_tool(action.tool)
    ctx = ToolContext(
        action_id=action.id,
        requested_by_id=action.requested_by_id,
        approved_by_id=action.decided_by_id,
    )
    try:
        with tracing.span(f"tool {tool.name}", **{"gen_ai.tool.name": tool.name}):
            result = tool.execute(tool.parse(action.arguments), ctx)
    except Exception as error:  # the tool failed: record it, never retry blindly
        logger.exception("action %s (%s) failed", action.id, action.tool)
        _finish(action, Status.FAILED, result={}, error=str(error)[:2000])
        return ExecutionOutcome("failed", f"failed: {error}", {})
    _finish(action, Status.EXECUTED, result={"summary": result.summary, **result.data}, error="")
    return ExecutionOutcome("executed", result.summary, result.data)


@transaction.atomic
def _finish(action: PendingAction, status: str, *, result: dict[str, Any], error: str) -> None:
    finished = _move(action.pk, to=status, result=result, error=error)
    if not finished:  # another run of an interrupted action finished it first
        return
    kind = ActionEvent.Kind.EXECUTED if status == Status.EXECUTED else ActionEvent.Kind.FAILED
    audit_event_record(action=action, kind=kind, data={"result": result, "error": error})


def _recorded_outcome(action: PendingAction) -> ExecutionOutcome:
    if action.status == Status.EXECUTED:
        return ExecutionOutcome("executed", str(action.result.get("summary", "")), action.result)
    if action.status == Status.FAILED:
        return ExecutionOutcome("failed", f"failed: {action.error}", {})
    if action.status == Status.EXECUTING:
        logger.error("action %s is stuck in executing; not re-sending", action.id)
        return ExecutionOutcome(
            "executing",
            "this action was interrupted while executing; check its outcome before retrying",
            {},
        )
    if action.status in PendingAction.NOT_RUN:
        return ExecutionOutcome(action.status, action.status, {})
    raise ActionStateError(f"this action is {action.status}, not approved")
