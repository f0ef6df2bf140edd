"""Settings, all read from the environment (see the table in README.md).

A malformed value stops start-up with a message naming the variable. With ``DATABASE_URL``
and ``REDIS_URL`` unset the embedded servers of ``core/infra.py`` are used.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from core import infra
from core.env import (
    ImproperlyConfiguredEnv,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_optional,
    env_str,
    env_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", True)
_DEV_SECRET = "dev-only-insecure-secret-key-change-me-in-production-0123456789"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfiguredEnv("SECRET_KEY", "must be set when DEBUG is false")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", ".localhost", "127.0.0.1"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# -- infrastructure ----------------------------------------------------------------------------

_database_url = env_url("DATABASE_URL", ("postgres", "postgresql"))
_redis_url = env_url("REDIS_URL", ("redis", "rediss", "unix"))
if _database_url is None or _redis_url is None:
    # Only the addresses are resolved here; manage.py, make run and the test fixture start the
    # servers (core/infra.py), so importing settings never forks a database.
    _embedded = infra.default_infra().urls()
    _database_url = _database_url or _embedded.database_url
    _redis_url = _redis_url or _embedded.redis_url
DATABASE_URL: str = _database_url
REDIS_URL: str = _redis_url
USES_EMBEDDED_INFRA = env_optional("DATABASE_URL") is None or env_optional("REDIS_URL") is None


# -- the database connection budget of one process (docs/operations.md) -----------------------
# Django's ASGI handler runs each HTTP request's sync code on a thread of its own; a persistent
# connection per such thread outlived the thread (one leaked connection per request until a GC
# pass: a burst of logins exhausted PostgreSQL for every tenant). So connections come from a
# bounded psycopg pool per process (Django's OPTIONS["pool"]) and go back to it when a request,
# a WebSocket database call or a task ends; the HTTP admission limit (core/admission.py) keeps
# request threads below the pool's size, and waiting requests hold no thread and no connection.
# daphne's own executor (WebSocket database calls) has ASGI_THREADS threads, Python's default
# when the variable is unset.
ASGI_THREADS = env_int("ASGI_THREADS", min(32, (os.cpu_count() or 1) + 4), minimum=1)
WEB_MAX_CONCURRENT_REQUESTS = env_int("WEB_MAX_CONCURRENT_REQUESTS", 8, minimum=1)
# A waiting request is refused only when its expected wait (requests ahead x observed service
# time / concurrency) passes WEB_QUEUE_TIMEOUT_SECONDS (core/admission.py); the count of waiting
# requests is only a memory cap (each holds a socket and a few kilobytes, no thread).
WEB_MAX_QUEUED_REQUESTS = env_int("WEB_MAX_QUEUED_REQUESTS", 2000, minimum=0)
WEB_QUEUE_TIMEOUT_SECONDS = env_float("WEB_QUEUE_TIMEOUT_SECONDS", 10.0, minimum=0.0)
# Web: one connection per admitted request plus one per executor thread. Workers raise it to
# their concurrency at start-up (core/celery.py).
DB_POOL_MAX_SIZE = env_int(
    "DB_POOL_MAX_SIZE", WEB_MAX_CONCURRENT_REQUESTS + ASGI_THREADS, minimum=1
)
DB_POOL_MIN_SIZE = env_int("DB_POOL_MIN_SIZE", 2, minimum=0)
if DB_POOL_MIN_SIZE > DB_POOL_MAX_SIZE:
    raise ImproperlyConfiguredEnv("DB_POOL_MIN_SIZE", "must not exceed DB_POOL_MAX_SIZE")
# How long a thread waits for a pooled connection before its request fails (503).
DB_POOL_TIMEOUT_SECONDS = env_float("DB_POOL_TIMEOUT_SECONDS", 10.0, minimum=0.1)
# Idle connections above the minimum are closed after this long.
DB_POOL_MAX_IDLE_SECONDS = env_float("DB_POOL_MAX_IDLE_SECONDS", 60.0, minimum=1.0)
DB_CONNECTIONS_PER_WEB_PROCESS = DB_POOL_MAX_SIZE
# A connection attempt to a server that does not answer gives up after this (libpq's own
# default waits forever), so a pool refills, and /readyz answers, while PostgreSQL is away.
DB_CONNECT_TIMEOUT_SECONDS = env_int("DB_CONNECT_TIMEOUT_SECONDS", 5, minimum=1)


def _process_role() -> str:
    """web, worker, beat or manage: shown as the connections' application_name, so an operator
    sees in pg_stat_activity which kind of process holds them."""
    argv = " ".join(os.path.basename(a) for a in sys.argv[:3])
    if "daphne" in argv or "serve.py" in argv:  # python -m core.serve: daphne's launcher
        return "web"
    if "celery" in argv:
        return "beat" if "beat" in argv else "worker"
    return "manage"


def _database_from_url(url: str) -> dict[str, object]:
    parts = urlsplit(url)
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfiguredEnv("DATABASE_URL", "must name a database (…/dbname)")
    return {
        "ENGINE": "django_tenants.postgresql_backend",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        # The pool keeps connections; Django must close (return) them after each request.
        "CONN_MAX_AGE": 0,
        # With a pool this makes Django's pool try each connection before handing it out
        # (psycopg_pool's check_connection), so a PostgreSQL restart costs no request.
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {
            "application_name": f"countersign-{_process_role()}",
            "connect_timeout": DB_CONNECT_TIMEOUT_SECONDS,
            "pool": {
                "min_size": DB_POOL_MIN_SIZE,
                "max_size": DB_POOL_MAX_SIZE,
                "timeout": DB_POOL_TIMEOUT_SECONDS,
                "max_idle": DB_POOL_MAX_IDLE_SECONDS,
            },
        },
    }


DATABASES = {"default": _database_from_url(DATABASE_URL)}
DATABASE_ROUTERS = ("django_tenants.routers.TenantSyncRouter",)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# -- apps and tenancy --------------------------------------------------------------------------

SHARED_APPS = [
    "daphne",
    "django_tenants",
    "tenants",
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.admin",
    "django.contrib.staticfiles",
    "django_celery_beat",
    "channels",
]
# Users, sessions and admin live in every tenant schema: each tenant has its own accounts.
TENANT_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.admin",
    "knowledge",
    "actions",
    "chat",
    "notifications",
]
INSTALLED_APPS = SHARED_APPS + [app for app in TENANT_APPS if app not in SHARED_APPS]

TENANT_MODEL = "tenants.Tenant"
TENANT_DOMAIN_MODEL = "tenants.Domain"
PUBLIC_SCHEMA_NAME = "public"
PUBLIC_SCHEMA_URLCONF = "config.urls_public"
ROOT_URLCONF = "config.urls_tenant"
SHOW_PUBLIC_IF_NO_TENANT_FOUND = False
# `SET search_path` once per connection checkout and schema switch, not before every query (it
# was 20 of a turn's 45 statements). Safe since django-tenants 4.0.1, which forgets the path it
# set when a rollback or a savepoint rollback reverts it (tests/tenants/test_search_path.py).
TENANT_LIMIT_SET_CALLS = True
# The platform's own host (its admin manages tenants); tenants are created with their domains.
PLATFORM_DOMAIN = env_str("PLATFORM_DOMAIN", "platform.localhost")
# Where the platform landing page links for documentation (empty: it names the docs/ folder).
DOCS_URL = env_str("DOCS_URL", "")

MIDDLEWARE = [
    "core.tracing.TracingMiddleware",  # steps aside unless OTEL_ENABLED
    "core.health.HealthCheckMiddleware",
    # Static files (the pages' CSS and JS, the admin's) on every host, before tenant lookup.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "tenants.middleware.TenantMiddleware",  # django-tenants', case-insensitive hosts
    "notifications.link_origin.LinkOriginMiddleware",  # steps aside unless DEBUG
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # 413, not Django's 400 that signed people out, for a body over DATA_UPLOAD_MAX_MEMORY_SIZE.
    "core.bodylimit.RequestTooLargeMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

ASGI_APPLICATION = "config.asgi.application"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / ".data" / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
# WhiteNoise serves static files from the app folders directly (no collectstatic step needed
# for `make run`, tests or a small deployment); behind a CDN or proxy, run collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / ".data" / "media")))
MEDIA_URL = "media/"

from redis.asyncio.retry import Retry as _AsyncRetry  # noqa: E402
from redis.backoff import ExponentialBackoff as _ExponentialBackoff  # noqa: E402
from redis.exceptions import ConnectionError as _RedisConnectionError  # noqa: E402

# -- cache, channels, celery (all on REDIS_URL, every key tenant-prefixed) ---------------------

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "cache",
        # django-tenants prefixes each key with the current schema.
        "KEY_FUNCTION": "django_tenants.cache.make_key",
        "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
    }
}

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            # redis-py 8 defaults to a 5 s socket timeout, the same as channels-redis's
            # blocking-pop timeout: the read would race the pop and fail. Give it headroom.
            # After a Redis restart every pooled connection is dead: retry a failed command on
            # a fresh connection (up to ~3 s of backoff) instead of failing every socket's
            # receive at once; a socket whose receive still fails closes 4503
            # (chat/consumers.py) so its client reconnects and replays.
            "hosts": [
                {
                    "address": REDIS_URL,
                    "socket_timeout": 30,
                    "retry": _AsyncRetry(_ExponentialBackoff(cap=1.0, base=0.1), 5),
                    "retry_on_error": [_RedisConnectionError],
                    "health_check_interval": 15,
                }
            ],
            "prefix": "cs:channels",
            "capacity": 1000,
        },
    }
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A broker restart never stops a worker: it reconnects for as long as it takes (Celery's default
# gives up after 100 tries and exits), and a kombu bug on the way no longer stops it
# (core/celery.py _BrokerChannel). Tasks running meanwhile go on (their acknowledgement
# may be lost with the old connection: they then come back after the visibility timeout and
# find their reply stored).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# Storing a task's state retries through a short Redis outage instead of failing the task.
CELERY_RESULT_BACKEND_ALWAYS_RETRY = True
CELERY_RESULT_BACKEND_MAX_RETRIES = 10
CELERY_REDIS_SOCKET_TIMEOUT = 10.0
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 5.0
CELERY_REDIS_RETRY_ON_TIMEOUT = True
CELERY_REDIS_BACKEND_HEALTH_CHECK_INTERVAL = 15
# How long Redis waits before handing an unacknowledged task to another worker. Short: a live
# worker renews the lease of every task it holds (core/leases.py), so only a dead worker's
# tasks ever reach it, and they come back within this plus CELERY_RESTORE_INTERVAL.
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 30, minimum=3)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    "global_keyprefix": "cs:celery:",
    # Look for unacknowledged tasks past their visibility timeout every N seconds (kombu's own
    # default scans only every tenth check, ~100 s, which delays a crashed worker's turn). Every
    # live worker sweeps, so a dead worker's task is back within the timeout plus this.
    "unacked_restore_interval": env_int("CELERY_RESTORE_INTERVAL", 5, minimum=1),
    "unacked_restore_throttle": 1,
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"global_keyprefix": "cs:celery:"}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_WORKER_CONCURRENCY = env_int("CELERY_WORKER_CONCURRENCY", 32, minimum=1)
CELERY_TASK_ALWAYS_EAGER = False

# -- security ----------------------------------------------------------------------------------

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("TRUST_X_FORWARDED_PROTO", False) else None
)
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True

# -- logging -----------------------------------------------------------------------------------

LOG_LEVEL = env_choice("LOG_LEVEL", "info", ("debug", "info", "warning", "error")).upper()
# json: one JSON object per line with tenant, user, conversation and run ids (core/logs.py).
LOG_FORMAT = env_choice("LOG_FORMAT", "plain", ("plain", "json"))
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "core.logs.JsonFormatter"},
    },
    # A refusal (4xx) is one line: core.logs.ClientErrorsWithoutTraceback says why.
    "filters": {"client_errors": {"()": "core.logs.ClientErrorsWithoutTraceback"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["client_errors"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Django's own default gives "django" a DEBUG-only plain console of its own: none here,
        # so its records reach the root's handler and "Not Found: /x" is JSON like every other
        # line under LOG_FORMAT=json.
        "django": {"handlers": [], "level": LOG_LEVEL, "propagate": True},
        "django.db.backends": {"level": "WARNING"},
        "daphne": {"level": "INFO"},
    },
}

# -- observability -----------------------------------------------------------------------------
# /metrics (core/metrics.py): every web and worker process of a machine writes its samples to
# files in PROMETHEUS_MULTIPROC_DIR and a scrape of any web process adds them up. The variable
# must be in the environment before prometheus_client is first imported, hence set here.
PROMETHEUS_MULTIPROC_DIR = Path(
    env_str("PROMETHEUS_MULTIPROC_DIR", str(infra.default_infra().metrics_dir))
)
try:
    PROMETHEUS_MULTIPROC_DIR.mkdir(parents=True, exist_ok=True)
except OSError as _error:
    raise ImproperlyConfiguredEnv(
        "PROMETHEUS_MULTIPROC_DIR", f"must be a writable folder: {_error.strerror}"
    ) from None
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(PROMETHEUS_MULTIPROC_DIR)
# A scrape must send "Authorization: Bearer <METRICS_TOKEN>" when it is set; when unset, only
# loopback and private addresses may scrape, unless METRICS_ALLOW_INTERNAL is false.
METRICS_TOKEN = env_optional("METRICS_TOKEN")
METRICS_ALLOW_INTERNAL = env_bool("METRICS_ALLOW_INTERNAL", True)
# Estimated cost: price per million tokens, one pair for every model (in any currency).
LLM_PRICE_INPUT_PER_MTOK = env_float("LLM_PRICE_INPUT_PER_MTOK", 0.0, minimum=0.0)
LLM_PRICE_OUTPUT_PER_MTOK = env_float("LLM_PRICE_OUTPUT_PER_MTOK", 0.0, minimum=0.0)
# Tracing (core/tracing.py): on with OTEL_ENABLED, or when an OTLP endpoint is configured.
OTEL_ENABLED = env_bool("OTEL_ENABLED", env_optional("OTEL_EXPORTER_OTLP_ENDPOINT") is not None)

# -- actions -----------------------------------------------------------------------------------
# Delivery backends per channel (actions/delivery): `outbox` stores the message and marks it
# sent without contacting anyone, `console` also prints it, the others reach a real provider.
# Checked by actions.apps at start-up of every process, so a missing token or a bad URL stops
# it instead of the first approval (settings import no product app).

ACTIONS_SMS_BACKEND = env_choice("ACTIONS_SMS_BACKEND", "outbox", ("outbox", "console", "twilio"))
ACTIONS_TELEGRAM_BACKEND = env_choice(
    "ACTIONS_TELEGRAM_BACKEND", "outbox", ("outbox", "console", "telegram")
)
ACTIONS_EMAIL_BACKEND = env_choice("ACTIONS_EMAIL_BACKEND", "outbox", ("outbox", "console", "smtp"))
# Provider settings, in the names actions.delivery.build_backend reads (e-mail ones are also
# Django's own, so Django's mail uses the same relay).
ACTIONS_DELIVERY_CONFIG: dict[str, str] = {
    name: env_str(name, default)
    for name, default in (
        ("TWILIO_ACCOUNT_SID", ""),
        ("TWILIO_AUTH_TOKEN", ""),
        ("TWILIO_FROM_NUMBER", ""),
        ("TWILIO_BASE_URL", "https://api.twilio.com"),
        ("TWILIO_TIMEOUT", "10"),
        ("TELEGRAM_BOT_TOKEN", ""),
        ("TELEGRAM_BASE_URL", "https://api.telegram.org"),
        ("TELEGRAM_TIMEOUT", "10"),
        ("EMAIL_HOST", "localhost"),
        ("EMAIL_PORT", "25"),
        ("EMAIL_HOST_USER", ""),
        ("EMAIL_HOST_PASSWORD", ""),
        ("EMAIL_USE_TLS", "false"),
        ("EMAIL_USE_SSL", "false"),
        ("EMAIL_TIMEOUT", "10"),
        ("DEFAULT_FROM_EMAIL", "countersign@localhost"),
        # Inbound replies ("YES 4821", /hooks/<channel>/inbound): the secret each provider
        # signs its webhook calls with. Empty: that channel's webhook refuses every call (403).
        ("SMS_INBOUND_SECRET", ""),
        ("TELEGRAM_INBOUND_SECRET", ""),
    )
}
ACTIONS_BACKENDS = {
    "sms": ACTIONS_SMS_BACKEND,
    "telegram": ACTIONS_TELEGRAM_BACKEND,
    "email": ACTIONS_EMAIL_BACKEND,
}

EMAIL_HOST = ACTIONS_DELIVERY_CONFIG["EMAIL_HOST"]
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = ACTIONS_DELIVERY_CONFIG["EMAIL_HOST_USER"]
EMAIL_HOST_PASSWORD = ACTIONS_DELIVERY_CONFIG["EMAIL_HOST_PASSWORD"]
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
DEFAULT_FROM_EMAIL = ACTIONS_DELIVERY_CONFIG["DEFAULT_FROM_EMAIL"]

# Transient provider failures are retried with exponential backoff (jittered), up to a total
# of ACTIONS_DELIVERY_MAX_ATTEMPTS sends; then the message is marked failed with the error.
ACTIONS_DELIVERY_MAX_ATTEMPTS = env_int("ACTIONS_DELIVERY_MAX_ATTEMPTS", 5, minimum=1)
ACTIONS_RETRY_BASE_SECONDS = env_float("ACTIONS_RETRY_BASE_SECONDS", 2.0, minimum=0.001)
ACTIONS_RETRY_MAX_SECONDS = env_float("ACTIONS_RETRY_MAX_SECONDS", 300.0, minimum=0.001)
# A message in ``sending`` this long after its attempt began was abandoned by a dead worker:
# it is marked failed ("delivery unknown"), never sent again. Keep it above every provider
# timeout (TWILIO_TIMEOUT, TELEGRAM_TIMEOUT, EMAIL_TIMEOUT: 10 s by default).
ACTIONS_SENDING_ABANDONED_SECONDS = env_int("ACTIONS_SENDING_ABANDONED_SECONDS", 30, minimum=1)
# A message still ``queued`` this long after it was created (or after its retry was due) lost
# its delivery task (a worker died between taking it and acknowledging it): the reminder poll
# queues it again. Harmless for a task that is only slow: the send's claim lets one through.
ACTIONS_QUEUED_STALE_SECONDS = env_int("ACTIONS_QUEUED_STALE_SECONDS", 120, minimum=1)
# How often beat looks for due reminders (only used when the schedule row is first created;
# afterwards edit it in the platform admin).
ACTIONS_REMINDER_POLL_SECONDS = env_int("ACTIONS_REMINDER_POLL_SECONDS", 30, minimum=1)
# Country assumed for phone numbers typed without "+" (ISO code such as "KR"); empty: "+" needed.
ACTIONS_PHONE_REGION = env_str("ACTIONS_PHONE_REGION", "").upper()


def _check_phone_region() -> None:
    import phonenumbers

    if ACTIONS_PHONE_REGION and ACTIONS_PHONE_REGION not in phonenumbers.SUPPORTED_REGIONS:
        raise ImproperlyConfiguredEnv(
            "ACTIONS_PHONE_REGION",
            f"must be an ISO country code such as KR or GB, got {ACTIONS_PHONE_REGION!r}",
        )


_check_phone_region()

# -- notifications -----------------------------------------------------------------------------
# Approvers hear of pending actions through their chosen channel (notifications/, see
# docs/notifications.md), at most one message per approver per this many seconds: a digest.
APPROVAL_NOTIFY_INTERVAL_SECONDS = env_int("APPROVAL_NOTIFY_INTERVAL_SECONDS", 60, minimum=1)
# Links in those messages point at the tenant's primary domain with this scheme, and this port
# when the server is not on the scheme's default one (local development: empty in production).
APPROVAL_NOTIFY_LINK_SCHEME = env_choice("APPROVAL_NOTIFY_LINK_SCHEME", "https", ("https", "http"))
APPROVAL_NOTIFY_LINK_PORT = env_int("APPROVAL_NOTIFY_LINK_PORT", 0, minimum=0)
if APPROVAL_NOTIFY_LINK_PORT > 65535:
    raise ImproperlyConfiguredEnv("APPROVAL_NOTIFY_LINK_PORT", "must be a port number (or 0: none)")
# An e-mail's approve/reject/open links (notifications/decision_links.py) stop working when
# their action expires, and at the latest this many days after the e-mail was written.
APPROVAL_LINK_MAX_DAYS = env_int("APPROVAL_LINK_MAX_DAYS", 7, minimum=1)

# -- chat ----------------------------------------------------------------------------------------

# Any OpenAI-compatible endpoint (OpenAI, Gemini, vLLM, Ollama, llama.cpp); unset: offline model.
LLM_BASE_URL = env_url("LLM_BASE_URL", ("http", "https"))
LLM_API_KEY = env_optional("LLM_API_KEY")
LLM_MODEL = env_str("LLM_MODEL", "gpt-4o-mini")
LLM_TEMPERATURE = env_float("LLM_TEMPERATURE", 0.2, minimum=0.0)
LLM_TIMEOUT_SECONDS = env_int("LLM_TIMEOUT_SECONDS", 60, minimum=1)
CHAT_MAX_MESSAGE_CHARS = env_int("CHAT_MAX_MESSAGE_CHARS", 4000, minimum=1)
SQL_MAX_RETRIES = env_int("SQL_MAX_RETRIES", 3, minimum=0)
RECURSION_LIMIT = env_int("RECURSION_LIMIT", 12, minimum=4)
QUERY_DATA_ROW_LIMIT = env_int("QUERY_DATA_ROW_LIMIT", 200, minimum=1)
QUERY_DATA_TIMEOUT_MS = env_int("QUERY_DATA_TIMEOUT_MS", 2000, minimum=10)
# Answers to standalone knowledge questions, reused until a document or the prompt changes
# (chat/services/answer_cache.py); each tenant can also switch it off in its admin.
ANSWER_CACHE_ENABLED = env_bool("ANSWER_CACHE_ENABLED", True)
ANSWER_CACHE_TTL_SECONDS = env_int("ANSWER_CACHE_TTL_SECONDS", 24 * 3600, minimum=1)

# -- knowledge ---------------------------------------------------------------------------------
# Knowledge base (knowledge/): embeddings, chunking, uploads, retrieval. See README.md.

EMBEDDINGS_BACKEND = env_choice("EMBEDDINGS_BACKEND", "local", ("local", "openai"))
EMBEDDINGS_BASE_URL = env_optional("EMBEDDINGS_BASE_URL")
EMBEDDINGS_MODEL = env_optional("EMBEDDINGS_MODEL")
EMBEDDINGS_API_KEY = env_optional("EMBEDDINGS_API_KEY")
# The chunk table stores vector(384) (knowledge/models.py); another size needs a migration.
EMBEDDINGS_DIMENSIONS = env_int("EMBEDDINGS_DIMENSIONS", 384, minimum=1)
EMBEDDINGS_BATCH_SIZE = env_int("EMBEDDINGS_BATCH_SIZE", 32, minimum=1)
KB_CHUNK_SIZE = env_int("KB_CHUNK_SIZE", 1200, minimum=100)
KB_CHUNK_OVERLAP = env_int("KB_CHUNK_OVERLAP", 150, minimum=0)
if KB_CHUNK_OVERLAP >= KB_CHUNK_SIZE:
    raise ImproperlyConfiguredEnv("KB_CHUNK_OVERLAP", "must be smaller than KB_CHUNK_SIZE")
KB_MAX_UPLOAD_BYTES = env_int("KB_MAX_UPLOAD_BYTES", 10 * 1024 * 1024, minimum=1)
KB_WEAK_DISTANCE = env_float("KB_WEAK_DISTANCE", 0.2, minimum=0.0)
KB_CANDIDATES = env_int("KB_CANDIDATES", 40, minimum=1)
KB_REINDEX_EVERY_SECONDS = env_int("KB_REINDEX_EVERY_SECONDS", 900, minimum=60)
KB_HNSW_EF_SEARCH = env_int("KB_HNSW_EF_SEARCH", 100, minimum=1)
# Query embeddings kept per process (0: no cache at all) and in Redis (knowledge/query_cache.py).
KB_QUERY_CACHE_SIZE = env_int("KB_QUERY_CACHE_SIZE", 2048, minimum=0)
KB_QUERY_CACHE_TTL_SECONDS = env_int("KB_QUERY_CACHE_TTL_SECONDS", 7 * 24 * 3600, minimum=1)
# Every connection asks HNSW for more candidates than pgvector's default 40, so that a
# filtered search (inactive documents, tags) still fills its candidate list.
_db_options = DATABASES["default"].setdefault("OPTIONS", {})
assert isinstance(_db_options, dict)
_db_options["options"] = f"-c hnsw.ef_search={KB_HNSW_EF_SEARCH}"
# -- end of knowledge -------------------------------------------------------------------------

# A SELECT-only database role query_data switches to when it exists (see docs/deployment.md).
QUERY_DATA_DB_ROLE = env_str("QUERY_DATA_DB_ROLE", "countersign_reader")
# How often an open SSE stream re-checks that its token and user are still valid (a revoked
# WebSocket is told at once through the channel layer and re-checks on every frame).
SESSION_RECHECK_SECONDS = env_float("SESSION_RECHECK_SECONDS", 5.0, minimum=0.5)
# Realtime: the per-conversation event log (Redis Stream) and streaming.
CHAT_EVENT_LOG_MAX = env_int("CHAT_EVENT_LOG_MAX", 5000, minimum=100)
CHAT_EVENT_LOG_TTL_SECONDS = env_int("CHAT_EVENT_LOG_TTL_SECONDS", 7 * 24 * 3600, minimum=60)
# Token frames leave at most once per this many ms per conversation (the first at once), and
# the worker reads the model's stream as often (chat/agent/llm.py): 10 frames/s still reads as
# smooth streaming, and each frame and each read costs CPU in the worker and every web process.
CHAT_TOKEN_FLUSH_MS = env_int("CHAT_TOKEN_FLUSH_MS", 100, minimum=0)
# How often beat looks for overdue pending actions to expire (only used when the schedule row is
# first created; afterwards edit it in the platform admin). A decision on an overdue action is
# refused whenever it comes, so this only bounds how late the conversation is told.
CHAT_ACTION_EXPIRY_POLL_SECONDS = env_int("CHAT_ACTION_EXPIRY_POLL_SECONDS", 60, minimum=1)
# An approved action whose resume has not claimed it this long after the decision is resumed
# again (the Redis broker can lose a task whose worker is killed as it takes it); beat looks
# every half of this. Longer than a resume waits behind a running turn of its conversation.
CHAT_STRANDED_RESUME_SECONDS = env_int("CHAT_STRANDED_RESUME_SECONDS", 120, minimum=10)
# A stored message with no reply, no decision pending and no turn holding its conversation this
# long has its turn queued again (its run_turn was lost), at most CHAT_STRANDED_TURN_ATTEMPTS
# times, then it ends with the error reply; beat looks every half of this. Longer than a turn
# waits in a busy queue (its reservation lapses after CHAT_TURN_LOCK_SECONDS).
CHAT_STRANDED_TURN_SECONDS = env_int("CHAT_STRANDED_TURN_SECONDS", 120, minimum=10)
CHAT_STRANDED_TURN_ATTEMPTS = env_int("CHAT_STRANDED_TURN_ATTEMPTS", 3, minimum=1)
# A turn holds its conversation's lock this long without progress before another may take it.
# A running turn's conversation lock is renewed by its worker's lease thread, so it only
# expires this long after its worker died (then a redelivered copy takes over).
CHAT_TURN_LOCK_SECONDS = env_int("CHAT_TURN_LOCK_SECONDS", 30, minimum=2)
# How often a worker renews its task leases, conversation locks and heartbeat: three times per
# shortest lease, so one slow Redis round trip never lets a live worker's lease lapse.
CELERY_LEASE_RENEW_SECONDS = env_float(
    "CELERY_LEASE_RENEW_SECONDS",
    min(CELERY_VISIBILITY_TIMEOUT, CHAT_TURN_LOCK_SECONDS) / 3,
    minimum=0.1,
)
if min(CELERY_VISIBILITY_TIMEOUT, CHAT_TURN_LOCK_SECONDS) < CELERY_LEASE_RENEW_SECONDS * 2:
    raise ImproperlyConfiguredEnv(
        "CELERY_LEASE_RENEW_SECONDS",
        "must be at most half of CELERY_VISIBILITY_TIMEOUT and of CHAT_TURN_LOCK_SECONDS",
    )
# /readyz answers 503 when no worker has written a heartbeat lately.
READYZ_REQUIRE_WORKER = env_bool("READYZ_REQUIRE_WORKER", True)
# /readyz waits at most this for a database connection before it answers 503.
READYZ_DATABASE_TIMEOUT_SECONDS = env_float("READYZ_DATABASE_TIMEOUT_SECONDS", 2.0, minimum=0.1)
WS_MAX_FRAME_BYTES = env_int("WS_MAX_FRAME_BYTES", 64 * 1024, minimum=1024)
WS_RATE_LIMIT_PER_SECOND = env_float("WS_RATE_LIMIT_PER_SECOND", 20.0, minimum=0.1)
WS_RATE_LIMIT_BURST = env_int("WS_RATE_LIMIT_BURST", 40, minimum=1)
# Resolves "Authorization: Bearer <token>" to a user inside the current tenant schema.
BEARER_TOKEN_AUTHENTICATOR = "chat.tokens.user_for_token"
# The offline model pauses this long between chunks so its answer streams visibly.
OFFLINE_MODEL_CHUNK_MS = env_int("OFFLINE_MODEL_CHUNK_MS", 20, minimum=0)

# -- deployment (docs/deployment.md) -----------------------------------------------------------
# Production hardening that `manage.py check --deploy` asks for, all off by default so the
# development server keeps plain HTTP; .ci/run checks a production-like environment.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Where `collectstatic` puts the static files, for a proxy or CDN to serve. Without that step
# WhiteNoise (MIDDLEWARE above) serves them from daphne, straight from the apps.
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(STATIC_ROOT)))
# -- end of deployment ---------------------------------------------------------------------------
