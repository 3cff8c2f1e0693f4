"""Driving the app in a real headless Chromium (Debian's, through Playwright): start the app on a free port,
stop it; the browser's path and flags. The browser tests and ``benchmarks/ui.py`` use these."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository (``app.py`` lies there)."""

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic",
        # several visitors' pages at once: none is throttled for being in the background (a page that is updates
        # its DOM late, and a test reading when an answer arrived would read it seconds late)
        "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(*args: str, timeout: float = 120, cache: Path | None = None,
              env: dict[str, str] | None = None, root: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """The app of the checkout at ``root`` on a free port (with ``env`` added to the environment); what it prints
    goes to the file :func:`app_log` names (a pipe nobody reads would block the app once full)."""
    port = free_port()
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1",
           "ELITE_CACHE": str(cache or tempfile.mkdtemp(prefix="elite-cache-")), **(env or {})}
    with tempfile.NamedTemporaryFile("w", prefix="elite-app-", suffix=".log", delete=False) as log:
        process = subprocess.Popen([sys.executable, str(root / "app.py"), "--port", str(port), *args], cwd=root,
                                   env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    process.log = Path(log.name)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited:\n{app_log(process)}")
        try:
            urllib.request.urlopen(url, timeout=2)
            return process, url
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise RuntimeError("the app did not start in time")


def app_log(process: subprocess.Popen) -> str:
    """What the app printed so far."""
    return process.log.read_text(encoding="utf-8", errors="replace")


def post_mortem(process: subprocess.Popen) -> str:
    """How the app stood when a test gave up on it: it is stopped with SIGABRT, which Python's faulthandler
    (turned on by :func:`start_app`) answers with every thread's stack, then what it printed (a crash's stack too)."""
    if process.poll() is None:
        process.send_signal(signal.SIGABRT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    return f"the app exited with {process.returncode}; it printed:\n{app_log(process)[-12000:]}"


def stop_app(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
