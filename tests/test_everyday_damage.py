"""Everyday file damage is not damage: every real corpus file, changed the way copies, editors,
mail and logs change files, loads with the same numbers as the original (issue 41, point 3).

The changes: the final line end dropped, a UTF-8 BOM added, CRLF or bare CR line ends, blank
lines after the end, a blank line before the start, tabs turned into spaces, every backslash
doubled (a log that JSON-escaped the text), and, for console output, a script's log, a progress
line rewritten by CRs and a prompt around the report. The numbers compared are the canonical samples (run,
scope, metric, value, unit, target) and the time-series points; line numbers may move, values
may not. A file the original refuses is refused by every changed copy too (refusal is not
compared word for word: a blank first line moves the line it names).

KNOWN lists the (format, change) pairs that still fail for some corpus file, each with the reason
and whose follow-up it is; such a case is an expected failure where it fails, and an entry whose
change no longer fails for any file of its format is itself a failure (remove it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import registry
from iolab.model import ParseError
from tests import golden

FILES = golden.corpus_files()


# a sweep script's log and a prompt around a report, with a progress line rewritten by CRs
_WRAP_BEFORE = (
    b"[2024-03-01 10:00:00] sweep.sh: run 3 of 8 on /mnt/test\n+ cd /home/lab/bench\n"
    b"Jobs: 1 (f=1): [W(1)][10.3%][w=40.3MiB/s][eta 01m:44s]\rJobs: 1 (f=1): [W(1)][100.0%][eta 00m:00s]\r\n\n"
)
_WRAP_AFTER = b"\n[2024-03-01 10:05:00] sweep.sh: run 3 done, exit 0\nlab@host:~/bench$ \n"
# the formats whose report is console output or text a person or a script captures (stdout, `cat` of
# a report file, a paste into a ticket), for "wrapped"; CSV, XML and column files are not captured so
CONSOLE = {
    "diskspd-text",
    "elbencho-text",
    "fio-json",
    "fio-terse",
    "fio-text",
    "iozone-text",
    "jetstress-log",
    "orion-console",
    "orion-summary-txt",
    "storage-array-profile",
    "vdbench-summary",
}


def _eol(b: bytes) -> bytes:
    return b"\r\n" if b"\r\n" in b else b"\r" if b"\r" in b and b"\n" not in b else b"\n"


def _lf(b: bytes) -> bytes:
    return b.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


CHANGES: dict[str, Callable[[bytes], bytes]] = {
    "no_final_eol": lambda b: b[:-2] if b.endswith(b"\r\n") else b[:-1] if b.endswith((b"\n", b"\r")) else b,
    "bom": lambda b: b if b.startswith(b"\xef\xbb\xbf") else b"\xef\xbb\xbf" + b,
    "crlf": lambda b: _lf(b).replace(b"\n", b"\r\n"),
    "cr": lambda b: _lf(b).replace(b"\n", b"\r"),
    "trailing_blank": lambda b: b + _eol(b) * 3,
    "leading_blank": lambda b: _eol(b) + b,
    "tabs": lambda b: b.expandtabs(8),
    "backslashes": lambda b: b.replace(b"\\", b"\\\\"),
    "wrapped": lambda b: _WRAP_BEFORE + b + _WRAP_AFTER,
}
# formats whose columns are separated by tabs (expanding them is a different file, not damage)
TAB_SEPARATED = {"fio-log"}
JSON = {"fio-json"}

KNOWN: dict[tuple[str, str], str] = {
    ("storage-array-profile", "no_final_eol"): (
        "a genuine ambiguity, refused on purpose (docs/formats/esxtop-jetstress-profile.md 4.4b): Storage Manager "
        "ends every line, and a profile's last section is free text with no count to check, so a whole last line "
        "cannot be told from a cut one"
    ),
}


def _canon(res) -> tuple[list, list]:
    samples = sorted(
        (s.run_key, s.scope, s.metric, s.value, s.unit, s.target, s.outstanding_ios, s.small_oio, s.large_oio)
        for s in res.samples
    )
    points = []
    if res.points is not None:
        frame = res.points.collect() if hasattr(res.points, "collect") else res.points
        points = sorted(frame.select("series_key", "sample_no", "value").rows(), key=repr)
    return samples, points


def load(data: bytes, name: str):
    """(format, canonical numbers) of a file, or (format, None) when its parser refuses it."""
    mods = registry.sniff(data[: registry.HEAD_BYTES], name)
    if len(mods) != 1:
        return None, f"claimed by {[m.FORMAT for m in mods]}"
    try:
        res = registry.parse(mods[0], data, name)
        res.finish()
    except ParseError:
        return mods[0].FORMAT, None
    return mods[0].FORMAT, _canon(res)


@functools.cache
def _originals() -> dict:
    return {p: load(p.read_bytes(), p.name) for p in FILES}


@pytest.fixture(scope="module")
def originals():
    return _originals()


def _applies(change: str, data: bytes, fmt: str | None) -> bool:
    if change == "tabs":
        return b"\t" in data and fmt not in TAB_SEPARATED
    if change == "wrapped":
        return fmt in CONSOLE
    if change == "backslashes":  # JSON escapes its own backslashes: doubling them changes the values
        return b"\\" in data and fmt not in JSON
    return CHANGES[change](data) != data


CASES = [(p, c) for p in FILES for c in CHANGES]


@pytest.mark.parametrize(("path", "change"), CASES, ids=[f"{p.name}-{c}" for p, c in CASES])
def test_one_change_keeps_the_numbers(path, change, originals):
    data = path.read_bytes()
    fmt, want = originals[path]
    if fmt is None:
        pytest.skip(f"no single parser claims the original ({want})")
    if not _applies(change, data, fmt):
        pytest.skip(f"{change} does not change this file")
    got_fmt, got = load(CHANGES[change](data), path.name)
    same = got_fmt == fmt and got == want
    if (fmt, change) in KNOWN and not same:
        pytest.xfail(KNOWN[(fmt, change)])
    if want is None:  # refused either way: by its parser, or (fio's error text inside a log) by none
        assert got_fmt is None or got is None, f"the original is refused, the file after {change} loads"
        return
    assert got_fmt == fmt, f"after {change} the file is {got if got_fmt is None else 'claimed by ' + got_fmt}"
    assert got is not None, f"after {change} the file is refused"
    assert got == want, f"after {change} the numbers differ"


def test_every_known_failure_still_fails(originals):
    """A KNOWN entry is honest: some corpus file of its format still fails that change."""
    failing = set()
    for path, (fmt, want) in originals.items():
        for change in CHANGES:
            if (fmt, change) in KNOWN and want is not None:
                data = path.read_bytes()
                if _applies(change, data, fmt) and load(CHANGES[change](data), path.name) != (fmt, want):
                    failing.add((fmt, change))
    assert sorted(set(KNOWN) - failing) == [], "these now keep their numbers: remove them from KNOWN"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
@settings(max_examples=6, deadline=None)
@given(chosen=st.lists(st.sampled_from(sorted(CHANGES)), min_size=2, max_size=4, unique=True))
def test_changes_together_keep_the_numbers(path, chosen):
    """Several changes at once (a BOM and CRLF and no final line end ...), in the order drawn; a
    BOM last, as it is the first bytes of a file whatever else was done to it."""
    data = path.read_bytes()
    fmt, want = _originals()[path]
    if fmt is None or want is None:
        return
    chosen = sorted(chosen, key=lambda c: c == "bom")
    changes = [c for c in chosen if _applies(c, data, fmt) and (fmt, c) not in KNOWN]
    for c in changes:
        data = CHANGES[c](data)
    got_fmt, got = load(data, path.name)
    assert (got_fmt, got is not None) == (fmt, True), f"after {changes} the file is refused or claimed otherwise"
    assert got == want, f"after {changes} the numbers differ"
