"""Models and migrations agree (a missing migration would break a fresh deployment)."""

import io

import pytest
from django.core.management import call_command


def test_no_model_change_is_missing_a_migration(db: None) -> None:
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out)
    except SystemExit as exit_:
        pytest.fail(f"missing migrations:\n{out.getvalue()}" if exit_.code else "")
