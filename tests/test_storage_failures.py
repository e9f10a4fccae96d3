"""A measurement is never lost to storage or reporting: the --json file first, a history failure one
line, a recovery copy when nothing else kept it; only regular files are replaced, keeping their mode."""

from __future__ import annotations

import io
import os
import stat
import threading

import factories
import pytest
from rich.console import Console

from tuiperf.cli import main
from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import write_atomic
from tuiperf.results import resultfile

RUN = ["run", "tiny", "--in-process", "--samples", "5", "--no-profile", "--width", "100"]


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home / "tuiperf"


@pytest.mark.slow
def test_a_history_that_cannot_be_written_is_one_line_and_the_json_is_written(fixture_dir, tmp_path, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    out = tmp_path / "r.json"
    code = main([*RUN, "--scenarios", fixture_dir, "--history", str(blocker / "h.sqlite"), "--json", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert resultfile.load(out).scenario.id == "tiny"
    assert len([line for line in err.splitlines() if "not stored in the history" in line]) == 1
    assert "Traceback" not in err


@pytest.mark.slow
def test_with_no_json_a_failed_history_leaves_a_recovery_copy(fixture_dir, tmp_path, data_home, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    assert main([*RUN, "--scenarios", fixture_dir, "--history", str(blocker / "h.sqlite")]) == 0
    err = capsys.readouterr().err
    [copy] = (data_home / "unsaved").glob("tiny-*.json")
    assert resultfile.load(copy).variant("jax.jit").sampling.stats is not None and str(copy) in err


@pytest.mark.slow
def test_a_json_that_cannot_be_written_after_the_run_still_leaves_the_result(
    fixture_dir, tmp_path, data_home, capsys, monkeypatch
):
    save = resultfile.save

    def full(result, path, **kwargs):  # the disk under --json fills during the run
        if str(path).endswith("r.json"):
            raise TuiperfError("cannot write: No space left on device", where="r.json")
        return save(result, path, **kwargs)

    monkeypatch.setattr(resultfile, "save", full)
    code = main([*RUN, "--scenarios", fixture_dir, "--json", str(tmp_path / "r.json"), "--no-history"])
    err = capsys.readouterr().err
    assert code == 1 and "--out not written: r.json: cannot write: No space left on device" in err
    [copy] = (data_home / "unsaved").glob("tiny-*.json")
    assert resultfile.load(copy).scenario.id == "tiny"


@pytest.mark.slow
def test_a_variant_named_like_markup_is_measured_reported_and_kept(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "marked.py").write_text(
        "import jax.numpy as jnp\nfrom tuiperf import Bench, Scenario\n"
        "scenario = Scenario(title='[/]', question='[link=file:///etc/passwd]x')\n"
        "@scenario.variant('[/]')\ndef _(p, ctx):\n    return Bench(jnp.sin, jnp.ones(3))\n"
    )
    out = tmp_path / "r.json"
    assert (
        main(
            [
                "run",
                "marked",
                "--in-process",
                "--samples",
                "5",
                "--no-profile",
                "--scenarios",
                str(folder),
                "--json",
                str(out),
                "--no-history",
            ]
        )
        == 0
    )
    assert resultfile.load(out).variants[0].name == "[/]" and "[/]" in capsys.readouterr().out


def test_the_progress_line_shows_a_markup_name_as_text():
    from tuiperf.cli.measure import Progress
    from tuiperf.contract.events import PhaseChanged
    from tuiperf.contract.events import Progress as ProgressEvent

    console = Console(file=io.StringIO(), force_terminal=True, width=80)
    with Progress(console) as progress:
        progress.on_event(PhaseChanged("sample", variant="[/]"))
        progress.on_event(ProgressEvent(0.5, 1.0, 1.0, estimates_ns={"[/]": 1000.0}))
        progress.say("[/] stopping")


def test_a_note_that_is_not_data_is_kept_as_text():
    from tuiperf.contract import wire
    from tuiperf.measuring.serve import safe_send

    variant = factories.variant("a", samples=[1.0, 2.0], notes=[threading.Lock()])
    assert variant.notes[0].startswith("<unlocked _thread.lock")
    run = factories.result({"a": [1.0, 2.0]})
    run.variants[0].warnings.append(threading.Lock())  # any object a document can end up holding
    sent = []

    class Conn:
        def send_bytes(self, data):
            sent.append(wire.answer_of(data))

    from tuiperf.contract.protocol import Measured

    safe_send(Conn(), Measured(run))
    [answer] = sent
    assert isinstance(answer, Measured) and answer.result.variants[0].warnings[-1].startswith("<unlocked _thread.lock")


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_force_replaces_only_a_regular_file(kind, tmp_path, capsys):
    target = tmp_path / "out.json"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        (tmp_path / "real").write_text("keep")
        target.symlink_to(tmp_path / "real")
    with pytest.raises(TuiperfError, match="not a regular file"):
        write_atomic(target, b"x", force=True)
    assert (stat.S_ISFIFO if kind == "fifo" else stat.S_ISLNK)(target.lstat().st_mode)


def test_a_replaced_file_keeps_its_mode_and_a_new_one_gets_the_umasks(tmp_path):
    shared = tmp_path / "scenario.py"
    shared.write_text("old")
    shared.chmod(0o644)
    write_atomic(shared, b"new", force=True)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644 and shared.read_text() == "new"
    old = os.umask(0o022)
    try:
        fresh = write_atomic(tmp_path / "new.json", b"{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
