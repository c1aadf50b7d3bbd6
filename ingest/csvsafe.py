"""CSV a spreadsheet opens as data: every CSV iolab writes (export, `compare --format csv`, the
reports' downloads) goes through here.

Formula injection: a cell starting with = + - @, a tab or a carriage return is run as a formula by
Excel, LibreOffice and Google Sheets (``=HYPERLINK(...)`` as a system name). OWASP's advice, followed
here: such a text cell gets a leading apostrophe, which spreadsheets show as text. Only text columns
are touched: a negative number stays a number.

Nested values (lists, structs, maps) have no CSV form: they are written as JSON text.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
PATTERN = r"^[=+\-@\t\r]"


def cell(text: str) -> str:
    """``text`` as a spreadsheet will show it, not run it."""
    return "'" + text if text.startswith(TRIGGERS) else text


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, default=str, ensure_ascii=False)


def frame(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` ready for CSV: nested columns as JSON text, every text cell neutralised."""
    import polars as pl

    nested = [c for c, t in df.schema.items() if t.is_nested()]
    if nested:
        df = df.with_columns(pl.Series(c, [_json(v) for v in df[c].to_list()], dtype=pl.String) for c in nested)
    text = [c for c, t in df.schema.items() if t in (pl.String, pl.Categorical) or isinstance(t, pl.Enum)]
    return df.with_columns(
        pl.when(pl.col(c).cast(pl.String).str.contains(PATTERN))
        .then(pl.lit("'") + pl.col(c).cast(pl.String))
        .otherwise(pl.col(c).cast(pl.String))
        .alias(c)
        for c in text
    )


def write_csv(df: pl.DataFrame, *, header: bool = True) -> str:
    """``df`` as CSV text, safe to open in a spreadsheet."""
    return frame(df).write_csv(include_header=header)
