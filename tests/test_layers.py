"""The house has no circles (issue 42, point 6): the package's modules import one another in layers,
each only from the layers below it, and no module or function outgrows what a reader takes in at once.

Every import counts: at the top of a module, inside a function (a lazy import is still a dependency),
under ``TYPE_CHECKING``, and a package's ``__init__`` importing its submodules. ``from P import a``
depends on the package ``P`` (its ``__init__`` runs and may define ``a``) and, where ``P.a`` is a
submodule, on that too. ``docs/DESIGN.md`` ("Layers") says the same in words.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ingest"

# The layers, lowest first: a module may import its own layer's modules (without a circle) and
# those of the layers below, never one above. A module is placed by the longest prefix listed here.
LAYERS: list[tuple[str, list[str]]] = [
    (
        "base: text, numbers, names, paths, the metric vocabulary (no other iolab module)",
        [
            "iolab",  # the package's face: the version only
            "iolab.config",
            "iolab.csvsafe",
            "iolab.display",
            "iolab.errors",
            "iolab.faults",
            "iolab.fdr",
            "iolab.metrics",
            "iolab.names",
            "iolab.outcome",
            "iolab.paths",
            "iolab.processes",
            "iolab.progress",
            "iolab.regular",
            "iolab.text",
            "iolab.vocabulary",
            "iolab.written",
            "iolab.terminal",
            "iolab.wording",
        ],
    ),
    ("model: the records every parser returns", ["iolab.model", "iolab.sla_bound", "iolab.sidecar_schema"]),
    ("formats: one module per file format", ["iolab.formats", "iolab.archives", "iolab.bounds"]),
    ("registry: which format a file is", ["iolab.registry", "iolab.vocabulary_table", "iolab.sidecar"]),
    ("outputs: folders iolab writes", ["iolab.outputs", "iolab.guard", "iolab.declared"]),
    ("store: the database and the time-series files beside it", ["iolab.store", "iolab.db"]),
    (
        "files: finding and reading the raw files, and the plan of an ingest",
        ["iolab.files", "iolab.parsing", "iolab.roots", "iolab.ahead", "iolab.plan"],
    ),
    ("batch: an ingest run", ["iolab.batch", "iolab.storing"]),
    (
        "lake, reports and watch: what is read out of the store, and a folder kept in it",
        ["iolab.lake", "iolab.reports", "iolab.lab", "iolab.watch"],
    ),
    ("cli: the command line (imports everything)", ["iolab.cli", "iolab.__main__"]),
]
# argument parsing lives in the command line only
PARSERS_ONLY_IN = "iolab.cli"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
# a format module follows its file's sections (DESIGN.md): its length is exempt, not its functions
SIZE_EXEMPT = ("iolab.formats",)


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ["iolab", *path.relative_to(PACKAGE).with_suffix("").parts]  # ingest/ is the package iolab
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imported(node: ast.AST, name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The iolab modules one import statement depends on."""
    found: set[str] = set()

    def add(dotted: str) -> None:
        while dotted and dotted not in known:  # `import iolab.x.y` or a name of a module
            dotted = dotted.rpartition(".")[0]
        if dotted:
            found.add(dotted)

    if isinstance(node, ast.Import):
        for a in node.names:
            if a.name.split(".")[0] == "iolab":
                add(a.name)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            source = f"{base}.{node.module}" if node.module else base
        elif (node.module or "").split(".")[0] == "iolab":
            source = node.module or ""
        else:
            return found
        add(source)
        for a in node.names:
            if f"{source}.{a.name}" in known:
                found.add(f"{source}.{a.name}")
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            deps |= _imported(node, name, path, known)
        edges[name] = deps - {name}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def layer(name: str) -> int:
    best, found = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > best:
                best, found = len(p), i
    if found is None:
        raise AssertionError(f"{name} is in no layer: add it to LAYERS in tests/test_layers.py and docs/DESIGN.md")
    return found


def test_the_scan_sees_lazy_and_package_imports():
    """The reading itself, on made-up modules: a lazy import, a relative one, a face and its submodule."""
    known = {n: Path(n) for n in ("iolab", "iolab.a", "iolab.p", "iolab.p.b", "iolab.p.c")}
    src = "def f():\n    from ..a import x\n    from . import c\n    import iolab.p.b\n"
    deps = set()
    for node in ast.walk(ast.parse(src)):
        deps |= _imported(node, "iolab.p.b", Path("b.py"), known)
    assert deps == {"iolab.a", "iolab.p", "iolab.p.c", "iolab.p.b"}
    face = ast.parse("from .b import y\nfrom .c import z\n")
    assert set().union(*(_imported(n, "iolab.p", Path("__init__.py"), known) for n in ast.walk(face))) == {
        "iolab.p.b",
        "iolab.p.c",
    }
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_in_a_circle():
    assert circles(graph()) == []


def test_each_layer_imports_only_the_layers_below():
    upward = [
        f"{name} ({LAYERS[layer(name)][0].split(':')[0]}) imports {dep} ({LAYERS[layer(dep)][0].split(':')[0]})"
        for name, deps in sorted(graph().items())
        for dep in sorted(deps)
        if layer(dep) > layer(name)
    ]
    assert upward == []


def _sized(name: str) -> bool:
    return not any(name == p or name.startswith(p + ".") for p in SIZE_EXEMPT)


def test_no_module_over_500_lines():
    long = {
        name: n
        for name, path in modules().items()
        if _sized(name) and (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_over_60_lines():
    """Everywhere, the formats included (issue 57: their modules may run long, their functions may not)."""
    long = {}
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if (n := (node.end_lineno or node.lineno) - first + 1) > MAX_FUNCTION_LINES:
                    long[f"{name}.{node.name}"] = n
    assert long == {}


def test_arguments_are_parsed_only_by_the_command_line():
    parsing = sorted(
        name
        for name, path in modules().items()
        if not (name == PARSERS_ONLY_IN or name.startswith(PARSERS_ONLY_IN + "."))
        and any(
            (isinstance(n, ast.Import) and any(a.name == "argparse" for a in n.names))
            or (isinstance(n, ast.ImportFrom) and n.module == "argparse")
            for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    )
    assert parsing == []
