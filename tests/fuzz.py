"""Pollution harness: mutate every real corpus file many ways and ingest the results.

    make fuzz                  (python -m tests.fuzz --cases 1000: cases per format, then 1000 attack cases)
    python -m tests.fuzz --cases 0 --attacks 200     (the attacks phase alone: tests/fuzz_attacks.py)

Each case writes one mutated file and ingests it into a shared database. The outcome must be one of:
  loaded    every stored number traces to the line it claims to come from (a numeric token on that
            line, times one of the documented unit factors); for mutations that keep the meaning
            (line ends, UTF-16 with BOM, cp1252 re-encoding) the numbers equal the original file's
  rejected  with a reason, and no row anywhere references the file
Anything else is a violation: an uncaught exception, a reason-less rejection, an "internal error",
a number that the file does not say, or rows left behind by a rejected file. The mutations include
the wrappers files arrive in (a BOM, UTF-16 with its declaration, tabs expanded, gzip: the numbers
equal the original's where the meaning is kept; a tar must be refused with "unpack it"). Prints
counts per format and outcome.
"""

from __future__ import annotations

import argparse
import codecs
import gzip
import io
import random
import re
import sys
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from iolab import batch, db  # noqa: E402
from iolab.store import places  # noqa: E402
from iolab.vocabulary import FACTORS as UNIT_FACTORS  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"
FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv")
# every documented unit factor and its inverse (a stored number is the written one times a factor)
FACTORS = tuple(sorted({1.0} | set(UNIT_FACTORS.values()) | {1 / f for f in UNIT_FACTORS.values()}))
_PLAIN = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")  # 1196.489673, 1e+007
_GROUPED = re.compile(r"\d{1,3}(?:[,\u00a0 ]\d{3})+(?:[.,]\d+)?")  # 1,863.016 / 1 207,172
_DECIMAL_COMMA = re.compile(r"\d+,\d+")  # 279,397 (French profiles)
PRESERVING = {"crlf", "lf", "utf16", "cp1252", "bom", "utf16_decl", "gzip"}


def numbers(line: str) -> list[float]:
    cands = _PLAIN.findall(line) + [re.sub(r"[,\u00a0 ]", "", t) for t in _GROUPED.findall(line)]
    cands += [re.sub(r"[\u00a0 ]", "", t).replace(",", ".") for t in _GROUPED.findall(line)]
    cands += [t.replace(",", ".") for t in _DECIMAL_COMMA.findall(line)]
    out = []
    for t in cands:
        try:
            out.append(float(t))
        except ValueError:
            pass
    return out


def traceable(v: float, line: str) -> bool:
    for t in numbers(line):
        for f in FACTORS:
            if abs(v - t * f) <= 1e-9 * max(1.0, abs(v)) or (t and abs(v / f - t) <= 1e-9 * max(1.0, abs(t))):
                return True
    return v in (0.0, 1.0)  # verdict flags (test_passed) and empty-is-zero-free booleans


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    lines = data.splitlines(keepends=True) or [data]
    kind = rng.choice(
        [
            "truncate",
            "delete_line",
            "dup_line",
            "garbage",
            "flip",
            "utf16",
            "cp1252",
            "crlf",
            "lf",
            "cr",
            "mixed_eol",
            "decimal_comma",
            "extra_col",
            "missing_col",
            "empty",
            "huge",
            "swap_lines",
            "cut_line",
            "bom",
            "utf16_decl",
            "tabs",
            "gzip",
            "tar",
        ]
    )
    if kind in WRAPPERS:
        return kind, WRAPPERS[kind](data)
    if kind == "cut_line" and len(lines) > 1:  # cut at a line boundary: every line left is whole
        return kind, b"".join(lines[: rng.randrange(1, len(lines))])
    if kind == "truncate":
        return kind, data[: rng.randrange(0, max(1, len(data)))]
    if kind == "delete_line" and len(lines) > 1:
        i = rng.randrange(len(lines))
        return kind, b"".join(lines[:i] + lines[i + 1 :])
    if kind == "dup_line":
        i = rng.randrange(len(lines))
        return kind, b"".join(lines[: i + 1] + [lines[i]] + lines[i + 1 :])
    if kind == "swap_lines" and len(lines) > 2:
        i = rng.randrange(len(lines) - 1)
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        return kind, b"".join(lines)
    if kind == "garbage":
        i = rng.randrange(len(data) + 1)
        return kind, data[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))) + data[i:]
    if kind == "flip":
        b = bytearray(data)
        for _ in range(rng.randint(1, 5)):
            if b:
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        return kind, bytes(b)
    if kind == "utf16":
        try:
            return kind, data.decode("utf-8").encode("utf-16")
        except UnicodeDecodeError:
            return "utf16-skip", data
    if kind == "cp1252":
        try:
            return kind, data.decode("utf-8").encode("cp1252")
        except (UnicodeDecodeError, UnicodeEncodeError):
            return "cp1252-skip", data
    if kind in ("crlf", "lf", "cr"):
        eol = {"crlf": b"\r\n", "lf": b"\n", "cr": b"\r"}[kind]
        return kind, eol.join(data.splitlines()) + eol
    if kind == "mixed_eol":
        return kind, b"".join(l.rstrip(b"\r\n") + rng.choice([b"\n", b"\r\n", b"\r"]) for l in lines)
    if kind == "decimal_comma":
        return kind, re.sub(rb"(\d)\.(\d)", rb"\1,\2", data, count=rng.randint(1, 50))
    if kind in ("extra_col", "missing_col"):
        i = rng.randrange(len(lines))
        body = lines[i].rstrip(b"\r\n")
        end = lines[i][len(body) :]
        body = body + b",x" if kind == "extra_col" else body.rsplit(b",", 1)[0]
        return kind, b"".join(lines[:i] + [body + end] + lines[i + 1 :])
    if kind == "empty":
        return kind, b""
    if kind == "huge":
        return kind, data * rng.randint(2, 6)
    return "noop", data


