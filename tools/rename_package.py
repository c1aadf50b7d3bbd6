"""One-off: the installed package becomes `iolab` (was the top-level `ingest` and `validation`).

    python3 tools/rename_package.py [--check]      # then: git diff --stat; make lint; delete this file

The folders stay where the design card puts them: pyproject maps `iolab` -> ingest/, `iolab.validation`
-> validation/, `iolab.schemas` -> schemas/, `iolab.notebooks` -> notebooks/ (setuptools package-dir).
What changes is every *module name*:

* inside ingest/: `from ingest.x import y` becomes a relative import (`from .x import y`), as the
  other 263 imports there already are: mypy, which reads ingest/ by path, keeps following them;
* everywhere else (validation/, tests/, notebooks/, docs, Makefile, .jupyter, tests/golden/):
  `from ingest.x import` -> `from iolab.x import`, `from validation.x import` -> `from iolab.validation.x
  import`, `import validation` -> `from iolab import validation`, `-m ingest` -> `-m iolab`, and every
  dotted name of a real module (`ingest.reports.page`, `"ingest.formats.fio"`, `validation.run`)
  -> `iolab.reports.page`, ... Paths (`ingest/db.py`), the command (`iolab ingest`) and words stay;
* pyproject.toml: packages, package-dir, package-data, the entry point, ruff's first-party name;
  mypy's module names stay `ingest.*` (mypy names modules by their folders);
* tests/__init__.py: a finder that maps `iolab` to this checkout's folders, ahead of an editable
  install of another checkout sharing the venv.

Idempotent: a second run changes nothing. Never touches tests/corpus/, tests/fixtures/, data/ (real
files, byte-exact). `--check` lists what would change and exits 1 if anything would.
Finally runs `ruff check --select I --fix .` and `ruff format .` (import order; the repo is formatted already).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = ("tests/corpus/", "tests/fixtures/", "data/", "tools/rename_package.py", "schemas/V090", ".venv/", "build/")
TEXT = {".py", ".md", ".toml", ".json", ".yaml", ".yml", ".sql", ".j2", ".txt", ".cfg", ".sh", ""}


def submodules(folder: Path) -> list[str]:
    """Names importable directly under a package folder (modules and sub-packages)."""
    names = {p.stem for p in folder.glob("*.py")} | {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
    return sorted(names - {"__init__"}, key=lambda n: (-len(n), n))


def dotted(old: str, new: str, names: list[str]) -> tuple[re.Pattern[str], str]:
    """`old.<real module>` (or `old.{` in an f-string) not part of a longer name or a path -> `new.`."""
    return re.compile(rf"(?<![\w./\\-]){re.escape(old)}\.(?=(?:{'|'.join(names)})\b|\{{)"), new + "."


ING = submodules(ROOT / "ingest") + ["schemas", "notebooks"]
VAL = submodules(ROOT / "validation")
DOTTED = [dotted("ingest", "iolab", ING), dotted("validation", "iolab.validation", VAL)]
FROM_VALIDATION = re.compile(r"^(\s*)from validation((?:\.\w+)*) import ", re.M)
FROM_INGEST = re.compile(r"^(\s*)from ingest((?:\.\w+)*) import ", re.M)
IMPORT_BARE = re.compile(r"^(\s*)import (ingest|validation)$", re.M)
RUN_MODULE = [
    (re.compile(r"-m ingest\b(?![./-])"), "-m iolab"),
    (re.compile(r"""(["'])-m\1(,\s*)(["'])ingest\3"""), r"\1-m\1\2\3iolab\3"),
]
PHRASES = [  # prose that names the wheel's layout by path; what tests/wheel_install.py expects of the wheel
    (
        'TOP_LEVEL = {"ingest", "validation"}  # the import names the wheel installs (tools/rename_package.py: iolab alone)',
        'TOP_LEVEL = {"iolab"}  # the one import name the wheel installs (package-dir: ingest/ -> iolab)',
    ),
    (
        "ship inside the wheel as ``ingest/schemas``\nand ``ingest/notebooks``",
        "ship inside the wheel as ``iolab/schemas``\nand ``iolab/notebooks``",
    ),
    (
        "ship inside the wheel as ingest/schemas and ingest/notebooks (ingest.config",
        "ship inside the wheel as iolab/schemas and iolab/notebooks (iolab.config",
    ),
]


def relative(rel: Path, target: str) -> str:
    """`from ingest.x.y import` seen from ingest/<rel>: the relative form (`from ..x.y import`)."""
    pkg = ["ingest", *rel.parts[1:-1]]  # the package the file is in (an __init__.py: its own)
    tgt = ["ingest", *filter(None, target.split("."))]
    common = 0
    while common < min(len(pkg), len(tgt)) and pkg[common] == tgt[common]:
        common += 1
    return "." * (len(pkg) - common + 1) + ".".join(tgt[common:])


def rewrite(rel: Path, text: str) -> str:
    in_ingest = rel.parts[0] == "ingest"
    if rel.suffix == ".py":
        text = FROM_VALIDATION.sub(lambda m: f"{m[1]}from iolab.validation{m[2]} import ", text)
        if in_ingest:
            text = FROM_INGEST.sub(lambda m: f"{m[1]}from {relative(rel, m[2])} import ", text)
        else:
            text = FROM_INGEST.sub(lambda m: f"{m[1]}from iolab{m[2]} import ", text)
        text = IMPORT_BARE.sub(lambda m: f"{m[1]}from iolab import {m[2]}", text)
    if rel.suffix == ".md":  # code quoted in the docs
        text = re.sub(r"\bfrom ingest import\b", "from iolab import", text)
        text = re.sub(r"\bfrom validation import\b", "from iolab.validation import", text)
    for pattern, new in [*RUN_MODULE, *DOTTED]:
        text = pattern.sub(new, text)
    for old, new in PHRASES:
        text = text.replace(old, new)
    return text


PACKAGES = re.compile(r"^packages = \[(.*)\]$", re.M)
PYPROJECT = [  # (old, new): exact edits of pyproject.toml, outside [tool.mypy] (mypy names modules by folder)
    ('iolab = "ingest.cli:run"', 'iolab = "iolab.cli:run"'),
    (
        '[tool.setuptools.package-dir]\n"ingest.schemas" = "schemas"\n"ingest.notebooks" = "notebooks"',
        '[tool.setuptools.package-dir]\n"iolab" = "ingest"\n"iolab.validation" = "validation"\n'
        '"iolab.schemas" = "schemas"\n"iolab.notebooks" = "notebooks"',
    ),
    ('"ingest.schemas" = ["*.sql"', '"iolab.schemas" = ["*.sql"'),
    ('"ingest.notebooks" = ["*.py"]', '"iolab.notebooks" = ["*.py"]'),
    ('"ingest.formats" = ["versions_seen.json"]', '"iolab.formats" = ["versions_seen.json"]'),
    ('"ingest.reports" = ["templates/*"]', '"iolab.reports" = ["templates/*"]'),
    (
        "[tool.ruff.lint.per-file-ignores]",
        '[tool.ruff.lint.isort]\nknown-first-party = ["iolab"]  # the package of ingest/ and validation/ (package-dir)\n\n[tool.ruff.lint.per-file-ignores]',
    ),
]


def rewrite_pyproject(text: str) -> str:
    for old, new in PYPROJECT:
        if new not in text:
            text = text.replace(old, new)
    m = PACKAGES.search(text)
    if m:
        names = [n.strip().strip('"') for n in m[1].split(",")]
        names = ["iolab.validation" if n == "validation" else re.sub(r"^ingest\b", "iolab", n) for n in names]
        text = text[: m.start(1)] + ", ".join(f'"{n}"' for n in names) + text[m.end(1) :]
    for old, new in PHRASES:
        text = text.replace(old, new)
    return text


FINDER = '''"""The tests' package. Imported before conftest.py and every test module: it makes `iolab` this checkout's
ingest/ (pyproject's package-dir maps the name to the folder), ahead of the editable install of another
checkout that shares the venv (a worktree run with PYTHONPATH=$PWD). Subprocesses do not see it.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


class _ThisCheckout(importlib.abc.MetaPathFinder):
    FOLDERS = {"iolab": "ingest", "iolab.validation": "validation", "iolab.schemas": "schemas", "iolab.notebooks": "notebooks"}

    def find_spec(self, name, path=None, target=None):
        if name not in self.FOLDERS:
            return None
        folder = _ROOT / self.FOLDERS[name]
        if (folder / "__init__.py").is_file():
            return importlib.util.spec_from_file_location(name, folder / "__init__.py", submodule_search_locations=[str(folder)])
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
        return spec


sys.meta_path.insert(0, _ThisCheckout())
'''


def add_finder(text: str) -> str:
    """tests/__init__.py (empty today) gets the finder; once there, it is left alone."""
    if "class _ThisCheckout" in text:
        return text
    assert not text.strip(), "tests/__init__.py is no longer empty: add the finder by hand"
    return FINDER


def files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    rels = [Path(p) for p in out.split("\0") if p]
    return [r for r in rels if not str(r).startswith(SKIP) and (r.suffix in TEXT or r.name == "Makefile")]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    changed: list[Path] = []
    for rel in files():
        path = ROOT / rel
        try:
            old = path.read_text()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        if str(rel) == "pyproject.toml":
            new = rewrite_pyproject(old)
        else:
            new = rewrite(rel, old)
            if str(rel) == "tests/__init__.py":
                new = add_finder(new)
        if new != old:
            changed.append(rel)
            if not check:
                path.write_text(new)
    print(f"{len(changed)} files {'would change' if check else 'changed'}")
    for rel in changed:
        print(f"  {rel}")
    if check:
        return 1 if changed else 0
    ruff = ROOT / ".venv" / "bin" / "ruff"  # import order (relative imports sort apart), on every run: idempotent
    if ruff.exists():
        subprocess.run([str(ruff), "check", "-q", "--select", "I", "--fix", "."], cwd=ROOT)
        subprocess.run([str(ruff), "format", "-q", "."], cwd=ROOT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
