"""A tenant's rows are invisible from every other tenant: ORM, HTTP, Celery and WebSocket."""

from __future__ import annotations

import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from celery.signals import task_postrun
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.db import connections
from django.test import Client, override_settings
from django_tenants.utils import tenant_context

from config.asgi import application
from core.celery import app
from core.schema import current_schema, use_public_schema
from tenants.models import Tenant
from tenants.roles import TENANT_ADMIN
from tests.conftest import host_client
from tests.tenants.factories import PASSWORD, make_user

SHARED_PK = 4242


@app.task(name="tests.usernames_in_current_schema")
def usernames_in_current_schema() -> list[str]:
    return sorted(User.objects.values_list("username", flat=True))


@app.task(name="tests.fail_inside_tenant")
def fail_inside_tenant() -> None:
    raise RuntimeError("boom")


@pytest.fixture
def same_pk_users(tenant_a: Tenant, tenant_b: Tenant) -> tuple[User, User]:
    alice = make_user(tenant_a, "alice", role=TENANT_ADMIN, pk=SHARED_PK)
    bob = make_user(tenant_b, "bob", role=TENANT_ADMIN, pk=SHARED_PK)
    return alice, bob


def test_a_row_of_tenant_a_is_invisible_through_the_orm_of_tenant_b(
    same_pk_users: tuple[User, User], tenant_b: Tenant
) -> None:
    with tenant_context(tenant_b):
        assert not User.objects.filter(username="alice").exists()
        assert User.objects.get(pk=SHARED_PK).username == "bob"


def test_a_user_of_tenant_a_cannot_log_in_on_tenant_b(
    same_pk_users: tuple[User, User], client_b: Client
) -> None:
    response = client_b.post("/login/", {"username": "alice", "password": PASSWORD})

    assert response.status_code == 200  # the login form again, with an error
    assert "didn't match" in response.content.decode()
    assert "_auth_user_id" not in client_b.session


def _admin_session_cookie(client: Client, username: str) -> str:
    response = client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": PASSWORD}
    )
    assert response.status_code == 302, "login should succeed on the user's own tenant"
    return client.cookies["sessionid"].value


def test_a_session_cookie_of_tenant_a_is_not_valid_on_tenant_b(
    same_pk_users: tuple[User, User], client_a: Client, tenant_b: Tenant
) -> None:
    session_of_alice = _admin_session_cookie(client_a, "alice")
    assert client_a.get("/admin/").status_code == 200

    intruder = host_client(tenant_b)
    intruder.cookies["sessionid"] = session_of_alice
    response = intruder.get("/admin/")

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_the_admin_of_tenant_b_does_not_list_users_of_tenant_a(
    same_pk_users: tuple[User, User], client_b: Client
) -> None:
    _admin_session_cookie(client_b, "bob")
    page = client_b.get("/admin/auth/user/").content.decode()

    assert "bob" in page
    assert "alice" not in page


def test_a_task_sent_from_tenant_b_sees_only_tenant_b(
    celery_worker_thread: None, tenant_a: Tenant, tenant_b: Tenant
) -> None:
    make_user(tenant_a, "alice", pk=SHARED_PK)
    make_user(tenant_b, "bob", pk=SHARED_PK)

    with tenant_context(tenant_b):
        result = usernames_in_current_schema.delay()

    assert result.get(timeout=20) == ["bob"]


def test_a_task_sent_without_a_tenant_fails_closed(celery_worker_thread: None) -> None:
    use_public_schema()
    result = usernames_in_current_schema.delay()

    with pytest.raises(Exception, match="without a tenant"):
        result.get(timeout=20)


def test_the_worker_connection_is_public_after_every_task(
    celery_worker_thread: None, tenant_b: Tenant
) -> None:
    schemas_after: list[str] = []

    def record(**_: Any) -> None:
        schemas_after.append(current_schema())

    task_postrun.connect(record, weak=False)
    try:
        with tenant_context(tenant_b):
            ok = usernames_in_current_schema.delay()
            failing = fail_inside_tenant.delay()
        ok.get(timeout=20)
        with pytest.raises(RuntimeError):
            failing.get(timeout=20)
        # A result is stored before task_postrun runs: wait for the second signal too.
        deadline = time.monotonic() + 10
        while len(schemas_after) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        task_postrun.disconnect(record)

    assert schemas_after == ["public", "public"]


