"""`iolab completion bash|zsh|fish`: the shell's completion script, made from the command line's own
parser (so it never lags a new command or option). It completes commands, options and their fixed
choices, files and folders where a command takes them, and the database's study and view names,
which the script asks of `iolab completion --list KIND` (read-only, quiet on any failure) when TAB is
pressed. The scripts are written in each shell's own completion system (no bashcompinit in zsh).
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SHELLS = ("bash", "zsh", "fish")
LISTS = ("studies", "views", "lake-views")


@dataclass(frozen=True)
class Opt:
    flags: tuple[str, ...]
    help: str
    value: str | None  # None: a flag; else files, dirs, studies, views, lake-views, choices or text
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Node:
    path: str  # the command as typed after `iolab`: "" (none yet), "ingest", "lake export"
    commands: tuple[tuple[str, str], ...]  # (name, help) of its subcommands
    options: tuple[Opt, ...]
    positional: Opt | None  # what its positional arguments are


def register(sub: Any) -> None:
    p = sub.add_parser(
        "completion",
        help="print the shell completion script for bash, zsh or fish",
        description="Print the completion script of SHELL. bash: `source <(iolab completion bash)` in ~/.bashrc; "
        "zsh: `source <(iolab completion zsh)` in ~/.zshrc (after compinit); fish: "
        "`iolab completion fish > ~/.config/fish/completions/iolab.fish`.",
    )
    p.add_argument("shell", nargs="?", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    # what the scripts ask for on TAB: the names of the database that --db names on the command line
    # (else the one a command would find: params.resolve_db)
    p.add_argument("--list", choices=LISTS, help=argparse.SUPPRESS)
    p.add_argument("--db", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_completion)


def cmd_completion(args: argparse.Namespace) -> int:
    if args.list:
        from ..terminal import write_out

        write_out("".join(f"{n}\n" for n in names(args.list, args.db)))
        return 0
    if not args.shell:
        from ..terminal import console

        console(stderr=True).print("Name the shell: `iolab completion bash`, `zsh` or `fish`.")
        return 2
    from . import build_parser

    nodes = tree(build_parser())
    sys.stdout.write({"bash": bash, "zsh": zsh, "fish": fish}[args.shell](nodes))
    return 0


def names(kind: str, db_path: str) -> list[str]:
    """Study or view names to complete; those a shell cannot take as one word (a control character,
    a newline) are left out. Nothing at all when the database cannot be read: a completion never fails."""
    try:
        found = _lake_views() if kind == "lake-views" else _of_database(kind, db_path)
    except Exception:
        return []
    return sorted(n for n in found if n and n.isprintable())


def _lake_views() -> list[str]:
    from ..lake.translate import EXPORTED, POINT_VIEWS, ROW_VIEWS, view_files

    made = [
        n
        for f in view_files()
        for n in re.findall(r"(?im)^\s*CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(\w+)", f.read_text())
    ]
    return [n for n in [*(name for name, _ in POINT_VIEWS), *made] if n not in ROW_VIEWS | EXPORTED]


def _of_database(kind: str, db_path: str) -> list[str]:
    from pathlib import Path

    if not Path(db_path).is_file():
        return _lake_views() if kind == "views" else []
    from .. import db
    from .export import relations
    from .requires import studies

    con = db.connect(db_path, read_only=True)
    try:
        return studies(con) if kind == "studies" else list(relations(con))
    finally:
        con.close()


# --- the parser as data ---------------------------------------------------------------------------


def _value(a: argparse.Action) -> tuple[str | None, tuple[str, ...]]:
    if a.nargs == 0:
        return None, ()
    if a.choices:
        return "choices", tuple(str(c) for c in a.choices)
    if a.dest == "study":
        return "studies", ()
    if a.dest == "view":
        return ("views" if not a.option_strings else "lake-views"), ()
    if a.metavar == "DIR":
        return "dirs", ()
    if a.dest in ("db", "out", "corpus", "paths"):
        return "files", ()
    return "text", ()


def _opt(a: argparse.Action) -> Opt:
    value, choices = _value(a)
    text = " ".join(str(a.help or "").split()) if a.help else ""
    return Opt(tuple(a.option_strings), text % {"default": a.default} if "%(" in text else text, value, choices)


def tree(parser: argparse.ArgumentParser, path: str = "") -> list[Node]:
    """Every command of ``parser`` and its subcommands, depth first, the parser's own first."""
    options, positional, commands, below = [], None, [], []
    for a in parser._actions:
        if a.help == argparse.SUPPRESS:
            continue
        if isinstance(a, argparse._SubParsersAction):
            helps = {c.dest: str(c.help or "") for c in a._choices_actions}
            for name, sp in a.choices.items():
                commands.append((name, " ".join(helps.get(name, "").split())))
                below += tree(sp, f"{path} {name}".strip())
        elif a.option_strings:
            options.append(_opt(a))
        elif positional is None:
            positional = _opt(a)
    return [Node(path, tuple(commands), tuple(options), positional), *below]


