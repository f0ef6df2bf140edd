"""Run totals, the results table and the comparison of two runs."""

from __future__ import annotations

from chat.evals.report import Row, compare_table, failure_lines, gap_table, summary_table, totals


def check(kind: str, passed: bool, name: str = "c") -> dict[str, object]:
    return {"check": name, "kind": kind, "passed": passed, "detail": "d"}


ROWS = [
    Row("a", "en", True, [check("route", True), check("arguments", True)]),
    Row("b", "en", False, [check("route", True), check("arguments", False, "to")]),
    Row("c", "ko", False, [check("route", False, "tool")], asked=True),
]


def test_totals_count_right_routes_and_right_arguments_per_language() -> None:
    result = totals(ROWS)

    assert (result["cases"], result["passed"], result["route_right"]) == (3, 1, 2)
    assert (result["args_cases"], result["args_right"]) == (2, 1)
    assert result["by_language"]["ko"] == {
        "cases": 1,
        "passed": 0,
        "right_or_asked": 1,
        "route_right": 0,
        "args_cases": 0,
        "args_right": 0,
    }


def test_a_case_that_asked_instead_of_acting_counts_as_right_or_asked_but_not_passed() -> None:
    result = totals(ROWS)

    assert (result["passed"], result["right_or_asked"]) == (1, 2)
    assert result["by_language"]["en"]["right_or_asked"] == 1


def test_a_run_stored_before_the_asked_measure_shows_a_dash_not_zero() -> None:
    old = {"cases": 4, "passed": 2, "route_right": 3, "args_cases": 2, "args_right": 1}

    overall = summary_table(old).splitlines()[1].split()

    assert overall[:4] == ["overall", "4", "50.0%", "-"]


def test_the_table_has_overall_english_and_korean_lines() -> None:
    lines = summary_table(totals(ROWS)).splitlines()

    assert [line.split()[0] for line in lines[1:]] == ["overall", "English", "Korean"]
    assert "33.3%" in lines[1]


def test_each_failed_check_gets_its_own_line() -> None:
    assert failure_lines(ROWS) == ["FAIL b [en] to: d", "FAIL c [ko] tool: d"]


def test_the_comparison_marks_cases_whose_verdict_changed() -> None:
    later = [Row("a", "en", False, []), Row("b", "en", True, []), Row("c", "ko", False, [])]

    table = compare_table(ROWS, later, ("run 1", "run 2"))

    assert "b" in table and "FAIL          pass  <- changed" in table
    assert table.splitlines()[-1] == "3 cases: 1 newly passing, 1 newly failing"


def test_the_gap_table_gives_dev_minus_test_in_points_overall_and_per_language() -> None:
    dev = {
        "cases": 10, "passed": 9, "route_right": 10, "args_cases": 4, "args_right": 4,
        "by_language": {"ko": {"cases": 10, "passed": 9, "route_right": 10, "args_cases": 4,
                               "args_right": 4}},
    }  # fmt: skip
    test = {
        "cases": 20, "passed": 14, "route_right": 19, "args_cases": 0, "args_right": 0,
        "by_language": {"ko": {"cases": 20, "passed": 14, "route_right": 19, "args_cases": 0,
                               "args_right": 0}},
    }  # fmt: skip

    table, gaps = gap_table(dev, test)

    assert gaps["overall"] == {
        "passed": 20.0,
        "right_or_asked": None,  # neither total has the measure (runs stored before it)
        "route_right": 5.0,
        "args_right": None,
    }
    assert gaps["Korean"]["passed"] == 20.0
    assert "+20.0" in table


def test_the_gap_table_compares_right_or_asked_when_both_halves_have_it() -> None:
    dev = {"cases": 10, "passed": 8, "right_or_asked": 10, "route_right": 9, "args_cases": 0,
           "args_right": 0}  # fmt: skip
    test = {"cases": 10, "passed": 7, "right_or_asked": 9, "route_right": 9, "args_cases": 0,
            "args_right": 0}  # fmt: skip

    table, gaps = gap_table(dev, test)

    assert gaps["overall"]["right_or_asked"] == 10.0
    assert "right_or_asked" in table
