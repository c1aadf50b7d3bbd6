"""What a study's sidecars declare, checked against what the study holds.

A sidecar key is checked for its form when the sidecar is read (sidecar.py); what it names can
only be checked once the study's files are in: a ``baseline`` must be one of the study's systems,
each ``generation_order`` entry one of its generations, each ``firmware_order`` entry one of
its measurement names (a firmware label, or a ``measurement`` label). A name that matches nothing would compare
nothing (0 matched points) without a word, so each is reported with the sidecar that says it.
(Criteria ids are not checked here: their definitions often live in a folder of their own that is
ingested apart; the QoS page says which declared criteria no file defines.)

A study-wide key (baseline, sla, firmware_order, generation_order, corrections) holds for the whole
study: two sidecars of one study that set it to different values are a conflict, reported with both
sidecars and lines (view study_conflicts finds them; the views use neither value until it is fixed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from duckdb import DuckDBPyConnection

from .names import did_you_mean, visible
from .regular import read_small
from .sidecar import MAX_BYTES, line_of
from .sidecar import NAME as SIDECAR


@dataclass
class Problem:
    study: str
    key: str
    value: str
    known: list[str]
    sidecar: Path | None = None
    line: int | None = None

    def reason(self) -> str:
        what = {"baseline": "system", "generation_order": "generation", "firmware_order": "measurement label"}[self.key]
        hint = did_you_mean(self.value, self.known)
        listed = ", ".join(f"'{visible(k)}'" for k in self.known[:12]) or "none"
        return (
            f"{self.key} names '{visible(self.value)}', which is no {what} of study '{visible(self.study)}'{hint} "
            f"(its {what}s: {listed}). Nothing is compared against it until the sidecar is fixed."
        )


@dataclass
class Conflict(Problem):
    """A study-wide key set to different values: each value with the sidecar (and line) that sets it."""

    said: list[tuple[str, Path | None, int | None]] = field(default_factory=list)

    def reason(self) -> str:
        where = "; ".join(
            f"{side if side else 'a sidecar of the study'}{f', line {line}' if line else ''} says {self.key} = {value}"
            for value, side, line in self.said
        )
        return (
            f"the sidecars of study '{self.study}' set {self.key} to {len(self.said)} different values: {where}. "
            f"A study has one {self.key}: set it once, in the study's top iolab.toml (or give the folders "
            "their own study). Until then no view uses any of them."
        )


_CHECKS = {  # key -> (what the sidecar says, what the study has)
    "baseline": (
        "SELECT DISTINCT study, labels->>'baseline' FROM source_files WHERE (labels->>'baseline') IS NOT NULL",
        "SELECT DISTINCT study, system FROM study_runs WHERE system IS NOT NULL",
    ),
    "generation_order": (
        """SELECT DISTINCT study, unnest(from_json((labels->'generation_order'), '["VARCHAR"]'))
           FROM source_files WHERE json_type((labels->'generation_order')) = 'ARRAY'""",
        "SELECT DISTINCT study, generation FROM study_runs WHERE generation IS NOT NULL",
    ),
    "firmware_order": (
        """SELECT DISTINCT study, unnest(from_json((labels->'firmware_order'), '["VARCHAR"]'))
           FROM source_files WHERE json_type((labels->'firmware_order')) = 'ARRAY'""",
        """SELECT DISTINCT study, coalesce(labels->>'measurement', labels->>'firmware') FROM source_files
           WHERE coalesce(labels->>'measurement', labels->>'firmware') IS NOT NULL""",
    ),
}


def problems(con: DuckDBPyConnection, studies: set[str] | None = None) -> list[Problem]:
    """Every declared name that matches nothing in its study (only ``studies``, when given)."""
    out = []
    for key, (said_q, has_q) in _CHECKS.items():
        has: dict[str | None, set[str]] = {}
        for study, name in con.execute(has_q).fetchall():
            has.setdefault(study, set()).add(name)
        for study, value in con.execute(said_q).fetchall():
            if studies is not None and study not in studies:
                continue
            known = has.get(None, set()) | has.get(study, set())
            if value not in known:
                out.append(Problem(study, key, value, sorted(known)))
    for p in out:
        p.sidecar, p.line = _where(con, p)
    out += conflicts(con, studies)
    return sorted(out, key=lambda p: (p.study, p.key, p.value))


# what a file's labels say of a key, as the sidecar wrote it (else the label's JSON)
_SAID = {"sla": "CAST(to_json(labels->>'sla') AS VARCHAR)"}


def conflicts(con: DuckDBPyConnection, studies: set[str] | None = None) -> list[Problem]:
    """Every study-wide key that sidecars of one study set to different values (view study_conflicts)."""
    out: list[Problem] = []
    rows = con.execute("SELECT study, key, said FROM study_conflicts ORDER BY study, key").fetchall()
    for study, key, said in rows:
        if studies is not None and study not in studies:
            continue
        expr = _SAID.get(key, f"CAST(labels->'{key}' AS VARCHAR)")
        files = con.execute(
            f"""SELECT {expr} AS said, min(abs_path) FROM source_history
                WHERE study = ? AND left_at IS NULL AND status = 'ok' AND abs_path IS NOT NULL AND {expr} IS NOT NULL
                GROUP BY 1 ORDER BY 1""",
            [study],
        ).fetchall()
        found = [(value, *_setting(Path(path), key)) for value, path in files]
        first = found[0] if found else (said, None, None)
        out.append(Conflict(study, key, said, [], first[1], first[2], found))
    return out


def _setting(file: Path, key: str) -> tuple[Path | None, int | None]:
    """The sidecar nearest ``file`` that sets ``key`` (at its top or in a [files] table), and the line."""
    import tomllib

    for folder in file.parents:
        side = folder / SIDECAR
        try:
            text = read_small(side, MAX_BYTES).decode("utf-8")
            data = tomllib.loads(text)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        tables = [data, *(t for t in data.get("files", {}).values() if isinstance(t, dict))]
        if any(key in t for t in tables):
            return side, line_of(text, key)
    return None, None


def _where(con: DuckDBPyConnection, p: Problem) -> tuple[Path | None, int | None]:
    """The sidecar (and its line) that declares ``p``: the nearest one above a file of the study."""
    key = p.key
    rows = con.execute(
        "SELECT abs_path FROM source_history WHERE study = ? AND left_at IS NULL AND abs_path IS NOT NULL ORDER BY 1",
        [p.study],
    ).fetchall()
    for (abs_path,) in rows:
        for folder in Path(abs_path).parents:
            side = folder / SIDECAR
            try:
                text = read_small(side, MAX_BYTES).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if p.value in text and (line := line_of(text, key)):
                return side, line
    return None, None


def _files(paths: list[str], shown: int = 3) -> str:
    names = ", ".join(visible(p) for p in paths[:shown])
    return names + (f" and {len(paths) - shown} more" if len(paths) > shown else "")


def splits(con: DuckDBPyConnection, studies: set[str]) -> list[str]:
    """What the time rule made of each session of a system begun more than 12 hours after its earlier
    runs (view measurement_splits), in words: a new measurement, one more repeat, or part of the
    measurement before. A split is never silent; neither is a session taken as repeats."""
    rows = con.execute(
        """SELECT study, system, measurement_before, measurement_after, gap_hours, decision, files_before, files_after
           FROM measurement_splits WHERE list_contains(?, study) ORDER BY study, system, measurement_after, gap_hours""",
        [sorted(studies)],
    ).fetchall()
    out = []
    for study, system, before, after, gap, decision, files_before, files_after in rows:
        who = f"'{visible(system)}' of study '{visible(study)}'"
        later = f"{_files(files_after)} start {gap:,.1f} hours after the last run of {_files(files_before)}"
        if decision == "new measurement":
            how = (
                f"they measure points of '{visible(before)}' again, with repeats of their own: measurement "
                f"'{visible(after)}', apart from '{visible(before)}' (the pages show the newest)"
            )
        elif decision == "one more repeat":
            how = f"they measure points of '{visible(before)}' again, once each: one more repeat of '{visible(after)}'"
        else:
            how = f"they measure none of its points again (a capture, another tool or workload): part of '{visible(after)}'"
        out.append(f'{who}: {later}; {how}. measurement = "..." in their iolab.toml names it otherwise')
    return out
