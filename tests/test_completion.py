"""`iolab completion bash|zsh|fish` (issue 42). The bash script is run in bash: sourced, registered
(`complete -p`), and its function called with COMP_WORDS as bash calls it on TAB. The fish script is
run in fish (`complete -C`: what fish offers on TAB); the zsh script is read by zsh and registered by
compinit. All three are also checked for what they must hold (every command, option and choice of the
parser). `make test` installs Debian's zsh and fish.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from iolab import cli
from iolab.cli import completion
from tests.conftest import ROOT

IOLAB = str(Path(sys.executable).parent / "iolab")
HOSTILE = 'a b $(touch pwned) "q"'  # a study name a shell must not run


def script(capsys, shell: str) -> str:
    assert cli.main(["completion", shell]) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def dbf(tmp_path_factory):
    data = tmp_path_factory.mktemp("data") / "ds"
    shutil.copytree(ROOT / "data" / "samples" / "ds4300-vs-fastt200-2004", data)
    toml = (data / "iolab.toml").read_text()
    (data / "iolab.toml").write_text(toml.replace('"ds4300-vs-fastt200-2004"', '"a b $(touch pwned) \\"q\\""'))
    path = tmp_path_factory.mktemp("db") / "c.duckdb"
    assert cli.main(["ingest", "-q", str(data), "--db", str(path)]) == 0
    return path


def complete(tmp_path: Path, source: str, *lines: list[str]) -> list[list[str]]:
    """COMPREPLY of bash for each command line (its last word the one being completed)."""
    (tmp_path / "iolab.bash").write_text(source)
    calls = "\n".join(
        "COMP_WORDS=(" + " ".join(_bash_word(w) for w in words) + f"); COMP_CWORD={len(words) - 1}; "
        'COMPREPLY=(); _iolab; printf "%s\\n" "${#COMPREPLY[@]}" "${COMPREPLY[@]}"'
        for words in lines
    )
    out = subprocess.run(
        ["bash", "--norc", "-c", f"source {tmp_path / 'iolab.bash'}\ncomplete -p iolab\n{calls}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    ).stdout.splitlines()
    assert out[0] == "complete -F _iolab iolab"  # registered for the command
    replies, rest = [], out[1:]
    while rest:
        n = int(rest[0])
        replies.append(rest[1 : 1 + n])
        rest = rest[1 + n :]
    return replies


def _bash_word(w: str) -> str:
    return "'" + w.replace("'", "'\\''") + "'"


def test_bash_completes_commands_options_choices_and_paths(tmp_path, capsys):
    src = script(capsys, "bash")
    (tmp_path / "results").mkdir()
    (tmp_path / "results.csv").write_text("")
    got = complete(
        tmp_path,
        src,
        ["iolab", ""],
        ["iolab", "l"],
        ["iolab", "lake", ""],
        ["iolab", "lake", "export", "--"],
        ["iolab", "--db", "lake", "lake", "views", "--engine", ""],  # a value that names a command is a value
        ["iolab", "compare", "--format", ""],
        ["iolab", "compare", "--format", "=", "j"],  # --format=j: bash makes '=' a word
        ["iolab", "compare", "--sla", ""],  # free text: nothing offered
        ["iolab", "completion", ""],
        ["iolab", "ingest", "res"],
        ["iolab", "report", "--images", "res"],
    )
    assert got[0] == [*cli.COMMANDS]
    assert got[1] == ["lake"]
    assert got[2] == ["export", "views", "status"]
    assert got[3] == ["--help", "--db", "--to", "--format"]
    assert got[4] == ["spark", "duckdb"]
    assert got[5] == ["table", "csv", "tsv", "json"]
    assert got[6] == ["json"]
    assert got[7] == []
    assert got[8] == ["bash", "zsh", "fish"]
    assert sorted(got[9]) == ["results", "results.csv"]
    assert got[10] == ["results"]  # a folder option: folders only


def test_bash_completes_the_databases_studies_and_views_quoted(tmp_path, capsys, dbf):
    src = script(capsys, "bash")
    got = complete(
        tmp_path,
        src,
        [IOLAB, "compare", "--db", str(dbf), "--study", "a"],
        [IOLAB, "export", "--db", str(dbf), "per_dr"],
        [IOLAB, "lake", "views", "--view", "series_su"],
    )
    (study,) = got[0]
    assert study == r"a\ b\ \$\(touch\ pwned\)\ \"q\""  # as bash's printf %q writes it: one word, nothing run
    back = subprocess.run(  # the word as typed on a command line: one argument, the name as it is
        ["bash", "-c", 'eval "set -- $1"; printf %s "$1"', "-", study], capture_output=True, text=True, cwd=tmp_path
    )
    assert back.stdout == HOSTILE and not (tmp_path / "pwned").exists()
    assert got[1] == ["per_drive_iops"]
    assert got[2] == ["series_summary", "series_summary_resolved"]


def test_the_lake_views_listed_are_those_the_lake_computes():
    """The quick list (a regular expression over the view files) is the parsed one (sqlglot)."""
    from iolab.lake.translate import ROW_VIEWS, view_statements

    parsed = sorted(n for k, n, _ in view_statements() if k == "view" and n not in ROW_VIEWS)
    assert completion.names("lake-views", "/nonexistent.duckdb") == parsed
    assert completion.names("views", "/nonexistent.duckdb") == parsed  # no database: the views it would have
    assert completion.names("studies", "/nonexistent.duckdb") == []


def every_word(nodes: list[completion.Node]) -> set[str]:
    words = {c for n in nodes for c, _ in n.commands}
    words |= {f for n in nodes for o in n.options for f in o.flags}
    return words | {c for n in nodes for o in [*n.options, n.positional] if o for c in o.choices}


def test_zsh_script_holds_every_command_option_and_choice(capsys):
    src = script(capsys, "zsh")
    nodes = completion.tree(cli.build_parser())
    assert src.startswith("#compdef iolab\n") and "compdef _iolab iolab" in src
    missing = {w for w in every_word(nodes) if not re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", src)}
    assert not missing
    for n in nodes:  # every command has its options' case, and every option taking a value its own
        if n.path:
            assert re.search(rf"^\s+'?{re.escape(n.path)}'?\) items=\(", src, re.M), n.path
    assert "'lake views/--view') _iolab_names lake-views; return ;;" in src
    assert "compare/--study) _iolab_names studies; return ;;" in src
    # zsh's grammar for case, if, for and functions is bash's: quotes and blocks balance
    assert subprocess.run(["bash", "-n"], input=src, text=True).returncode == 0


def fish_words(line: str) -> list[str]:
    """The words of one fish command line: single quotes with \\' and \\\\ escapes, double quotes."""
    words, i = [], 0
    while i < len(line):
        if line[i] == " ":
            i += 1
            continue
        word = ""
        while i < len(line) and line[i] != " ":
            if line[i] == "'":
                i += 1
                while line[i] != "'":
                    if line[i] == "\\" and line[i + 1] in "'\\":
                        i += 1
                    word += line[i]
                    i += 1
            else:
                word += line[i]
            i += 1
        words.append(word)
    return words


