"""Names as iolab shows them: nothing in a name may hide, reorder or fake what it says.

Names come from outside (file names, study and system names in sidecars, labels in a capture). Some
characters act on the reader instead of being read: control characters (ESC, CR, a newline) act on a
terminal or split a log line; bidi controls reorder what follows (a study ``Study \\u202eevil\\u202c``
reads "Study live"); zero-width and other invisible format characters make two different names look
the same. ``visible`` writes each as an escape, as Python writes it in a string (``\\x1b``,
``\\u202e``), wherever a name lands: the terminal (iolab.terminal.shown), pages and charts
(iolab.reports.tables), the print edition. The rule, one for all of them:

  - control characters, Unicode category Cc (C0, DEL, C1), but those of ``keep``;
  - format characters, category Cf: the bidi embeddings, overrides and isolates (U+202A-202E,
    U+2066-2069), the marks U+200E/U+200F/U+061C, zero-width space/joiners (U+200B-200D), word
    joiner U+2060, U+FEFF, soft hyphen, and every other character Unicode files as invisible format;
  - line and paragraph separators (U+2028, U+2029, categories Zl, Zp), which split lines as a newline does;
  - the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) and U+034F COMBINING GRAPHEME JOINER: letters
    or marks by category, drawn as nothing.

Two names can also differ only by letters that look alike (a Cyrillic 'а' for a Latin 'a'). ``skeleton``
is what a name looks like, by a small table: NFKC (fullwidth letters, ligatures, mathematical letters
become the plain ones), invisible characters dropped, then the Cyrillic and Greek letters drawn like a
Latin one replaced by it (``LOOK_ALIKE``, the Latin-looking letters of Unicode's confusables.txt for those
two scripts). ``look_alike(a, b)``: different names with one skeleton. ``did_you_mean`` says so.
"""

from __future__ import annotations

import re
import unicodedata

# one pattern for every candidate (any non-ASCII character or an ASCII control); the category decides
_CANDIDATE = re.compile("[\x00-\x1f\x7f-\U0010ffff]")
_DRAWN_AS_NOTHING = {"\u034f", "\u115f", "\u1160", "\u3164", "\uffa0"}
_HIDDEN_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}


def hidden(ch: str) -> bool:
    """Whether ``ch`` acts on the reader or draws nothing (this module's rule), so it is shown escaped."""
    return unicodedata.category(ch) in _HIDDEN_CATEGORIES or ch in _DRAWN_AS_NOTHING


def escape(ch: str) -> str:
    """``ch`` as Python writes it in a string: \\x1b, \\u202e, \\U000e0001."""
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def visible(text: str, keep: str = "") -> str:
    """``text`` with every hidden character (but those of ``keep``, e.g. a table cell's newlines) as its escape."""
    return _CANDIDATE.sub(
        lambda m: m.group() if m.group() in keep or not hidden(m.group()) else escape(m.group()), text
    )


# Cyrillic and Greek letters drawn as a Latin one (Unicode's confusables.txt, those mapping to one
# Latin letter, as most fonts draw them)
LOOK_ALIKE = str.maketrans(
    {
        **dict(zip("АВЕЅІЈКМНОРСТХУԌԚԜӀ", "ABESIJKMHOPCTXYGQWI", strict=True)),
        **dict(zip("аеѕіјорсхуԁһԛԝӏѵ", "aesijopcxydhqwlv", strict=True)),
        **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
        **dict(zip("οιναρ", "oivap", strict=True)),
    }
)


def skeleton(name: str) -> str:
    """What ``name`` looks like (this module's table): NFKC, hidden characters dropped, look-alikes Latin."""
    text = unicodedata.normalize("NFKC", name)
    return "".join(c for c in text if not hidden(c)).translate(LOOK_ALIKE)


def look_alike(a: str, b: str) -> bool:
    """``a`` and ``b`` are different names drawn the same (invisible characters, look-alike letters)."""
    return a != b and skeleton(a) == skeleton(b)


def did_you_mean(value: str, known: list[str]) -> str:
    """The hint after a name that matches nothing: "; did you mean 'x'?", the names shown escaped, and
    said when ``value`` differs from that name only by look-alike or invisible characters; "" when
    nothing is close."""
    import difflib  # here: showing a name never needs it

    same = [k for k in known if look_alike(value, k)]
    if same:
        return (
            f"; did you mean '{visible(same[0])}'? '{visible(value)}' differs from it only by characters drawn "
            f"alike ({differing(value, same[0])})"
        )
    close = difflib.get_close_matches(value, known, n=1, cutoff=0.6)
    return f"; did you mean '{visible(close[0])}'?" if close else ""


def differing(value: str, other: str) -> str:
    """Which characters of ``value`` make it differ from ``other`` (its look-alike): their Unicode names."""
    theirs = set(other)
    odd = [c for c in dict.fromkeys(value) if c not in theirs]
    return ", ".join(f"{escape(c) if hidden(c) else c} is {unicodedata.name(c, escape(c))}" for c in odd) or "spelling"
