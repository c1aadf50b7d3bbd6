"""Parsing one file, here or in a worker process: which parser claims it, reading it (a big
capture streamed from disk), and what came of it as plain data (Parse) that crosses processes."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from . import archives, config, files, registry
from .files import Incoming
from .model import ParseError
from .outcome import stop_if_interrupted


def _ignore_sigint() -> None:
    """In a parse worker: Ctrl-C is the main process's to handle (it stops the pool)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass
class Parsed:
    result: Any  # the parser's ParseResult


@dataclass
class Bad:
    """The file is not what its parser reads: the reason, and the line where it shows."""

    reason: str
    line: int | None = None


@dataclass
class Bug:
    """The parser itself failed (or a library under it): never the file's fault to carry alone."""

    message: str


@dataclass
class Changed:
    """The file's bytes changed between hashing and parsing."""


Parse = Parsed | Bad | Bug | Changed


def parser_for(f: Incoming) -> ModuleType | str:
    """The one module that claims the file, or why there is none (registry.claim, as `iolab detect`)."""
    c = registry.claim(f.head, f.path.name)
    return c.module or c.reason


def streams(mod: ModuleType | str) -> bool:
    """Whether a format module reads its file from disk as it goes (``parse_path``: large
    time-series captures) rather than from the bytes that were hashed."""
    return not isinstance(mod, str) and hasattr(mod, "parse_path")


def read_and_parse(f: Incoming, mod: ModuleType) -> Any:
    """The parser's result; ParseError for a bad file, FileChanged if the bytes moved under us."""
    if f.head.startswith(archives.GZIP):
        return _read_gz(f, mod)
    if streams(mod):
        return registry.parse_path(mod, f.path, f.path.name)
    with files.open_regular(f.path) as fh:
        data = fh.read()
    if hashlib.sha256(data).hexdigest() != f.sha:
        raise FileChanged()
    return registry.parse(mod, data, f.path.name)


def _read_gz(f: Incoming, mod: ModuleType) -> Any:
    """The file inside a .gz, parsed as that file would be (archives.inflate): decompressed in a
    stream to a temporary file, which a capture's parser streams from (the result keeps it until
    it is done with) and another parser reads whole. Changed only if the .gz's own bytes changed."""
    member = archives.member_name(f.head, f.path.name)
    with files.open_regular(f.path) as fh:
        inflated = archives.inflate(fh, config.cache_dir() / "inflated")
    try:
        if inflated.sha256 != f.sha:
            raise FileChanged()
        with archives.inside(member):
            if streams(mod):
                result = registry.parse_path(mod, inflated.path, member)
                result.inflated, rest = inflated, result.pending
                result.pending = lambda r: _inside(member, rest, r)
            else:
                inflated.file.seek(0)
                data = inflated.file.read()
                inflated.close()
                result = registry.parse(mod, data, member)
    except BaseException:
        inflated.close()
        raise
    result.archive = ("gzip", member)
    return result


def _inside(member: str, rest: Any, result: Any) -> None:
    with archives.inside(member):
        rest(result)


class FileChanged(Exception):
    """The file changed between hashing and parsing."""


def parse_job(f: Incoming, module: str) -> Parse:
    """A worker process's job: parse one file with the parser module named ``module``."""
    return parsed(f, importlib.import_module(module))


def parsed(f: Incoming, mod: ModuleType) -> Parse:
    """Parse one file: its result, or what went wrong, as plain data (it may cross processes)."""
    try:
        result = read_and_parse(f, mod)
        result.samples.flush()  # packed: a worker sends compressed columns, not lists of numbers
        return Parsed(result)
    except FileChanged:
        return Changed()
    except archives.ScratchFault:  # the disk, not the file: the run stops (batch: environment_fault)
        raise
    except ParseError as e:
        return Bad(e.reason, e.line)
    except BaseException as e:  # a parser bug (or a library panic) must not take the batch down
        stop_if_interrupted(e)
        return Bug(f"{type(e).__name__}: {e}")


class Workers:
    """Parsers running in worker processes while this process hashes and stores.

    The parsers are pure Python and hold one core each; with many files a lab machine's other
    cores parse ahead (at most WINDOW per worker in flight, in order). A file too big to ship
    back cheaply, or a streamed capture, is parsed here. IOLAB_PARSE_WORKERS sets the count (0: none)."""

    MIN_FILES, WINDOW, MAX_BYTES = 48, 2, 32 << 20

    def __init__(self, n_files: int, parallel: bool) -> None:
        wanted = os.environ.get("IOLAB_PARSE_WORKERS", "").strip()
        n = int(wanted) if wanted.isdigit() else (os.cpu_count() or 1) if n_files >= self.MIN_FILES else 0
        self.n = n if parallel and n > 1 else 0
        self.pool: Any = None

    def takes(self, f: Incoming, mod: ModuleType) -> bool:
        return self.n > 0 and not streams(mod) and f.size <= self.MAX_BYTES

    def submit(self, f: Incoming, mod: ModuleType) -> Any:
        if self.pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # spawn, not fork: this process holds DuckDB and Polars threads, which fork would copy mid-flight
            self.pool = ProcessPoolExecutor(
                self.n, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_sigint
            )
        try:
            return self.pool.submit(parse_job, dataclasses.replace(f, missing={}), mod.__name__)
        except Exception:  # the pool broke (a worker died): the rest is parsed here
            self.n = 0
            return None

    def stop(self) -> None:
        """Ctrl-C: cancel the parses not started and wait only for those running (at most one per
        worker: small files; the workers ignore SIGINT). Killing a worker instead can leave half a
        result in the pool's pipe, on which shutdown() then waits for ever. If the interrupt struck
        inside submit(), which holds the lock shutdown() takes, the pool is left to the process's end."""
        lock = getattr(self.pool, "_shutdown_lock", None)
        if self.pool is None or (lock is not None and not lock.acquire(blocking=False)):
            return
        if lock is not None:
            lock.release()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
