"""Time axes read as clock times (issue 42): Vega's own labels for a capture of a few seconds read
".500 .500 ... :37", with no clock time. page.time_x gives the axis its format and the title its
date; the picture drawn (vl-convert, as the pages draw it) shows clock times only."""

from __future__ import annotations

import re

import altair as alt
import polars as pl
import vl_convert

from iolab.reports import page
from tests.conftest import ROOT


def chart(times: list[str]) -> dict:
    d = pl.DataFrame({"ts": times, "value": range(len(times))}).with_columns(pl.col("ts").str.to_datetime())
    return alt.Chart(d).mark_line().encode(x=page.time_x(d["ts"]), y="value:Q").to_dict()


def labels(spec: dict) -> list[str]:
    """The x axis's tick labels in the drawn SVG (the y axis's are numbers)."""
    svg = vl_convert.vegalite_to_svg(spec)
    texts = [re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg)]
    return [t for t in texts if ":" in t or t.startswith(".")]


def test_a_few_seconds_read_as_clock_times_with_milliseconds():
    spec = chart(["2024-03-05 12:00:36.2", "2024-03-05 12:00:37.0", "2024-03-05 12:00:38.9"])
    assert spec["encoding"]["x"]["axis"]["format"] == "%H:%M:%S.%L"
    assert spec["encoding"]["x"]["title"] == "time on 2024-03-05"
    drawn = labels(spec)
    assert len(drawn) >= 3 and all(re.fullmatch(r"12:00:3[6-8]\.\d{3}", t) for t in drawn), drawn


def test_minutes_read_as_clock_times():
    spec = chart(["2024-03-05 23:10:00", "2024-03-05 23:12:30", "2024-03-05 23:15:00"])
    assert spec["encoding"]["x"]["axis"]["format"] == "%H:%M:%S"
    drawn = labels(spec)
    assert len(drawn) >= 3 and all(re.fullmatch(r"23:1[0-5]:\d\d", t) for t in drawn), drawn
    assert len(set(drawn)) == len(drawn)  # no two ticks read alike


def test_a_capture_over_midnight_names_the_days():
    spec = chart(["2024-03-05 22:00:00", "2024-03-06 02:00:00"])
    assert spec["encoding"]["x"]["axis"]["format"] == "%d %b %H:%M"
    assert spec["encoding"]["x"]["title"] == "time, 2024-03-05 to 2024-03-06"
    assert all(re.fullmatch(r"0[56] Mar \d\d:\d\d", t) for t in labels(spec))


def test_the_time_series_page_draws_its_axes_with_it():
    source = (ROOT / "notebooks" / "06-time-series.py").read_text()
    assert 'x=r.time_x(d["ts"], what="time (as the capture wrote it)")' in source
    assert '"ts:T"' not in source  # no time axis left with Vega's own labels
