"""The regression set: every evaluation case that ever passed, run by CI (docs/agent.md).

``regression.yaml`` names cases by key, per case file, so the cases keep one home (their own
file, with the date and the writers of the set) and the regression set only says which of them
must keep passing. It grows, never shrinks: ``agent_eval --regression-add`` adds the keys of the
cases a run passed. The blind set's test half never joins while it is the test half (its
failures would be printed here, and whoever tunes the model must not learn them), nor do the
fresh cases waiting to replace it; when a test half is retired to ``blind/dev/``, its passing
cases join like any other file's.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from chat.evals.cases import CaseFileError, CaseSetSpec, CaseSpec, case_set_load

EVALS = Path(__file__).resolve().parent
REGRESSION_FILE = EVALS / "regression.yaml"
# The blind set (docs/agent.md "Blind sets"): each half is every case file in its folder.
BLIND_DEV = "blind/dev/"
BLIND_TEST = "blind/test/"
# Fresh blind cases waiting to become the next test half: nobody tunes on them either.
FRESH = "blind/fresh/"
HELD_OUT = (BLIND_TEST, FRESH)

_HEADER = """\
# The regression set (docs/agent.md "Regression set"): every case that ever passed, named by
# key under the case file that holds it. CI runs them all (tests/chat/evals/test_regression_set.py)
# and every one must pass. Added to by `manage.py agent_eval --regression-add`; never trimmed
# by hand: a case leaves only when its expectation is shown wrong (say so in the commit).
"""


def regression_keys(*, path: Path = REGRESSION_FILE) -> dict[str, list[str]]:
    """Case file (relative to ``chat/evals``) → the keys of its cases that must keep passing."""
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not all(
        isinstance(keys, list) and all(isinstance(k, str) for k in keys) for keys in data.values()
    ):
        raise CaseFileError(f"{path.name}: a mapping of case file to a list of case keys")
    return {str(name): list(keys) for name, keys in data.items()}


def regression_case_set(*, path: Path = REGRESSION_FILE) -> CaseSetSpec:
    """The regression cases as one case set; keys are prefixed by their file's name."""
    cases: list[CaseSpec] = []
    for name, keys in regression_keys(path=path).items():
        spec = case_set_load(EVALS / name)
        by_key = {case.key: case for case in spec.cases}
        missing = [key for key in keys if key not in by_key]
        if missing:
            raise CaseFileError(f"{path.name}: {name} has no case {', '.join(missing[:5])}")
        cases += [by_key[key].model_copy(update={"key": f"{spec.name}/{key}"}) for key in keys]
    if not cases:
        raise CaseFileError(f"{path.name}: no cases")
    return CaseSetSpec(
        name="regression",
        description="Every case that ever passed (chat/evals/regression.yaml)",
        cases=cases,
    )


def regression_add(
    *, case_file: Path, passed: list[str], path: Path = REGRESSION_FILE
) -> list[str]:
    """Add the keys of ``case_file``'s cases that ``passed``; returns the keys newly added."""
    try:
        name = case_file.resolve().relative_to(EVALS).as_posix()
    except ValueError:
        raise CaseFileError(f"{case_file}: only case files under chat/evals join") from None
    if name.startswith(HELD_OUT):
        return []
    keys = regression_keys(path=path)
    known = set(keys.get(name, []))
    added = [key for key in passed if key not in known]
    if added:
        keys[name] = keys.get(name, []) + added
        body = yaml.safe_dump(keys, allow_unicode=True, sort_keys=True, width=100)
        path.write_text(_HEADER + body, encoding="utf-8")
    return added


def blind_half(folder: str) -> CaseSetSpec:
    """One half of the blind set as one case set: keys are prefixed by their file's set name."""
    cases = [
        case.model_copy(update={"key": f"{spec.name}/{case.key}"})
        for _, spec in _blind_half_sets(folder)
        for case in spec.cases
    ]
    if not cases:
        raise CaseFileError(f"{folder}: no case files")
    half = folder.rstrip("/").replace("/", "-")
    return CaseSetSpec(
        name=half, description=f"Every case file in chat/evals/{folder}", cases=cases
    )


def blind_half_files(folder: str) -> list[Path]:
    return sorted((EVALS / folder).glob("*.yaml"))


def _blind_half_sets(folder: str) -> list[tuple[Path, CaseSetSpec]]:
    return [(path, case_set_load(path)) for path in blind_half_files(folder)]


def blind_dev_regression_add(*, passed: list[str], path: Path = REGRESSION_FILE) -> list[str]:
    """``regression_add`` for a run of the dev half: its prefixed keys go back to their files."""
    added: list[str] = []
    for case_file, spec in _blind_half_sets(BLIND_DEV):
        prefix = f"{spec.name}/"
        mine = [key.removeprefix(prefix) for key in passed if key.startswith(prefix)]
        added += [
            prefix + key for key in regression_add(case_file=case_file, passed=mine, path=path)
        ]
    return added
