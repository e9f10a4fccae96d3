"""``tuiperf serve``: only the holder of the printed token drives the explorer (no token, another site's
Origin, a foreign Host: refused), the explorers end with the server however it ends, and the explorer
in a real headless Chromium (Debian's ``chromium``, driven by Playwright): the printed address loads, a
click on a scenario then a key pressed in the page runs it, which reaches the history database, and a
screenshot is taken."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tuiperf.cli import parse_args
from tuiperf.cli.serve import HOST, app_command

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "tui" / "scenarios"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Debian's chromium reads these; each keeps a headless run from reaching out or needing a GPU
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def test_the_explorer_gets_the_options_given_to_serve_without_the_port():
    args = parse_args(["--scenarios", "serve", "serve", "--port", "8123", "tiny-sin", "--budget", "1"])
    assert app_command(args.argv, args.command_at) == [
        sys.executable,
        *("-m", "tuiperf", "--scenarios", "serve", "app", "tiny-sin", "--budget", "1"),
    ]
    assert app_command(["serve", "--port=9000", "--samples", "5"], 0)[3:] == ["app", "--samples", "5"]


def test_a_bad_port_is_one_line_and_exit_2(capsys):
    from tuiperf.cli import main

    assert main(["serve", "--port", "0"]) == 2
    assert capsys.readouterr().err.strip() == "tuiperf: --port 0: a port is 1 to 65535"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "tuiperf serve exited"
        with socket.socket() as s:
            if s.connect_ex((HOST, port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {HOST}:{port}")


def start_server(command: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)


def printed_url(server: subprocess.Popen[bytes]) -> str:
    """The address ``tuiperf serve`` prints first, token and all."""
    assert server.stdout is not None
    first = server.stdout.readline().decode()
    match = re.search(r"http://\S+/\?token=[\w-]+", first)
    assert match, f"no address with a token in {first!r}"
    return match.group(0)


def stored_runs(path: Path) -> int:
    from tuiperf.results.history import History

    if not path.exists():
        return 0
    with History(path, readonly=True) as history:
        return len(history.list())


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on this machine (CI installs Debian's: apt-get install chromium)"
)
def test_a_scenario_runs_in_a_browser_tab(tmp_path):
    playwright = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    port, history = free_port(), tmp_path / "history.sqlite"
    command = [sys.executable, "-m", "tuiperf", "--scenarios", str(SCENARIOS), "--history", str(history)]
    command += ["serve", "--port", str(port), "tiny-sin", "--budget", "0.3", "--samples", "200"]
    server = start_server(command, tmp_path)
    try:
        url = printed_url(server)
        wait_for_port(port, server)
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch_persistent_context(  # a fresh profile
                str(tmp_path / "profile"),
                executable_path=CHROMIUM,
                args=CHROMIUM_ARGS,
                viewport={"width": 1280, "height": 800},
            )
            page = browser.new_page()
            refused = page.goto(f"http://{HOST}:{port}/")  # without the token
            assert refused is not None and refused.status == 403 and "needs the token" in page.content()
            page.goto(url)
            page.wait_for_selector("body.-first-byte", timeout=120_000)  # the explorer's first output
            # The page is a canvas: nothing in it says when the form is ready. As a user with a mouse
            # does: `/` and the scenario's id filter the list, a click on its first row selects it
            # (14-25 px rows: y=50 falls in the first option's two lines, under the filter's row and
            # the header's), then r runs it; a click used to move focus into the first parameter
            # field, and r was typed there. Once more only if no run reached the history two minutes
            # later (a second r during a run would ask whether to restart it).
            for _ in range(2):
                page.wait_for_timeout(10_000)
                page.keyboard.press("/")
                page.keyboard.type("tiny-sin")
                page.wait_for_timeout(1_000)
                page.mouse.click(60, 50)
                page.wait_for_timeout(1_000)
                page.keyboard.press("r")
                deadline = time.monotonic() + 120
                while stored_runs(history) == 0 and time.monotonic() < deadline:
                    page.wait_for_timeout(500)
                if stored_runs(history):
                    break
            assert stored_runs(history) >= 1, "no run reached the history"
            page.wait_for_timeout(2_000)  # the result drawn
            picture = tmp_path / "serve.png"
            page.screenshot(path=str(picture))
            browser.close()
        assert picture.stat().st_size > 10_000  # a page with the explorer drawn, not a blank one
        if os.environ.get("TUIPERF_BROWSER_PNG"):  # scripts/screenshots.py keeps it for the README
            shutil.copy(picture, os.environ["TUIPERF_BROWSER_PNG"])
    finally:
        os.killpg(server.pid, 15)  # the server and the explorer processes it started
        server.wait(30)