def _takes_value(nodes: list[Node]) -> list[str]:
    """Every option, of any command, that takes a value (the word after it is no command)."""
    return sorted({f for n in nodes for o in n.options if o.value for f in o.flags})


# --- bash -----------------------------------------------------------------------------------------


def _bash_values(o: Opt | None, q: Any) -> str:
    """The bash that completes a value of the kind ``o`` takes."""
    if o is None:
        return ":"
    return {
        "files": "_iolab_files -f",
        "dirs": "_iolab_files -d",
        "studies": "_iolab_names studies",
        "views": "_iolab_names views",
        "lake-views": "_iolab_names lake-views",
        "choices": "_iolab_words " + " ".join(q(c) for c in o.choices),
    }.get(o.value or "", ":")


def _command_cases(nodes: list[Node]) -> str:
    """The case pattern of every command path (bash and zsh read the same '|' form)."""
    return "|".join(shlex.quote(f"{n.path}/{c}") for n in nodes for c, _ in n.commands)


def _value_cases(nodes: list[Node], say: Callable[[Opt | None, Any], str]) -> list[str]:
    """One case line per option taking a value: what ``say`` offers for it, then return."""
    q = shlex.quote
    return [
        f"        {q(f'{n.path}/{f}')}) {say(o, q)}; return ;;"
        for n in nodes
        for o in n.options
        if o.value
        for f in o.flags
    ]


def bash(nodes: list[Node]) -> str:
    q = shlex.quote
    cmds, values = _command_cases(nodes), _value_cases(nodes, _bash_values)
    opts = [f"        {q(n.path)}) _iolab_words {' '.join(q(f) for o in n.options for f in o.flags)} ;;" for n in nodes]
    args = [
        f"        {q(n.path)}) "
        + ("_iolab_words " + " ".join(q(c) for c, _ in n.commands) if n.commands else _bash_values(n.positional, q))
        + " ;;"
        for n in nodes
        if n.commands or (n.positional and n.positional.value)
    ]
    return BASH.format(
        takes=" ".join(_takes_value(nodes)),
        commands=cmds,
        values="\n".join(values),
        options="\n".join(opts),
        arguments="\n".join(args),
    )


