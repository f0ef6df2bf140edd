"""Settings, all read from the environment (see the table in README.md).

A malformed value stops start-up with a message naming the variable. With ``DATABASE_URL``
and ``REDIS_URL`` unset the embedded servers of ``config/infra.py`` are used.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from config import infra
from config.env import (
    ImproperlyConfiguredEnv,
    env_bool,
    env_choice,
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
    # servers (config/infra.py), so importing settings never forks a database.
    _embedded = infra.default_infra().urls()
    _database_url = _database_url or _embedded.database_url
    _redis_url = _redis_url or _embedded.redis_url
DATABASE_URL: str = _database_url
REDIS_URL: str = _redis_url
USES_EMBEDDED_INFRA = env_optional("DATABASE_URL") is None or env_optional("REDIS_URL") is None


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
        "CONN_MAX_AGE": env_int("DB_CONN_MAX_AGE", 60, minimum=0),
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {"application_name": "countersign"},
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
]
INSTALLED_APPS = SHARED_APPS + [app for app in TENANT_APPS if app not in SHARED_APPS]

TENANT_MODEL = "tenants.Tenant"
TENANT_DOMAIN_MODEL = "tenants.Domain"
PUBLIC_SCHEMA_NAME = "public"
PUBLIC_SCHEMA_URLCONF = "config.urls_public"
ROOT_URLCONF = "config.urls_tenant"
SHOW_PUBLIC_IF_NO_TENANT_FOUND = False
# The platform's own host (its admin manages tenants); tenants are created with their domains.
PLATFORM_DOMAIN = env_str("PLATFORM_DOMAIN", "platform.localhost")

MIDDLEWARE = [
    "config.health.HealthCheckMiddleware",
    "django_tenants.middleware.main.TenantMainMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
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
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / ".data" / "media")))
MEDIA_URL = "media/"

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
        "CONFIG": {"hosts": [REDIS_URL], "prefix": "cs:channels", "capacity": 1000},
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
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# How long Redis waits before handing an unacknowledged task to another worker.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=10),
    "global_keyprefix": "cs:celery:",
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
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "daphne": {"level": "INFO"},
    },
}
