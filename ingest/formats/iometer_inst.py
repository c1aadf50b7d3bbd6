"""Iometer 1.1.0 instantaneous results (`inst<results name>.csv`): per-interval worker samples.

Same preamble and sections as the results file (ingest/formats/iometer.py); the header is prefixed
with `TimeStamp,` and numbers use 6 significant digits (`1e+007`). Rows without an access-spec name
are the per-interval samples and become time series (object "Iometer Worker"); the closing WORKER
rows that name the spec, and the ALL row, are the run's final results and become samples.
"""

from __future__ import annotations

from ..model import ParseResult, Series, split_lines
from . import iometer

FORMAT = "iometer-instantaneous-csv"
VERSION = "1"
# metrics kept as time series, by tool column
SERIES_COLUMNS = [
    (c, m, u)
    for c, m, u, _ in iometer.METRICS
    if c
    in (
        "iops",
        "read_iops",
        "write_iops",
        "avg_response_ms",
        "avg_read_response_ms",
        "avg_write_response_ms",
        "max_response_ms",
        "errors",
    )
] + [("mbps_decimal", "mbps", "MB/s")]


SNIFF_RULE = 'the first line starts "\'Test Type,Test Description" and it holds instantaneous-result rows'


def sniff(head: str, name: str) -> bool:
    lines = split_lines(head[:4096])
    return bool(lines) and lines[0].startswith("'Test Type,Test Description") and iometer._is_instantaneous(head)


class _InstParser(iometer._Parser):
    keep_rows = True

    def data_row(self, line, ln, h, session_no, block_no, prev):
        interval = line.split(",")[3:4] == [""]  # no access-spec name: a per-interval sample
        row = super().data_row(line, ln, h, session_no, block_no, prev)
        row["interval"] = interval and row["row_type"] == "WORKER"
        return row

    def add_samples(self, key, r):
        if not r.get("interval"):
            super().add_samples(key, r)

    def finish(self) -> ParseResult:
        res = super().finish()
        series: dict[tuple[str, str], Series] = {}
        keys, nos, vals, samples = [], [], [], []
        for r in self.rows:
            if not r.get("interval"):
                continue
            sample_no = len(samples)  # each interval row is a sample (workers report at their own instant)
            samples.append({"sample_no": sample_no, "ts": r["ts"], "ts_text": None})
            for col, metric, unit in SERIES_COLUMNS:
                v = r.get(col)
                if v is None:
                    continue
                k = (r["target_name"], col)
                if k not in series:
                    header = next(h for h, (c, _) in iometer.COLUMNS.items() if c == col)
                    series[k] = Series(
                        len(series),
                        f"{r['target_name']}\\{header}",
                        r["manager_name"],
                        "Iometer Worker",
                        r["target_name"],
                        header,
                        metric,
                        unit,
                        r["target_name"],
                    )
                keys.append(series[k].key)
                nos.append(sample_no)
                vals.append(v)
        res.set_series(list(series.values()), keys, nos, vals, samples)
        return res


def parse(data: bytes, name: str) -> ParseResult:
    return _InstParser(data, instantaneous=True).parse()
