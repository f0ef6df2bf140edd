"""The delivery channels: one table, everything else reads it.

Each entry names a channel module's ``CHANNEL`` (an ``actions.delivery.base.ChannelKind``):
its providers, its address rule and its way back in. Outbound messages, approver notices and
inbound replies all look channels up here, so adding one touches this table, the channel's
module and its test (tests/actions/test_adding_a_channel.py shows it).
"""

from __future__ import annotations

from actions.delivery import email, sms, telegram
from actions.delivery.base import ChannelKind

# In the order people are offered them (the notification settings page).
TRANSPORTS: dict[str, ChannelKind] = {
    "email": email.CHANNEL,
    "telegram": telegram.CHANNEL,
    "sms": sms.CHANNEL,
}
