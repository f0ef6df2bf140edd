"""Phone numbers in the one form the SMS provider and the contacts table both store: E.164.

Built on Google's libphonenumber port (``phonenumbers``), a hard dependency on purpose: a
hand-rolled fallback would accept numbers the real rules reject, so behaviour would depend on
what happened to be installed.
"""

from __future__ import annotations

import phonenumbers
from phonenumbers import NumberParseException, PhoneNumberFormat, ValidationResult

_PARSE_REASONS: dict[int, str] = {
    NumberParseException.INVALID_COUNTRY_CODE: "has an unknown country code",
    NumberParseException.NOT_A_NUMBER: "is not a phone number",
    NumberParseException.TOO_SHORT_AFTER_IDD: "is too short after the international prefix",
    NumberParseException.TOO_SHORT_NSN: "is too short to be a phone number",
    NumberParseException.TOO_LONG: "is too long to be a phone number",
}

_POSSIBILITY_REASONS: dict[int, str] = {
    ValidationResult.INVALID_COUNTRY_CODE: "has an unknown country code",
    ValidationResult.TOO_SHORT: "is too short for its country",
    ValidationResult.TOO_LONG: "is too long for its country",
    ValidationResult.INVALID_LENGTH: "has the wrong number of digits for its country",
}


class InvalidPhoneNumber(ValueError):
    """The text given is not a dialable phone number; the message says why, in words a
    member of staff can act on (it is shown back to them and to the model)."""


def normalize_e164(raw: str, default_region: str | None = None) -> str:
    """Return ``raw`` as E.164 (``+447911123456``), or raise InvalidPhoneNumber saying why.

    ``default_region`` (ISO 3166 alpha-2, e.g. ``"GB"``) is the tenant's country, used only
    when the number has no leading ``+``. An unknown region is a configuration error and
    raises a plain ValueError, not InvalidPhoneNumber, so it is not blamed on the user input.
    """
    region = _checked_region(default_region)
    text = raw.strip()
    if not text:
        raise InvalidPhoneNumber("a phone number is required")
    try:
        number = phonenumbers.parse(text, region)
    except NumberParseException as exc:
        raise InvalidPhoneNumber(f"{text!r} {_parse_reason(exc, text)}") from exc
    if not phonenumbers.is_valid_number(number):
        raise InvalidPhoneNumber(f"{text!r} {_invalid_reason(number)}")
    return phonenumbers.format_number(number, PhoneNumberFormat.E164)


def _checked_region(default_region: str | None) -> str | None:
    if default_region is None or not default_region.strip():
        return None
    region = default_region.strip().upper()
    if region not in phonenumbers.SUPPORTED_REGIONS:
        raise ValueError(f"unknown default region {default_region!r}; use an ISO code like 'GB'")
    return region


def _parse_reason(exc: NumberParseException, text: str) -> str:
    """A number without "+" fails on its country code only because none was given."""
    if exc.error_type == NumberParseException.INVALID_COUNTRY_CODE and not text.startswith("+"):
        return "has no country code; start it with + and the country code"
    return _PARSE_REASONS.get(exc.error_type, "is not a phone number")


def _invalid_reason(number: phonenumbers.PhoneNumber) -> str:
    """Say whether the length is wrong or the digits are just not in use anywhere."""
    possibility = phonenumbers.is_possible_number_with_reason(number)
    return _POSSIBILITY_REASONS.get(possibility, "is not a number in use in its country")
