"""JupyterLab as `make lab` starts it: .py notebooks open as notebooks (contents API and default viewer)."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    port, token = free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_PATH": str(ROOT / ".jupyter"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path),
        "IOLAB_ROOT": str(ROOT),
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
        f"--ServerApp.root_dir={ROOT}",
        "--allow-root",
    ]
    log = (tmp_path / "lab.log").open("w")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)

    def get(path: str) -> dict:
        req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.load(r)

    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                get("/api/status")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start:\n" + Path(tmp_path / "lab.log").read_text()) from None
                time.sleep(0.5)
        yield get
    finally:
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
