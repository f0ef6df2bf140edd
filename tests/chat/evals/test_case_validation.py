"""A case edited in admin is held to the case file format."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from chat.evals.models import EvalCase, EvalCaseSet


def test_a_case_with_an_unknown_expectation_does_not_validate(smoke_set: EvalCaseSet) -> None:
    case = EvalCase(case_set=smoke_set, key="k1", messages=["hi"], expect={"replies_with": "hello"})

    with pytest.raises(ValidationError, match=r"expect\.replies_with"):
        case.full_clean()
