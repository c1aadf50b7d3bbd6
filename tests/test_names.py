"""Names cannot lie (iolab.names): bidi controls, zero-width and other invisible format characters are
shown as escapes wherever a name lands (terminal, pages, charts, print edition, file names), like
control characters; a did-you-mean shows the escaped name and says when two names differ only by
characters drawn alike (a Cyrillic 'а' for a Latin 'a')."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from iolab import cli
from iolab.declared import Problem
from iolab.names import did_you_mean, look_alike, skeleton, visible
from iolab.reports import folders, pdf, tables
from iolab.terminal import shown

BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]
ZERO_WIDTH = [0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF]
EVIL = "Study \u202eevil\u202c"  # reads "Study live" where the override is obeyed


@pytest.mark.parametrize("code", BIDI + ZERO_WIDTH + [0x00AD, 0x2028, 0x2029, 0x3164, 0xE0001, 0x1B, 0x9B])
def test_each_hidden_character_is_written_as_its_escape(code):
    ch = chr(code)
    want = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    assert shown(f"a{ch}b") == f"a{want}b"


def test_a_right_to_left_override_cannot_turn_a_name_around():
    assert shown(EVIL) == "Study \\u202eevil\\u202c"
    assert tables.esc(EVIL) == "Study \\u202eevil\\u202c"  # pages: headings, table cells, captions
    assert tables.visible({"system": [EVIL]}) == {"system": ["Study \\u202eevil\\u202c"]}  # charts' data
    assert pdf.templates().from_string("<b>{{ s }}</b>").render(s=EVIL) == "<b>Study \\u202eevil\\u202c</b>"
    assert tables.file_name(EVIL) == "study-evil"  # chart image files
    assert folders.slug(EVIL).startswith("study-evil-") and folders.slug(EVIL).isascii()  # folders


def test_letters_of_every_script_and_a_cells_white_space_stay_as_they_are():
    text = "Ärger 東京 Москва αβγ café 🙂 a\tb\nc"
    assert visible(text, keep="\t\n\r") == text
    assert tables.esc("a\nb") == "a\nb" and shown("a\nb") == "a\\x0ab"  # a terminal line stays one line


@given(st.text(alphabet=st.characters(categories=["Cc", "Cf", "Zl", "Zp"]), min_size=1))
def test_no_invisible_character_survives(text):
    out = shown(text)
    assert out.isascii() and out.isprintable()


@given(st.text())
def test_escaping_is_idempotent_and_leaves_nothing_hidden(text):
    once = shown(text)
    assert shown(once) == once
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in once)


def test_look_alikes_by_the_table_and_nfkc():
    assert look_alike("Acme X1", "Аcme X1")  # Cyrillic capital А
    assert look_alike("acme", "аcmе")  # Cyrillic а and е
    assert look_alike("Acme X1", "Acme\u200b X1")  # a zero-width space
    assert look_alike("Acme X1", "Ａｃｍｅ X1")  # fullwidth (NFKC)
    assert look_alike("POOL", "ΡΟΟL")  # Greek capitals rho and omicron
    assert not look_alike("Acme X1", "Acme X1")  # the same name
    assert not look_alike("Acme X1", "acme X1") and not look_alike("café", "cafe")  # differences one can see
    assert skeleton("Аcme") == "Acme"


def test_did_you_mean_names_the_characters_drawn_alike():
    hint = did_you_mean("Аcme X1", ["Acme X1", "Bolt Z9"])
    assert (
        hint
        == "; did you mean 'Acme X1'? 'Аcme X1' differs from it only by characters drawn alike (А is CYRILLIC CAPITAL LETTER A)"
    )
    hint = did_you_mean("Acme\u200bX1", ["AcmeX1"])
    assert "'Acme\\u200bX1' differs from it only by characters drawn alike (\\u200b is ZERO WIDTH SPACE)" in hint
    assert did_you_mean("Acme X2", ["Acme X1"]) == "; did you mean 'Acme X1'?"  # an ordinary near miss
    assert did_you_mean("Bolt\u202e", ["Bolt\u202d"]).startswith("; did you mean 'Bolt\\u202d'?")
    assert did_you_mean("zzz", ["Acme X1"]) == ""


def test_a_declared_baseline_with_a_cyrillic_letter_says_so_instead_of_two_identical_names():
    reason = Problem("s\u202e1", "baseline", "Аcme X1", ["Acme X1", "Bolt Z9"]).reason()
    assert "baseline names 'Аcme X1', which is no system of study 's\\u202e1'" in reason
    assert "differs from it only by characters drawn alike (А is CYRILLIC CAPITAL LETTER A)" in reason


def test_compare_baseline_look_alike_is_refused_saying_why(tmp_path, capsys):
    from tests.conftest import ROOT

    src = ROOT / "data" / "samples" / "iomark-vm-hp4335-2014"
    dbf = tmp_path / "x.duckdb"
    assert cli.main(["ingest", "-q", str(src), "--db", str(dbf)]) == 0
    capsys.readouterr()
    import duckdb

    con = duckdb.connect(str(dbf), read_only=True)
    study, system = con.execute("SELECT study, system FROM measurements WHERE system IS NOT NULL LIMIT 1").fetchone()
    con.close()
    fake = system.replace("a", "а", 1).replace("e", "е", 1).replace("o", "о", 1)
    assert fake != system
    assert cli.main(["compare", "--db", str(dbf), "--study", study, "--baseline", fake + "\u200b"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"did you mean '{system}'?" in err and "differs from it only by characters drawn alike" in err
    assert "\\u200b is ZERO WIDTH SPACE" in err
