"""Totals, the results table and the side-by-side comparison of two runs (no Django)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

LANGUAGES = {"en": "English", "ko": "Korean"}


@dataclass(frozen=True)
class Row:
    """One case's result, as the report needs it."""

    key: str
    language: str
    passed: bool
    checks: list[dict[str, Any]]
    error: str = ""
    # A write action was wanted and the turn asked a question instead (checks.asked_instead).
    asked: bool = False


def _all_passed(row: Row, kind: str) -> bool | None:
    """Whether every check of ``kind`` passed; None when the case has no such check."""
    verdicts = [c["passed"] for c in row.checks if c["kind"] == kind]
    return all(verdicts) if verdicts else None


def _tally(rows: Sequence[Row]) -> dict[str, int]:
    args = [_all_passed(row, "arguments") for row in rows]
    return {
        "cases": len(rows),
        "passed": sum(row.passed for row in rows),
        "right_or_asked": sum(row.passed or row.asked for row in rows),
        "route_right": sum(bool(_all_passed(row, "route")) for row in rows),
        "args_cases": sum(verdict is not None for verdict in args),
        "args_right": sum(verdict is True for verdict in args),
    }


def totals(rows: Sequence[Row]) -> dict[str, Any]:
    """Overall and per-language counts (stored on the run; percentages are derived)."""
    result: dict[str, Any] = _tally(rows)
    result["by_language"] = {
        language: _tally([row for row in rows if row.language == language])
        for language in LANGUAGES
        if any(row.language == language for row in rows)
    }
    return result


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def _line(label: str, tally: dict[str, int]) -> str:
    cases = tally["cases"]
    # Runs stored before the measure existed have no count of it: shown as "-".
    asked = _percent(tally["right_or_asked"], cases) if "right_or_asked" in tally else "    -"
    return (
        f"{label:<10} {cases:>6} {_percent(tally['passed'], cases):>8} {asked:>10} "
        f"{_percent(tally['route_right'], cases):>11} "
        f"{_percent(tally['args_right'], tally['args_cases']):>8} of {tally['args_cases']:<4}"
    )


def summary_table(run_totals: dict[str, Any]) -> str:
    """Overall, then English and Korean: passed, passed or asked instead of acting, right
    tool/route, right recipients+body."""
    lines = [
        f"{'':<10} {'cases':>6} {'passed':>8} {'or asked':>10} {'tool/route':>11} "
        f"{'recip+body':>16}"
    ]
    lines.append(_line("overall", run_totals))
    for language, tally in run_totals.get("by_language", {}).items():
        lines.append(_line(LANGUAGES.get(language, language), tally))
    return "\n".join(lines)


def failure_lines(rows: Iterable[Row]) -> list[str]:
    """One line per failed check: ``FAIL key [ko] check: detail``."""
    lines = []
    for row in rows:
        if row.passed:
            continue
        for check in row.checks:
            if not check["passed"]:
                lines.append(f"FAIL {row.key} [{row.language}] {check['check']}: {check['detail']}")
    return lines


def compare_rows(first: Sequence[Row], second: Sequence[Row]) -> list[tuple[str, str, str]]:
    """(key, verdict in the first run, verdict in the second) for every case of either run."""
    a = {row.key: row for row in first}
    b = {row.key: row for row in second}
    keys = list(a) + [key for key in b if key not in a]

    def verdict(rows: dict[str, Row], key: str) -> str:
        return "-" if key not in rows else ("pass" if rows[key].passed else "FAIL")

    return [(key, verdict(a, key), verdict(b, key)) for key in keys]


def compare_table(first: Sequence[Row], second: Sequence[Row], labels: tuple[str, str]) -> str:
    """Per case pass/fail in each run, changed cases marked, then the counts of each kind."""
    rows = compare_rows(first, second)
    width = max([len(key) for key, _, _ in rows] + [4])
    lines = [f"{'case':<{width}}  {labels[0]:>12}  {labels[1]:>12}"]
    for key, left, right in rows:
        mark = "  <- changed" if left != right else ""
        lines.append(f"{key:<{width}}  {left:>12}  {right:>12}{mark}")
    better = sum(1 for _, left, right in rows if left != "pass" and right == "pass")
    worse = sum(1 for _, left, right in rows if left == "pass" and right != "pass")
    lines.append(f"{len(rows)} cases: {better} newly passing, {worse} newly failing")
    return "\n".join(lines)


def answer_quality(rows: Sequence[Row]) -> dict[str, float]:
    """SQuAD mode: the share of replies holding a gold answer and citing the gold paragraph."""

    def share(kind: str) -> float:
        verdicts = [_all_passed(row, kind) for row in rows]
        return round(sum(v is True for v in verdicts) / len(rows), 4) if rows else 0.0

    return {"gold_answer_in_reply": share("reply"), "gold_paragraph_cited": share("citation")}


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def gap_table(dev: dict[str, Any], test: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The blind halves side by side: each share on dev and on test, and dev - test in points.

    A gap over five points says the model learnt its dev cases rather than the language
    (docs/agent.md "Blind sets"); the table shows it per language, where gaps hide.
    """
    measures = (
        ("passed", "cases"),
        ("right_or_asked", "cases"),
        ("route_right", "cases"),
        ("args_right", "args_cases"),
    )
    groups = [("overall", dev, test)] + [
        (LANGUAGES.get(language, language), tally, test.get("by_language", {}).get(language, {}))
        for language, tally in dev.get("by_language", {}).items()
    ]
    lines = [f"{'':<10} {'measure':<14} {'dev':>7} {'test':>7} {'gap':>7}"]
    gaps: dict[str, Any] = {}
    for label, left, right in groups:
        for measure, whole in measures:
            a = _share(left[measure], left.get(whole, 0)) if measure in left else None
            b = _share(right[measure], right.get(whole, 0)) if measure in right else None
            gap = None if a is None or b is None else round(100 * (a - b), 1)
            gaps.setdefault(label, {})[measure] = gap
            shown = [f"{100 * v:6.1f}%" if v is not None else "      -" for v in (a, b)]
            lines.append(
                f"{label:<10} {measure:<14} {shown[0]:>7} {shown[1]:>7} "
                + (f"{gap:+6.1f}" if gap is not None else "     -")
            )
    return "\n".join(lines), gaps