def _connect(
    host: str,
    *,
    cookie: str = "",
    origin: str | None = None,
    extra: tuple[tuple[bytes, bytes], ...] = (),
) -> tuple[bool, Any]:
    headers = [(b"host", host.encode()), *extra]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))

    async def run_expecting_no_first_frame() -> tuple[bool, Any]:
        communicator = WebsocketCommunicator(application, "/ws/chat/", headers=headers)
        connected, code = await communicator.connect(timeout=5)
        if not connected:
            return False, code
        if not await communicator.receive_nothing(timeout=0.3):
            message = await communicator.receive_output(timeout=5)
            await communicator.wait()
            return True, message.get("code")
        await communicator.send_json_to({"type": "ping"})
        reply = await communicator.receive_json_from(timeout=5)
        await communicator.disconnect()
        return True, reply

    return async_to_sync(run_expecting_no_first_frame)()


def test_a_websocket_with_a_session_of_tenant_a_is_refused_on_tenant_b(
    transactional_db: None, tenant_a: Tenant, tenant_b: Tenant
) -> None:
    make_user(tenant_a, "alice", role=TENANT_ADMIN, pk=SHARED_PK)
    session_of_alice = _admin_session_cookie(host_client(tenant_a), "alice")
    make_user(tenant_b, "bob", pk=SHARED_PK)

    own = _connect("alpha.localhost", cookie=session_of_alice, origin="http://alpha.localhost")
    foreign = _connect("beta.localhost", cookie=session_of_alice, origin="http://beta.localhost")

    assert own == (True, {"type": "pong"})
    assert foreign == (True, 4401)


def test_websocket_handshakes_give_their_database_connections_back_to_the_pool(
    transactional_db: None, tenant_a: Tenant
) -> None:
    make_user(tenant_a, "alice", role=TENANT_ADMIN)
    session = _admin_session_cookie(host_client(tenant_a), "alice")
    pool = connections["default"].pool  # type: ignore[attr-defined]  # psycopg pool (Django 5.1+)
    in_use_before = _connections_in_use(pool)

    for _ in range(4):
        assert _connect("nowhere.localhost")[1] == 4404
        assert _connect("alpha.localhost", origin="http://alpha.localhost")[1] == 4401
        assert _connect("alpha.localhost", cookie=session, origin="http://alpha.localhost") == (
            True,
            {"type": "pong"},
        )

    assert _connections_in_use(pool) <= in_use_before


def _connections_in_use(pool: Any) -> int:
    stats = pool.get_stats()
    return int(stats["pool_size"] - stats["pool_available"])


def test_a_websocket_whose_origin_is_not_its_host_is_refused(
    transactional_db: None, tenant_a: Tenant
) -> None:
    make_user(tenant_a, "alice", role=TENANT_ADMIN)
    session = _admin_session_cookie(host_client(tenant_a), "alice")

    assert _connect("alpha.localhost", cookie=session, origin="http://evil.example")[1] == 4403
    assert _connect("alpha.localhost", cookie=session, origin=None)[1] == 4403


def test_a_websocket_whose_origin_has_another_scheme_is_refused(
    transactional_db: None, tenant_a: Tenant
) -> None:
    make_user(tenant_a, "alice", role=TENANT_ADMIN)
    session = _admin_session_cookie(host_client(tenant_a), "alice")

    assert _connect("alpha.localhost", cookie=session, origin="https://alpha.localhost")[1] == 4403


@override_settings(SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"))
def test_a_trusted_proxy_lets_an_https_page_open_the_socket_it_forwards(
    transactional_db: None, tenant_a: Tenant
) -> None:
    make_user(tenant_a, "alice", role=TENANT_ADMIN)
    session = _admin_session_cookie(host_client(tenant_a), "alice")
    forwarded = ((b"x-forwarded-proto", b"https"),)

    https_page = _connect(
        "alpha.localhost", cookie=session, origin="https://alpha.localhost", extra=forwarded
    )
    http_page = _connect(
        "alpha.localhost", cookie=session, origin="http://alpha.localhost", extra=forwarded
    )

    assert https_page == (True, {"type": "pong"})
    assert http_page[1] == 4403


def test_a_websocket_without_credentials_is_refused(
    transactional_db: None, tenant_a: Tenant
) -> None:
    assert _connect("alpha.localhost", origin="http://alpha.localhost")[1] == 4401


def test_a_websocket_to_an_unknown_host_is_refused(transactional_db: None) -> None:
    assert _connect("nobody.localhost", origin="http://nobody.localhost")[1] == 4404


def test_an_upper_case_host_serves_the_same_tenant_over_http(tenant_a: Tenant) -> None:
    response = Client(HTTP_HOST="ALPHA.LOCALHOST").get("/api/actions/")

    assert response.status_code == 401, "the tenant's API answered, not a 404 for the host"