def _utf16_declared(data: bytes) -> bytes:
    """UTF-16 (with BOM) and, for XML, a declaration saying so, as a Windows editor saves it."""
    text = data.decode("utf-8-sig")
    if text.startswith("<?xml") and "encoding=" not in text.split("?>", 1)[0]:
        text = text.replace("?>", ' encoding="utf-16"?>', 1)
    return text.encode("utf-16")


def _tar(data: bytes) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        info = tarfile.TarInfo("result")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _text_only(f):
    """A wrapper that needs the file as text: the bytes unchanged when they are not UTF-8."""

    def wrap(data: bytes) -> bytes:
        try:
            return f(data)
        except UnicodeDecodeError:
            return data

    return wrap


# wrappers a lab's files arrive in (issue 30): none of them may decide whether a file is read
WRAPPERS = {
    "bom": lambda d: d if d.startswith(codecs.BOM_UTF8) else codecs.BOM_UTF8 + d,
    "utf16_decl": _text_only(_utf16_declared),
    "tabs": _text_only(lambda d: d.decode("utf-8").expandtabs().encode()),
    "gzip": lambda d: gzip.compress(d, mtime=0),
    "tar": _tar,
}
SUFFIX = {"gzip": ".gz", "tar": ".tar"}  # the name a wrapped case is written under


def fingerprint(con, sid: int) -> Counter:
    rows = con.execute(
        """SELECT s.scope, coalesce(s.target, ''), s.metric, round(s.value, 9) FROM samples s
                          JOIN runs r USING (run_id) WHERE r.source_id = ?""",
        [sid],
    ).fetchall()
    return Counter(rows)


def source_tables(con) -> list[str]:
    return [
        t
        for (t,) in con.execute("""SELECT DISTINCT table_name FROM duckdb_columns()
                                         WHERE column_name = 'source_id' AND table_name NOT IN ('source_files', 'source_history')
                                         AND table_name IN (SELECT table_name FROM duckdb_tables())""").fetchall()
    ]


def place_id(con, path: Path, status: str) -> list[int]:
    """The content ids (the source_id of its parsed rows) of the place at ``path`` (any spelling) in
    the analysis with ``status``."""
    q = "SELECT content_id FROM source_history WHERE abs_path = ? AND status = ? AND left_at IS NULL"
    return [s for (s,) in con.execute(q, [places.text(places.canonical(Path(path))), status]).fetchall()]


def rows_left(con, tables: list[str], path: Path | str) -> list[str]:
    """What a rejected file at ``path`` left behind: rows in any table that references source_files."""
    sids = place_id(con, Path(path), "rejected")
    out = []
    for tname in tables:
        left = con.execute(
            f"SELECT count(*) FROM {tname} WHERE source_id IN (SELECT unnest(?::BIGINT[]))", [sids]
        ).fetchall()[0][0]
        if left:
            out.append(f"{left} rows left in {tname} by a rejected file")
    return out


