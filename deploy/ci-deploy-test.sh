#!/usr/bin/env bash
# Deploys the checkout as docs/deployment.md says, against servers started outside the product,
# then runs tests/deploy/test_real_servers.py there. Run by .ci/run, beside `make lint`.
#
#   Redis       Debian's redis-server (AOF on, noeviction), its own process on a free port
#   PostgreSQL  the pgserver wheel's binaries (it bundles pgvector; Debian 12 ships none) run
#               as a plain server: initdb + pg_ctl, as an unprivileged user when we are root
#   nginx       Debian's nginx with deploy/nginx.conf, ports and certificate paths substituted
#               (a self-signed certificate for *.example.com)
#   the app     release (migrate_schemas), platform_create, tenant_create, two web processes
#               (python -m core.serve, as deploy/systemd), two workers, one beat, DEBUG=false,
#               LOG_FORMAT=json and the production settings of the guide
#
# Everything lives in one temporary folder and is stopped by the EXIT trap. Needs
# redis-server, nginx and openssl on PATH (.ci/run installs the first two).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=$ROOT/.venv/bin/python
started=$(date +%s)

WORK=$(mktemp -d /tmp/countersign-deploy.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/bin" "$WORK/logs" "$WORK/redis" "$WORK/nginx/tmp" "$WORK/metrics" "$WORK/media"
PIDS=()

free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PG_PORT=$(free_port); REDIS_PORT=$(free_port); WEB1=$(free_port); WEB2=$(free_port)
HTTP_PORT=$(free_port); HTTPS_PORT=$(free_port)
PG_BIN=$("$PY" -c 'import pathlib, pgserver; print(pathlib.Path(pgserver.__file__).parent / "pginstall" / "bin")')
PG_DATA=$WORK/pg

# PostgreSQL refuses to run as root: as root, run it as an unprivileged system user.
as_pg=()
if [ "$(id -u)" = 0 ]; then
  id countersign-pg >/dev/null 2>&1 || useradd --system --no-create-home countersign-pg
  mkdir -p "$PG_DATA" && chown countersign-pg "$PG_DATA"
  as_pg=(runuser -u countersign-pg --)
fi

cleanup() {
  status=$?
  set +e
  # The app's processes first, while Redis and PostgreSQL still answer (a worker's warm
  # shutdown acknowledges its tasks); 30 s, then SIGKILL, so a stuck one never hangs CI.
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for _ in $(seq 1 30); do
    alive=0
    for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 1
  done
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null
  redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1
  "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" stop -m fast >/dev/null 2>&1
  [ -d "$WORK/pytest-infra" ] && COUNTERSIGN_DATA_DIR="$WORK/pytest-infra" \
    "$PY" manage.py infra down >/dev/null 2>&1
  if [ "$status" != 0 ]; then
    echo "== deployment test failed; the servers' logs:"
    for log in "$WORK"/logs/*.log "$PG_DATA/server.log" "$WORK"/nginx/error.log; do
      [ -f "$log" ] && { echo "--- $log"; tail -n 40 "$log"; }
    done
  fi
  rm -rf "$WORK"
  echo "== deployment test: $(($(date +%s) - started)) s, exit $status"
}
trap cleanup EXIT
# Stopped from outside (.ci/run when its lint fails): clean up as on any exit.
trap 'exit 143' TERM INT

# --- the servers, as their own services ----------------------------------------------------
# Start and stop commands of their own, so the test restarts them the way an operator would.
cat >"$WORK/bin/pg-start" <<EOF
#!/bin/sh
exec ${as_pg[*]} "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -w \
  -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200" start >/dev/null
EOF
cat >"$WORK/bin/pg-stop" <<EOF
#!/bin/sh
exec ${as_pg[*]} "$PG_BIN/pg_ctl" -D "$PG_DATA" -w -m fast stop >/dev/null
EOF
cat >"$WORK/redis/redis.conf" <<EOF
port $REDIS_PORT
bind 127.0.0.1
dir $WORK/redis
appendonly yes
appendfsync everysec
maxmemory-policy noeviction
daemonize yes
pidfile $WORK/redis/redis.pid
logfile $WORK/logs/redis.log
EOF
cat >"$WORK/bin/redis-start" <<EOF
#!/bin/sh
redis-server "$WORK/redis/redis.conf" && until redis-cli -p $REDIS_PORT ping >/dev/null 2>&1; do sleep 0.1; done
EOF
cat >"$WORK/bin/redis-stop" <<EOF
#!/bin/sh
redis-cli -p $REDIS_PORT shutdown >/dev/null
EOF
chmod +x "$WORK"/bin/*

echo "== PostgreSQL (pgserver's binaries) on $PG_PORT, Redis $(redis-server --version | awk '{print $3}') on $REDIS_PORT"
"${as_pg[@]}" "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 >"$WORK/logs/initdb.log"
"$WORK/bin/pg-start"
"$WORK/bin/redis-start"

# docs/deployment.md, "PostgreSQL": the role and database, then the extension in that database.
psql() { "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -q "$@"; }
psql -d postgres -c "CREATE ROLE countersign LOGIN PASSWORD 'deploy-test' CREATEROLE" \
  -c "CREATE DATABASE countersign OWNER countersign"
psql -d countersign -c "CREATE EXTENSION IF NOT EXISTS vector"

# --- production settings (docs/deployment.md, "Production settings") -----------------------
export DEBUG=false
export SECRET_KEY="deploy-test-$("$PY" -c 'import secrets; print(secrets.token_urlsafe(50))')"
export DATABASE_URL="postgres://countersign:deploy-test@127.0.0.1:$PG_PORT/countersign"
export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
export ALLOWED_HOSTS=.example.com PLATFORM_DOMAIN=platform.example.com
export CSRF_TRUSTED_ORIGINS='https://*.example.com' TRUST_X_FORWARDED_PROTO=true
export SECURE_SSL_REDIRECT=true SECURE_HSTS_SECONDS=31536000
export SECURE_HSTS_INCLUDE_SUBDOMAINS=true SECURE_HSTS_PRELOAD=true
export CELERY_WORKER_CONCURRENCY=8 DB_POOL_MAX_SIZE=14
export MEDIA_ROOT=$WORK/media STATIC_ROOT=$WORK/static
export LOG_LEVEL=info LOG_FORMAT=json
export PROMETHEUS_MULTIPROC_DIR=$WORK/metrics METRICS_TOKEN=deploy-test-metrics
export READYZ_REQUIRE_WORKER=false   # web processes behind a load balancer (the guide says so)
export PYTHONUNBUFFERED=1
export PATH="$ROOT/.venv/bin:$PATH"

python manage.py check --deploy --fail-level WARNING
echo "== release: migrate_schemas"
python manage.py migrate_schemas --executor=standard -v 0
PLATFORM_ADMIN_PASSWORD="deploy-Test-$RANDOM-platform-pass" \
  python manage.py platform_create --domain platform.example.com --admin-email ops@example.com
python manage.py tenant_create acme --name "Acme School" --domain acme.example.com \
  --admin-email admin@example.com --admin-password "deploy-Test-$RANDOM-admin-pass"
# The guide's way to add staff and approvers is the tenant's Django admin (a person's job);
# the test adds them, their tokens, a knowledge document and a contact group in one shell.
python manage.py shell -v 0 -c "
from actions.models import Contact, ContactGroup
from chat.tokens import api_token_create
from django.contrib.auth.models import User
from django_tenants.utils import schema_context
from knowledge.indexing import kb_reindex
from knowledge.services import document_create_from_text
from tenants.roles import APPROVER, STAFF
from tenants.services import user_set_role
with schema_context('acme'):
    for name, role in (('staff', STAFF), ('approver', APPROVER)):
        user = User.objects.create_user(username=name, password='deploy-Test-user-pass-1')
        user_set_role(user=user, role=role)
        print(name.upper() + '_TOKEN=' + api_token_create(user=user, name='deploy-test')[1])
    document_create_from_text(title='Leave policy',
        text='# Leave\n\nAll staff receive twenty days of paid annual leave every year.')
    kb_reindex()
    group = ContactGroup.objects.create(name='Parents')
    Contact.objects.create(name='Parent', phone='+12025550100').groups.add(group)
" >"$WORK/tokens.env"

# --- the processes (the Procfile's commands, as deploy/systemd runs them) ------------------
python manage.py collectstatic --noinput -v 0
for port in "$WEB1" "$WEB2"; do
  python -m core.serve -b 127.0.0.1 -p "$port" --proxy-headers --ping-interval 20 \
    --ping-timeout 30 config.asgi:application >"$WORK/logs/web-$port.log" 2>&1 &
  PIDS+=($!)
done
WORKER_PIDS=()
for name in w1 w2; do
  celery -A config worker -P threads -l info --without-mingle --without-gossip -n "$name@%h" \
    >"$WORK/logs/worker-$name.log" 2>&1 &
  PIDS+=($!); WORKER_PIDS+=($!)
done
celery -A config beat -l info -s "$WORK/celerybeat-schedule" >"$WORK/logs/beat.log" 2>&1 &
PIDS+=($!)

# --- nginx with the sample site ---------------------------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=*.example.com" \
  -addext "subjectAltName=DNS:*.example.com,DNS:example.com" \
  -keyout "$WORK/nginx/privkey.pem" -out "$WORK/nginx/fullchain.pem" 2>/dev/null
sed -e "s|127.0.0.1:8001|127.0.0.1:$WEB1|; s|127.0.0.1:8002|127.0.0.1:$WEB2|" \
  -e "s|listen 80;|listen 127.0.0.1:$HTTP_PORT;|; s|listen 443 ssl|listen 127.0.0.1:$HTTPS_PORT ssl|" \
  -e "s|/etc/ssl/countersign/|$WORK/nginx/|" \
  deploy/nginx.conf >"$WORK/nginx/site.conf"
grep -q "$WEB1" "$WORK/nginx/site.conf" && grep -q "$HTTPS_PORT" "$WORK/nginx/site.conf"
nginx_user=""
[ "$(id -u)" = 0 ] && nginx_user="user root;"   # its temporary folders are ours
cat >"$WORK/nginx/nginx.conf" <<EOF
$nginx_user
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log $WORK/logs/nginx-access.log;
    client_body_temp_path $WORK/nginx/tmp/body;
    proxy_temp_path $WORK/nginx/tmp/proxy;
    fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
    uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
    scgi_temp_path $WORK/nginx/tmp/scgi;
    include $WORK/nginx/site.conf;
}
EOF
nginx -e "$WORK/nginx/error.log" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf"

# Ready when both web processes answer and both workers said "ready" (5 minutes at most: a
# loaded 2-core machine takes a while to import everything four times).
deployed() {
  for port in "$WEB1" "$WEB2"; do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || return 1; done
  grep -q "ready" "$WORK/logs/worker-w1.log" && grep -q "ready" "$WORK/logs/worker-w2.log"
}
for _ in $(seq 1 300); do deployed && break; sleep 1; done
deployed || { echo "== the processes did not start"; exit 1; }

echo "== deployed in $(($(date +%s) - started)) s; running tests/deploy/test_real_servers.py"
# The test process talks to the deployment only through nginx, the web ports and the bin/
# scripts; its own settings are the suite's (no database of its own is created). The embedded
# servers every pytest process starts are its own too (COUNTERSIGN_DATA_DIR): .ci/run runs the
# suite at the same time, and a process that started the suite's would stop them when done.
env -u DEBUG -u SECRET_KEY -u DATABASE_URL -u REDIS_URL -u ALLOWED_HOSTS -u LOG_FORMAT \
  -u PROMETHEUS_MULTIPROC_DIR -u READYZ_REQUIRE_WORKER -u SECURE_SSL_REDIRECT \
  COUNTERSIGN_DEPLOY_TEST=1 COUNTERSIGN_DATA_DIR="$WORK/pytest-infra" \
  DEPLOY_HTTPS_PORT="$HTTPS_PORT" DEPLOY_WEB_PORTS="$WEB1,$WEB2" DEPLOY_HOST=acme.example.com \
  DEPLOY_BIN="$WORK/bin" DEPLOY_WORKER_PIDS="$(IFS=,; echo "${WORKER_PIDS[*]}")" \
  DEPLOY_LOGS="$WORK/logs" \
  $(cat "$WORK/tokens.env" | sed 's/^/DEPLOY_/') \
  "$PY" -m pytest tests/deploy/test_real_servers.py -p no:cacheprovider -q -m deploy "$@"
