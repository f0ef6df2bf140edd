"""With ``TENANT_LIMIT_SET_CALLS`` the search_path is set once per connection and schema switch;
a rollback that reverts that SET must never leave queries on the previous tenant's schema."""

from __future__ import annotations

from typing import cast

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django_tenants.postgresql_backend.base import DatabaseWrapper

from core.schema import current_tenant
from tenants.models import Tenant
from tests.tenants.factories import make_user


class _Undo(Exception):
    pass


def _select(tenant: Tenant) -> None:
    cast(DatabaseWrapper, connection).set_tenant(tenant)


def _usernames() -> list[str]:
    return list(User.objects.values_list("username", flat=True))


def _switch_from_a_to_b_and_roll_back(tenant_a: Tenant, tenant_b: Tenant) -> None:
    """Cache A's path, then set B's inside an atomic block that is rolled back: the session's
    path goes back to A's while the connection still names B."""
    make_user(tenant_a, "ada")
    make_user(tenant_b, "bea")
    _select(tenant_a)
    assert _usernames() == ["ada"]  # the path is set (and cached) for tenant A

    with pytest.raises(_Undo), transaction.atomic():
        _select(tenant_b)
        assert _usernames() == ["bea"]  # SET for B, inside the block
        raise _Undo


def test_the_search_path_is_set_once_per_schema_switch_not_per_query(tenant_a: Tenant) -> None:
    _select(tenant_a)
    with CaptureQueriesContext(connection) as queries:
        _usernames()
        _usernames()

    statements = [query["sql"] for query in queries.captured_queries]
    assert [sql.startswith("SET search_path") for sql in statements] == [True, False, False]


def test_after_a_savepoint_rollback_queries_run_on_the_tenant_the_connection_names(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    # In a test's transaction the atomic block is a savepoint: ROLLBACK TO SAVEPOINT.
    _switch_from_a_to_b_and_roll_back(tenant_a, tenant_b)

    _select(tenant_b)
    assert _usernames() == ["bea"]
    _select(tenant_a)
    assert _usernames() == ["ada"]


def test_after_a_savepoint_rollback_without_a_switch_the_path_is_set_again(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    _switch_from_a_to_b_and_roll_back(tenant_a, tenant_b)
    # The connection still names B; the session's path went back to A's. B's rows, not A's:
    assert current_tenant() == tenant_b
    assert _usernames() == ["bea"]


@pytest.mark.django_db(transaction=True)
def test_after_a_transaction_rollback_queries_run_on_the_tenant_the_connection_names(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    _switch_from_a_to_b_and_roll_back(tenant_a, tenant_b)  # outermost: a real ROLLBACK

    assert _usernames() == ["bea"]
    _select(tenant_a)
    assert _usernames() == ["ada"]
