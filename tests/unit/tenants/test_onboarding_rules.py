"""The pure rules of a new tenant's names (``tenants.onboarding_rules``): no database."""

from __future__ import annotations

import pytest

from tenants.onboarding_rules import HostNameError, host_name_normalised, schema_name_problem


@pytest.mark.parametrize("schema", ["acme", "acme_clinic", "a1", "x" * 56])
def test_a_plain_lower_case_schema_name_is_accepted(schema: str) -> None:
    assert schema_name_problem(schema) is None


@pytest.mark.parametrize(
    "schema",
    [
        "public",
        "information_schema",
        "pg_catalog",
        "pg_toast",
        "pg_temp_3",
        "pg_acme",
        "Acme",
        "ACME",
        "9lives",
        "_acme",
        "acme-clinic",
        'acme"; drop',
        "acme__query",
        "x" * 57,
        "",
    ],
)
def test_a_reserved_system_or_malformed_schema_name_is_refused(schema: str) -> None:
    assert schema_name_problem(schema) is not None


@pytest.mark.parametrize(
    ("raw", "host"),
    [
        ("acme.localhost", "acme.localhost"),
        ("ACME.localhost", "acme.localhost"),
        ("  Acme.Example.COM\n", "acme.example.com"),
        ("acme.localhost.", "acme.localhost"),
        ("bücher.localhost", "xn--bcher-kva.localhost"),
        ("BÜCHER.localhost", "xn--bcher-kva.localhost"),
        ("xn--bcher-kva.localhost", "xn--bcher-kva.localhost"),
        ("localhost", "localhost"),
        ("a-b.c1.localhost", "a-b.c1.localhost"),
        ("x" * 63 + ".localhost", "x" * 63 + ".localhost"),
    ],
)
def test_a_host_name_is_stored_stripped_lower_case_and_idna_encoded(raw: str, host: str) -> None:
    assert host_name_normalised(raw) == host


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("a b.localhost", "bare host name"),
        ("evil.com/x", "bare host name"),
        ("http://evil.com", "bare host name"),
        ("kappa.localhost?x=1", "bare host name"),
        ("user@kappa.localhost", "bare host name"),
        ("host:8000", "port"),
        ("acme.localhost:8000", "port"),
        ("kappa..localhost", "empty label"),
        (".localhost", "empty label"),
        ("acme.localhost..", "empty label"),
        ("-x.localhost", "label"),
        ("x-.localhost", "label"),
        ("a_b.localhost", "label"),
        ("x" * 64 + ".localhost", "label"),
        (".".join(["abcdefghij"] * 24), "longer than 253"),
        ("127.0.0.1", "IP address"),
    ],
)
def test_anything_but_a_bare_host_name_is_refused_with_its_reason(raw: str, problem: str) -> None:
    with pytest.raises(HostNameError, match=problem):
        host_name_normalised(raw)
