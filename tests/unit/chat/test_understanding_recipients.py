"""Finding the contacts and groups a request names, fuzzily, without a database."""

from __future__ import annotations

import pytest

from chat.builtin_model.understanding.directory import ContactEntry, Directory
from chat.builtin_model.understanding.recipients import find_recipients

ACADEMY = Directory(
    contacts=tuple(
        ContactEntry(name)
        for name in ("김민지 (Kim Minji)", "이서준 (Lee Seojun)", "Emma Wilson", "Oliver Brown")
    ),
    groups=("Parents - Class A", "Parents - Class B", "Teachers"),
)


def test_it_finds_a_contact_by_first_name() -> None:
    assert find_recipients("text Oliver", ACADEMY).names == ["Oliver Brown"]


def test_it_finds_a_contact_by_surname() -> None:
    assert find_recipients("text Wilson", ACADEMY).names == ["Emma Wilson"]


def test_it_finds_a_contact_despite_a_typo() -> None:
    assert find_recipients("text Olivr Brown", ACADEMY).names == ["Oliver Brown"]


def test_it_finds_a_contact_by_korean_given_name_with_a_particle() -> None:
    assert find_recipients("민지에게 전해줘", ACADEMY).names == ["김민지 (Kim Minji)"]


def test_it_finds_a_contact_by_romanised_name() -> None:
    assert find_recipients("email Lee Seojun", ACADEMY).names == ["이서준 (Lee Seojun)"]


def test_it_reads_parents_of_class_a_as_the_group() -> None:
    assert find_recipients("text the parents of class A", ACADEMY).names == ["Parents - Class A"]


def test_it_reads_the_korean_group_phrase_as_the_group() -> None:
    assert find_recipients("B반 학부모님들께 문자 보내줘", ACADEMY).names == ["Parents - Class B"]


def test_a_group_is_found_by_the_part_of_its_name_that_tells_it_apart() -> None:
    assert find_recipients("text class B", ACADEMY).names == ["Parents - Class B"]
    assert find_recipients("Class B에 문자 좀", ACADEMY).names == ["Parents - Class B"]
    assert find_recipients("B반에 문자 보내줘", ACADEMY).names == ["Parents - Class B"]


def test_a_part_two_groups_share_names_neither() -> None:
    both = Directory(contacts=(), groups=("Parents - Class A", "Teachers - Class A"))

    assert find_recipients("text class A", both).names == []


def test_it_reports_two_equally_close_groups_as_ambiguous() -> None:
    found = find_recipients("text the parents", ACADEMY)

    assert found.ambiguous == [["Parents - Class A", "Parents - Class B"]]


def test_it_reports_two_contacts_sharing_a_first_name_as_ambiguous() -> None:
    emmas = Directory(contacts=(ContactEntry("Emma Wilson"), ContactEntry("Emma Park")))

    assert find_recipients("text Emma", emmas).ambiguous == [["Emma Park", "Emma Wilson"]]


def test_a_full_name_settles_what_a_first_name_leaves_open() -> None:
    emmas = Directory(contacts=(ContactEntry("Emma Wilson"), ContactEntry("Emma Park")))

    assert find_recipients("text Emma Wilson", emmas).names == ["Emma Wilson"]


def test_it_notices_me_in_english_and_korean() -> None:
    assert find_recipients("remind me tomorrow", ACADEMY).me
    assert find_recipients("내일 나한테 알려줘", ACADEMY).me


def test_it_keeps_phone_numbers_and_addresses_as_typed() -> None:
    found = find_recipients("text +12025550100 and mail ann@example.com", ACADEMY)

    assert found.addresses == ["+12025550100", "ann@example.com"]


def test_it_matches_nobody_for_an_unknown_name() -> None:
    assert not find_recipients("text Nobody Known", ACADEMY).anyone


def test_it_looks_for_recipients_only_near_the_start_of_a_long_request() -> None:
    pasted = "text the teachers " + "the parents wrote a long letter " * 100 + "Oliver Brown"

    assert find_recipients(pasted, ACADEMY).names == ["Teachers"]


ENGLISH_NAMED = Directory(
    contacts=tuple(
        ContactEntry(name)
        for name in ("김민지 (Kim Minji)", "박지우 (Park Jiwoo)", "Oliver Brown", "James Taylor")
    ),
    groups=("Parents - Class A", "Teachers"),
)


def test_it_finds_an_english_named_contact_written_in_hangul() -> None:
    assert find_recipients("올리버에게 전해줘", ENGLISH_NAMED).names == ["Oliver Brown"]


def test_it_finds_a_full_english_name_written_in_hangul() -> None:
    assert find_recipients("제임스 테일러 씨한테", ENGLISH_NAMED).names == ["James Taylor"]


def test_a_word_of_the_request_is_not_heard_as_a_name() -> None:
    # "문자해줘" shares its consonants with "Minji", but Kim Minji has a Hangul name to match.
    assert find_recipients("올리버한테 문자해줘", ENGLISH_NAMED).names == ["Oliver Brown"]


@pytest.mark.parametrize(
    "text", ["가정통신문 돌려야 하는데", "사진 올려야 돼요", "문자로 이대로 보내줘"]
)
def test_a_verb_of_the_request_is_not_heard_as_a_name(text: str) -> None:
    # "돌려" shares its consonants with "Taylor"
    assert find_recipients(text, ENGLISH_NAMED).names == []


def test_a_title_after_a_name_addresses_the_person_not_the_group() -> None:
    assert find_recipients("제임스 선생님께 보내줘", ENGLISH_NAMED).names == ["James Taylor"]


