"""Signals the apps above ``actions`` may listen to, so that ``actions`` never imports them."""

from __future__ import annotations

from django.dispatch import Signal

# Sent after an outbound message's status changed and the change is committed (queued again
# for a retry, sent, failed), with ``action_id`` (the uuid of the action that queued it) and
# ``message_id``. Sent robustly: a failing receiver is logged and never undoes the delivery.
outbound_message_changed = Signal()
