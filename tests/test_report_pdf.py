"""The print edition (`iolab report --format pdf`): the PDF of a four-system study with hostile names
(tests/studies.py: repeats, shared run names, more points than a chart draws) names every system, has
a section per report page where its contents say, every chart whole on one page, and the provenance
appendix with every source file's SHA-256 and each run's lines. Printed in headless Chromium, read back
with pypdf. The appendix's queries and the line ranges are checked without a browser."""

from __future__ import annotations

import collections
import html
import os
import re
import shutil
import stat
import unicodedata

import pypdf
import pytest

from iolab import batch, db
from iolab.reports import check, pdf, print_tables, render
from iolab.reports import facts as facts_module
from iolab.validation import run as vrun
from tests.conftest import ROOT
from tests.studies import STUDY, SYSTEMS, four_systems

needs_chromium = pytest.mark.skipif(check.chromium() is None, reason="no chromium (make check-reports installs it)")


def plain(text: str) -> str:
    """Text as compared: ligatures undone (ﬁ), control characters (drawn as a box or \\x1b) and
    white space (where a table cell wraps) left out."""
    text = unicodedata.normalize("NFKC", text).replace("\\x1b", "")
    return re.sub(r"[\x00-\x20\x7f]", "", text)


@pytest.fixture(scope="module")
def study_db(tmp_path_factory):
    d = tmp_path_factory.mktemp("pdf")
    con = db.open_db(d / "r.duckdb")
    batch.ingest_paths(con, [four_systems(d / "data")])
    vrun.validate(con)
    con.close()
    return d / "r.duckdb"


@pytest.fixture(scope="module")
def edition(study_db):
    if check.chromium() is None:
        pytest.skip("no chromium (make check-reports installs it)")
    out = study_db.parent / "out"
    assert render.render(study_db, out, pdf=True) == 0
    folder = out / render.slug(STUDY)
    reader = pypdf.PdfReader(folder / f"{render.slug(STUDY)}.pdf")
    return folder, reader, [p.extract_text() for p in reader.pages]


def sections(reader):
    """(title, first page, last page) of each bookmark, 0-based."""
    starts = [(o.title, reader.get_destination_page_number(o)) for o in reader.outline]
    ends = [s for _, s in starts[1:]] + [len(reader.pages)]
    return [(t, s, e - 1) for (t, s), e in zip(starts, ends)]


@needs_chromium
def test_cover_names_every_system_and_the_baseline(edition):
    _, _, pages = edition
    cover = plain(pages[0])
    assert plain(STUDY) in cover
    for name in SYSTEMS.values():
        assert plain(name) in cover, name
    assert plain(f"the baseline for comparisons is {SYSTEMS['acme']}") in cover
    assert "<script>" in pages[0]  # a hostile name is printed as text, never run
    assert "\\x1b[31m" in pages[0]  # a control character written as its escape, not drawn as a box


@needs_chromium
def test_the_edition_has_the_mode_of_any_new_file_under_the_umask(edition):
    """Not 0600 whatever the umask (a temporary file renamed keeps its mode): 0644 under umask 022."""
    folder, _, _ = edition
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE((folder / f"{folder.name}.pdf").stat().st_mode) == 0o666 & ~mask


@needs_chromium
def test_a_section_per_report_page_where_the_contents_say(edition):
    folder, reader, pages = edition
    titles = [t for t, _, _ in sections(reader)]
    html_pages = sorted(p for p in folder.glob("*.html") if p.stem != "11-explore")  # its inputs need a browser
    assert len(html_pages) == 5 and (folder / "11-explore.html").is_file()
    assert titles[:2] == ["Cover", "Contents"] and titles[-1] == "Appendix: where every number comes from"
    assert len(titles) == 2 + len(html_pages) + 1 and "Explore any metric on any axis" not in titles
    contents = plain(pages[1])
    for title, first, last in sections(reader)[2:]:
        assert plain(f"{title}{first + 1}") in contents  # the contents give the page it starts on
        assert f"page {first + 1} of {len(pages)}" in pages[first]  # the folio printed on that page
        if title.startswith("Appendix"):
            continue
        assert plain(pages[first]).startswith(plain(STUDY) + ":")  # the report page's own heading
        text = plain("".join(pages[first : last + 1]))
        for name in SYSTEMS.values():  # every page shows every system (its systems table, its legends)
            assert plain(name) in text, (title, name)