def run(cases_per_format: int, seed: int = 1, verbose: bool = False) -> tuple[dict, list[str]]:
    rng = random.Random(seed)
    stats: dict[str, Counter] = defaultdict(Counter)
    violations: list[str] = []
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        con = db.open_db(work / "fuzz.duckdb")
        # the originals, for meaning-preserving mutations
        originals = {}
        for f in FILES:
            rep = batch.ingest_paths(con, [f])
            o = rep.outcomes[0]
            ok = place_id(con, f, "ok")
            originals[f] = (o.format, fingerprint(con, ok[0]) if o.status == "ingested" else None)
        by_format = defaultdict(list)
        for f in FILES:
            by_format[originals[f][0] or "(not a supported format)"].append(f)
        tables = source_tables(con)
        n = 0
        for fmt, files in sorted(by_format.items(), key=lambda kv: str(kv[0])):
            for _ in range(cases_per_format):
                src = rng.choice(files)
                kind, data = mutate(src.read_bytes(), rng)
                n += 1
                case = work / f"case{n}_{src.name}{SUFFIX.get(kind, '')}"
                case.write_bytes(data)
                t = time.perf_counter()
                try:
                    o = batch.ingest_paths(con, [case]).outcomes[0]
                except BaseException as e:  # the harness' whole point: this must never happen
                    if isinstance(e, KeyboardInterrupt):
                        raise
                    (Path(tempfile.gettempdir()) / f"iolab-fuzz-crash-{n}-{src.name}").write_bytes(data)
                    violations.append(f"{src.name} {kind}: uncaught {type(e).__name__}: {e}")
                    stats[fmt]["crash"] += 1
                    continue
                took = time.perf_counter() - t
                if took > 30:
                    violations.append(f"{src.name} {kind}: took {took:.0f} s")
                stats[fmt][o.status] += 1
                if "internal error" in (o.reason or ""):
                    stats[fmt]["internal"] += 1
                    violations.append(f"{src.name} {kind}: internal error: {o.reason}")
                if kind == "tar" and (o.status != "rejected" or "unpack it" not in (o.reason or "")):
                    violations.append(f"{src.name} tar: {o.status} ({o.reason}), expected 'unpack it'")
                if o.status in ("rejected", "unreadable"):
                    if not o.reason:
                        violations.append(f"{src.name} {kind}: rejected without a reason")
                    violations += [f"{src.name} {kind}: {m}" for m in rows_left(con, tables, case)]
                elif o.status == "ingested":
                    sid = place_id(con, case, "ok")[0]
                    violations += check_loaded(con, sid, data, kind, src, originals)
                case.unlink()
        con.close()
    return {k: dict(v) for k, v in stats.items()}, violations


def check_loaded(con, sid: int, data: bytes, kind: str, src: Path, originals) -> list[str]:
    out = []
    base_kind = kind.split("-")[0]
    preserving = base_kind in PRESERVING and originals[src][1] is not None and not kind.endswith("skip")
    if preserving and fingerprint(con, sid) != originals[src][1]:
        out.append(f"{src.name} {kind}: loaded values differ from the original file's")
    if data.startswith(b"\x1f\x8b"):  # a .gz: its lines are the file inside's
        data = gzip.decompress(data)
    try:
        from iolab.model import decode_text, split_lines

        lines = split_lines(decode_text(data))
    except Exception:
        lines = split_lines(data.decode("latin-1"))
    rows = con.execute(
        """SELECT s.metric, s.value, s.line_no FROM samples s JOIN runs r USING (run_id)
                          WHERE r.source_id = ? AND s.line_no IS NOT NULL""",
        [sid],
    ).fetchall()
    for metric, value, line_no in rows:
        if not 1 <= line_no <= len(lines) or not traceable(value, lines[line_no - 1]):
            text = lines[line_no - 1][:80] if 1 <= line_no <= len(lines) else "<no such line>"
            out.append(f"{src.name} {kind}: {metric}={value} not on line {line_no}: {text!r}")
            break
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000, help="cases per format")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--attacks", type=int, default=None, help="attack cases (default: --cases; 0 skips the phase)")
    a = ap.parse_args(argv)
    t = time.perf_counter()
    stats, violations = run(a.cases, a.seed) if a.cases else ({}, [])
    print(
        f"{'format':<28} {'ingested':>9} {'rejected':>9} {'unreadable':>10} {'unchanged':>9} {'placed':>9} {'crash':>6}"
        f" {'internal':>8}"
    )
    for fmt, c in stats.items():
        print(
            f"{str(fmt):<28} {c.get('ingested', 0):>9} {c.get('rejected', 0):>9} {c.get('unreadable', 0):>10} "
            f"{c.get('unchanged', 0):>9} {c.get('placed', 0):>9} {c.get('crash', 0):>6} {c.get('internal', 0):>8}"
        )
    total = sum(sum(c.values()) for c in stats.values())
    print(f"{total} cases in {time.perf_counter() - t:.0f} s; {len(violations)} violations")
    n_attacks = a.cases if a.attacks is None else a.attacks
    if n_attacks:
        from tests import fuzz_attacks

        t = time.perf_counter()
        astats, aviolations = fuzz_attacks.run(n_attacks, a.seed)
        print()
        print(fuzz_attacks.table(astats))
        print(
            f"{n_attacks} attack cases ({sum(sum(c.values()) for c in astats.values())} files) in "
            f"{time.perf_counter() - t:.0f} s; {len(aviolations)} violations"
        )
        violations += aviolations
        t = time.perf_counter()
        doors = max(20, n_attacks // 5)
        dstats, dviolations = fuzz_attacks.run_doors(doors, a.seed)
        print()
        print(fuzz_attacks.door_table(dstats))
        print(
            f"{doors} attacks on the doors (issue 53) in {time.perf_counter() - t:.0f} s; {len(dviolations)} violations"
        )
        violations += dviolations
    for v in violations[:50]:
        print("VIOLATION", v)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
