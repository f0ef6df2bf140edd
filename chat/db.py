"""Plain psycopg connections to the application database, for the agent's own needs (the
checkpointer's pool, query_data's isolated read-only sessions), built from Django's settings."""

from __future__ import annotations

from django.conf import settings


def conninfo(*, search_path: str = "public") -> str:
    db = settings.DATABASES["default"]
    parts = {
        "dbname": db["NAME"],
        "user": db["USER"],
        "password": db["PASSWORD"],
        "host": db["HOST"],
        "port": db["PORT"],
    }
    options = f"options='-c search_path={search_path}'"
    # A server that does not answer fails the attempt instead of hanging the run.
    timeout = f"connect_timeout={settings.DB_CONNECT_TIMEOUT_SECONDS}"
    return " ".join(
        [*(f"{key}={value!s}" for key, value in parts.items() if value), timeout, options]
    )
