"""Signals other apps may listen to, so that chat never imports the apps built on top of it."""

from __future__ import annotations

from django.dispatch import Signal

# Sent once per action, inside the transaction that stores it (``action=PendingAction``);
# receivers that reach outside (a task, a message) must wait for ``transaction.on_commit``.
action_pending = Signal()
