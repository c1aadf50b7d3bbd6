"""docs/formats/ names, for each output variant, the test that covers it: every test, test file and
corpus file a page names exists (a renamed or deleted test leaves no dangling name behind)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs" / "formats").glob("*.md"))
# `test_name`, `test_prefix_...` / `test_prefix_*` (a family), `tests/test_file.py`
_TEST = re.compile(r"`(test_\w+?)(\.\.\.|\*)?(?:\[[^\]`]*\])?`")
_FILE = re.compile(r"`(tests/[\w/]+\.py)`")
_CORPUS = re.compile(r"`?([\w.-]+__[\w.-]+__[\w.+-]+\.[A-Za-z0-9]+)`?")


def _tests() -> set[str]:
    names = set()
    for f in (ROOT / "tests").glob("*.py"):
        names |= set(re.findall(r"^(?:async )?def (test_\w+)", f.read_text(encoding="utf-8"), re.M))
    return names


def _corpus() -> set[str]:
    return {p.name for p in (ROOT / "tests" / "corpus").rglob("*") if p.is_file()} | {
        p.name for p in (ROOT / "tests" / "fixtures").rglob("*") if p.is_file()
    }


def test_the_pages_name_tests():
    assert {p.name for p in PAGES} >= {"fio.md", "diskspd.md", "elbencho.md", "iozone.md", "vdbench.md"}
    for page in ("fio.md", "diskspd.md", "elbencho.md", "iozone.md"):
        assert len(_TEST.findall((ROOT / "docs" / "formats" / page).read_text(encoding="utf-8"))) >= 3, page


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_test_a_page_names_exists(page):
    text, tests = page.read_text(encoding="utf-8"), _tests()
    missing = [
        name + (more or "")
        for name, more in _TEST.findall(text)
        if not (any(t.startswith(name) for t in tests) if more else name in tests)
    ]
    assert missing == [], f"{page.name} names tests that do not exist"
    files = [f for f in _FILE.findall(text) if not (ROOT / f).is_file()]
    assert files == [], f"{page.name} names test files that do not exist"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_corpus_file_a_page_names_exists(page):
    names = _corpus()
    missing = [n for n in _CORPUS.findall(page.read_text(encoding="utf-8")) if n not in names]
    assert missing == [], f"{page.name} names corpus files that are not in tests/corpus or tests/fixtures"
