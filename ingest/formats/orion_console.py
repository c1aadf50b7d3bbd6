"""Oracle ORION console transcript: what `orion -run ...` prints on stdout (11g -> 19c).

Real transcript (tests/corpus/orion-console, 19c):
    $ $ORACLE_HOME/bin/orion -run simple -testname bmtfile-acfs -hugenotneeded    (the prompt line: optional)
    ORION: ORacle IO Numbers -- Version RDBMS_19.3.0.0.0DBRU_LINUX.X64_190417
    bmtfile-acfs_20211113_1809                                                  (<testname>_<yyyymmdd>_<hhmm>)
    Calibration will take approximately 44 minutes.                             (11g: Test will take approximately 9 minutes)
    Using a large value for -cache_size may take longer.                        (11g: Larger caches may take longer)
    Setting ftype=0
    Maximum Large MBPS=1571.33 @ Small=0 and Large=5 ... detail lines, histograms (as in the 12c+ _summary.txt)
11g/12.1 print only the banner, the test name and the estimate (their results are in the _summary.txt);
such a transcript is rejected as having no results, and so is a run that stopped with an error
(`Failure in opening .lun file ...`): the reason quotes ORION's own line. The result lines are read by
the summary parser's code (ingest/formats/orion.py `Results`), so the same numbers come out in the same
tables (orion_headlines, orion_latency_details, orion_histograms); the run's group is the
`<testname>_<date>_<time>` stamp, the same as the summary of that run. `-verbose` per-point progress
lines have no public example: they are rejected as unexpected lines, naming the line.
"""

from __future__ import annotations

import re

from ..model import ParseError, ParseResult, Run, decode_text, split_lines
from .orion import NO_RESULTS, Results

FORMAT = "orion-console"
VERSION = "1"
UNSUPPORTED = ["ORION -verbose per-point progress lines (no public example)"]

_BANNER = re.compile(r"^ORION: ORacle IO Numbers -- Version\s*(\S+)\s*$")
_STAMP = re.compile(r"^(\S+?)_(\d{8})_(\d{4})$")
_ESTIMATE = re.compile(r"^(?:Calibration|Test) will take approximately (\d+) minutes\.?$")
_CHATTER = ("Using a large value for -cache_size may take longer", "Larger caches may take longer", "Setting ")
_COMMAND = re.compile(r"\borion\S*\s.*-run\s+(\S+)")


SNIFF_RULE = "the 'ORION: ORacle IO Numbers -- Version' banner without the summary's 'This maps to this test:'"


def sniff(head: str, name: str) -> bool:
    lines = [line.strip() for line in split_lines(head[:8192])]
    return any(_BANNER.match(line) for line in lines) and "This maps to this test:" not in lines


def _preamble(lines: list[str]) -> tuple[int, str | None]:
    """Index of the banner line and the command line typed before it (a prompt line naming orion -run)."""
    command = None
    for i, raw in enumerate(lines):
        line = raw.strip()
        if _BANNER.match(line):
            return i, command
        if m := _COMMAND.search(line):
            command = line[m.start() :]
        elif line:
            raise ParseError(f"unexpected line before the ORION banner: {line[:60]!r}", i + 1)
    raise ParseError("no 'ORION: ORacle IO Numbers -- Version' banner: not an ORION console transcript")


def _run_info(lines: list[str], start: int) -> tuple[dict, Results]:
    """Walk from the banner: version, test stamp, estimate, chatter, then the result lines."""
    info = {
        "version": _BANNER.match(lines[start].strip()).group(1),
        "test_stamp": None,
        "testname": None,
        "estimated_minutes": None,
        "chatter": [],
    }
    results = Results()
    for i in range(start + 1, len(lines)):
        line, ln = lines[i].strip(), i + 1
        if not line or results.take(lines[i], ln):
            continue
        if info["test_stamp"] is None and (m := _STAMP.match(line)):
            info["test_stamp"], info["testname"] = line, m.group(1)
        elif m := _ESTIMATE.match(line):
            info["estimated_minutes"] = int(m.group(1))
        elif line.startswith(_CHATTER):
            info["chatter"].append(line)
        elif not results.heads:
            raise ParseError(f"ORION did not run the test: {line[:200]!r}", ln)
        else:
            raise ParseError(f"unexpected line in an ORION console transcript: {line[:60]!r}", ln)
    return info, results


def parse(data: bytes, name: str) -> ParseResult:
    lines = split_lines(decode_text(data))
    start, command = _preamble(lines)
    info, results = _run_info(lines, start)
    if not results.heads:
        raise ParseError(NO_RESULTS + " (11g and 12.1 print their results only in the _summary.txt)")
    run_type = _COMMAND.search(command).group(1) if command else None
    res = ParseResult(tool_version=info["version"])
    res.runs.append(
        Run(
            key="test",
            tool="Orion",
            tool_version=info["version"],
            workload=info["testname"],
            description=command,
            status="complete",
            test_type=run_type,
            group=info["test_stamp"],
        )
    )
    res.tables["orion_console_runs"] = [{**info, "commandline": command, "run_type": run_type}]
    res.tables["orion_headlines"] = results.add_samples(res, "test")
    res.tables["orion_latency_details"] = results.details
    res.tables["orion_histograms"] = results.hist
    return res
