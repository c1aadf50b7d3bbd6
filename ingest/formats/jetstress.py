"""Microsoft Exchange Jetstress HTML result reports (Performance, Stress, DatabaseBackup, SoftRecovery).

See docs/formats/esxtop-jetstress-profile.md section 3. Reports are `<fieldset>` sections with
a `<legend>`; label/value tables put the label in `<td class="grid_row_header">` and the value in
the next cell; grid tables have a header row and one row per volume (2007: "Disk Subsystem
Performance", LogicalDisk rows, seconds) or per database instance (2010+: "Transactional I/O
Performance", milliseconds). Every label, value and grid cell is kept as written
(jetstress_values, jetstress_grids, jetstress_log); the known ones become samples in canonical
units. No real report was public: the parser follows the documented structure and the ESG DS5020
report transcription (tests/fixtures/jetstress/*RECONSTRUCTED*).
"""

from __future__ import annotations

import re
from datetime import datetime
from html.parser import HTMLParser

from ..model import ParseError, ParseResult, Run, decode_text
from ._text import number

FORMAT = "jetstress-html-report"
VERSION = "1"
REPORT_TYPES = {
    "Performance": "Performance",
    "Stress": "Stress",
    "Database Backup": "DatabaseBackup",
    "DatabaseBackup": "DatabaseBackup",
    "Soft Recovery": "SoftRecovery",
    "SoftRecovery": "SoftRecovery",
    "Database Checksum": "DBChecksum",
}
# summary labels -> (metric, unit); 2007 says "I/O per Second", 2010+ "Transactional I/O per Second"
VALUE_METRICS = {
    "Achieved I/O per Second": ("achieved_iops", "IO/s"),
    "Achieved Transactional I/O per Second": ("achieved_iops", "IO/s"),
    "Target I/O per Second": ("target_iops", "IO/s"),
    "Target Transactional I/O per Second": ("target_iops", "IO/s"),
    "Initial database size": ("db_size_initial_bytes", "bytes"),
    "Initial Database Size (bytes)": ("db_size_initial_bytes", "bytes"),
    "Final database size": ("db_size_final_bytes", "bytes"),
    "Final Database Size (bytes)": ("db_size_final_bytes", "bytes"),
    "Database files (count)": ("db_files", "count"),
    "Database Files (Count)": ("db_files", "count"),
}
# grid column -> (metric suffix, unit, factor); role prefix (db_/log_) comes from the row or column
GRID_2007 = {
    "Avg. Disk sec/Read": ("read_latency_ms", "ms", 1000.0),
    "Avg. Disk sec/Write": ("write_latency_ms", "ms", 1000.0),
    "Disk Reads/sec": ("read_iops", "IO/s", 1.0),
    "Disk Writes/sec": ("write_iops", "IO/s", 1.0),
    "Avg. Disk Bytes/Read": ("read_bytes_avg", "bytes", 1.0),
    "Avg. Disk Bytes/Write": ("write_bytes_avg", "bytes", 1.0),
}
_IO_COL = re.compile(r"^I/O (Database|Log) (Reads|Writes) ?(Average Latency \(msec\)|/sec|Average Bytes)$")
HOST_COUNTERS = {"% Processor Time": ("cpu_util_pct", "%")}


