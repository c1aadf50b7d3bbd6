"""Ids derived from what a file holds and where it is, never from the order files came in (issue 52):
the same files give the same ids, whichever door they came in by and in whatever order.

* ``content_id``: the first 62 bits of the content's SHA-256. A file's parsed rows are stored under
  it (``source_id`` of runs, series and every tool table; ``content_id`` of its places), so the same
  bytes have the same rows in every place, study and database.
* run ids and series ids: ``content_id`` plus the run's position in its file (the parser's order,
  from 0) and plus the series' ``column_no``: consecutive within a file, as the writer numbers them.
* place ids (``source_history.source_id``): 63 bits of a SHA-256 over the place's identity (its
  absolute path, links resolved) and the SHA-256 of its bytes. A file moved or renamed keeps its
  content (and every run and series id) and gets the id of its new place. A place that left the
  analysis keeps its row as history; when its place comes back with the same bytes (a file
  deleted and restored, an edit undone), the old row takes a history id (``history_id``).

Collisions. Two contents share an id when their SHA-256s share the first 62 bits: among a million
files a chance of about 1 in 10^7, and the writer refuses such a file, saying so
(``places.content_state``).
Run and series ids of two files overlap only when their content ids lie closer than their counts
of runs or series: among 100,000 files of 1,000 runs each, about 1 in 500,000; the primary keys of
runs and series then refuse the second file (rejected, with the reason), so two files' numbers are
never merged. Two places share an id among a million places with a chance of about 1 in 2 x 10^7;
``places.free_id`` refuses the second.

schemas/V100 renumbers a database written before with the same functions in SQL (tests/test_ids.py
holds the two equal).
"""

from __future__ import annotations

import hashlib

SEP = "\x1f"  # between the parts hashed: no path or sha256 holds it


def content_id(sha256: str) -> int:
    """The content's id: the first 62 bits of its SHA-256 (so that id + any count stays below 2^63)."""
    return int(sha256[:16], 16) >> 2


def _hash63(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256(SEP.join(parts).encode()).digest()[:8], "big") >> 1


def place_id(abs_path: str, sha256: str) -> int:
    """The id of the place ``abs_path`` holding the bytes ``sha256``."""
    return _hash63("place", abs_path, sha256)


def history_id(abs_path: str, sha256: str, n: int) -> int:
    """The ``n``-th history id (from 1) of a place that left the analysis, when its id is needed again."""
    return _hash63("left", abs_path, sha256, str(n))
