"""files.hash_file reads a file once into one reused buffer: the digest, size and head must be the
whole file's whatever the chunk size."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import files, registry
from tests.conftest import corpus


@settings(max_examples=60, deadline=None)
@given(
    part=st.binary(max_size=300),
    times=st.integers(min_value=0, max_value=400),
    chunk=st.integers(min_value=1, max_value=100_000),
)
def test_every_byte_is_read_once_whatever_the_chunk(part, times, chunk):
    """Chunks smaller than the head, larger than it, and larger than the file."""
    data = part * times  # up to 120 kB: past the 64 KiB head
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "f.bin"
        f.write_bytes(data)
        sha, size, head = files.hash_file(f, chunk=chunk)
    assert (sha, size) == (hashlib.sha256(data).hexdigest(), len(data))
    assert head == data[: registry.HEAD_BYTES]


def test_a_real_capture_in_several_chunks():
    f = corpus("esxtop/rachsharp__small-esxtop-data.csv")  # 712 kB
    data = f.read_bytes()
    want = (hashlib.sha256(data).hexdigest(), len(data), data[: registry.HEAD_BYTES])
    assert files.hash_file(f) == files.hash_file(f, chunk=100_000) == want
