"""The web process: daphne, with its access lines logged like every other line.

``python -m core.serve <daphne's arguments>`` runs daphne's own command line unchanged, except
for the access log: daphne writes its lines (``AccessLogGenerator``) straight to stdout in NCSA
format, so under ``LOG_FORMAT=json`` most of a web process's output was not JSON. Here every
access line is a record of the ``countersign.access`` logger, formatted by ``LOGGING`` (plain or
JSON) with its fields (``client``, ``method``, ``path``, ``status``, ``size``, ``duration_ms``)
as JSON keys. ``--access-log`` and ``-v 0`` keep their meaning (on or off); the lines go to the
process's log, not to a file of their own.
"""

from __future__ import annotations

import logging
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server

logger = logging.getLogger("countersign.access")

# daphne's action names for a WebSocket, as its own access log prints them.
_WEBSOCKET_ACTIONS = {
    "connecting": "WSCONNECTING",
    "rejected": "WSREJECT",
    "connected": "WSCONNECT",
    "disconnected": "WSDISCONNECT",
}


def log_access(protocol: str, action: str, details: dict[str, Any]) -> None:
    """daphne's ``action_logger``: one INFO record per completed request or socket event."""
    if protocol == "http" and action == "complete":
        method = str(details["method"])
        fields: dict[str, Any] = {"status": details["status"], "size": details["size"]}
        if details.get("time_taken") is not None:
            fields["duration_ms"] = round(float(details["time_taken"]) * 1000, 1)
    elif protocol == "websocket" and action in _WEBSOCKET_ACTIONS:
        method = _WEBSOCKET_ACTIONS[action]
        fields = {}
    else:
        return
    client = details.get("client") or "-"
    path = details["path"]
    status = fields.get("status", "-")
    logger.info(
        "%s %s %s %s",
        client,
        method,
        path,
        status,
        extra={"client": client, "method": method, "path": path, **fields},
    )


class _Server(Server):
    def __init__(self, *args: Any, action_logger: Any = None, **kwargs: Any) -> None:
        # daphne's command line passes an AccessLogGenerator when the access log is on
        # (verbosity 1, its default, or --access-log): keep that decision, change the format.
        super().__init__(
            *args, action_logger=log_access if action_logger is not None else None, **kwargs
        )


class _CommandLineInterface(CommandLineInterface):
    server_class = _Server


def main() -> None:
    _CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
