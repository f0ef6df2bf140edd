"""Django's request log through the project's logging settings: a refusal is one line.

Django logs every 4xx with the exception that made it (``exc_info``), so a plain 403 from
``PermissionDenied`` printed a whole traceback at WARNING: log noise that reads like a crash and
hides real ones (a server log with "Traceback" in it is how the error-page tests find a 500).
"""

from __future__ import annotations

import io
import logging
import logging.config
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils.log import log_response


@pytest.fixture
def request_log() -> Iterator[io.StringIO]:
    """The settings' LOGGING, with its console handler writing to a buffer."""
    buffer = io.StringIO()
    logging.config.dictConfig(settings.LOGGING)
    handler = logging.getLogger().handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    previous = handler.setStream(buffer)
    try:
        yield buffer
    finally:
        handler.setStream(previous)


def _logged(status: int, error: Exception) -> None:
    request = RequestFactory().get("/approvals/")
    try:
        raise error
    except Exception as raised:
        log_response(
            "%s: %s",
            "Refused",
            request.path,
            response=HttpResponse(status=status),
            request=request,
            exception=raised,
        )


def test_a_refusal_is_logged_as_one_line_without_a_traceback(request_log: io.StringIO) -> None:
    _logged(403, PermissionDenied("only approvers have an approvals inbox"))

    lines = request_log.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert "WARNING" in lines[0] and "/approvals/" in lines[0]
    assert "Traceback" not in request_log.getvalue()


def test_a_server_error_keeps_its_traceback(request_log: io.StringIO) -> None:
    _logged(500, RuntimeError("the database went away"))

    assert "Traceback" in request_log.getvalue()
    assert "RuntimeError: the database went away" in request_log.getvalue()
