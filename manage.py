#!/usr/bin/env python
"""Django's command-line utility, starting the embedded servers when no URLs are configured."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from core.env import ImproperlyConfiguredEnv

    try:
        from django.conf import settings

        settings.INSTALLED_APPS  # noqa: B018 - forces the settings to load and be checked
    except ImproperlyConfiguredEnv as error:
        sys.exit(f"Configuration error: {error}")

    if settings.USES_EMBEDDED_INFRA and sys.argv[1:2] != ["infra"]:
        from core.infra import InfraError, default_infra

        try:
            default_infra().up()
        except InfraError as error:
            sys.exit(f"Could not start the embedded PostgreSQL/Redis: {error}")

    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
