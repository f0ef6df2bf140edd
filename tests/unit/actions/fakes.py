"""Real local servers that play Twilio, Telegram and an SMTP relay, for tests.

Each fake listens on 127.0.0.1 on a free port, runs in a background thread, is a context
manager, records every request it receives, and answers either like the provider would on
success or with whatever a test scripted first (``respond_with`` / ``fail_next``). Backends
are exercised over real sockets, so encoding, headers, auth and timeouts are all tested for
real. Integration tests can reuse these as they are.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, Self, cast
from urllib.parse import parse_qsl, urlsplit

import httpx
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from actions.delivery.sms import twilio_signature

# --------------------------------------------------------------------------------------------
# HTTP fakes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the fake saw it. Header names are lower-cased; ``body`` is the parsed
    form (dict) or JSON value, ``raw_body`` the bytes on the wire."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    raw_body: bytes


@dataclass(frozen=True)
class ScriptedResponse:
    """An answer a test queued. ``delay`` holds the answer back (to provoke client timeouts);
    ``drop`` closes the connection without answering (to provoke a protocol error)."""

    status: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False


class FakeHttpProvider:
    """Common machinery: a ThreadingHTTPServer in a thread, a request log, a response queue.

    Subclasses decide what a successful (unscripted) answer looks like.
    """

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._script: deque[ScriptedResponse] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._running_server().server_address[:2]
        return f"http://{host!s}:{port}"

    def respond_with(self, *responses: ScriptedResponse) -> None:
        """Queue answers for the next requests, in order; afterwards the fake succeeds again."""
        with self._lock:
            self._script.extend(responses)

    def start(self) -> None:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.block_on_close = False
        cast(Any, server).fake = self
        self._server = server
        # A short poll interval keeps stop() (and so each test's teardown) quick.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        server = self._running_server()
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def answer(self, request: RecordedRequest) -> ScriptedResponse:
        """Record the request, then use the next scripted answer or the provider's own."""
        with self._lock:
            self.requests.append(request)
            scripted = self._script.popleft() if self._script else None
        return scripted if scripted is not None else self.default_response(request)

    def default_response(self, request: RecordedRequest) -> ScriptedResponse:
        raise NotImplementedError

    def wait(self, seconds: float) -> None:
        """Sleep for a scripted delay, but wake at once when the fake is stopped."""
        self._stopping.wait(seconds)

    def _running_server(self) -> ThreadingHTTPServer:
        if self._server is None:
            raise RuntimeError("fake server is not started; use it as a context manager")
        return self._server


