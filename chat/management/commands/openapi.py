"""`manage.py openapi`: print the OpenAPI document (docs/openapi.json is this output)."""

import json
from typing import Any

from django.core.management.base import BaseCommand

from chat.openapi import openapi_document


class Command(BaseCommand):
    help = "Print the HTTP API's OpenAPI document as JSON."
    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(json.dumps(openapi_document(), indent=2, ensure_ascii=False))
