"""Demo seeding of the actions app, and the delivery settings checked at start-up."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps

from actions.models import Contact, ContactGroup, ToolPolicy
from tenants.models import Tenant

ROOT = Path(__file__).resolve().parents[2]
RESERVED_FICTIONAL_NUMBER = re.compile(r"^\+120255501\d\d$")
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def test_demo_seeding_adds_contacts_with_fictional_numbers_and_groups(
    in_tenant_a: Tenant,
) -> None:
    apps.get_app_config("actions").seed_demo(in_tenant_a)  # type: ignore[attr-defined]

    names = list(Contact.objects.values_list("name", flat=True))
    assert all(RESERVED_FICTIONAL_NUMBER.match(c.phone) for c in Contact.objects.all())
    assert any(HANGUL.search(name) for name in names)
    assert any(name.isascii() for name in names)
    assert Contact.objects.filter(opted_out=True).exists()
    assert ContactGroup.objects.filter(name="Parents - Class A").exists()
    assert ToolPolicy.objects.count() == 5


def test_demo_seeding_twice_changes_nothing(in_tenant_a: Tenant) -> None:
    config = apps.get_app_config("actions")
    config.seed_demo(in_tenant_a)  # type: ignore[attr-defined]
    before = (Contact.objects.count(), ContactGroup.objects.count())

    config.seed_demo(in_tenant_a)  # type: ignore[attr-defined]

    assert (Contact.objects.count(), ContactGroup.objects.count()) == before


def start_django(**env: str) -> subprocess.CompletedProcess[str]:
    """Import the settings in a fresh process with ``env`` (and real servers not needed)."""
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env={
            **os.environ,
            "DATABASE_URL": "postgres://u@127.0.0.1:1/db",
            "REDIS_URL": "redis://127.0.0.1:1/0",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"ACTIONS_SMS_BACKEND": "twilio"},
            "ACTIONS_SMS_BACKEND=twilio cannot start: TWILIO_ACCOUNT_SID is required",
        ),
        (
            {
                "ACTIONS_TELEGRAM_BACKEND": "telegram",
                "TELEGRAM_BOT_TOKEN": "t",
                "TELEGRAM_BASE_URL": "ftp://x",
            },
            "TELEGRAM_BASE_URL must be an http:// or https:// URL",
        ),
        ({"ACTIONS_EMAIL_BACKEND": "carrier-pigeon"}, "ACTIONS_EMAIL_BACKEND must be one of"),
        ({"ACTIONS_PHONE_REGION": "XX"}, "ACTIONS_PHONE_REGION must be an ISO country code"),
        (
            {"ACTIONS_DELIVERY_MAX_ATTEMPTS": "0"},
            "ACTIONS_DELIVERY_MAX_ATTEMPTS must be at least 1",
        ),
    ],
)
def test_a_bad_delivery_setting_stops_start_up_naming_it(env: dict[str, str], message: str) -> None:
    result = start_django(**env)

    assert result.returncode != 0
    assert message in result.stderr


def test_the_default_delivery_settings_start() -> None:
    result = start_django()

    assert result.returncode == 0, result.stderr
