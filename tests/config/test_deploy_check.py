"""`manage.py check --deploy` is clean with production-like settings (the same env as .ci/run).

Both URLs point at hosts that do not exist: the deployment checks never connect, and this keeps
the embedded servers out of it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_LIKE = {
    "DEBUG": "false",
    "SECRET_KEY": "ci-check-deploy-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFG",
    "ALLOWED_HOSTS": ".example.com",
    "CSRF_TRUSTED_ORIGINS": "https://*.example.com",
    "TRUST_X_FORWARDED_PROTO": "true",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
    "DATABASE_URL": "postgres://countersign@db.invalid:5432/countersign",
    "REDIS_URL": "redis://redis.invalid:6379/0",
}


def _check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_settings() -> None:
    result = _check_deploy(PRODUCTION_LIKE)

    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_still_flags_development_defaults() -> None:
    # The production hardening is opt-in by env: the dev defaults stay plain HTTP.
    dev = {key: PRODUCTION_LIKE[key] for key in ("DATABASE_URL", "REDIS_URL")}
    result = _check_deploy({**dev, "DEBUG": "true"})

    assert result.returncode != 0
    assert "security.W018" in result.stderr  # DEBUG on
    assert "security.W004" in result.stderr  # no HSTS
