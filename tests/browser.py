"""Headless Chromium driven over the DevTools protocol (websocket-client, no WebDriver): what a user's
mouse and keyboard do, for the browser test of the lab (tests/test_lab_browser.py).

Clicks are real input events at an element's centre (``Input.dispatchMouseEvent``), so the page
sees what a user's click makes it see (a double click in the file browser, a menu opened, a hover)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import websocket


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium with one page; ``profile`` is its own throw-away user folder."""

    def __init__(self, profile: Path, width: int = 1400, height: int = 1000) -> None:
        exe = chromium_path()
        if exe is None:
            raise RuntimeError("no Chromium: apt-get install -y chromium")
        profile.mkdir(parents=True, exist_ok=True)
        args = [exe, "--headless=new", "--remote-debugging-port=0", f"--user-data-dir={profile}"]
        args += ["--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions"]
        args += [f"--window-size={width},{height}", "about:blank"]
        if os.geteuid() == 0:  # Chromium's sandbox refuses root (a CI container)
            args.insert(1, "--no-sandbox")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.is_file() and port_file.read_text().strip()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("Chromium did not start")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60, suppress_origin=True)
        self.next_id = 0
        self.send("Page.enable")
        self.send("Runtime.enable")

    def send(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params or {}}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def goto(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})

    def js(self, expression: str):
        """The value of ``expression`` in the page (a promise awaited)."""
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait(self, expression: str, timeout: float = 60, what: str = ""):
        """The first truthy value of ``expression``, polled until ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout} s for {what or expression}")
            time.sleep(0.2)

    def centre(self, expression: str, timeout: float = 60) -> tuple[float, float]:
        """The centre of the element ``expression`` finds (waiting until it is there and shown)."""
        rect = self.wait(
            f"""(() => {{ const e = {expression}; if (!e) return null; e.scrollIntoView({{block: 'nearest'}});
                 const r = e.getBoundingClientRect(); return r.width && r.height ? [r.x + r.width / 2,
                 r.y + r.height / 2] : null; }})()""",
            timeout,
            expression,
        )
        return rect[0], rect[1]

    def mouse(self, kind: str, x: float, y: float, clicks: int = 0) -> None:
        params = {"type": kind, "x": x, "y": y, "button": "left" if clicks else "none", "clickCount": clicks}
        self.send("Input.dispatchMouseEvent", params)

    def click(self, expression: str, count: int = 1) -> None:
        x, y = self.centre(expression)
        self.mouse("mouseMoved", x, y)
        for n in range(1, count + 1):
            self.mouse("mousePressed", x, y, n)
            self.mouse("mouseReleased", x, y, n)

    def hover(self, x: float, y: float) -> None:
        self.mouse("mouseMoved", x, y)

    def screenshot(self, path: Path) -> None:
        shot = self.send("Page.captureScreenshot", {"format": "png"})
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