@needs_chromium
def test_each_contents_entry_jumps_to_its_section(edition):
    """Title and page number of every entry are links to the first page of the section (GoTo, in
    the document); no link of the contents leads out of it."""
    _, reader, _ = edition
    targets = []
    for ref in reader.pages[1].get("/Annots") or []:
        action = ref.get_object()["/A"]
        assert action["/S"] == "/GoTo" and "/URI" not in action
        targets.append(reader.get_page_number(action["/D"][0].get_object()))
    firsts = [first for _, first, _ in sections(reader)[2:]]  # after the cover and the contents
    assert targets == [page for page in firsts for _ in (0, 1)]  # the title, then the page number


@needs_chromium
def test_a_table_over_several_pages_repeats_its_head_on_each(edition):
    """The appendix's run table runs over pages: each of them shows its column heads (<thead>, as
    the report pages' tables have it too)."""
    _, reader, pages = edition
    (_, first, last), *_ = [s for s in sections(reader) if s[0].startswith("Appendix")]
    runs_head = plain("# run system workload numbers lines")
    assert last > first + 1  # the table does run over pages
    opened = [i for i in range(first, last + 1) if runs_head in plain(pages[i])]
    assert opened[0] <= first + 1 and opened == list(range(opened[0], last + 1))


@needs_chromium
def test_no_page_is_blank_but_for_its_folio(edition):
    """A table's last line ending at the foot of a page once started a page of nothing but its folio
    (a bottom margin carried over); every page carries more than its folio."""
    _, _, pages = edition
    folio = re.compile(r"page \d+ of \d+")
    bare = [i + 1 for i, text in enumerate(pages) if len(plain(folio.sub("", text).replace(STUDY, ""))) < 20]
    assert bare == []


@needs_chromium
def test_every_chart_is_printed_whole_on_one_page(edition):
    folder, reader, pages = edition
    printed = [p for p in folder.glob("*.html") if p.stem != "11-explore"]  # its inputs need a browser: not printed
    charts = sum(p.read_text(encoding="utf-8").count('<figure class="iolab-chart"') for p in printed)
    assert charts >= 10
    marks = [re.findall(r"^Figure \d+$", p, re.M) for p in pages]
    assert sum(len(m) for m in marks) == charts  # each chart printed once, "Figure n" above it
    assert pdf.defects(next(folder.glob("*.pdf"))) == []  # and its end on the same page
    parts = pdf.marks(reader)  # each part marked at its top and foot, on one page
    assert len({key[:2] for key in parts}) == charts and all(at["top"] == at["end"] for at in parts.values())
    assert not [p for p in pages if "end of" in p.replace("\n", " ")]  # no invisible words to find or copy
    assert all(p.mediabox.width > p.mediabox.height > 590 for p in reader.pages)  # A4 landscape


def marked_pdf(path, texts, marks, monkeypatch):
    """A PDF of ``texts`` (a page each) whose named destinations are ``marks``: {name: page (0-based)}."""
    import pypdf

    monkeypatch.setattr(pypdf.PageObject, "extract_text", lambda self, *a, **k: texts[self.page_number])
    writer = pypdf.PdfWriter()
    for _ in texts:
        writer.add_blank_page(842, 595)
    for name, page in marks.items():
        writer.add_named_destination(name, page)
    writer.write(path)
    return path


