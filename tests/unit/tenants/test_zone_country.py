"""The country a tenant's time zone is in: where its staff's local phone numbers are read."""

from __future__ import annotations

import pytest

from tenants.selectors import zone_country


@pytest.mark.parametrize(
    ("zone", "country"),
    [("Asia/Seoul", "KR"), ("Europe/London", "GB"), ("America/New_York", "US"), ("UTC", None)],
)
def test_a_zone_is_in_the_country_the_time_zone_database_says(
    zone: str, country: str | None
) -> None:
    assert zone_country(zone) == country
