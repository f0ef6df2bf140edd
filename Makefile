# Countersign — the two commands: `make run` and `make test`. See README.md.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
REQS := requirements/base.txt requirements/dev.txt requirements/constraints.txt
# The install stamp carries a hash of the requirement files: change one and `make` reinstalls.
STAMP := $(VENV)/.installed-$(shell cat $(REQS) 2>/dev/null | sha256sum | cut -c1-16)

.PHONY: install run test lint migrate bootstrap infra-up infra-down clean-data browsers

install: $(STAMP)

$(STAMP): $(REQS)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements/dev.txt -c requirements/constraints.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

infra-up: install
	@$(PY) manage.py infra up

infra-down: install
	@$(PY) manage.py infra down

migrate: infra-up
	@$(PY) manage.py migrate_schemas --executor=standard -v 0

bootstrap: migrate
	@$(PY) manage.py bootstrap_demo

# Everything in the foreground; one Ctrl-C stops web, workers, beat and the embedded servers.
# One worker process per core (WORKERS=1 for one): a process streams on one core (the GIL).
WORKERS ?= $(shell nproc 2>/dev/null || echo 1)
# Metric files of earlier runs would keep adding their counts (docs/operations.md): start empty.
run: bootstrap
	@rm -rf "$${PROMETHEUS_MULTIPROC_DIR:-.data/dev/metrics}"/*
	@trap '$(PY) manage.py infra down' EXIT; $(VENV)/bin/honcho -f Procfile.dev start -c worker=$(WORKERS) || true

# Debian's Chromium for the browser tests (tests/browser skip, saying so, when it is missing).
browsers:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium; fi; }

# One test process per core (pytest-xdist, whole files per process): most of the suite waits on
# servers, sockets and Chromium, so two processes use two cores. Each process has its own lane of
# the embedded servers (core/infra.py). The tests marked `alone` stop or restart those servers,
# so they run afterwards by themselves. Both parts always run; the first failure's code wins.
# Each prints its slowest tests: CI's wall time is a budget (issue 30: under 45 minutes).
# CI shows only the tail of the output, so a failure of the parallel part is named again at the
# very end (its short summary, kept in .data/test-parallel.log).
TEST_PROCESSES ?= $(shell nproc 2>/dev/null || echo 1)
TEST_LOG := .data/test-parallel.log
test: install
	@mkdir -p .data; \
	$(PY) -m pytest -n $(TEST_PROCESSES) --dist loadfile -m "not alone" --durations=30 2>&1 \
	  | tee $(TEST_LOG); parallel=$${PIPESTATUS[0]}; \
	$(PY) -m pytest -m alone --durations=10; alone=$$?; \
	if [ $$parallel -ne 0 ]; then \
	  echo "== the parallel part failed (exit $$parallel); its summary:"; \
	  sed -n '/short test summary info/,$$p' $(TEST_LOG) | grep -E '^(FAILED|ERROR)|^=+ .*(passed|failed|error)' \
	    || tail -n 40 $(TEST_LOG); \
	  exit $$parallel; fi; exit $$alone

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy .
	$(VENV)/bin/lint-imports

clean-data: install
	$(PY) manage.py infra down
	rm -rf .data
