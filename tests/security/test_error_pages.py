"""Error pages and refusals through the real server (daphne serving ``config.asgi``).

Django's test client runs a request's handlers on one thread; daphne does not: Django's ASGI
handler turns an exception into its error page on a thread of its own, whose database connection
was never switched to the request's tenant. These tests go through daphne, as a browser does,
with ``DEBUG`` off (as in production, where 404s are the app's own page).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from django.conf import settings
from django_tenants.utils import tenant_context

from actions.models import Contact
from chat.models import Conversation
from chat.pending_actions import pending_action_propose
from tenants.models import Tenant
from tenants.services import platform_get_or_create
from tests.e2e.conftest import (  # noqa: F401 - stack_env: a fixture, found through this import
    TenantSetup,
    stack_env,
    tenant_setup,
)
from tests.e2e.processes import free_port, start_daphne
from tests.e2e.wsclient import WsClient
from tests.tenants.factories import PASSWORD, make_user

pytestmark = pytest.mark.e2e

OVER_THE_LIMIT = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 512 * 1024


@pytest.fixture
def alpha(transactional_db: None, tenant_a: Tenant) -> TenantSetup:
    return tenant_setup(tenant_a, "a-")


@pytest.fixture
def beta(transactional_db: None, tenant_b: Tenant) -> TenantSetup:
    return tenant_setup(tenant_b, "b-")


@pytest.fixture(scope="module")
def daphne(
    stack_env: dict[str, str],  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[int]:
    env = {
        **stack_env,
        "DEBUG": "false",
        "SECRET_KEY": "error-pages-test-secret-key-" + "x" * 40,
        # Plain http in tests: the cookies must come back without TLS.
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
    }
    process, port = start_daphne(env, tmp_path_factory.mktemp("daphne"))
    yield port
    log = process.whole_output()
    process.stop()
    # An error page that failed shows up as a traceback in the server's log, whatever it sent.
    assert "Traceback" not in log, log


def _browser(port: int, host: str) -> httpx.Client:
    return httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Host": host}, timeout=30)


def _csrf_token(page: httpx.Response) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert found is not None, page.text[:500]
    return found.group(1)


def _signed_in(port: int, host: str, username: str) -> httpx.Client:
    browser = _browser(port, host)
    token = _csrf_token(browser.get("/login/"))
    answer = browser.post(
        "/login/",
        data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert answer.status_code == 302 and "sessionid" in browser.cookies, answer.text[:500]
    return browser


def _still_signed_in(browser: httpx.Client) -> bool:
    """The notification settings page answers signed-in users and redirects the others."""
    return browser.get("/settings/notifications/").status_code == 200


def _styled(page: httpx.Response, *, signed_in: bool) -> bool:
    has_topbar = 'class="topbar"' in page.text
    return 'data-testid="error-page"' in page.text and has_topbar == signed_in


# -- 403 and 404 on a tenant host ----------------------------------------------------------------


def test_staff_opening_the_approvals_inbox_get_the_styled_forbidden_page_not_a_server_error(
    daphne: int, alpha: TenantSetup
) -> None:
    staff = _signed_in(daphne, alpha.host, alpha.staff.user.username)

    page = staff.get("/approvals/")

    assert page.status_code == 403, page.text[:300]
    assert _styled(page, signed_in=True)
    assert "Only approvers can open the approvals inbox" in page.text
    assert "Alpha Academy" in page.text


def test_staff_opening_the_action_card_of_another_users_conversation_get_the_styled_page(
    daphne: int, alpha: TenantSetup
) -> None:
    other = make_user(alpha.tenant, "a-other", role="staff")
    with tenant_context(alpha.tenant):
        Contact.objects.get_or_create(name="Emma Wilson", defaults={"phone": "+12025550111"})
        action = pending_action_propose(
            conversation=Conversation.objects.create(user=other),
            tool_call_id="call_1",
            tool="send_sms",
            arguments={"to": ["Emma Wilson"], "body": "Reminder"},
            requested_by_id=other.pk,
        )
    staff = _signed_in(daphne, alpha.host, alpha.staff.user.username)

    page = staff.get(f"/actions/{action.pk}/card/")

    assert page.status_code in (403, 404), page.text[:300]
    assert _styled(page, signed_in=True)
    assert "Reminder" not in page.text


def test_a_signed_in_user_on_an_unknown_page_gets_the_styled_page_and_stays_signed_in(
    daphne: int, alpha: TenantSetup
) -> None:
    staff = _signed_in(daphne, alpha.host, alpha.staff.user.username)

    page = staff.get("/no/such/page/")

    assert page.status_code == 404, page.text[:300]
    assert _styled(page, signed_in=True)
    assert _still_signed_in(staff)


def test_an_anonymous_visitor_on_an_unknown_page_gets_the_styled_page(
    daphne: int, alpha: TenantSetup
) -> None:
    page = _browser(daphne, alpha.host).get("/no/such/page/")

    assert page.status_code == 404
    assert _styled(page, signed_in=False)


def test_an_unknown_api_path_answers_the_json_error_through_the_server(
    daphne: int, alpha: TenantSetup
) -> None:
    answer = _browser(daphne, alpha.host).get(
        "/api/no/such/endpoint/", headers={"Authorization": f"Bearer {alpha.staff.token}"}
    )

    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


def test_a_session_of_tenant_a_on_tenant_bs_host_gets_bs_styled_page_as_a_stranger(
    daphne: int, alpha: TenantSetup, beta: TenantSetup
) -> None:
    """The cookie names no session of B's tables: B's page for a visitor, never A's user."""
    staff_a = _signed_in(daphne, alpha.host, alpha.staff.user.username)
    cookie = staff_a.cookies["sessionid"]

    on_b = _browser(daphne, beta.host)
    on_b.cookies.set("sessionid", cookie)
    page = on_b.get("/no/such/page/")

    assert page.status_code == 404, page.text[:300]
    assert _styled(page, signed_in=False)
    assert "Beta Clinic" not in page.text or "Alpha Academy" not in page.text
    assert alpha.staff.user.username not in page.text