def test_a_chart_split_by_a_page_break_is_a_defect(tmp_path, monkeypatch):
    """Each part of a figure is marked at its top and foot by a named destination (nothing in the
    text: the 1 px white "end of figure n" words were found by search and copy, issue 56)."""
    marks = {"iolab-figure-01_overview-1-1-top": 0, "iolab-figure-01_overview-1-1-end": 0}
    marks |= {"iolab-figure-01_overview-2-1-top": 0, "iolab-figure-01_overview-2-1-end": 1}
    texts = ["Figure 1\nFigure 2\n", "as Figure 3 of the paper shows"]
    assert pdf.defects(marked_pdf(tmp_path / "e.pdf", texts, marks, monkeypatch)) == [
        "page 1: figure 2 does not end on this page",
        "page 2: figure 2 ends here, begun on an earlier page",
    ]
    texts = ["Figure 1\nFigure 2\n", "Figure 3"]  # a figure without its marks: its end cannot be seen
    assert pdf.defects(marked_pdf(tmp_path / "f.pdf", texts, {}, monkeypatch)) == [
        "page 1: figure 1 has no marks (its end cannot be seen)",
        "page 1: figure 2 has no marks (its end cannot be seen)",
        "page 2: figure 3 has no marks (its end cannot be seen)",
    ]


@needs_chromium
def test_tables_cut_short_say_where_every_row_is_and_carry_no_hidden_csv(edition):
    _, reader, pages = edition
    links = [a.get_object().get("/A", {}).get("/URI", "") for p in reader.pages for a in p.get("/Annots") or []]
    assert not [u for u in links if str(u).startswith("data:")]  # the screen's CSV downloads stay on screen
    said = re.compile(r"\d+ of 263 rows shown; every row is in the HTML edition's CSV download and in iolab export")
    assert any(said.search(" ".join(p.split())) for p in pages)
    assert re.search(r"\b4 rows; all of them shown", " ".join(pages[2].split()))  # the overview's systems


@needs_chromium
def test_the_appendix_gives_every_file_its_sha256_and_every_run_its_lines(edition, study_db):
    _, reader, pages = edition
    _, first, last = sections(reader)[-1]
    appendix = plain("".join(pages[first : last + 1]))
    con = db.connect(study_db, read_only=True)
    try:
        files = con.execute(
            "SELECT path, sha256 FROM study_files WHERE study = ? AND status = 'ok'", [STUDY]
        ).fetchall()
        ((runs,),) = con.execute(
            "SELECT count(*) FROM (SELECT DISTINCT source_id, run_id FROM measurements WHERE study = ?)", [STUDY]
        ).fetchall()
        # the baseline's real Iometer file: its first run and the lines its numbers were read from
        key, lines = con.execute(
            """SELECT run_key, list(DISTINCT line_no ORDER BY line_no) FROM measurements
               WHERE study = ? AND source_path LIKE '%acme/sqlserverio__iometeroutput.csv'
               GROUP BY run_id, run_key ORDER BY run_id LIMIT 1""",
            [STUDY],
        ).fetchone()
    finally:
        con.close()
    assert len(files) == 11
    for path, sha in files:
        assert sha in appendix and plain(path) in appendix
    assert runs < pdf.RUN_ROWS and "more runs are not listed" not in appendix
    assert appendix.count(plain(SYSTEMS["omega"])) >= 64  # every run of a system is listed
    assert plain(f"{key}") in appendix and plain(pdf.line_ranges([[lines[0], lines[-1]]])) in appendix


def test_cli_says_where_chromium_is_missing(tmp_path, monkeypatch, study_db, capsys):
    from iolab.cli import main, requires

    monkeypatch.setattr(check, "chromium", lambda: None)
    code = main(["report", "--db", str(study_db), "--out", str(tmp_path / "o"), "--format", "pdf"])
    assert code == requires.EXIT_ENVIRONMENT and "needs Chromium" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@needs_chromium
