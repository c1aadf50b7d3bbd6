"""A Spark standalone cluster on this machine for tests and benchmarks: a master and workers
started from pyspark's own launcher, every port bound to 127.0.0.1, stopped whatever happens.

pyspark's wheel ships bin/spark-class but not the sbin start-master/start-worker scripts; those only
run spark-class in the background, which is what LocalCluster does, keeping each process' id so
that it stops exactly the processes it started (and the executors they started). On Linux each
daemon is also told to end with the process that started it (PR_SET_PDEATHSIG), so even a killed
test run leaves no JVM behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HOST = "127.0.0.1"


def spark_home() -> Path:
    """Where pyspark keeps Spark itself (bin/spark-class, jars/)."""
    import pyspark

    return Path(pyspark.__file__).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:  # runs in the child between fork and exec
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


# Settings for the daemons and for drivers run with this cluster's SPARK_CONF_DIR
_DEFAULTS = """\
spark.master.rest.enabled false
spark.driver.host 127.0.0.1
spark.driver.bindAddress 127.0.0.1
spark.ui.enabled false
spark.ui.showConsoleProgress false
spark.driver.memory {driver_memory}
spark.executor.cores {cores}
spark.executor.memory {executor_memory}
spark.sql.shuffle.partitions {partitions}
"""
_LOG4J = """\
rootLogger.level = warn
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n
"""


class LocalCluster:
    """A Spark standalone master and ``workers`` workers (``cores`` and ``memory`` each) on this
    machine, every port bound to 127.0.0.1. Use as a context manager::

        with LocalCluster() as c:
            subprocess.run(["iolab", "lake", "views", "--engine", "spark", "--lake", L,
                            "--master", c.master], env=c.env())

    Its folder (``where``, else a temporary one, removed at the end) holds the configuration
    (conf/spark-defaults.conf: a driver run with ``env()`` reads it), the workers' work folders and
    every daemon's log."""

    def __init__(
        self,
        workers: int = 2,
        cores: int = 1,
        memory: str = "1g",
        where: Path | None = None,
        conf: dict[str, str] | None = None,
    ) -> None:
        self.workers, self.cores, self.memory = workers, cores, memory
        self.conf = conf or {}
        self.where = where
        self.dir = Path()
        self.master = ""
        self.ui = 0
        self.procs: list[subprocess.Popen] = []

    def env(self) -> dict[str, str]:
        """The environment for a driver on this cluster (its settings, its address, its Python)."""
        return {
            **os.environ,
            "SPARK_HOME": str(spark_home()),
            "SPARK_CONF_DIR": str(self.dir / "conf"),
            "SPARK_LOCAL_IP": HOST,
            "PYSPARK_PYTHON": sys.executable,
        }

    def __enter__(self) -> LocalCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, timeout: float = 180) -> None:
        if self.where:
            self.where.mkdir(parents=True, exist_ok=True)
        self.dir = Path(tempfile.mkdtemp(prefix="iolab-spark-", dir=self.where))
        (self.dir / "conf").mkdir()
        (self.dir / "work").mkdir()
        partitions = max(2, 2 * self.workers * self.cores)
        mib = _mib(self.memory)
        (self.dir / "conf" / "spark-defaults.conf").write_text(
            _DEFAULTS.format(
                cores=self.cores,
                executor_memory=f"{max(256, mib * 3 // 4)}m",
                driver_memory=f"{max(1024, mib)}m",  # never below Spark's default 1 GB
                partitions=partitions,
            )
            + "".join(f"{k} {v}\n" for k, v in self.conf.items())
        )
        (self.dir / "conf" / "log4j2.properties").write_text(_LOG4J)
        port, self.ui = _free_port(), _free_port()
        self.master = f"spark://{HOST}:{port}"
        self._daemon("master", "master.Master", "--host", HOST, "--port", str(port), "--webui-port", str(self.ui))
        self._wait(lambda st: st is not None, timeout, "the master to start")
        for i in range(self.workers):
            self._daemon(
                f"worker{i + 1}",
                "worker.Worker",
                *("--host", HOST, "--cores", str(self.cores), "--memory", self.memory),
                *("--work-dir", str(self.dir / "work"), "--webui-port", "0", self.master),
            )
        self._wait(lambda st: st is not None and st.get("aliveworkers") == self.workers, timeout, "workers")

    def _daemon(self, name: str, cls: str, *args: str) -> None:
        log = open(self.dir / f"{name}.log", "wb")  # noqa: SIM115 - the daemon keeps writing it
        cmd = [str(spark_home() / "bin" / "spark-class"), f"org.apache.spark.deploy.{cls}", *args]
        linux = sys.platform.startswith("linux")
        self.procs.append(
            subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env(),
                cwd=self.dir,
                start_new_session=True,  # its own process group: stopped with the JVMs it starts
                preexec_fn=_die_with_parent if linux else None,  # noqa: PLW1509
            )
        )
        log.close()

    def state(self) -> dict | None:
        """The master's own account (/json of its web UI), None while it does not answer, or answers
        with no account yet: a web UI still starting has answered with an empty body."""
        import urllib.request

        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.ui}/json/", timeout=5) as r:
                return json.loads(r.read())
        except (OSError, ValueError):  # json.JSONDecodeError is a ValueError
            return None

    def _wait(self, ready, timeout: float, what: str) -> None:
        end = time.monotonic() + timeout
        while not ready(self.state()):
            dead = [p for p in self.procs if p.poll() is not None]
            if dead or time.monotonic() > end:
                logs = "\n".join(f"--- {f.name}\n{_tail(f)}" for f in sorted(self.dir.glob("*.log")))
                why = "a daemon ended" if dead else f"no answer in {timeout:.0f} s"
                raise RuntimeError(f"Spark standalone cluster: waiting for {what}, {why}.\n{logs}")
            time.sleep(0.5)

    def pids(self) -> list[int]:
        """Every process of this cluster still running: the daemons and all they started."""
        return _descendants([p.pid for p in self.procs if p.poll() is None])

    def stop(self) -> None:
        """Stop the workers, then the master, and any executor left; remove a temporary folder."""
        if not self.procs:
            return
        every = [(pid, _started(pid)) for pid in self.pids()]
        for p in reversed(self.procs):  # workers first: they stop their executors
            _signal_group(p.pid, signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                _signal_group(p.pid, signal.SIGKILL)
                p.wait()
        end = time.monotonic() + 10
        while running([pid for pid, _ in every]) and time.monotonic() < end:
            time.sleep(0.2)
        for pid, started in every:  # an executor that outlived its worker (the same process: same start)
            if pid in running([pid]) and _started(pid) == started:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.procs = []
        if not self.where:
            shutil.rmtree(self.dir, ignore_errors=True)


def _mib(memory: str) -> int:
    units = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}
    return int(float(memory[:-1]) * units[memory[-1].lower()]) if memory[-1].isalpha() else int(memory) // 2**20


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass


def running(pids: list[int]) -> list[int]:
    """Those of ``pids`` still running (a zombie, ended but not yet collected by its parent, is not)."""
    out = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            out.append(pid)
    return out


def _started(pid: int) -> int | None:
    """When a process started (clock ticks since boot), None if it is gone or unknown."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _descendants(roots: list[int]) -> list[int]:
    """``roots`` and every process below them (Linux /proc; elsewhere the roots only)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").glob("[0-9]*"):
        try:
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], list(roots)
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _tail(path: Path, lines: int = 15) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