class _Html(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections: list[dict] = []  # {legend, rows: [[(tag, class, text, line)]], text: [(line, text)]}
        self.headings: list[str] = []
        self.title = ""
        self._cell = None
        self._row = None
        self._in = None
        self._text: list[str] = []
        self.depth = 0

    def _section(self) -> dict:
        if not self.sections:
            self.sections.append({"legend": "", "rows": [], "text": []})
        return self.sections[-1]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "fieldset":
            self.sections.append({"legend": "", "rows": [], "text": []})
        elif tag in ("legend", "h1", "h2", "h3", "title"):
            self._in, self._text = tag, []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = (tag, a.get("class") or "", self.getpos()[0])
            self._text = []
        elif tag == "br" and self._in is None and self._cell is None:
            self._text.append("\n")

    def handle_endtag(self, tag):
        if tag in ("legend", "h1", "h2", "h3", "title") and self._in == tag:
            text = " ".join("".join(self._text).split())
            if tag == "legend":
                self._section()["legend"] = text
            elif tag == "title":
                self.title = text
            else:
                self.headings.append(text)
            self._in, self._text = None, []
        elif tag in ("td", "th") and self._cell is not None:
            t, cls, line = self._cell
            if self._row is None:
                self._row = []
            self._row.append((t, cls, " ".join("".join(self._text).split()), line))
            self._cell, self._text = None, []
        elif tag == "tr" and self._row is not None:
            self._section()["rows"].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._in or self._cell is not None:
            self._text.append(data)
        elif data.strip() and self.sections:
            line = self.getpos()[0]
            for k, part in enumerate(data.splitlines()):
                if part.strip():
                    self.sections[-1]["text"].append((line + k, part.strip()))


SNIFF_RULE = "HTML that names Jetstress and has <fieldset> or grid_row_header cells"


def sniff(head: str, name: str) -> bool:
    low = head[:20000].lower()
    starts_as_html = low.lstrip("\ufeff \t\r\n").startswith(("<!doctype html", "<html"))
    return starts_as_html and "jetstress" in low and ("grid_row_header" in low or "<fieldset" in low)


def _number(text: str, what: str, line: int) -> float | None:
    return number(text, what, line, missing=("", "(n/a)", "n/a", "-"), grouped=True)


def _when(text: str, line: int) -> datetime | None:
    t = text.strip()
    if not t:
        return None
    for fmt in ("%m/%d/%Y %I:%M:%S %p", "%m/%d/%Y %H:%M:%S"):
        try:
            return datetime.strptime(t, fmt)
        except ValueError:
            pass
    raise ParseError(f"time {t!r} is not M/D/YYYY h:mm:ss AM/PM", line)


def _role(label: str) -> tuple[str, str]:
    """('db'|'log'|'', target) from a 2007 LogicalDisk row label such as 'Database (E:)'."""
    m = re.match(r"^(Database|Log)\s*\((.+)\)$", label)
    if m:
        return ("db" if m.group(1) == "Database" else "log"), label
    return "", label


def _read_html(data: bytes) -> _Html:
    h = _Html()
    try:
        h.feed(decode_text(data))
        h.close()
    except ParseError:
        raise
    except Exception as e:  # html.parser is lenient; anything it raises is a broken file
        raise ParseError(f"not readable as HTML ({e})") from None
    if not h.sections:
        raise ParseError("no <fieldset> sections: not a Jetstress report, or the file is cut")
    return h


def _report_type(h: _Html) -> str:
    m = re.search(
        r"(Performance|Stress|Database Backup|DatabaseBackup|Soft Recovery|SoftRecovery|Database Checksum)"
        r" Test Result Report",
        " ".join(h.headings),
    )
    if not m:
        raise ParseError("the report title (e.g. 'Performance Test Result Report') is missing")
    return REPORT_TYPES[m.group(1)]


def _section_cells(sec: dict, values: list, grids: list) -> None:
    """Label/value rows into ``values``, grid rows (under a header row) cell by cell into ``grids``."""
    legend, header = sec["legend"], None
    for r_no, row in enumerate(sec["rows"]):
        if all(t == "th" or "grid_header" in c for t, c, _, _ in row):
            header = [txt for _, _, txt, _ in row]
            continue
        if header is None and row and "grid_row_header" in row[0][1] and len(row) == 2:
            values.append({"section": legend, "label": row[0][2], "value_text": row[1][2], "line_no": row[1][3]})
            continue
        if header is None:
            raise ParseError(
                f"a table row in '{legend}' has neither a label cell nor a header row above it",
                row[0][3] if row else None,
            )
        if len(row) != len(header):
            raise ParseError(
                f"'{legend}' row has {len(row)} cells, its header has {len(header)}", row[0][3] if row else None
            )
        for c_no, ((_, _, txt, line), col) in enumerate(zip(row, header)):
            grids.append(
                {
                    "section": legend,
                    "row_no": r_no,
                    "col_no": c_no,
                    "row_label": row[0][2],
                    "column_name": col,
                    "value_text": txt,
                    "line_no": line,
                }
            )


def _section_log(sec: dict) -> list[dict]:
    out = []
    for line, text in sec["text"]:
        lm = re.match(r"^(\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}:\d{2}(?: [AP]M)?)\s+--\s+(.*)$", text)
        out.append(
            {
                "line_no": line,
                "logged_at": _when(lm.group(1), line) if lm else None,
                "message": lm.group(2) if lm else text,
                "section": sec["legend"],
            }
        )
    return out


def _verdict(kv: dict[str, tuple[str, int]]) -> tuple[str, int]:
    if "Overall Test Result" not in kv:
        raise ParseError("no 'Overall Test Result' in the report: the Test Summary section is missing")
    verdict_text, vline = kv["Overall Test Result"]
    if verdict_text.strip().lower() not in ("pass", "fail"):
        raise ParseError(f"Overall Test Result is {verdict_text!r}, expected Pass or Fail", vline)
    return verdict_text.strip(), vline


def _test_row(kv: dict[str, tuple[str, int]], report_type: str, verdict: str) -> dict:
    get = lambda k: kv.get(k, ("", None))[0] or None
    when = lambda k: _when(*kv[k]) if k in kv else None
    return {
        "report_type": report_type,
        "verdict": verdict,
        "machine_name": get("Machine Name"),
        "test_description": get("Test Description"),
        "started_at": when("Test Start Time"),
        "ended_at": when("Test End Time"),
        "jetstress_version": get("Jetstress Version"),
        "ese_version": get("Ese Version"),
        "operating_system": get("Operating System"),
        "performance_log": get("Performance Log"),
    }


def _grid_sample(res: ParseResult, key: str, g: dict, machine: str | None) -> None:
    """One grid cell as a sample, if its column is a known counter (2007 per volume, 2010+ per instance, host)."""
    col, sec = g["column_name"], g["section"]
    if col in GRID_2007:
        role, target = _role(g["row_label"])
        suffix, unit, factor = GRID_2007[col]
        v = _number(g["value_text"], f"{g['row_label']} / {col}", g["line_no"])
        if v is not None:
            res.add(
                key,
                "volume",
                f"{role}_{suffix}" if role else suffix,
                v * factor,
                unit,
                target=target,
                line_no=g["line_no"],
            )
    elif mm := _IO_COL.match(col):
        role = "db" if mm.group(1) == "Database" else "log"
        rw = "read" if mm.group(2) == "Reads" else "write"
        suffix, unit = {
            "Average Latency (msec)": (f"{rw}_latency_ms", "ms"),
            "/sec": (f"{rw}_iops", "IO/s"),
            "Average Bytes": (f"{rw}_bytes_avg", "bytes"),
        }[mm.group(3)]
        v = _number(g["value_text"], f"{g['row_label']} / {col}", g["line_no"])
        if v is not None:
            res.add(key, "instance", f"{role}_{suffix}", v, unit, target=g["row_label"], line_no=g["line_no"])
    elif sec == "Host System Performance" and col == "Average" and g["row_label"] in HOST_COUNTERS:
        metric, unit = HOST_COUNTERS[g["row_label"]]
        v = _number(g["value_text"], g["row_label"], g["line_no"])
        res.add(key, "host", metric, v, unit, target=machine, line_no=g["line_no"])


def parse(data: bytes, name: str) -> ParseResult:
    h = _read_html(data)
    report_type = _report_type(h)
    values, grids, log = [], [], []
    for sec in h.sections:
        _section_cells(sec, values, grids)
        log += _section_log(sec)
    kv: dict[str, tuple[str, int]] = {}
    for v in values:
        kv.setdefault(v["label"], (v["value_text"], v["line_no"]))
    verdict, vline = _verdict(kv)
    test = _test_row(kv, report_type, verdict)
    res = ParseResult(tool_version=test["jetstress_version"])
    key = report_type
    res.runs.append(
        Run(
            key=key,
            tool="Jetstress",
            tool_version=test["jetstress_version"],
            started_at=test["started_at"],
            ended_at=test["ended_at"],
            workload=f"Jetstress {report_type}",
            description=test["test_description"],
            status=verdict.lower(),
            test_type=report_type,
        )
    )
    res.add(key, "test", "test_passed", 1.0 if verdict.lower() == "pass" else 0.0, "bool", line_no=vline)
    for label, (metric, unit) in VALUE_METRICS.items():
        if label in kv:
            val, line = kv[label]
            res.add(key, "test", metric, _number(val, label, line), unit, line_no=line)
    for g in grids:
        if g["col_no"] != 0:
            _grid_sample(res, key, g, test["machine_name"])
    res.tables["jetstress_tests"] = [test]
    res.tables["jetstress_values"] = values
    res.tables["jetstress_grids"] = grids
    res.tables["jetstress_log"] = log
    return res
