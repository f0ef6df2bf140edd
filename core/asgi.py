"""Django's ASGI handler, with error pages rendered on the request's own thread.

Under ASGI, Django runs a request's sync code (middleware, view) on a thread of the request's
own, but turns an exception from the view into its error page (``handler403``/``handler404``,
through ``response_for_exception``) on *another* thread (``sync_to_async(...,
thread_sensitive=False)`` in ``django.core.handlers.exception``). Database connections belong to
a thread, and django-tenants selects the tenant's schema on the request thread's connection
only: the error view ran on a connection in the public schema (or whatever that pool thread had
last). A styled 403 that shows the header's inbox count failed with ``relation
"actions_toolpolicy" does not exist`` and became a 500; a 404 for a signed-in user looked the
session up in the public schema, found nothing, and the response deleted the session cookie.
Django's test client runs everything on one thread, so the suite never saw it.

Here the exception of the view (or of URL resolution, or of a view middleware) is converted on
the request's thread, where the tenant was selected and where the connection goes back to the
pool at the end of the request. Exceptions raised by a middleware's own hooks still take
Django's path; the pages they reach (an unknown host's 404, a 500) use no tenant table.

``_get_response_async`` is Django's internal hook (5.2, pinned); the daphne tests of
``tests/security/test_error_pages.py`` fail if an upgrade changes it.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.exception import response_for_exception
from django.http import HttpRequest, HttpResponseBase


class RequestThreadASGIHandler(ASGIHandler):
    # Not in django-stubs (an internal method): hence the ignores.
    async def _get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        try:
            response: HttpResponseBase = await super()._get_response_async(request)  # type: ignore[misc]
        except Exception as exc:
            # thread_sensitive: the thread that ran this request's middleware and view.
            response = await sync_to_async(response_for_exception, thread_sensitive=True)(
                request, exc
            )
        return response