def test_a_request_to_a_host_of_no_tenant_is_a_not_found_not_a_server_error(
    daphne: int, transactional_db: None
) -> None:
    page = _browser(daphne, "nowhere.localhost").get("/")

    assert page.status_code == 404, page.text[:300]


# -- the platform host -----------------------------------------------------------------------------


def test_an_unknown_page_of_the_platform_host_is_a_not_found_not_a_server_error(
    daphne: int, transactional_db: None
) -> None:
    platform_get_or_create(domain=settings.PLATFORM_DOMAIN)

    page = _browser(daphne, settings.PLATFORM_DOMAIN).get("/no/such/page/")

    assert page.status_code == 404


@pytest.mark.parametrize("credential", ["none", "bearer", "session"])
def test_a_websocket_to_the_platform_host_is_closed_4404_whatever_it_carries(
    daphne: int, alpha: TenantSetup, credential: str
) -> None:
    platform_get_or_create(domain=settings.PLATFORM_DOMAIN)
    host = f"{settings.PLATFORM_DOMAIN}:{daphne}"
    token = alpha.staff.token if credential == "bearer" else None
    headers = {}
    if credential == "session":
        session = _signed_in(daphne, alpha.host, alpha.staff.user.username).cookies["sessionid"]
        headers = {"Cookie": f"sessionid={session}", "Origin": f"http://{host}"}

    client = WsClient(daphne, settings.PLATFORM_DOMAIN, token=token, headers=headers)

    assert client.close_code() == 4404


def test_a_websocket_to_an_unknown_host_is_closed_4404(daphne: int, alpha: TenantSetup) -> None:
    client = WsClient(daphne, "nowhere.localhost", token=alpha.staff.token)

    assert client.close_code() == 4404


# -- bodies over DATA_UPLOAD_MAX_MEMORY_SIZE -------------------------------------------------------


