"""Fault tests run the real processes of tests/e2e: daphne, Celery workers, the embedded servers.

The fixtures are those of ``tests/e2e/conftest.py``, imported so pytest finds them here too,
except ``processes``: each module here gets daphne and a worker of its own, because a restart
of PostgreSQL or Redis (or a killed process) must not leave its marks on the next module.
"""

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import (  # noqa: F401 - fixtures, found by pytest through this import
    alpha,
    beta,
    server_env,
    stack_env,
    web,
    worker,
)
from tests.e2e.processes import SharedProcesses


@pytest.fixture(scope="module")
def processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedProcesses]:
    own = SharedProcesses(tmp_path_factory.mktemp("servers"))
    yield own
    own.stop()
