"""The format registry refuses an incomplete format module loudly, naming the module and attribute."""

from __future__ import annotations

import importlib
import sys

import pytest

from iolab import registry

GOOD = 'FORMAT = "good-fmt"\nVERSION = "1"\ndef sniff(head, name): return False\ndef parse(data, name): return None\n'


def plant(tmp_path, monkeypatch, pkg: str, modules: dict[str, str]):
    d = tmp_path / pkg
    d.mkdir()
    (d / "__init__.py").write_text("")
    for name, text in modules.items():
        (d / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    return importlib.import_module(pkg)


def test_real_formats_are_complete():
    mods = registry.load()
    assert len(mods) >= 18 and all(isinstance(m.FORMAT, str) for m in mods)


@pytest.mark.parametrize(
    "text, attr, words",
    [
        (GOOD.replace('VERSION = "1"\n', ""), "VERSION", "has no VERSION"),
        (GOOD.replace("def parse", "def not_parse"), "parse", "has no parse"),
        (GOOD.replace('FORMAT = "good-fmt"', "FORMAT = 3"), "FORMAT", "FORMAT is 3, it must be a non-empty str"),
        (GOOD.replace("def sniff(head, name): return False", 'sniff = "yes"'), "sniff", "sniff is 'yes'"),
    ],
)
def test_broken_module_is_refused(tmp_path, monkeypatch, text, attr, words):
    pkg = f"planted_{attr.lower()}"
    package = plant(tmp_path, monkeypatch, pkg, {"good": GOOD, "broken": text, "_helper": "X = 1\n"})
    with pytest.raises(registry.IncompleteFormat) as e:
        registry.load(package)
    assert f"{pkg}.broken" in str(e.value) and words in str(e.value)
    sys.modules.pop(f"{pkg}.broken", None)


def test_duplicate_format_names_are_refused(tmp_path, monkeypatch):
    package = plant(tmp_path, monkeypatch, "planted_dup", {"a": GOOD, "b": GOOD})
    with pytest.raises(registry.IncompleteFormat, match="good-fmt"):
        registry.load(package)


def test_helper_modules_are_skipped(tmp_path, monkeypatch):
    package = plant(tmp_path, monkeypatch, "planted_ok", {"good": GOOD, "_helper": "X = 1\n"})
    assert [m.FORMAT for m in registry.load(package)] == ["good-fmt"]
