"""Files checked against themselves (issue 55, point 2): real files of every format that prints parts and
their totals, with a row deleted, repeated or edited, are refused or yield an exact subset of what the
whole file yields; never a number the file does not state.

A row is a line. Deleted or repeated, the numbers stored are a subset of the whole file's (each a
(scope, target, metric, value): run keys may renumber). Edited (one number on one line changed), a
stored number not in the whole file's must be written on the line it is stored from (times a unit
factor; anywhere in the file for JSON and XML, which keep no lines): the edit, or the whole file's
number that an edited id moved to another target. Edits move a number's first digit, beyond the printed
precision the checks allow: a sum or total the parser derives from the edited part would be a number
the file does not state, and the file's own total (checked at parse time) refuses it first.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iolab import registry
from iolab.model import ParseError
from tests import fuzz
from tests.conftest import corpus

# one or two real files per format with totals, small enough for many examples
FILES = [
    "diskspd-text/microsoft__VirtualClient__v2.2.0_singlegroup.txt",
    "diskspd-text/BasilKisel__trying-out-diskspd__2.0.x_azure_2runs.txt",
    "diskspd-text/tool-written__diskspd-for-linux-aa21cf9__t2_2targets_L_D_w30_capped.txt",
    "diskspd-xml/GoogleCloudPlatform__PerfKitBenchmarker__2.0.21a.xml",
    "iometer/adisireesha__results.csv",
    "fio-text/tool-written__debian-fio333__3jobs_stonewall_numjobs2.txt",
    "fio-text/tool-written__debian-fio333__client2.txt",
    "fio-json/louwrentius__fio-plot__fio31_randrw-1-1.json",
    "fio-json/tool-written__debian-fio333__client2.json",
    "vdbench-summary/tool-written__itfanr-vdbench50406__zh_CN.summary.html",
    "vdbench-flatfile/masakioui__vdb__50407_sd.flatfile.html",
    "elbencho-text/glennklockwood__elbencho-test__2.1-0_cgpu_08threads.out",
    "elbencho-csv/glennklockwood__elbencho-test__2.1-0_cgpu_08threads.csv",
    "iozone-text/tool-written__mer-tools-iozone-3.489__auto_R_O.out",
]
_NUMBER = re.compile(rb"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def _yield(data: bytes, name: str):
    """The samples a file yields, as (scope, target, metric, value, line), or None when refused."""
    mods = registry.sniff(data[: registry.HEAD_BYTES], name)
    if len(mods) != 1:
        return None
    try:
        res = registry.parse(mods[0], data, name)
        res.finish()
    except ParseError:
        return None
    return [(s.scope, s.target or "", s.metric, round(s.value, 9), s.line_no) for s in res.samples]


_WHOLE: dict[str, set] = {}


def _whole(rel: str) -> set:
    if rel not in _WHOLE:
        got = _yield(corpus(rel).read_bytes(), rel)
        assert got, f"{rel}: the whole real file must load"
        _WHOLE[rel] = {x[:4] for x in got}
    return _WHOLE[rel]


def _numbers_lines(lines: list[bytes]) -> list[int]:
    return [i for i, x in enumerate(lines) if _NUMBER.search(x)]


@pytest.mark.parametrize("rel", FILES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_deleted_repeated_or_edited_row_is_refused_or_a_subset(rel, data):
    lines = corpus(rel).read_bytes().splitlines(keepends=True)
    whole = _whole(rel)
    rescaled = None
    kind = data.draw(st.sampled_from(["delete", "repeat", "edit"]), label="kind")
    numbered = _numbers_lines(lines)
    i = data.draw(st.sampled_from(numbered), label="line")
    if kind == "delete":
        mutated = lines[:i] + lines[i + 1 :]
    elif kind == "repeat":
        mutated = lines[: i + 1] + [lines[i]] + lines[i + 1 :]
    else:
        tokens = list(_NUMBER.finditer(lines[i]))
        m = data.draw(st.sampled_from(tokens), label="number")
        new = _edited(m.group(), data.draw(st.integers(1, 9), label="by"))
        mutated = lines[:i] + [lines[i][: m.start()] + new + lines[i][m.end() :]] + lines[i + 1 :]
        rescaled = float(m.group()) / float(new) if float(new) else None  # a duration edited: rates over it
    got = _yield(b"".join(mutated), rel)
    if got is None:
        return  # refused, with its reason
    for scope, target, metric, value, line in got:
        if (scope, target, metric, value) in whole:
            continue
        assert kind == "edit", f"{kind} line {i + 1}: {metric} {value} ({scope} {target}) is not the whole file's"
        moved = (scope, metric, value) in {(a, c, d) for a, _, c, d in whole}  # an edited id or name: another target
        said = f"edit line {i + 1}: {metric} {value} ({scope} {target}) is not stated"
        # a rate the file states as a count over its duration (DiskSpd XML's TestTimeSeconds): the edited
        # duration rescales it, as the file now says, and no total in the file can tell
        over = rescaled is not None and any(
            (a, b, c) == (scope, target, metric) and abs(w * rescaled - value) <= 1e-6 * abs(value)
            for a, b, c, w in whole
        )
        assert moved or over or _stated(value, mutated, line), said


def _stated(value: float, lines: list[bytes], line: int | None) -> bool:
    """Whether the file states ``value`` (times a unit factor) on ``line``, or anywhere where the format
    keeps no line (JSON, XML): an edited number, or a number whose row an edited name or id moved."""
    where = [lines[line - 1]] if line else lines
    return any(fuzz.traceable(value, x.decode("utf-8", "replace")) for x in where)


def _edited(token: bytes, by: int) -> bytes:
    """The number with its first digit moved by ``by`` (same width and decimals): an edit beyond the
    printed precision, which is what the checks can tell (within it a file agrees with itself whatever
    the edit: a total of a part moved by a unit of its last digit is still the file's own)."""
    text = token.decode()
    first = (int(text[0]) + by - 1) % 9 + 1 if len(text.split(".")[0]) > 1 or text[0] != "0" else by % 10
    return (str(first) + text[1:]).encode()
