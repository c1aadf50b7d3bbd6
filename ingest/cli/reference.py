"""The command-line reference, docs/cli.md, written from the parser itself so it never drifts:
`python -m iolab.cli.reference > docs/cli.md` (tests/test_cli_reference.py checks the file equals
what this prints). Every command and subcommand, its usage, what it does and each option with its
choices and default, in the order `iolab --help` lists them.
"""

from __future__ import annotations

import argparse
import re

from . import build_parser

HEAD = """# Command-line reference

Written by `python -m iolab.cli.reference > docs/cli.md` from iolab's own argument parser (a test
checks the two agree), so it is what `iolab COMMAND --help` says. How the commands behave together
(JSON output, progress, exit codes, the terminal) is in [commands.md](commands.md).
"""


def _cell(text: str) -> str:
    """One Markdown table cell: no line breaks, pipes escaped, whitespace as argparse folds it."""
    return re.sub(r"\s+", " ", text).replace("|", "\\|").strip()


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _summaries(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each subcommand's one-line help as the parent lists it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._choices_actions}
    return {}


def _option(action: argparse.Action) -> str:
    names = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.metavar or action.dest}`"
    if action.option_strings and action.nargs != 0:
        metavar = action.metavar or action.dest.upper()
        names += f" `{metavar if isinstance(metavar, str) else ' '.join(metavar)}`"
    help_text = (action.help or "") % {"default": action.default, "prog": "iolab"} if action.help else ""
    extra = []
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        extra.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
    if action.option_strings and action.nargs != 0 and action.default not in (None, False, [], argparse.SUPPRESS):
        extra.append(f"default `{action.default}`")
    if extra:
        help_text += " (" + "; ".join(extra) + ")"
    return f"| {names} | {_cell(help_text)} |"


def _section(name: str, parser: argparse.ArgumentParser, summary: str, level: int) -> list[str]:
    usage = re.sub(r"\s+", " ", parser.format_usage().removeprefix("usage: ")).strip()
    out = [f"{'#' * level} `{name}`", ""]
    if summary or parser.description:
        out += [_cell(parser.description or summary), ""]
    out += ["```", usage, "```", ""]
    rows = [
        _option(a)
        for a in parser._actions
        if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and a.help != argparse.SUPPRESS
    ]
    if rows:
        out += ["| argument | meaning |", "|---|---|", *rows, ""]
    if parser.epilog:
        out += [_cell(parser.epilog), ""]
    subs, helps = _subparsers(parser), _summaries(parser)
    for sub_name, sub in subs.items():
        out += _section(f"{name} {sub_name}", sub, helps.get(sub_name, ""), min(level + 1, 4))
    return out


def reference() -> str:
    parser = build_parser()
    lines = [HEAD]
    helps = _summaries(parser)
    for name, sub in _subparsers(parser).items():
        lines += _section(f"iolab {name}", sub, helps.get(name, ""), 2)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(reference(), end="")