def test_the_index_links_the_print_edition_until_its_pages_change(edition, study_db, tmp_path, monkeypatch, capsys):
    folder, _, _ = edition
    link = f'href="{render.slug(STUDY)}/{render.slug(STUDY)}.pdf">print edition (PDF)</a>'
    assert link in (folder.parent / "index.html").read_text()
    out = tmp_path / "out"
    shutil.copytree(folder.parent, out)
    assert render.render(study_db, out) == 0  # nothing changed: the pages are kept, and their edition
    assert pdf.edition_path(out, render.slug(STUDY)).is_file() and link in (out / "index.html").read_text()
    # --force renders the pages again; the same data and notebooks make the same pages: the edition stays
    capsys.readouterr()
    assert render.render(study_db, out, force=True) == 0
    assert pdf.edition_path(out, render.slug(STUDY)).is_file() and link in (out / "index.html").read_text()
    assert "removed" not in capsys.readouterr().out
    real = render.fingerprints  # pages whose fingerprint changed (new data, a new notebook): rendered again
    monkeypatch.setattr(render, "fingerprints", lambda *a: {k: v + "'" for k, v in real(*a).items()})
    assert render.render(study_db, out) == 0  # ... without an edition, which showed them as they were
    assert not pdf.edition_path(out, render.slug(STUDY)).exists() and ".pdf" not in (out / "index.html").read_text()
    assert "removed: its pages changed" in " ".join(capsys.readouterr().out.split())


def test_line_ranges_read_as_a_person_writes_them():
    assert pdf.line_ranges([[3, 5], [9, 9]]) == "3–5, 9"
    assert pdf.line_ranges(None, missing=4) == "4 without a line (its parser records none)"
    assert pdf.line_ranges([[1, 1]], spans=30, lo=1, hi=80) == "1, … (30 ranges in lines 1–80)"


def test_appendix_ranges_are_the_lines_of_the_database(study_db):
    con = db.connect(study_db, read_only=True)
    try:
        facts = pdf.appendix_facts(con, STUDY)
        want = dict(
            con.execute(
                "SELECT source_id, count(*) FROM measurements WHERE study = ? GROUP BY source_id", [STUDY]
            ).fetchall()
        )
        lines = con.execute(
            """SELECT run_id, list(DISTINCT line_no ORDER BY line_no) FILTER (WHERE line_no IS NOT NULL),
                      count(*) FILTER (WHERE line_no IS NULL)
               FROM measurements WHERE study = ? GROUP BY run_id""",
            [STUDY],
        ).fetchall()
    finally:
        con.close()
    assert {f["source_id"]: f["numbers"] for f in facts["files"] if f["numbers"]} == want
    got = {r["run_id"]: r["lines"] for r in facts["runs"]}
    for run_id, numbers, unlined in lines:  # the ranges, written out again, are exactly the run's lines
        ranges, _, missing = got[run_id].partition("; ") if numbers else ("", "", got[run_id])
        spans = [s.split("–") for s in ranges.split(", ") if s]
        assert [n for s in spans for n in range(int(s[0]), int(s[-1]) + 1)] == (numbers or [])
        assert missing == (f"{unlined} without a line (its parser records none)" if unlined else "")


def test_the_appendix_says_how_many_runs_it_leaves_out(study_db, monkeypatch):
    monkeypatch.setattr(facts_module, "RUN_ROWS", 10)
    con = db.connect(study_db, read_only=True)
    try:
        facts = pdf.appendix_facts(con, STUDY)
    finally:
        con.close()
    assert len(facts["runs"]) == 10 and facts["left_out"] == 263 - 10
    html = pdf.templates().get_template("appendix.html.j2").render(print_css="", study=STUDY, **facts)
    assert "253 more\nruns are not listed here" in html and "<script>alert" not in html