BASH = r"""# bash completion for iolab: `source <(iolab completion bash)` in ~/.bashrc, or save it as
# ~/.local/share/bash-completion/completions/iolab
_iolab_takes=" {takes} "

_iolab_words() {{  # the words given that start with what is typed
    local w
    for w in "$@"; do [[ $w == "$cur"* ]] && COMPREPLY+=("$w"); done
}}

_iolab_files() {{  # -f files and folders, -d folders
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen "$1" -- "$cur")
}}

_iolab_names() {{  # studies, views or lake-views, asked of iolab (with the --db on the line)
    local db="" i line q
    for ((i = 1; i < ${{#COMP_WORDS[@]}}; i++)); do
        if [[ ${{COMP_WORDS[i]}} == --db ]]; then
            db=${{COMP_WORDS[i + 1]}}
            [[ $db == = ]] && db=${{COMP_WORDS[i + 2]}}
        fi
    done
    db=${{db/#\~/$HOME}}
    while IFS= read -r line; do
        [[ $line == "$cur"* ]] || continue
        printf -v q '%q' "$line"
        COMPREPLY+=("$q")
    done < <("${{COMP_WORDS[0]}}" completion --list "$1" ${{db:+--db "$db"}} 2>/dev/null)
}}

_iolab() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD - 1]}} cmd="" i w
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${{COMP_WORDS[i]}}
        if [[ $_iolab_takes == *" $w "* ]]; then
            ((i++))
            [[ ${{COMP_WORDS[i]}} == = ]] && ((i++))
            continue
        fi
        case "$cmd/$w" in
            {commands}) cmd=${{cmd:+$cmd }}$w ;;
        esac
    done
    # --option=value: bash makes "=" a word of its own
    if [[ $cur == = ]]; then
        cur=""
    elif [[ $prev == = ]]; then
        prev=${{COMP_WORDS[COMP_CWORD - 2]}}
    fi
    case "$cmd/$prev" in
{values}
    esac
    if [[ $cur == -* ]]; then
        case "$cmd" in
{options}
        esac
        return
    fi
    case "$cmd" in
{arguments}
    esac
}}

complete -F _iolab iolab
"""


# --- zsh ------------------------------------------------------------------------------------------


def _zsh_values(o: Opt | None, q: Any) -> str:
    if o is None:
        return ":"
    return {
        "files": "_files",
        "dirs": "_files -/",
        "studies": "_iolab_names studies",
        "views": "_iolab_names views",
        "lake-views": "_iolab_names lake-views",
        "choices": "compadd -- " + " ".join(q(c) for c in o.choices),
        "text": "_message -r " + q(o.help or "a value"),
    }.get(o.value or "", ":")


def _described(items: list[tuple[str, str]], q: Any) -> str:
    """``name:description`` words for _describe (a colon in a name escaped)."""
    return " ".join(q(name.replace(":", "\\:") + ":" + text) for name, text in items)


def zsh(nodes: list[Node]) -> str:
    q = shlex.quote
    cmds, values = _command_cases(nodes), _value_cases(nodes, _zsh_values)
    opts = [
        f"        {q(n.path)}) items=({_described([(f, o.help) for o in n.options for f in o.flags], q)}) ;;"
        for n in nodes
    ]
    args = [
        f"        {q(n.path)}) "
        + (
            f"items=({_described(list(n.commands), q)}); _describe -t commands command items"
            if n.commands
            else _zsh_values(n.positional, q)
        )
        + " ;;"
        for n in nodes
        if n.commands or (n.positional and n.positional.value)
    ]
    return ZSH.format(
        takes=" ".join(q(f) for f in _takes_value(nodes)),
        commands=cmds,
        values="\n".join(values),
        options="\n".join(opts),
        arguments="\n".join(args),
    )


