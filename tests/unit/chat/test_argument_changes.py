"""What an approver's edit changed, as people read it: only changed fields, names added and
removed for a list of recipients, old → new text for everything else."""

from __future__ import annotations

from chat.argument_changes import FieldChange, argument_changes


def test_an_unchanged_field_is_not_listed() -> None:
    before = {"to": ["Parents"], "body": "Bus is late"}
    after = {"to": ["Parents"], "body": "Bus is 20 minutes late"}

    assert argument_changes(before, after) == [
        FieldChange("body", before="Bus is late", after="Bus is 20 minutes late")
    ]


def test_recipients_are_shown_as_added_and_removed() -> None:
    before = {"to": ["Kim Minji", "Lee Jun", "Emma Wilson"]}
    after = {"to": ["Kim Minji", "Emma Wilson", "Park Ji"]}

    assert argument_changes(before, after) == [
        FieldChange("to", added=["Park Ji"], removed=["Lee Jun"])
    ]


def test_a_reordered_list_shows_both_orders() -> None:
    change = argument_changes({"to": ["A", "B"]}, {"to": ["B", "A"]})

    assert change == [FieldChange("to", before="A, B", after="B, A")]


def test_a_field_that_was_empty_has_no_before_text() -> None:
    change = argument_changes({"audience": None}, {"audience": "Parents"})

    assert change == [FieldChange("audience", before=None, after="Parents")]


def test_a_field_only_the_old_arguments_had_is_listed_last() -> None:
    changes = argument_changes({"title": "A", "old": "x"}, {"title": "B"})

    assert [change.field for change in changes] == ["title", "old"]
    assert changes[1] == FieldChange("old", before="x", after=None)


def test_no_edit_means_no_changes() -> None:
    assert argument_changes({"to": ["Parents"]}, {"to": ["Parents"]}) == []


def test_the_payload_names_every_part_of_a_change() -> None:
    payload = FieldChange("to", added=["Park Ji"]).as_payload()

    assert payload == {
        "field": "to",
        "before": None,
        "after": None,
        "added": ["Park Ji"],
        "removed": [],
    }