def test_an_appendix_without_runs_says_so_instead_of_an_empty_table():
    capture = dict(path="c.csv", system="", format="pdh-csv", parser="p", tool_version="", size_bytes=1, sha256="ab")
    capture |= dict(numbers=0, lines="", series=8, samples=208, used_as="")
    facts = {"files": [capture], "runs": [], "left_out": 0, "series": "1 captures holding 8 series", "depends": []}
    html = pdf.templates().get_template("appendix.html.j2").render(print_css="", study="s", **facts)
    assert "no measured runs: its numbers are the time series above" in html and "<th>run</th>" not in html
    assert "time series:\n8 series × 208 samples" in html  # a capture's points, not "0 numbers"


def test_an_appendix_of_reference_files_prints_without_their_empty_columns():
    """The demo's criteria study: a reference file with no system, tool version or lines. Its
    appendix is printed as print_template prints it (whole_names), its empty columns named; that
    failed the study's print edition while a classed head cell (<th class="num">) was not a column."""
    ref = dict(path="criteria/criteria.csv", system="", format="criteria-csv", parser="p", tool_version="")
    ref |= dict(size_bytes=2149, sha256="28", numbers=0, lines="", series=0, samples=0, used_as="")
    facts = {"files": [ref], "runs": [], "left_out": 0, "series": "", "depends": []}
    html = pdf.templates().get_template("appendix.html.j2").render(print_css="", study="criteria", **facts)
    printed = print_tables.whole_names(html)
    assert "columns empty in every row shown are left out: system, tool version, lines" in printed


def test_templates_escape_names_but_not_their_stylesheet():
    html = pdf.templates().get_template("folios.html.j2").render(study="<b>x</b>\x1b", total=2)
    assert "&lt;b&gt;x&lt;/b&gt;\\x1b" in html and "page 2 of 2" in html
    cover = (
        pdf.templates()
        .get_template("contents.html.j2")
        .render(print_css=pdf.print_css(), study="s", entries=[], left=[])
    )
    assert 'content: "Figure " counter(iolab-figure)' in cover  # CSS inside <style> is not HTML-escaped


def test_a_study_with_a_failed_page_gets_no_edition_and_the_render_says_so(study_db, tmp_path, monkeypatch, capsys):
    real = render.execute_page

    def execute(db_, study, nb, pages):
        if nb.name == "05-comparison":
            raise RuntimeError("the comparison broke")
        return real(db_, study, nb, pages)

    monkeypatch.setattr(render, "execute_page", execute)
    heard = []
    code = render.render(study_db, tmp_path / "out", pdf=True, on_page=lambda s, nb, what: heard.append((nb, what)))
    assert code == 1 and not pdf.edition_path(tmp_path / "out", render.slug(STUDY)).exists()
    assert ("print edition", "failed: not printed: a page of this study failed to render") in heard
    assert (tmp_path / "out" / render.slug(STUDY) / "01-overview.html").is_file()  # the other pages are written
    assert "print edition: not printed" in " ".join(capsys.readouterr().out.split())


@needs_chromium
def test_text_sizes_are_read_back_as_printed(edition):
    """The read-back measures text as a reader sees it on paper (96 CSS px to the inch)."""
    folder, _, _ = edition
    sizes = pdf.text_sizes(folder / f"{folder.name}.pdf")
    cover = [s for p, s, _ in sizes if p == 1]
    assert any(abs(s - 22.5) < 0.05 for s in cover)  # the cover's title, 30 px
    assert any(abs(s - 9) < 0.05 for s in cover)  # its text, 12 px
    assert any(abs(s - 6.75) < 0.05 for p, s, t in sizes if t.startswith("page ") and " of " in t)  # folios, 9 px
    assert not any(t.startswith("end of") for _, _, t in sizes)  # the invisible marks are not text for a reader


