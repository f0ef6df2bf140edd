"""normalize_e164: the one form phone numbers are stored and sent in."""

from __future__ import annotations

import pytest

from actions.phone import InvalidPhoneNumber, normalize_e164


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("+1 650-253-0000", "+16502530000"),
        ("+44 7911 123456", "+447911123456"),
        ("  +44 (0)7911 123456 ", "+447911123456"),
    ],
)
def test_international_numbers_are_normalized(raw: str, expected: str) -> None:
    assert normalize_e164(raw) == expected


def test_a_national_number_uses_the_default_region() -> None:
    assert normalize_e164("07911 123456", default_region="GB") == "+447911123456"


def test_the_default_region_is_case_insensitive() -> None:
    assert normalize_e164("07911 123456", default_region="gb") == "+447911123456"


def test_a_plus_number_ignores_the_default_region() -> None:
    assert normalize_e164("+1 650 253 0000", default_region="GB") == "+16502530000"


def test_invalid_phone_is_rejected_with_reason() -> None:
    with pytest.raises(InvalidPhoneNumber, match="'hello' is not a phone number"):
        normalize_e164("hello")


def test_a_national_number_without_region_asks_for_a_country_code() -> None:
    with pytest.raises(InvalidPhoneNumber, match="has no country code; start it with \\+"):
        normalize_e164("07911 123456")


def test_an_unknown_country_code_is_named() -> None:
    with pytest.raises(InvalidPhoneNumber, match="unknown country code"):
        normalize_e164("+999 1234567")


def test_a_short_number_is_rejected_as_too_short() -> None:
    with pytest.raises(InvalidPhoneNumber, match="too short"):
        normalize_e164("+1 555")


def test_a_long_number_is_rejected_as_too_long() -> None:
    with pytest.raises(InvalidPhoneNumber, match="too long"):
        normalize_e164("+44 7911 1234567890")


def test_a_number_not_in_use_is_rejected() -> None:
    with pytest.raises(InvalidPhoneNumber, match="not a number in use"):
        normalize_e164("+1 200 123 4567")


def test_an_empty_number_is_rejected() -> None:
    with pytest.raises(InvalidPhoneNumber, match="required"):
        normalize_e164("   ")


def test_an_invalid_phone_number_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        normalize_e164("hello")


def test_an_unknown_default_region_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="unknown default region 'XX'") as caught:
        normalize_e164("07911 123456", default_region="XX")

    assert not isinstance(caught.value, InvalidPhoneNumber)
