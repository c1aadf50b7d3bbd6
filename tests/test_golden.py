"""Golden twins: every real corpus file yields exactly what its reviewed twin says (tests/golden.py).

A twin that differs fails with the diff; if the change is intended, `make golden` rewrites the twins
and the reviewer reads the diff in the commit. The meta-tests keep the corpus honest: every format
has a real file, every real file is claimed by its own sniffer alone, every file has a twin.
"""

from __future__ import annotations

import pytest

from iolab import registry
from tests import golden

FILES = golden.corpus_files()

# MANIFEST.tsv names what a file IS (the tool's own name for it); the module reading it may be broader.
# A MANIFEST format that is a registered FORMAT maps to itself; the others map here.
READ_BY = {
    "orion-iops-csv": "orion-matrix-csv",
    "orion-lat-csv": "orion-matrix-csv",
    "orion-mbps-csv": "orion-matrix-csv",
    "esxtop-batch-csv": "pdh-csv",  # esxtop -b writes perfmon's PDH-CSV layout
    "esxtop-batch-csv-derived": "pdh-csv",
    "windows-perfmon-pdh-csv": "pdh-csv",
    "santricity-storage-array-profile": "storage-array-profile",
    "ibm-ds-storage-subsystem-profile": "storage-array-profile",
    "dell-md-storage-array-profile": "storage-array-profile",
    "vdbench-totals": "vdbench-summary",  # totals.html is summary.html's layout, totals only
}

# Real files whose parser has not landed yet: no sniffer may claim them until it does (then this
# entry goes, and a test says so). Their twins record the rejection.
NO_PARSER_YET: dict[str, str] = {}

# Corpus files without a MANIFEST.tsv row: (the format reading them, or None, and why).
UNLISTED = {
    "seed/esg-ds5020_orion-summary_tile4.txt": (
        "orion-summary-txt",
        "transcribed from the ESG DS5020 report (the seed study), not from a repository",
    ),
    "seed/esg-ds5020_profile-excerpt.txt": (
        "storage-array-profile",
        "transcribed excerpt of the ESG DS5020 report's array profile",
    ),
    "seed/esg-ds5020_jetstress-report_tile4-js01.txt": (
        None,
        (
            "a text transcription of a Jetstress HTML report: no parser reads text, the reconstructed "
            "HTML fixture (tests/fixtures/jetstress) is what jetstress-html-report reads"
        ),
    ),
}

# Registered formats with no real file in the corpus: the reason no public example exists.
NO_REAL_FILE = {
    "criteria-csv": "iolab's own QoS-criteria table (written by hand per study, data/samples), not a tool's output",
    "published-results-csv": "iolab's own table of figures transcribed from published reports (data/samples)",
    "jetstress-html-report": "no public Jetstress HTML report was found; the fixture is rebuilt from the ESG "
    "transcription (tests/fixtures/jetstress/reconstruct_esg_report.py)",
    "vscsistats-csv": "no public vscsiStats -p all -c capture was found; fixtures are hand-made (tests/fixtures/vscsistats)",
}


def _rel(p) -> str:
    return p.relative_to(golden.CORPUS).as_posix()


def owner(rel: str, manifest: dict) -> str | None:
    """The registered FORMAT that should claim corpus file ``rel`` (None: no parser reads it yet)."""
    if rel in UNLISTED:
        return UNLISTED[rel][0]
    fmt = manifest[rel]["format"]
    registered = {m.FORMAT for m in registry.modules()}
    if fmt in registered:
        return fmt
    if fmt in READ_BY:
        return READ_BY[fmt]
    if fmt in NO_PARSER_YET:
        return None
    raise AssertionError(
        f"MANIFEST.tsv format {fmt!r} ({rel}) is neither a registered FORMAT nor in READ_BY "
        f"or NO_PARSER_YET of tests/test_golden.py: say which module reads it"
    )


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_twin(path):
    d = golden.diff(path)
    if d is not None:
        pytest.fail(
            f"{_rel(path)} no longer yields its twin (if intended: `make golden`, review the diff)\n{d}", pytrace=False
        )


def test_every_corpus_file_has_a_twin_and_every_twin_a_file():
    twins = {golden.twin_path(p) for p in FILES}
    assert [t for t in sorted(twins) if not t.exists()] == [], "run `make golden` and review the new twins"
    orphans = sorted(golden.GOLDEN.rglob("*" + golden.SUFFIX)) if golden.GOLDEN.exists() else []
    assert [t for t in orphans if t not in twins] == [], "twins of files no longer in the corpus: `make golden`"


def test_every_corpus_file_has_provenance():
    manifest = golden.manifest()
    rels = {_rel(p) for p in FILES}
    assert sorted(rels - set(manifest) - set(UNLISTED)) == [], "add a MANIFEST.tsv row for each"
    assert sorted(set(manifest) - rels) == [], "MANIFEST.tsv rows whose file is not in tests/corpus"
    assert sorted(set(UNLISTED) - rels) == [], "stale UNLISTED entries"


def test_each_corpus_file_is_claimed_by_its_own_sniffer_alone():
    manifest = golden.manifest()
    wrong = []
    for p in FILES:
        with open(p, "rb") as fh:
            head = fh.read(registry.HEAD_BYTES)
        claimed = [m.FORMAT for m in registry.sniff(head, p.name)]
        want = owner(_rel(p), manifest)
        if claimed != ([want] if want else []):
            wrong.append(f"{_rel(p)}: claimed by {claimed or 'nobody'}, should be {want or 'nobody (no parser yet)'}")
    assert wrong == []


def test_every_format_has_a_real_file():
    manifest = golden.manifest()
    have = {owner(_rel(p), manifest) for p in FILES}
    registered = {m.FORMAT for m in registry.modules()}
    missing = sorted(registered - have - set(NO_REAL_FILE))
    assert missing == [], "formats with no real corpus file: add one (or a reason to NO_REAL_FILE)"
    assert sorted(set(NO_REAL_FILE) & have) == [], "these now have a real file: remove them from NO_REAL_FILE"
    assert sorted(set(NO_REAL_FILE) - registered) == [], "NO_REAL_FILE names formats no module registers"
    assert sorted(set(NO_PARSER_YET) & registered) == [], "their parser has landed: remove them from NO_PARSER_YET"