@needs_chromium
def test_no_printed_text_is_under_6_5_pt(edition):
    """The screen's charts shrunk onto A4 printed 776 runs of text at 2.9-6.2 pt: drawn for the page,
    none is under 6.5 pt, and every figure's text is at least 7 pt and on its page."""
    folder, _, _ = edition
    path = folder / f"{folder.name}.pdf"
    assert pdf.small_text(path) == []
    assert pdf.figure_text(path) == []
    # the charts' text prints at the size it was drawn: most of it 11 px labels at 8.25 pt, never scaled down
    figures = {n for n, text in enumerate(edition[2], 1) if re.search(r"^Figure \d+", text, re.M)}
    sizes = collections.Counter(s for p, s, _ in pdf.text_sizes(path) if p in figures)
    assert len(figures) >= 8 and sizes.most_common(1)[0][0] == pytest.approx(8.25, abs=0.01)


@needs_chromium
def test_a_chart_with_more_facets_than_a_page_holds_is_continued(edition):
    """The scaling curves' nine workloads: two rows of three a page, in two even parts (the second
    "Figure 1 (continued)", its legend again), none shrunk; every figure ends on the page it starts on."""
    folder, reader, pages = edition
    (start, end) = next((s, e) for t, s, e in sections(reader) if t == "Scaling curves")
    mine = pages[start : end + 1]
    first = next(i for i, p in enumerate(mine) if re.search(r"^Figure 1$", p, re.M))
    assert re.search(r"^Figure 1 \(continued\)$", mine[first + 1], re.M)
    # in the workloads' numeric order (iolab.display: 4 KiB before 8 KiB before 64 KiB), as even parts
    row = re.compile(r"(?:\d+ KiB (?:random|sequential) (?:read|write)(?: |$))+")  # a row of facets' titles
    one = re.compile(r"(\d+) KiB (?:random|sequential) (?:read|write)")

    def facets(page: str) -> list[str]:
        return [m.group(0) for line in page.splitlines() if row.fullmatch(line) for m in one.finditer(line)]

    a, b = facets(mine[first]), facets(mine[first + 1])
    assert len(set(a + b)) == 9 and abs(len(a) - len(b)) <= 1, (a, b)
    assert max(int(one.match(t).group(1)) for t in a) <= min(int(one.match(t).group(1)) for t in b), (a, b)
    assert pdf.defects(folder / f"{folder.name}.pdf") == []


def broken_words(pages: list[str], words: set[str]) -> list[str]:
    """The words of ``words`` (a study's pages' words) a printed edition's text breaks over two lines
    ("anothe|r", "DS430|0", "RAID-|10"): a line's last piece and the next line's first that make one
    of them together, one of them alone not. A path (a slash) may break after its slashes, and
    markup or numbers side by side (a chart's ticks) are not words."""
    word = re.compile(r"[A-Za-z0-9().,%_-]*[A-Za-z][A-Za-z0-9().,%_-]*")
    found = []
    for page in pages:
        lines = [line.split() for line in page.splitlines()]
        for a, b in zip(lines, lines[1:]):
            if not (a and b) or not word.fullmatch(a[-1] + b[0]):
                continue
            if a[-1] + b[0] in words and (a[-1] not in words or b[0] not in words):
                found.append(f"{a[-1]}|{b[0]}")
    return found


@needs_chromium
def test_no_word_is_broken_over_two_lines(edition):
    """A table's columns are at least as wide as their longest word, a name or a short text (RAID-10)
    on one line where the page's width holds it (issue 56: 292 words of the ds4300 study's edition
    were broken, 'anothe|r configu|ration', 'DS430|0'): every word of the pages reads whole."""
    folder, _, pages = edition
    words = set()
    for page in folder.glob("*.html"):
        text = re.sub(r"<script.*?</script>|<style.*?</style>", " ", page.read_text(encoding="utf-8"), flags=re.S)
        words |= set(html.unescape(re.sub(r"<[^>]*>", " ", text)).split())
    assert len(words) > 1000 and broken_words(pages, words) == []
    lines = [line for p in pages for line in p.splitlines()]
    assert sum(bool(re.match(r"\d+ KiB (random|sequential) (read|write)", line)) for line in lines) > 50