class _Handler(BaseHTTPRequestHandler):
    """Reads the request, asks the fake for an answer, writes it. Quiet on stderr."""

    server: ThreadingHTTPServer

    def do_POST(self) -> None:
        fake = cast(FakeHttpProvider, cast(Any, self.server).fake)
        response = fake.answer(self._recorded())
        fake.wait(response.delay)
        if response.drop:
            self.close_connection = True
            return
        self._write(response)

    def _recorded(self) -> RecordedRequest:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        return RecordedRequest(self.command, self.path, headers, _parse_body(headers, raw), raw)

    def _write(self, response: ScriptedResponse) -> None:
        payload = b"" if response.body is None else json.dumps(response.body).encode()
        try:
            self.send_response(response.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except ConnectionError:
            pass  # the client gave up (a timeout test); nothing left to tell it

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _parse_body(headers: Mapping[str, str], raw: bytes) -> Any:
    content_type = headers.get("content-type", "")
    if content_type.startswith("application/x-www-form-urlencoded"):
        return dict(parse_qsl(raw.decode(), keep_blank_values=True))
    if content_type.startswith("application/json"):
        return json.loads(raw or b"null")
    return raw


def _basic_auth(headers: Mapping[str, str]) -> tuple[str, str] | None:
    scheme, _, encoded = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    user, _, password = base64.b64decode(encoded).decode().partition(":")
    return user, password


class FakeTwilioServer(FakeHttpProvider):
    """Plays Twilio's Messages API: checks the account path and basic auth like Twilio does
    (401 code 20003, 404 code 20404), and answers 201 with a fresh ``SM…`` sid."""

    def __init__(
        self, account_sid: str = "AC" + "0" * 32, auth_token: str = "test-auth-token"
    ) -> None:
        super().__init__()
        self.account_sid = account_sid
        self.auth_token = auth_token
        self._sids = itertools.count(1)
        self._failing: dict[str, ScriptedResponse] = {}
        self._open = threading.Event()
        self._open.set()

    def fail_for(self, to: str, response: ScriptedResponse) -> None:
        """Answer every message to ``to`` with ``response`` (concurrent sends to several numbers
        arrive in any order, so a failure scripted by position would hit any of them)."""
        self._failing[to] = response

    def hold(self) -> None:
        """Keep every answer back until ``release()``: messages stay in flight meanwhile."""
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def reset(self) -> None:
        """Answer everything again, at once and successfully (between tests sharing the fake)."""
        self._failing.clear()
        self.release()

    def answer(self, request: RecordedRequest) -> ScriptedResponse:
        while not self._open.wait(0.05):
            if self._stopping.is_set():
                break
        form = request.body if isinstance(request.body, dict) else {}
        failing = self._failing.get(str(form.get("To")))
        if failing is not None:
            with self._lock:
                self.requests.append(request)
            return failing
        return super().answer(request)

    def inbound(
        self, *, url: str, sender: str, text: str, secret: str, message_sid: str | None = None
    ) -> InboundPost:
        """The incoming-message webhook Twilio would POST to ``url`` for an SMS from
        ``sender``: the form and its ``X-Twilio-Signature``, made with ``secret``."""
        form = {
            "MessageSid": message_sid or f"SM{next(self._sids):032x}",
            "AccountSid": self.account_sid,
            "From": sender,
            "To": "+12025550199",
            "Body": text,
        }
        signature = twilio_signature(url, form, secret=secret)
        return InboundPost(url, form=form, headers={"X-Twilio-Signature": signature})

    @staticmethod
    def error(status: int, code: int, message: str, **headers: str) -> ScriptedResponse:
        """A response shaped like Twilio's error body."""
        body = {"code": code, "message": message, "more_info": "", "status": status}
        return ScriptedResponse(status, body, headers)

    def default_response(self, request: RecordedRequest) -> ScriptedResponse:
        if request.path != f"/2010-04-01/Accounts/{self.account_sid}/Messages.json":
            return self.error(404, 20404, f"The requested resource {request.path} was not found")
        if _basic_auth(request.headers) != (self.account_sid, self.auth_token):
            return self.error(401, 20003, "Authenticate")
        sid = f"SM{next(self._sids):032x}"
        form = request.body if isinstance(request.body, dict) else {}
        body = {"sid": sid, "status": "queued", "to": form.get("To"), "body": form.get("Body")}
        return ScriptedResponse(201, body)


class FakeTelegramServer(FakeHttpProvider):
    """Plays the Bot API's ``sendMessage``: unknown token → 401, other methods → 404, else
    200 with ``{"ok": true, "result": {"message_id", "chat": {"id"}, ...}}``."""

    def __init__(self, bot_token: str = "123456:TEST-token") -> None:
        super().__init__()
        self.bot_token = bot_token
        self._message_ids = itertools.count(1)

    def inbound(
        self,
        *,
        url: str,
        chat_id: int,
        text: str,
        secret: str,
        username: str | None = None,
        message_id: int | None = None,
    ) -> InboundPost:
        """The ``Update`` the Bot API would POST to the webhook ``url`` for a private message,
        with the secret token given to ``setWebhook`` in its header."""
        sender: dict[str, Any] = {"id": chat_id, "is_bot": False, "first_name": "Olivia"}
        if username:
            sender["username"] = username
        message = {
            "message_id": message_id or next(self._message_ids),
            "date": int(time.time()),
            "from": sender,
            "chat": {"id": chat_id, "type": "private"},
            "text": text,
        }
        update = {"update_id": next(self._message_ids), "message": message}
        return InboundPost(
            url, json_body=update, headers={"X-Telegram-Bot-Api-Secret-Token": secret}
        )

    @staticmethod
    def error(
        error_code: int, description: str, *, retry_after: int | None = None
    ) -> ScriptedResponse:
        """A response shaped like the Bot API's error body (and its 429 hint)."""
        body: dict[str, Any] = {"ok": False, "error_code": error_code, "description": description}
        if retry_after is not None:
            body["parameters"] = {"retry_after": retry_after}
        return ScriptedResponse(error_code, body)

    def default_response(self, request: RecordedRequest) -> ScriptedResponse:
        if not request.path.startswith(f"/bot{self.bot_token}/"):
            return self.error(401, "Unauthorized")
        if request.path != f"/bot{self.bot_token}/sendMessage":
            return self.error(404, "Not Found")
        payload = request.body if isinstance(request.body, dict) else {}
        chat_id = payload.get("chat_id")
        numeric = chat_id if isinstance(chat_id, int) else _chat_number(str(chat_id))
        result = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": {"id": numeric, "type": "private"},
            "text": payload.get("text"),
        }
        return ScriptedResponse(200, {"ok": True, "result": result})


