"""A served explorer runs code as its owner, so only the owner drives it: the rules (token, Host,
Origin) as pure functions, then a real ``tuiperf serve`` refusing a page and a WebSocket without the
token, from another site's page and under another host name, and driving the explorer with it; and
every explorer and measuring process it started ends when it ends, by SIGKILL or SIGHUP."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from test_serve import SCENARIOS, free_port, printed_url, start_server, wait_for_port

from tuiperf.cli.serve_access import Access, host_name
from tuiperf.cli.serve_server import split_token
from tuiperf.common import lifeline

ACCESS = Access("s3cret-token", 8765)


@pytest.mark.parametrize(
    ("host", "name"),
    [("127.0.0.1:8765", "127.0.0.1"), ("LOCALHOST", "localhost"), ("[::1]:80", "::1"), ("::1", "::1")],
)
def test_host_names_are_read_without_their_port(host, name):
    assert host_name(host) == name


def test_only_loopback_names_or_those_the_owner_named_are_served():
    assert ACCESS.allows_host("127.0.0.1:8765") and ACCESS.allows_host("localhost:9000")
    assert not ACCESS.allows_host("evil.example:8765")  # DNS rebinding
    assert not ACCESS.allows_host(None) and not ACCESS.allows_host("")
    assert Access.for_launch(8765, ["Box.Lan"]).allows_host("box.lan:8765")


def test_a_websocket_from_another_sites_page_is_refused():
    assert ACCESS.allows_origin("http://127.0.0.1:8765") and ACCESS.allows_origin("http://localhost:9000")
    assert ACCESS.allows_origin(None)  # not a browser: the token decides
    for origin in ("http://evil.example", "null", "file://", "http://127.0.0.1.evil.example:8765"):
        assert not ACCESS.allows_origin(origin), origin


def test_the_token_decides_and_each_launch_makes_its_own():
    assert ACCESS.holds_token("s3cret-token")
    assert not ACCESS.holds_token(None) and not ACCESS.holds_token("") and not ACCESS.holds_token("s3cret")
    first, second = Access.for_launch(1), Access.for_launch(1)
    assert first.token != second.token and len(first.token) >= 40
    assert ACCESS.refusal("127.0.0.1:8765", None, "s3cret-token", websocket=True) is None
    assert "token" in (ACCESS.refusal("127.0.0.1:8765", None, None, websocket=False) or "")


def test_the_token_is_taken_out_of_the_query_textual_serves_script_extends():
    assert split_token("token=abc?width=80&height=24") == ("abc", "width=80&height=24")
    assert split_token("width=80&token=abc") == ("abc", "width=80")
    assert split_token("token=a&token=b") == (None, "")  # two tokens: neither is taken
    assert split_token("") == (None, "")


def descendants(pid: int) -> set[int]:
    return set(lifeline.descendants(pid))


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][:1] != "Z"  # a zombie has ended
    except OSError:
        return False


def python_processes(pids: set[int]) -> set[int]:
    def command(pid: int) -> str:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            return ""

    return {pid for pid in pids if "tuiperf" in command(pid)}


@pytest.fixture
def server(tmp_path):
    port = free_port()
    command = [sys.executable, "-m", "tuiperf", "--scenarios", str(SCENARIOS), "--no-history", "serve"]
    process = start_server([*command, "--port", str(port), "tiny-sin"], tmp_path)
    url = printed_url(process)
    wait_for_port(port, process)
    yield process, url
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(30)


async def exchange(url: str, headers: dict[str, str], path: str = "/ws") -> tuple[int, bytes]:
    """Connect as a browser would; the handshake's status and the first bytes the explorer sends."""
    import aiohttp

    parts = urlsplit(url)
    token = parts.query
    address = f"ws://{parts.netloc}{path}?{token}?width=80&height=24"
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(address, headers=headers) as socket:
                message = await socket.receive(timeout=120)
                return 101, message.data if isinstance(message.data, bytes) else str(message.data).encode()
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status, b""


