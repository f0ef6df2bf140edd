"""The one parser of ``Authorization: Bearer`` headers."""

from __future__ import annotations

import pytest

from core.bearer import bearer_token


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("Bearer cs_abc", "cs_abc"),
        ("bearer cs_abc", "cs_abc"),
        ("BEARER   cs_abc  ", "cs_abc"),
    ],
)
def test_a_bearer_header_yields_its_token(header: str, token: str) -> None:
    assert bearer_token(header) == token


@pytest.mark.parametrize("header", ["", "Bearer", "Bearer    ", "Basic dXNlcjpwdw==", "cs_abc"])
def test_another_scheme_or_an_empty_token_yields_none(header: str) -> None:
    assert bearer_token(header) is None