def test_an_oversize_form_post_is_a_413_page_that_keeps_the_session(
    daphne: int, alpha: TenantSetup
) -> None:
    staff = _signed_in(daphne, alpha.host, alpha.staff.user.username)
    token = _csrf_token(staff.get("/settings/notifications/"))

    page = staff.post(
        "/settings/notifications/",
        data={"csrfmiddlewaretoken": token, "channel": "email", "address": "x" * OVER_THE_LIMIT},
    )

    assert page.status_code == 413, page.text[:300]
    assert _styled(page, signed_in=True)
    assert "too large" in page.text
    assert "sessionid" in staff.cookies
    assert _still_signed_in(staff)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"json": True}, id="json"),
        pytest.param({"json": False}, id="form"),
    ],
)
def test_an_oversize_post_to_the_api_is_a_413_json_error_that_keeps_the_session(
    daphne: int, alpha: TenantSetup, body: dict[str, bool]
) -> None:
    staff = _signed_in(daphne, alpha.host, alpha.staff.user.username)
    csrf = staff.cookies["csrftoken"]

    if body["json"]:
        answer = staff.post(
            "/api/conversations/",
            content=b'{"title": "' + b"x" * OVER_THE_LIMIT + b'"}',
            headers={"Content-Type": "application/json", "X-CSRFToken": csrf},
        )
    else:
        answer = staff.post(
            "/api/conversations/",
            data={"csrfmiddlewaretoken": csrf, "title": "x" * OVER_THE_LIMIT},
            headers={"X-CSRFToken": csrf},
        )

    assert answer.status_code == 413, answer.text[:300]
    assert answer.json()["error"]["code"] == "too_large"
    assert _still_signed_in(staff)


# -- as `make run` serves it: DEBUG on ------------------------------------------------------------


@pytest.fixture(scope="module")
def daphne_debug(
    stack_env: dict[str, str],  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[int]:
    """With DEBUG, Django answers some errors with its technical page, which reads
    ``request.user``: that is how an oversize form signed people out under ``make run``."""
    process, port = start_daphne({**stack_env, "DEBUG": "true"}, tmp_path_factory.mktemp("dbg"))
    yield port
    process.stop()


def test_with_debug_on_the_forbidden_page_is_still_the_styled_403(
    daphne_debug: int, alpha: TenantSetup
) -> None:
    staff = _signed_in(daphne_debug, alpha.host, alpha.staff.user.username)

    page = staff.get("/approvals/")

    assert page.status_code == 403, page.text[:300]
    assert _styled(page, signed_in=True)


def test_with_debug_on_an_oversize_form_is_a_413_and_the_user_stays_signed_in(
    daphne_debug: int, alpha: TenantSetup
) -> None:
    staff = _signed_in(daphne_debug, alpha.host, alpha.staff.user.username)
    token = _csrf_token(staff.get("/settings/notifications/"))

    page = staff.post(
        "/settings/notifications/",
        data={"csrfmiddlewaretoken": token, "channel": "email", "address": "x" * OVER_THE_LIMIT},
    )

    assert (page.status_code, _still_signed_in(staff)) == (413, True)


# -- 500: no database needed -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def daphne_without_database(
    stack_env: dict[str, str],  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[int]:
    """daphne whose database is a port nobody listens on: every tenant page fails."""
    env = {
        **stack_env,
        "DEBUG": "false",
        "SECRET_KEY": "error-pages-test-secret-key-" + "x" * 40,
        "DATABASE_URL": f"postgres://nobody@127.0.0.1:{free_port()}/nothing",
        "DB_POOL_MIN_SIZE": "0",
        "DB_POOL_TIMEOUT_SECONDS": "1",
    }
    process, port = start_daphne(env, tmp_path_factory.mktemp("daphne-no-db"))
    yield port
    process.stop()


def test_with_the_database_down_a_page_answers_the_styled_server_error_page(
    daphne_without_database: int,
) -> None:
    page = _browser(daphne_without_database, "alpha.localhost").get("/")

    assert page.status_code == 500
    assert 'data-testid="error-page"' in page.text and "countersign.css" in page.text
