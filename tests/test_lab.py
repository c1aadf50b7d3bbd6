"""JupyterLab as `make lab` starts it: .py notebooks open as notebooks (contents API and default viewer)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    with server(tmp_path, ROOT) as api:
        yield lambda path: api("GET", path)


class Api:
    """A running lab: ``api(method, path, body=None)`` calls its REST API; its port, token and process."""

    def __init__(self, port: int, token: str, proc: subprocess.Popen) -> None:
        self.port, self.token, self.proc = port, token, proc

    def __call__(self, method: str, path: str, body: dict | None = None) -> dict:
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.load(r)


@contextlib.contextmanager
def server(tmp_path: Path, root: Path, env: dict[str, str] | None = None) -> Iterator[Api]:
    """JupyterLab as `make lab` starts it, serving ``root``; ``env``: more of its environment."""
    port, token = free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_PATH": str(ROOT / ".jupyter"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path),
        "IOLAB_ROOT": str(ROOT),
        **(env or {}),
    }
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--allow-root",
    ]
    log = (tmp_path / "lab.log").open("w")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    api = Api(port, token, proc)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                api("GET", "/api/status")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start:\n" + Path(tmp_path / "lab.log").read_text()) from None
                time.sleep(0.5)
        yield api
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=30)
        log.close()


@pytest.mark.slow
def test_py_notebook_opens_as_notebook(lab):
    nb = lab("/api/contents/notebooks/01-overview.py")
    assert nb["type"] == "notebook" and nb["format"] == "json"
    sources = [c["source"] for c in nb["content"]["cells"]]
    assert any("db_path = None" in s for s in sources)  # the parameters cell
    settings = lab("/lab/api/settings/@jupyterlab/docmanager-extension:plugin")
    default = settings["schema"]["properties"]["defaultViewers"]["default"]
    assert default.get("python") == "Jupytext Notebook"


def lab_kernelspec() -> dict:
    """The kernelspec JupyterLab writes into a notebook once its kernel runs: the installed python3's."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    return {"display_name": spec.display_name, "language": spec.language, "name": "python3"}


def test_the_notebooks_declare_the_kernelspec_the_lab_writes():
    """Else the lab's first save rewrites their headers (display_name "Python 3" became
    "Python 3 (ipykernel)" in a real browser: tests/test_lab_browser.py)."""
    import jupytext

    paths = sorted((ROOT / "notebooks").glob("*.py"))
    assert paths
    for p in paths:
        assert dict(jupytext.read(p).metadata["kernelspec"]) == lab_kernelspec(), p.name


def as_run(nb: dict) -> dict:
    """``nb`` as the lab holds it after running every cell: outputs, counts, the kernel's language
    info and kernelspec, and the cell metadata JupyterLab records."""
    nb["metadata"]["language_info"] = {"name": "python", "version": "3.11.7", "codemirror_mode": {"name": "ipython"}}
    nb["metadata"]["kernelspec"] = lab_kernelspec()
    for n, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        cell["execution_count"] = n + 1
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ok"}]
        cell["metadata"].update({"execution": {"iopub.status.busy": "2026-01-01T00:00:00Z"}, "trusted": True})
    return nb


def copy_of_the_notebooks(root: Path) -> Path:
    """The notebooks and the Jupytext settings, copied under ``root`` (a save must not touch the repository)."""
    shutil.copytree(ROOT / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    return root


def test_saving_a_run_notebook_leaves_its_file_as_it_was(tmp_path):
    """What autosave does after a notebook was opened and run, through Jupytext's contents manager
    (the one the lab serves notebooks with): every .py comes back byte for byte (Jupytext added its
    version to the header unless jupytext.toml filters it out)."""
    from jupytext.sync_contentsmanager import TextFileContentsManager

    root = copy_of_the_notebooks(tmp_path / "root")
    cm = TextFileContentsManager(root_dir=str(root))
    names = sorted(p.name for p in (ROOT / "notebooks").glob("*.py"))
    assert names
    for name in names:
        model = cm.get(f"notebooks/{name}")
        model["content"] = as_run(model["content"])
        cm.save(model, f"notebooks/{name}")
        cm.create_checkpoint(f"notebooks/{name}")
        assert (root / "notebooks" / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes(), name


def test_the_labs_checkpoints_are_ignored_by_git():
    paths = [
        "notebooks/.ipynb_checkpoints/01-overview-checkpoint.py",
        "notebooks/.ipynb_checkpoints/x-checkpoint.ipynb",
    ]
    p = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT, capture_output=True, text=True)
    assert p.stdout.split() == paths


@pytest.mark.slow
def test_the_lab_leaves_the_notebooks_as_they_were(tmp_path):
    """The lab itself: open each notebook, save it run (as autosave does), checkpoint it; the files
    are unchanged and the checkpoints land where .gitignore ignores them."""
    root = copy_of_the_notebooks(tmp_path / "root")
    with server(tmp_path, root) as api:
        for p in sorted((ROOT / "notebooks").glob("*.py")):
            path = f"/api/contents/notebooks/{p.name}"
            model = api("GET", path)
            api("PUT", path, {"type": "notebook", "format": "json", "content": as_run(model["content"])})
            api("POST", f"{path}/checkpoints")
            assert (root / "notebooks" / p.name).read_bytes() == p.read_bytes(), p.name
    assert list((root / "notebooks" / ".ipynb_checkpoints").iterdir())
