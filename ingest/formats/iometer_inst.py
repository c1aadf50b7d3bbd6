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
    """The results parser, with each finished session's interval rows turned into points as it goes:
    a chunk of points at a time becomes a Polars frame, so memory follows the chunk, not the file."""

    POINTS_CHUNK = 200_000

    def __init__(self, data: bytes, instantaneous: bool):
        super().__init__(data, instantaneous)
        self.series: dict[tuple[str, str], Series] = {}
        self.keys: list[int] = []
        self.nos: list[int] = []
        self.vals: list[float] = []
        self.times: list = []  # time stamps of the interval rows not in a frame yet
        self.frames: list = []  # (points, sample times) of each finished chunk
        self.framed = 0  # samples in those frames

    def data_row(self, line, ln, h, session_no, block_no, prev):
        interval = line.split(",")[3:4] == [""]  # no access-spec name: a per-interval sample
        row = super().data_row(line, ln, h, session_no, block_no, prev)
        row["interval"] = interval and row["row_type"] == "WORKER"
        return row

    def add_samples(self, key, r):
        if not r.get("interval"):
            super().add_samples(key, r)

    def session_rows(self, rows: list[dict]) -> None:
        for r in rows:
            if r.get("interval"):
                self.interval(r)

    def interval(self, r: dict) -> None:
        """One interval row: a sample (workers report at their own instant), a point per metric it has."""
        sample_no = self.framed + len(self.times)
        self.times.append(r["ts"])
        for col, metric, unit in SERIES_COLUMNS:
            v = r.get(col)
            if v is None:
                continue
            k = (r["target_name"], col)
            if k not in self.series:
                header = next(h for h, (c, _) in iometer.COLUMNS.items() if c == col)
                self.series[k] = Series(
                    len(self.series),
                    f"{r['target_name']}\\{header}",
                    r["manager_name"],
                    "Iometer Worker",
                    r["target_name"],
                    header,
                    metric,
                    unit,
                    r["target_name"],
                )
            self.keys.append(self.series[k].key)
            self.nos.append(sample_no)
            self.vals.append(v)
        if len(self.vals) >= self.POINTS_CHUNK:
            self.frame()

    def frame(self) -> None:
        """The gathered points and sample times as a pair of Polars frames."""
        import polars as pl

        first = self.framed
        points = pl.DataFrame(
            {
                "series_key": pl.Series(self.keys, dtype=pl.Int32),
                "sample_no": pl.Series(self.nos, dtype=pl.Int32),
                "value": pl.Series(self.vals, dtype=pl.Float64),
            }
        )
        times = pl.DataFrame(
            {
                "sample_no": pl.Series(range(first, first + len(self.times)), dtype=pl.Int32),
                "ts": pl.Series(self.times, dtype=pl.Datetime("us")),
                "ts_text": pl.Series([None] * len(self.times), dtype=pl.String),
            }
        )
        self.frames.append((points, times))
        self.framed += len(self.times)
        self.keys, self.nos, self.vals, self.times = [], [], [], []

    def finish(self) -> ParseResult:
        import polars as pl

        res = super().finish()
        self.frame()
        res.series = list(self.series.values())
        res.points = pl.concat([p for p, _ in self.frames])
        res.tables["series_samples"] = pl.concat([t for _, t in self.frames])
        return res


def parse(data: bytes, name: str) -> ParseResult:
    return _InstParser(data, instantaneous=True).parse()
