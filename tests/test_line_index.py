"""The line index the text parsers place offsets with: the same line as counting newlines from the start."""

from hypothesis import given
from hypothesis import strategies as st

from iolab.formats._text import LineIndex

_TEXT = st.text(alphabet=st.sampled_from('ab\n\r{}"é'), max_size=200)


@given(_TEXT, st.data())
def test_line_of_an_offset_counts_the_newlines_before_it(text: str, data: st.DataObject) -> None:
    offset = data.draw(st.integers(0, len(text)))
    assert LineIndex(text).line(offset) == text[:offset].count("\n") + 1


@given(_TEXT)
def test_each_line_starts_where_the_text_split_on_newlines_says(text: str) -> None:
    idx = LineIndex(text)
    lines = text.split("\n")
    for n in range(1, len(lines) + 1):
        assert idx.start(n) == sum(len(x) + 1 for x in lines[: n - 1])
        assert idx.line(idx.start(n)) == n


def test_a_known_text() -> None:
    idx = LineIndex("ab\n\ncd\n")
    assert [idx.line(o) for o in range(8)] == [1, 1, 1, 2, 3, 3, 3, 4]
    assert [idx.start(n) for n in (1, 2, 3, 4)] == [0, 3, 4, 7]
