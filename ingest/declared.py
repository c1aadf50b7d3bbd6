"""What a study's sidecars declare, checked against what the study holds.

A sidecar key is checked for its form when the sidecar is read (sidecar.py); what it names can
only be checked once the study's files are in: a ``baseline`` must be one of the study's systems,
each ``generation_order`` entry one of its generations, each ``firmware_order`` entry one of
its firmware labels. A name that matches nothing would compare
nothing (0 matched points) without a word, so each is reported with the sidecar that says it.
(Criteria ids are not checked here: their definitions often live in a folder of their own that is
ingested apart; the QoS page says which declared criteria no file defines.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from duckdb import DuckDBPyConnection

from .names import did_you_mean, visible
from .sidecar import NAME as SIDECAR
from .sidecar import line_of


@dataclass
class Problem:
    study: str
    key: str
    value: str
    known: list[str]
    sidecar: Path | None = None
    line: int | None = None

    def reason(self) -> str:
        what = {"baseline": "system", "generation_order": "generation", "firmware_order": "firmware"}[self.key]
        hint = did_you_mean(self.value, self.known)
        listed = ", ".join(f"'{visible(k)}'" for k in self.known[:12]) or "none"
        return (
            f"{self.key} names '{visible(self.value)}', which is no {what} of study '{visible(self.study)}'{hint} "
            f"(its {what}s: {listed}). Nothing is compared against it until the sidecar is fixed."
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
        "SELECT DISTINCT study, labels->>'firmware' FROM source_files WHERE (labels->>'firmware') IS NOT NULL",
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
    return sorted(out, key=lambda p: (p.study, p.key, p.value))


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
                text = side.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if p.value in text and (line := line_of(text, key)):
                return side, line
    return None, None