@needs_chromium
def test_per_drive_labels_print_whole_and_per_run_rows_take_two_lines(edition):
    """The per-drive chart's labels were cut in its data ("... · 1 drives · randread-…"): printed whole
    now, on two lines. The per-run table's paths took 4 lines in a narrow column (12 rows a page): two
    lines now, 20 rows a page or more."""
    _, reader, pages = edition
    (start, end) = next((s, e) for t, s, e in sections(reader) if t == "IOPS per drive and sizing")
    mine = pages[start : end + 1]
    figures = [p for p in mine if re.search(r"^Figure 1( \(continued\))?$", p, re.M)]
    whole = "fio | D3-S4610 `single` drive · 4 KiB random read, QD 16 · 1 drives · randread-16-1.json 1:1:random-read"
    assert plain(whole) in plain(figures[0]) and "…" not in "".join(figures)
    assert sum(plain(whole) in plain(p) for p in pages) == 1  # the bar's label, not some other text
    first = next(i for i, p in enumerate(mine) if re.search(r"^Per run$", p, re.M))
    last = next(i for i, p in enumerate(mine) if "Per workload target" in p)
    rows = [len(re.findall(r"\bs1/r\d+\b", p)) for p in mine[first:last]]  # a run key a row
    # the table starts under the figure, in what is left of its page; a page of its own holds 20 rows or
    # more (the hostile names of this study take two and three lines; the ds4300 study's rows: 30 a page)
    assert len(rows) >= 2 and max(rows) >= 20, rows


@needs_chromium
def test_the_print_edition_names_no_identifier(edition, study_db):
    """The printed text (headings, axis and legend titles, table headers, the appendix's prose): no
    metric's or view column's identifier where a name is read (iolab.display labels them)."""
    from tests import words_scan

    _, _, texts = edition
    con = db.connect(study_db, read_only=True)
    try:
        names = words_scan.identifiers(con)
    finally:
        con.close()
    lines = [(f"page {i + 1}", line) for i, t in enumerate(texts) for line in t.splitlines()]
    assert words_scan.found(lines, names) == []


@pytest.mark.slow  # a second edition, of the bundled ds4300 study (a minute): make test-slow
@needs_chromium
def test_the_ds4300_edition_fits_35_pages_with_its_long_table_at_25_rows_a_page(tmp_path):
    """Issue 56: the bundled ds4300-vs-fastt200-2004 study printed to 56 pages, its 50 'points without
    a match' at 3 rows a page (then 17: each row three lines, its reason in every row). Its reasons now
    head their runs of rows (print_tables.grouped_column): 35 pages or fewer, and a page of that table
    holds 25 rows or more."""
    name = "ds4300-vs-fastt200-2004"
    shutil.copytree(ROOT / "data" / "samples" / name, tmp_path / "data" / name)
    con = db.open_db(tmp_path / "d.duckdb")
    batch.ingest_paths(con, [tmp_path / "data"])
    con.close()
    assert render.render(tmp_path / "d.duckdb", tmp_path / "out", pdf=True) == 0
    reader = pypdf.PdfReader(tmp_path / "out" / name / f"{name}.pdf")
    pages = [p.extract_text() for p in reader.pages]
    assert len(pages) <= 35
    first = next(i for i, p in enumerate(pages) if "Points without a match" in p)
    rows = [len(re.findall(r"^(?:system|baseline) IBM ", p, re.M)) for p in pages[first:]]
    rows = rows[: next(i for i, n in enumerate(rows) if i and n == 0)]  # the table's pages
    assert sum(rows) == 50 and len(rows) >= 2 and max(rows[1:]) >= 25, rows
    text = " ".join("".join(pages[first:]).split())
    why = "the baseline (IBM FAStT200 (dual controllers)) has no point at this workload, load, scope and metric"
    assert f"reason: {why}" in text