def test_fish_script_holds_every_command_option_and_choice(capsys):
    src = script(capsys, "fish")
    nodes = completion.tree(cli.build_parser())
    lines = [fish_words(ln) for ln in src.splitlines() if ln.startswith("complete -c iolab ")]
    opts = {(w[w.index("-n") + 1], f"--{w[w.index('-l') + 1]}") for w in lines if "-l" in w}
    for n in nodes:
        for o in n.options:
            long = [f for f in o.flags if f.startswith("--")]
            assert all((f"__iolab_at {completion._fq(n.path)}", f) in opts for f in long), (n.path, long)
    commands = {
        (w[w.index("-n") + 1], w[w.index("-a") + 1]) for w in lines if "-d" in w and "-a" in w and "-l" not in w
    }
    assert ("__iolab_at 'lake'", "views") in commands and ("__iolab_at ''", "completion") in commands
    study = next(w for w in lines if "-l" in w and w[w.index("-l") + 1] == "study" and w[4] == "__iolab_at 'compare'")
    assert study[study.index("-a") + 1] == "(__iolab_names studies)"
    firsts = [ln.split()[0] for ln in src.splitlines() if ln.strip()]
    assert firsts.count("function") == 3
    assert sum(w in ("function", "if", "for") for w in firsts) == firsts.count("end")  # every block closed


def test_completion_needs_a_shell(capsys):
    assert cli.main(["completion"]) == cli.EXIT_USAGE
    assert "iolab completion bash" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed (`make test` installs Debian's fish)")
def test_fish_completes_for_real(tmp_path, capsys, dbf):
    """The fish script run in fish: `complete -C LINE` is what fish offers on TAB after LINE."""
    src = script(capsys, "fish")
    (tmp_path / "iolab.fish").write_text(src)
    lines = ["iolab ing", "iolab lake ", "iolab compare --format ", f"iolab compare --db {dbf} --study "]
    calls = "; ".join(f"complete -C {_fish_quote(ln)}; echo ---" for ln in lines)
    out = subprocess.run(
        ["fish", "--no-config", "-c", f"source {tmp_path / 'iolab.fish'}; {calls}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PATH": f"{Path(IOLAB).parent}:{os.environ['PATH']}", "PYTHONPATH": str(ROOT)},
        check=True,
    ).stdout
    got = [[ln.split("\t")[0] for ln in part.strip("\n").splitlines()] for part in out.split("---\n")[:-1]]
    assert got[0] == ["ingest"]
    assert got[1] == ["export", "status", "views"]
    assert got[2] == ["csv", "json", "table", "tsv"]
    assert got[3] == [HOSTILE] and not (tmp_path / "pwned").exists()  # the name as it is, nothing run


def _fish_quote(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (`make test` installs Debian's zsh)")
def test_zsh_loads_the_script_and_registers_it(tmp_path, capsys):
    """The zsh script read by zsh itself: its syntax (zsh -n), and after compinit it is the function
    zsh calls for iolab (driving a TAB needs a pseudo-terminal: the cases are the bash script's)."""
    src = script(capsys, "zsh")
    (tmp_path / "_iolab").write_text(src)
    assert subprocess.run(["zsh", "-n", str(tmp_path / "_iolab")]).returncode == 0
    out = subprocess.run(
        [
            "zsh",
            "-f",
            "-c",
            f"autoload -U compinit; compinit -u -D; source {tmp_path / '_iolab'}; "
            "print -r -- $_comps[iolab]; print -r -- ${+functions[_iolab]}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == ["_iolab", "1"]
