"""Fault tests run the real processes of tests/e2e: daphne, Celery workers, the embedded servers.

The fixtures are those of ``tests/e2e/conftest.py``, imported so pytest finds them here too.
"""

from tests.e2e.conftest import (  # noqa: F401 - fixtures, found by pytest through this import
    alpha,
    beta,
    server_env,
    stack_env,
    web,
    worker,
)
