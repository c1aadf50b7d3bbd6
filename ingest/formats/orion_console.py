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
(`Failure in opening .lun file ...`): the reason quotes ORION's own line. Text before the banner and
after the last result line (a script's log, a prompt) is skipped and said in a note. The result lines are read by
the summary parser's code (ingest/formats/orion.py `Results`), so the same numbers come out in the same
tables (orion_headlines, orion_latency_details, orion_histograms); the run's group is the
`<testname>_<date>_<time>` stamp, the same as the summary of that run. `-verbose` per-point progress
lines have no public example: they come while the test runs, before the results, where any line of
no known kind is rejected, naming the line; so is one between two result lines.
"""

from __future__ import annotations

import re

from ..model import ParseError, ParseResult, Run, decode_text, split_lines
from ._text import wrapped_note
from .orion import _RESULTISH, NO_RESULTS, Results

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


def _preamble(lines: list[str]) -> tuple[int, str | None, list[int]]:
    """Index of the banner line and the command line typed before it (a prompt line naming orion -run);
    other lines before the banner are a script's log or a prompt, skipped (said in a note)."""
    command, at = None, []
    for i, raw in enumerate(lines):
        line = raw.strip()
        if _BANNER.match(line):
            return i, command, at
        if m := _COMMAND.search(line):
            command, at = line[m.start() :], [i + 1]
    raise ParseError("no 'ORION: ORacle IO Numbers -- Version' banner: not an ORION console transcript")


def _run_info(lines: list[str], start: int) -> tuple[dict, Results, list[int]]:
    """Walk from the banner: version, test stamp, estimate, chatter, then the result lines; and the
    lines read. A line that is none of these refuses the transcript (ORION did not run, or a line
    iolab does not know) unless no result line follows it: then it and what follows are text after
    the finished run (a script's log, a prompt), skipped."""
    info = {
        "version": _BANNER.match(lines[start].strip()).group(1),
        "test_stamp": None,
        "testname": None,
        "estimated_minutes": None,
        "chatter": [],
    }
    results, read = Results(), [start + 1]
    stray: tuple[int, str] | None = None  # the first line of no known kind, once results have begun
    for i in range(start + 1, len(lines)):
        line, ln = lines[i].strip(), i + 1
        if not line:
            continue
        if results.take(lines[i], ln):
            if stray:
                raise ParseError(f"unexpected line in an ORION console transcript: {stray[1][:60]!r}", stray[0])
            read.append(ln)
            continue
        if stray:
            continue
        if info["test_stamp"] is None and (m := _STAMP.match(line)):
            info["test_stamp"], info["testname"] = line, m.group(1)
        elif m := _ESTIMATE.match(line):
            info["estimated_minutes"] = int(m.group(1))
        elif line.startswith(_CHATTER):
            info["chatter"].append(line)
        elif not results.heads:
            raise ParseError(f"ORION did not run the test: {line[:200]!r}", ln)
        elif _RESULTISH.match(line):  # a result line iolab cannot read is never text after the run
            raise ParseError(f"unexpected line in an ORION console transcript: {line[:60]!r}", ln)
        else:
            stray = (ln, line)
            continue
        read.append(ln)
    return info, results, read


def parse(data: bytes, name: str) -> ParseResult:
    lines = split_lines(decode_text(data))
    start, command, typed = _preamble(lines)
    info, results, read = _run_info(lines, start)
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
    if note := wrapped_note("ORION", typed + read, lines):
        res.notes.append(note)
    return res