def fetch(url: str, host: str | None = None) -> int:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code


@pytest.mark.slow
def test_the_served_explorer_answers_only_the_token_from_a_loopback_page(server):
    process, url = server
    netloc = urlsplit(url).netloc
    assert fetch(f"http://{netloc}/") == 403
    assert fetch(f"http://{netloc}/?token=guessed") == 403
    assert fetch(url, host="evil.example:" + netloc.split(":")[1]) == 403  # DNS rebinding
    assert fetch(url) == 200
    origin = {"Origin": f"http://{netloc}"}
    assert asyncio.run(exchange(f"http://{netloc}/", origin))[0] == 403  # no token
    assert asyncio.run(exchange(url, {"Origin": "http://evil.example"}))[0] == 403  # another site's page
    assert asyncio.run(exchange(url, {**origin, "Host": "evil.example"}))[0] == 403
    status, first = asyncio.run(exchange(url, origin))
    assert status == 101 and first  # the explorer answers its owner
    assert process.poll() is None


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGHUP])
def test_no_explorer_or_measuring_process_outlives_the_server(server, how):
    process, url = server
    netloc = urlsplit(url).netloc

    async def hold_open() -> tuple[set[int], set[int]]:
        """An explorer running (and its measuring processes started) while the server is ended."""
        import aiohttp

        address = f"ws://{netloc}/ws?{urlsplit(url).query}?width=80&height=24"
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(address, headers={"Origin": f"http://{netloc}"}) as socket,
        ):
            await socket.receive(timeout=120)
            deadline = time.monotonic() + 120
            seen: set[int] = set()
            # the explorer, and the process that lists devices and scenario files for it
            while len(python_processes(seen)) < 2 and time.monotonic() < deadline:
                seen |= descendants(process.pid)
                await asyncio.sleep(0.2)
            # counted before the kill: read after it, processes already ended have no command line left
            # (the suite once failed here, "started no measuring process", with both seen)
            started = python_processes(seen)
            os.kill(process.pid, how)
            return seen, started

    seen, started = asyncio.run(hold_open())
    assert len(started) >= 2, "the explorer started no measuring process"
    process.wait(30)
    deadline = time.monotonic() + 20
    while any(alive(pid) for pid in seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in seen if alive(pid)]
    assert not left, f"still running after the server ended by {how.name}: {left}"


@pytest.mark.slow
def test_a_missing_scenario_folder_or_a_busy_port_is_one_line_before_any_banner(tmp_path):
    def serve(*words: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "tuiperf", *words]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)

    missing = serve("--scenarios", str(tmp_path / "nowhere"), "serve", "--port", str(free_port()))
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.strip() == f"tuiperf: --scenarios {tmp_path / 'nowhere'}: no such folder"
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = serve("serve", "--port", str(taken.getsockname()[1]))
    assert busy.returncode == 2 and busy.stdout == ""
    assert busy.stderr.startswith("tuiperf: cannot serve on 127.0.0.1:") and busy.stderr.count("\n") == 1


def test_a_report_says_when_the_file_that_ran_is_a_users_copy_in_place_of_a_built_in(tmp_path):
    """A copy saved from an explorer (served or not) changes what ``tuiperf run ID`` runs: its report says so."""
    from rich.console import Console

    from tuiperf.catalog.folders import builtin_dir
    from tuiperf.cli.report import shadowing_copy

    def shown(path: str) -> str:
        with open(os.devnull, "w") as nowhere:
            console = Console(width=200, record=True, file=nowhere)
            console.print(*shadowing_copy(path))
        return console.export_text()

    copy = tmp_path / "dispatch_floor.py"
    assert f"ran your copy {copy}, which replaces the built-in" in shown(str(copy))
    assert "your copy" not in shown(str(builtin_dir() / "dispatch_floor.py"))
    assert "your copy" not in shown(str(tmp_path / "my_own.py"))
