"""Demo contacts for `manage.py bootstrap_demo` (development only).

Numbers are in the NANP range reserved for fiction (555-0100…0199), so no real phone is ever
texted from a demo, whichever backend is configured.
"""

from __future__ import annotations

from actions.models import Contact, ContactGroup
from actions.tools.registry import policies_create

# (name, phone, e-mail, telegram chat id, groups, opted out)
_Row = tuple[str, str, str, str, tuple[str, ...], bool]

_ACADEMY: tuple[_Row, ...] = (
    (
        "김민지 (Kim Minji)",
        "+12025550101",
        "minji.kim@parents.example",
        "100101",
        ("Parents - Class A",),
        False,
    ),
    (
        "이서준 (Lee Seojun)",
        "+12025550102",
        "seojun.lee@parents.example",
        "",
        ("Parents - Class A",),
        False,
    ),
    ("박지우 (Park Jiwoo)", "+12025550103", "", "100103", ("Parents - Class A",), True),
    (
        "Emma Wilson",
        "+12025550104",
        "emma.wilson@parents.example",
        "",
        ("Parents - Class B",),
        False,
    ),
    (
        "Oliver Brown",
        "+12025550105",
        "oliver.brown@parents.example",
        "100105",
        ("Parents - Class B",),
        False,
    ),
    (
        "최유나 (Choi Yuna)",
        "+12025550106",
        "yuna.choi@academy.example",
        "100106",
        ("Teachers",),
        False,
    ),
    ("James Taylor", "+12025550107", "james.taylor@academy.example", "", ("Teachers",), False),
)
_CLINIC: tuple[_Row, ...] = (
    (
        "정하은 (Jung Haeun)",
        "+12025550151",
        "haeun.jung@patients.example",
        "100151",
        ("Patients - Monday",),
        False,
    ),
    ("강도윤 (Kang Doyun)", "+12025550152", "", "", ("Patients - Monday",), False),
    (
        "Sophie Martin",
        "+12025550153",
        "sophie.martin@patients.example",
        "100153",
        ("Patients - Monday",),
        True,
    ),
    (
        "Liam Johnson",
        "+12025550154",
        "liam.johnson@patients.example",
        "",
        ("Patients - Tuesday",),
        False,
    ),
    (
        "윤서연 (Yoon Seoyeon)",
        "+12025550155",
        "seoyeon.yoon@clinic.example",
        "100155",
        ("Nurses",),
        False,
    ),
    ("Grace Lee", "+12025550156", "grace.lee@clinic.example", "", ("Nurses",), False),
)
_DEMO: dict[str, tuple[_Row, ...]] = {"demo": _ACADEMY, "acme": _CLINIC}


def demo_seed(*, schema_name: str) -> None:
    """Create the demo contacts of ``schema_name`` (idempotent: matched by phone)."""
    for name, phone, email, chat_id, groups, opted_out in _DEMO.get(schema_name, _ACADEMY):
        contact, _ = Contact.objects.update_or_create(
            phone=phone,
            defaults={
                "name": name,
                "email": email,
                "telegram_chat_id": chat_id,
                "opted_out": opted_out,
            },
        )
        contact.groups.set([ContactGroup.objects.get_or_create(name=group)[0] for group in groups])
    policies_create()
