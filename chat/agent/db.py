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
    return " ".join(f"{key}={value!s}" for key, value in parts.items() if value) + " " + options
