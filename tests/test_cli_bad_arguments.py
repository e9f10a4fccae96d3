"""Bad input on the command line is one line and exit 2, never a traceback: a port or a run id in
digits that are not ASCII (``isdigit`` accepts '²' and Arabic-Indic digits), a run id beyond SQLite's
integers, a history with a damaged page, a ``~user`` that names no user."""

from __future__ import annotations

import factories
import pytest

from tuiperf.cli import main
from tuiperf.common.errors import ParamError
from tuiperf.processes.cluster import coordinator_address
from tuiperf.results.history import History


def one_error_line(capsys) -> str:
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tuiperf: "), err
    return lines[0]


@pytest.mark.parametrize("port", ["²", "١٢٣٤٥", "１２３４５"])  # superscript, Arabic-Indic, fullwidth
def test_a_coordinator_port_in_digits_that_are_not_ascii_is_not_a_port(port):
    with pytest.raises(ParamError, match="is not HOST:PORT"):
        coordinator_address(f"127.0.0.1:{port}")


@pytest.mark.slow
def test_the_cli_refuses_a_coordinator_port_in_fullwidth_digits(tmp_path, capsys):
    argv = ["run", "dispatch-floor", "--cluster", "2", "--coordinator", "127.0.0.1:１２３４５", "--budget", "0.1"]
    assert main(argv) == 2
    assert "is not HOST:PORT" in one_error_line(capsys)


@pytest.mark.parametrize("address", ["127.0.0.1: 1234", "127.0.0.1", ":1234", "127.0.0.1:0", "127.0.0.1:70000"])
def test_a_coordinator_that_is_not_host_port_is_said_as_an_address_not_as_a_name(address, capsys):
    assert main(["run", "dispatch-floor", "--cluster", "2", "--coordinator", address]) == 2
    line = one_error_line(capsys)
    assert line.startswith(f"tuiperf: coordinator: {address!r} is not HOST:PORT (allowed: HOST:PORT"), line
    assert "name" not in line


@pytest.mark.parametrize("ref", ["99999999999999999999999", "²"])
def test_show_of_a_run_id_beyond_the_history_or_in_other_digits_is_one_line(ref, tmp_path, capsys):
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        history.add(factories.result({"a": factories.steady(1000.0)}))
    assert main(["--history", str(path), "show", ref]) == 2
    one_error_line(capsys)


def test_history_of_a_history_with_a_damaged_page_is_one_line(tmp_path, capsys):
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        for i in range(40):
            history.add(factories.result({f"v{i}": factories.steady(1000.0)}))
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 6 * page
    data[3 * page : 5 * page] = b"\xa5" * (2 * page)  # two pages past the schema: the runs' rows
    path.write_bytes(bytes(data))
    assert main(["--history", str(path), "history"]) == 2
    assert "damaged" in one_error_line(capsys)


def test_env_add_of_a_path_under_a_user_that_does_not_exist_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["env", "add", "x", "~nosuchuser-tuiperf/python"]) == 2
    assert "~nosuchuser-tuiperf" in one_error_line(capsys)
