"""Deployment tests. ``test_access_log`` runs a real daphne through the suite's own fixtures
(those of ``tests/e2e/conftest.py``, imported so pytest finds them here); ``test_real_servers``
runs only inside ``deploy/ci-deploy-test.sh``, against servers started outside the product."""

from tests.e2e.conftest import stack_env  # noqa: F401 - a fixture, found by pytest through this import
