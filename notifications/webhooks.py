"""Providers' inbound webhooks (``POST /hooks/<channel>/inbound`` on a tenant's host).

Thin: the channel table (actions/delivery/channels.py) says how the provider signs the call,
reads it and answers; ``notifications.replies`` decides. A call that is not signed with the
channel's secret (``<CHANNEL>_INBOUND_SECRET``; none set: every call) is refused with 403 and
changes nothing. The host names the tenant, so a code only ever means something in its own
tenant's schema.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from actions.delivery import TRANSPORTS, InboundRequest
from notifications.replies import inbound_reply_handle

logger = logging.getLogger(__name__)


@csrf_exempt  # a provider's server calls this, with a signature instead of a cookie
@require_POST
def inbound_webhook(request: HttpRequest, channel: str) -> HttpResponse:
    kind = TRANSPORTS.get(channel)
    if kind is None or kind.inbound is None:
        raise Http404("no inbound messages on this channel")
    inbound = kind.inbound
    call = InboundRequest(
        url=request.build_absolute_uri(),
        headers={name.lower(): value for name, value in request.headers.items()},
        body=request.body,
        form={key: request.POST.get(key, "") for key in request.POST}
        if request.content_type != "application/json"
        else {},
    )
    secret = settings.ACTIONS_DELIVERY_CONFIG.get(inbound.secret_setting, "")
    if not secret or not inbound.verified(call, secret=secret):
        logger.warning("inbound %s webhook: refused a call without a valid signature", channel)
        return HttpResponse(status=403)
    message = inbound.message(call)
    if message is None:
        return HttpResponse(status=200)  # nothing we answer (an edit, a photo, a status)
    answer = inbound.answer(message, inbound_reply_handle(channel=channel, message=message))
    return HttpResponse(answer.body, content_type=answer.content_type)