@dataclass(frozen=True)
class InboundPost:
    """A webhook call a fake provider makes to the product: ``send()`` POSTs it over HTTP (to
    a real server at ``via``, with the URL's host as Host header); Django's test client can
    post ``form`` or ``json_body`` with ``headers`` as they are."""

    url: str
    form: Mapping[str, str] | None = None
    json_body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def send(self, *, via: str) -> httpx.Response:
        parts = urlsplit(self.url)
        target = f"{via.rstrip('/')}{parts.path}"
        headers = {**self.headers, "Host": parts.netloc}
        if self.form is not None:
            return httpx.post(target, data=dict(self.form), headers=headers, timeout=20)
        return httpx.post(target, json=self.json_body, headers=headers, timeout=20)


def _chat_number(chat_id: str) -> int:
    """Telegram answers with the numeric chat id even when addressed by @username."""
    return int(chat_id) if chat_id.lstrip("-").isdigit() else -1001234567890


# --------------------------------------------------------------------------------------------
# SMTP fake
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CapturedMail:
    """One accepted message: the envelope and the parsed message."""

    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    raw: bytes


SmtpStage = Literal["rcpt", "data"]


class FakeSmtpServer:
    """An aiosmtpd relay on 127.0.0.1 that keeps what it accepts.

    ``fail_next("451 4.3.0 Try again later")`` makes the next RCPT (or, with ``at="data"``,
    the next DATA) answer that reply instead. With ``username``/``password`` set it requires
    AUTH (allowed without TLS, as a local test relay) and refuses other credentials with 535.
    """

    def __init__(self, *, username: str | None = None, password: str | None = None) -> None:
        self.messages: list[CapturedMail] = []
        self.logins: list[str] = []
        self._credentials = (username, password) if username is not None else None
        self._failures: dict[SmtpStage, deque[str]] = {"rcpt": deque(), "data": deque()}
        self._lock = threading.Lock()
        self._controller: _PortZeroController | None = None

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def port(self) -> int:
        if self._controller is None:
            raise RuntimeError("fake SMTP server is not started; use it as a context manager")
        return self._controller.port

    def fail_next(self, reply: str, *, at: SmtpStage = "rcpt") -> None:
        with self._lock:
            self._failures[at].append(reply)

    def start(self) -> None:
        auth: dict[str, Any] = {}
        if self._credentials is not None:
            auth = {
                "authenticator": self._authenticate,
                "auth_required": True,
                "auth_require_tls": False,
            }
        self._controller = _PortZeroController(_SmtpHandler(self), hostname=self.host, **auth)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def scripted_failure(self, stage: SmtpStage) -> str | None:
        with self._lock:
            queue = self._failures[stage]
            return queue.popleft() if queue else None

    def capture(self, envelope: Envelope) -> None:
        raw = cast(bytes, envelope.original_content or envelope.content)
        # Stored the way a mailbox would: line endings as \n, so tests compare plain text.
        unix_text = raw.replace(b"\r\n", b"\n")
        message = message_from_bytes(unix_text, policy=policy.default)
        mail = CapturedMail(str(envelope.mail_from), list(envelope.rcpt_tos), message, raw)
        with self._lock:
            self.messages.append(mail)

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        if not isinstance(auth_data, LoginPassword) or self._credentials is None:
            return AuthResult(success=False, handled=False)
        given = (auth_data.login.decode(), auth_data.password.decode())
        self.logins.append(given[0])
        return AuthResult(success=given == self._credentials, handled=False)


class _SmtpHandler:
    """aiosmtpd handler hooks: scripted refusals at RCPT or DATA, capture on success."""

    def __init__(self, fake: FakeSmtpServer) -> None:
        self._fake = fake

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        failure = self._fake.scripted_failure("rcpt")
        if failure is not None:
            return failure
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        failure = self._fake.scripted_failure("data")
        if failure is not None:
            return failure
        self._fake.capture(envelope)
        return "250 2.0.0 Message accepted for delivery"


class _PortZeroController(Controller):
    """aiosmtpd's Controller cannot bind port 0 by itself: its start-up check connects to the
    configured port. Reading the bound port first lets the OS pick a free one, race-free."""

    def __init__(self, handler: Any, **kwargs: Any) -> None:
        super().__init__(handler, port=0, **kwargs)

    def _trigger_server(self) -> None:
        server = cast(asyncio.Server, self.server)
        self.port = server.sockets[0].getsockname()[1]
        super()._trigger_server()


def free_port() -> int:
    """A port with nothing listening on it right now (for "connection refused" tests)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
