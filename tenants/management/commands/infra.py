"""`manage.py infra up|down|status|urls`: the embedded PostgreSQL and Redis (core/infra.py)."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.infra import InfraError, default_infra


class Command(BaseCommand):
    help = "Start, stop or show the embedded PostgreSQL + pgvector and Redis servers."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["up", "down", "status", "urls"])

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        if not settings.USES_EMBEDDED_INFRA:
            self.stdout.write(
                "DATABASE_URL and REDIS_URL are set: the embedded servers are not used."
            )
            return
        infra = default_infra()
        try:
            if action == "up":
                urls = infra.up()
                self.stdout.write(f"PostgreSQL: {urls.database_url}\nRedis:      {urls.redis_url}")
            elif action == "down":
                infra.down()
                self.stdout.write("embedded servers stopped")
            elif action == "urls":
                urls = infra.urls()
                self.stdout.write(f"DATABASE_URL={urls.database_url}\nREDIS_URL={urls.redis_url}")
            else:
                for server in infra.status():
                    state = f"running (pid {server.pid})" if server.running else "stopped"
                    self.stdout.write(f"{server.name:<11} {server.address:<22} {state}")
        except InfraError as error:
            raise CommandError(str(error)) from error
