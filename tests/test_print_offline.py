"""Chromium never reaches for the network when iolab prints (iolab.reports.check.FLAGS).

The print runs in a network namespace of its own (``unshare -n``, as root) where every IPv4 address is
local, with listeners on the ports a request would use: the old proxy address (127.0.0.1:9, where
Chromium sent a network-time request and two component-update requests on every print despite its
flags), DNS (UDP and TCP 53), HTTP and HTTPS. A connection the probe makes itself first proves the
trap catches; then a page that would fetch an image, a font and a script is printed, and no
connection attempt may arrive."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from iolab.reports import check
from tests.conftest import ROOT

PROBE = r"""
import json, socket, subprocess, sys, threading, time
from pathlib import Path

subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
subprocess.run(["ip", "route", "add", "local", "0.0.0.0/0", "dev", "lo"], check=True)
seen, lock = [], threading.Lock()

def tcp(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(16)
    while True:
        c, _ = s.accept()
        c.settimeout(2)
        try:
            data = c.recv(200)
        except OSError:
            data = b""
        with lock:
            seen.append(f"tcp {port}: {data[:80].decode('latin-1')}")
        c.close()

def udp():
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("0.0.0.0", 53))
    while True:
        data, _ = u.recvfrom(512)
        with lock:
            seen.append(f"udp 53: {data[12:60].decode('latin-1')}")

for port in (9, 53, 80, 443):
    threading.Thread(target=tcp, args=(port,), daemon=True).start()
threading.Thread(target=udp, daemon=True).start()
time.sleep(0.2)
socket.create_connection(("203.0.113.7", 443), timeout=5).sendall(b"the probe itself")
while not seen:  # the trap's own connection arrives
    time.sleep(0.05)
control, seen[:] = list(seen), []
from iolab.reports import pdf
pdf.chromium_print(Path(sys.argv[1]), Path(sys.argv[2]))
time.sleep(1)  # a request sent as the browser closes
print(json.dumps({"control": control, "seen": seen}))
"""

PAGE = """<!DOCTYPE html><html><head><link rel="stylesheet" href="https://fonts.example.com/a.css">
<script src="http://cdn.example.com/x.js"></script></head>
<body><p>a page that would fetch</p><img src="https://example.com/x.png"></body></html>"""


def namespaces() -> bool:
    """Whether this process may make a network namespace and bring its loopback up (root, as in CI)."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return False
    return subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True).returncode == 0


@pytest.mark.skipif(check.chromium() is None, reason="no chromium (make check-reports installs it)")
@pytest.mark.skipif(not namespaces(), reason="needs a network namespace (unshare -n, as root)")
def test_a_print_makes_no_connection_attempt(tmp_path):
    page, out = tmp_path / "page.html", tmp_path / "page.pdf"
    page.write_text(PAGE)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", PROBE, str(page), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["control"] == ["tcp 443: the probe itself"]  # the trap catches a connection
    assert result["seen"] == []
    assert out.read_bytes().startswith(b"%PDF")  # and the page was printed
