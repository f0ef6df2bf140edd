"""The pure rules for a new tenant's names: its PostgreSQL schema name and its host names.

No Django here (tests/unit/tenants/test_onboarding_rules.py). Whether a schema or a domain is
already taken is a database question; ``tenants.services`` asks it, inside the lock that
creates the tenant.
"""

from __future__ import annotations

import re
from encodings import idna

PUBLIC_SCHEMA = "public"
# PostgreSQL's own schemas: "information_schema", and every "pg_" name is reserved to the
# server (pg_catalog, pg_toast, pg_temp_N). A tenant on one of them would write its users into
# whatever the search path finds next: the platform's public schema.
SYSTEM_SCHEMAS = frozenset({PUBLIC_SCHEMA, "information_schema"})
_SCHEMA_NAME = re.compile(r"[a-z][a-z0-9_]*")
# A tenant's read-only query views live in "<schema>__query" (chat's query_data), which must
# neither be another tenant's schema nor be cut at PostgreSQL's 63 characters.
SCHEMA_NAME_MAX = 56

# RFC 1035/1123 host names, as DNS and Django's ALLOWED_HOSTS check read them.
HOST_NAME_MAX = 253
_LABEL = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
_NOT_IN_A_HOST = re.compile(r"[/\\?#@\s]")


class HostNameError(ValueError):
    """Why a domain cannot be a tenant's host name (a phrase: "has an empty label")."""


def schema_name_problem(schema: str) -> str | None:
    """Why ``schema`` cannot name a new tenant's schema, or None if it can (as far as its
    spelling goes: the database decides whether it exists)."""
    if not _SCHEMA_NAME.fullmatch(schema):
        return "must start with a lower-case letter and use only a-z, 0-9 and '_'"
    if schema in SYSTEM_SCHEMAS or schema.startswith("pg_"):
        return f"{schema!r} is reserved by PostgreSQL or the platform"
    if "__" in schema or len(schema) > SCHEMA_NAME_MAX:
        return f"must not contain '__' nor be longer than {SCHEMA_NAME_MAX} characters"
    return None


def host_name_normalised(raw: str) -> str:
    """``raw`` as hosts are stored and looked up: stripped, lower case, IDNA-encoded
    (``bücher.localhost`` → ``xn--bcher-kva.localhost``), without the root's trailing dot.

    Raises ``HostNameError`` for anything that is not a bare host name: a URL, a port (the port
    is not part of the domain: ``demo.localhost:8000`` is served by ``demo.localhost``),
    spaces, empty or over-long labels.
    """
    host = raw.strip()
    if not host:
        raise HostNameError("is empty")
    if _NOT_IN_A_HOST.search(host):
        raise HostNameError("must be a bare host name, without spaces, '/', '?', '#' or '@'")
    if ":" in host:
        raise HostNameError("must not carry a port: the port is not part of a domain")
    if host.endswith("."):
        host = host[:-1]
    labels = [_label_ascii(label) for label in host.split(".")]
    if labels[-1].isdigit():
        raise HostNameError("must be a host name, not an IP address or a number")
    normalised = ".".join(labels)
    if len(normalised) > HOST_NAME_MAX:
        raise HostNameError(f"must not be longer than {HOST_NAME_MAX} characters")
    return normalised


def _label_ascii(label: str) -> str:
    if not label:
        raise HostNameError("has an empty label (two dots in a row, or a leading dot)")
    try:
        # IDNA 2003 ToASCII, from the standard library: nameprep lower-cases and maps.
        ascii_label = idna.ToASCII(label).decode("ascii") if not label.isascii() else label
    except UnicodeError as error:
        raise HostNameError(f"has a label that cannot be IDNA-encoded ({label!r})") from error
    ascii_label = ascii_label.lower()
    if not _LABEL.fullmatch(ascii_label):
        raise HostNameError(
            f"has a label {label!r} that is not 1-63 letters, digits or inner hyphens"
        )
    return ascii_label