ZSH = r"""#compdef iolab
# zsh completion for iolab: `source <(iolab completion zsh)` in ~/.zshrc after compinit, or save it
# as _iolab in a folder of $fpath
_iolab_takes=({takes})

_iolab_names() {{  # studies, views or lake-views, asked of iolab (with the --db on the line)
    local db="" i
    local -a found
    for (( i = 2; i < $#words; i++ )); do
        [[ ${{words[i]}} == --db ]] && db=${{words[i+1]}}
        [[ ${{words[i]}} == --db=* ]] && db=${{words[i]#--db=}}
    done
    found=("${{(@f)$(${{words[1]}} completion --list $1 ${{db:+--db}} ${{db:+${{~db}}}} 2>/dev/null)}}")
    found=(${{found:#}})
    compadd -a found
}}

_iolab() {{
    local cmd="" i w cur=${{words[CURRENT]}} prev=${{words[CURRENT-1]}}
    local -a items
    for (( i = 2; i < CURRENT; i++ )); do
        w=${{words[i]}}
        if (( ${{_iolab_takes[(Ie)$w]}} )); then
            (( i++ ))
            continue
        fi
        case "$cmd/$w" in
            {commands}) cmd=${{cmd:+$cmd }}$w ;;
        esac
    done
    if [[ $cur == --*=* ]]; then  # --option=value
        prev=${{cur%%=*}}
        compset -P '*='
    fi
    case "$cmd/$prev" in
{values}
    esac
    if [[ $cur == -* ]]; then
        case "$cmd" in
{options}
        esac
        _describe -t options option items
        return
    fi
    case "$cmd" in
{arguments}
    esac
}}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _iolab "$@"
else
    compdef _iolab iolab
fi
"""


# --- fish -----------------------------------------------------------------------------------------


def _fq(text: str) -> str:
    """``text`` as a fish single-quoted string."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_values(o: Opt) -> str:
    return {
        "files": "-r -F",
        "dirs": "-x -a '(__fish_complete_directories)'",
        "studies": "-x -a '(__iolab_names studies)'",
        "views": "-x -a '(__iolab_names views)'",
        "lake-views": "-x -a '(__iolab_names lake-views)'",
        "choices": "-x -a " + _fq(" ".join(o.choices)),
        "text": "-x",
    }.get(o.value or "", "")


def _fish_flags(o: Opt) -> str:
    return " ".join(f"-l {f[2:]}" if f.startswith("--") else f"-s {f[1:]}" for f in o.flags)


def fish(nodes: list[Node]) -> str:
    lines = []
    for n in nodes:
        at = "-n " + _fq(f"__iolab_at {_fq(n.path)}")
        lines += [f"complete -c iolab {at} -a {_fq(c)} -d {_fq(h)}" for c, h in n.commands]
        for o in n.options:
            lines.append(
                f"complete -c iolab {at} {_fish_flags(o)} {_fish_values(o)} -d {_fq(o.help)}".replace("  ", " ")
            )
        if n.positional and n.positional.value:
            lines.append(f"complete -c iolab {at} {_fish_values(n.positional).replace('-x ', '').replace('-r ', '')}")
    return FISH.format(
        takes=" ".join(_takes_value(nodes)), commands=_fish_commands(nodes), completions="\n".join(lines)
    )


FISH = r"""# fish completion for iolab: `iolab completion fish > ~/.config/fish/completions/iolab.fish`

function __iolab_cmd --description 'the iolab command typed so far: none, ingest, lake export...'
    set -l cmd ''
    set -l skip 0
    set -l words (commandline -opc)
    set -e words[1]
    for w in $words
        if test $skip = 1
            set skip 0
            continue
        end
        if contains -- $w {takes}
            set skip 1
            continue
        end
        set -l next (string trim -- "$cmd $w")
        if contains -- $next $__iolab_commands
            set cmd $next
        end
    end
    echo $cmd
end

function __iolab_at --description 'whether the command typed so far is the one given'
    set -l cmd (__iolab_cmd)
    test "$cmd" = "$argv[1]"
end

function __iolab_names --description 'studies, views or lake-views, asked of iolab'
    set -l words (commandline -opc)
    set -l db
    if set -l i (contains -i -- --db $words)
        set db --db $words[(math $i + 1)]
    end
    for w in $words
        if string match -q -- '--db=*' $w
            set db --db (string replace -- '--db=' '' $w)
        end
    end
    $words[1] completion --list $argv[1] $db 2>/dev/null
end

set -g __iolab_commands {commands}
complete -c iolab -f
{completions}
"""


def _fish_commands(nodes: list[Node]) -> str:
    return " ".join(_fq(f"{n.path} {c}".strip()) for n in nodes for c, _ in n.commands)
