"""fio json+ bins in the latency_histograms view (13.4).

No real json+ file was found (tests/corpus/fio-json holds plain json only), so the study here is a
real fio 3.1 document (the D3-S4610 iodepth-1 run) given a json+ `bins` object in the test: the bin
keys are fio's own representative values (stat.c plat_idx_to_val, reimplemented in
iolab.formats._fio and checked there), the counts are made up. Bounds are checked by hand below.
"""

from __future__ import annotations

import json

import pytest

from iolab.formats import _fio
from tests.conftest import corpus, ingest, q

SRC = "fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-1-1.json"
# fio bin index -> made-up count
COUNTS = {100: 5, 700: 30, 900: 60, 1200: 5}


def test_plat_values_by_hand():
    # idx 700: error_bits = 700 // 64 - 1 = 9, base = 2^(9+6) = 32768, 32768 + (700 % 64 + 0.5) x 512 = 63744
    assert _fio.plat_idx_to_val(700) == 63744 and _fio.plat_idx_to_val(100) == 100
    # idx 900: error_bits 13, base 2^19 = 524288, + (900 % 64 + 0.5) x 8192 = 524288 + 4.5 x 8192 = 561152
    assert _fio.plat_idx_to_val(900) == 561152


def jsonplus_study(con, root, counts: dict[int, int]):
    doc = json.loads(corpus(SRC).read_text())
    doc["jobs"][0]["read"]["clat_ns"]["bins"] = {str(_fio.plat_idx_to_val(i)): c for i, c in counts.items()}
    d = root / "data" / "hist"
    d.mkdir(parents=True)
    (d / "derived-jsonplus-randread-1-1.json").write_text(json.dumps(doc, indent=2))
    (d / "iolab.toml").write_text('study = "hist"\nsystem = "D3-S4610"\n')
    ingest(con, root / "data")
    return con


def test_fio_bins_are_a_latency_histogram(con, tmp_path):
    hist = jsonplus_study(con, tmp_path, COUNTS)
    rows = q(
        hist,
        """SELECT direction, bin_no, lower_us, upper_us, io_count, round(share_pct, 6), workload_label, system
                      FROM latency_histograms WHERE study = 'hist' ORDER BY bin_no""",
    )
    label = "4 KiB random read, QD 1"
    assert rows == [
        ("read", 100, 0.1, 0.101, 5.0, 5.0, label, "D3-S4610"),  # below 128 ns: the bin [100, 101) ns
        ("read", 700, 63.488, 64.0, 30.0, 30.0, label, "D3-S4610"),  # [32768 + 60 x 512, + 512) ns
        ("read", 900, 557.056, 565.248, 60.0, 60.0, label, "D3-S4610"),  # [524288 + 4 x 8192, + 8192) ns
        # idx 1200: error_bits 17, base 2^23 = 8388608, k = 1200 % 64 = 48: [8388608 + 48 x 131072, + 131072) ns
        ("read", 1200, 14680.064, 14811.136, 5.0, 5.0, label, "D3-S4610"),
    ]


def test_every_bin_holds_its_representative_value(con, tmp_path):
    """fio 3.x has 1856 bins (29 groups of 64): every bin comes back as its own index and bounds."""
    hist = jsonplus_study(con, tmp_path, {i: 1 for i in range(0, 1856, 7)})
    rows = q(hist, "SELECT bin_no, lower_us, upper_us FROM latency_histograms WHERE study = 'hist' ORDER BY bin_no")
    assert [r[0] for r in rows] == list(range(0, 1856, 7))
    for idx, lo, hi in rows:
        v = _fio.plat_idx_to_val(idx)
        width = 1 if idx < 128 else 2 ** (idx // 64 - 1)
        assert lo * 1000 == pytest.approx(v - (0 if idx < 128 else width / 2)) and hi - lo == pytest.approx(
            width / 1000
        )