def test_a_parent_title_after_a_korean_name_is_not_a_group() -> None:
    assert find_recipients("박지우 학부모님께", ENGLISH_NAMED).names == ["박지우 (Park Jiwoo)"]


@pytest.mark.parametrize(
    "head",
    ["text Oliver's parent", "email oliver browns parents", "text Olivers family", "민지맘한테"],
)
def test_the_family_of_a_named_contact_is_that_contact_not_the_parents_groups(head: str) -> None:
    found = find_recipients(head, ACADEMY)

    assert found.ambiguous == [] and len(found.names) == 1
    assert not found.names[0].startswith("Parents")


def test_one_member_of_a_group_is_described_only_when_addressed() -> None:
    assert find_recipients("선생님 한 분께 메일 보내줘", ACADEMY).described == ["선생님 한 분"]
    assert find_recipients("학부모님 한 분이 물어보셨는데", ACADEMY).described == []


def test_a_plural_title_after_a_name_is_still_the_group() -> None:
    found = find_recipients("민지랑 선생님들한테", ENGLISH_NAMED)

    assert found.names == ["김민지 (Kim Minji)", "Teachers"]


# -- issue 27: a Korean surname with a title is a person, never the group of that title ---------

FACULTY = Directory(
    contacts=tuple(
        ContactEntry(name)
        for name in ("박지우 (Park Jiwoo)", "최유나 (Choi Yuna)", "김민지 (Kim Minji)", "김하늘")
    ),
    groups=("Parents - Class A", "Teachers"),
)


def test_a_surname_with_a_title_is_the_contact_of_that_surname() -> None:
    found = find_recipients("박 선생님께 내일 회의 취소됐다고 문자 보내줘", FACULTY)

    assert (found.names, found.ambiguous) == (["박지우 (Park Jiwoo)"], [])


def test_a_surname_written_together_with_its_title_is_the_contact() -> None:
    assert find_recipients("최선생님한테 전해줘", FACULTY).names == ["최유나 (Choi Yuna)"]


def test_a_surname_two_contacts_share_is_asked_about_not_sent_to_the_group() -> None:
    found = find_recipients("김 선생님께 문자 보내줘", FACULTY)

    assert found.names == []
    assert found.ambiguous == [["김민지 (Kim Minji)", "김하늘"]]


def test_a_surname_nobody_has_names_nobody_rather_than_the_group() -> None:
    found = find_recipients("정 선생님께 문자 보내줘", FACULTY)

    assert "Teachers" not in found.names


STAFFROOM = Directory(
    contacts=(
        ContactEntry("박지우 (Park Jiwoo)", groups=frozenset({"Parents - Class A"})),
        ContactEntry("박서연 (Park Seoyeon)", groups=frozenset({"Teachers"})),
        ContactEntry("김민지 (Kim Minji)", groups=frozenset({"Parents - Class B"})),
        ContactEntry("이서준 (Lee Seojun)", groups=frozenset({"Parents - Class B"})),
        ContactEntry("김도윤"),  # in no group: may be anyone
    ),
    groups=("Parents - Class A", "Parents - Class B", "Teachers"),
)


def test_a_teachers_title_is_only_the_teacher_of_that_surname_not_a_parent() -> None:
    assert find_recipients("박쌤께 내일 보강 없다고 전해 주세요", STAFFROOM).names == [
        "박서연 (Park Seoyeon)"
    ]


def test_a_teachers_title_for_a_surname_only_parents_have_names_nobody() -> None:
    found = find_recipients("이 선생님한테 회의 자료 보내줘", STAFFROOM)

    assert (found.names, found.ambiguous) == ([], [])


def test_a_contact_in_no_group_may_still_be_the_titled_person() -> None:
    found = find_recipients("김 선생님께 문자 보내줘", STAFFROOM)

    assert found.names == ["김도윤"]


def test_the_teachers_with_a_plural_title_are_still_the_group() -> None:
    assert find_recipients("선생님들께 문자 보내줘", FACULTY).names == ["Teachers"]


def test_a_title_word_on_its_own_is_not_a_surname_with_a_title() -> None:
    """ "학부모님" is the parents, not a person called 학 with the title 부모님."""
    found = find_recipients("B반 학부모님 전체에게 이메일 보내줘", ACADEMY)

    assert found.names == ["Parents - Class B"]


def test_it_finds_a_contact_whose_name_is_written_together_with_a_title() -> None:
    assert find_recipients("민지어머님한테 문자", ACADEMY).names == ["김민지 (Kim Minji)"]
    assert find_recipients("올리버쌤 텔레그램 좀", ACADEMY).names == ["Oliver Brown"]


def test_a_latin_name_written_with_a_korean_title_is_the_person() -> None:
    assert find_recipients("oliver쌤 문자 좀", ACADEMY).names == ["Oliver Brown"]


def test_the_short_word_for_telegram_is_never_a_name() -> None:
    directory = Directory(contacts=(ContactEntry("James Taylor"),), groups=())

    assert find_recipients("지우 학부모님께 텔레로 차량 시간 바뀜", directory).names == []


def test_a_singular_role_before_a_name_is_a_title_not_the_group() -> None:
    assert find_recipients("teacher Oliver 에게 email pls", ACADEMY).names == ["Oliver Brown"]
    assert find_recipients("the teachers and Oliver", ACADEMY).names == ["Teachers", "Oliver Brown"]


def test_a_group_said_with_only_is_still_the_group() -> None:
    assert find_recipients("선생님들만 보시는 공지로 올려 주세요", ACADEMY).names == ["Teachers"]
