"""A run option is declared once (tuiperf/results/settings.py) and reaches the command line, the setup
form, the request and the stored result from there: one more row in the table, and it is everywhere."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input
from tui_helpers import sync

from tuiperf.cli import parse_args
from tuiperf.cli.measure import request_from
from tuiperf.common.errors import ParamError
from tuiperf.contract import options
from tuiperf.contract.options import Option, RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.results.model import RunOptions
from tuiperf.tui.widgets.run_options import RunOptionsForm


class WithWarmUps(RunSettings, kw_only=True):
    """The table with one more option, as a future change would add it."""

    warm_ups: Annotated[
        int, Option("untimed calls before sampling", flag="--warm-ups", metavar="N", min=0, max=100, label="warm-ups")
    ] = 5


class FormApp(App[None]):
    def compose(self) -> ComposeResult:
        yield RunOptionsForm(id="options")


@pytest.fixture
def longer_table(monkeypatch):
    monkeypatch.setattr(options, "TABLE", WithWarmUps)


def test_an_option_added_to_the_table_reaches_the_command_line_and_the_request(longer_table):
    args = parse_args(["run", "tiny", "--warm-ups", "7", "--budget", "2"])
    request = request_from(args)
    assert isinstance(request.settings, WithWarmUps) and request.settings.warm_ups == 7
    assert request.settings.budget_s == 2.0
    assert request_from(parse_args(["run", "tiny"])).settings.warm_ups == 5  # its default
    with pytest.raises(ParamError, match=r"above the maximum 100"):
        request_from(parse_args(["run", "tiny", "--warm-ups", "101"]))


@sync
async def test_an_option_added_to_the_table_appears_in_the_form_and_its_request(longer_table):
    app = FormApp()
    async with app.run_test() as pilot:
        form = app.query_one(RunOptionsForm)
        field = form.query_one("#warm-ups", Input)
        assert field.value == "5"
        field.value = "9"
        await pilot.pause()
        request = RunRequest(scenario="tiny", settings=form.settings())
        assert isinstance(request.settings, WithWarmUps) and request.settings.warm_ups == 9
        field.value = "-1"
        await pilot.pause()
        assert any(e.startswith("warm-ups: ") and "below the minimum 0" in e for e in form.errors())


@sync
async def test_the_form_allows_what_the_run_allows():
    # the form capped the budget at 3,600 s while a run allowed a day
    app = FormApp()
    async with app.run_test() as pilot:
        form = app.query_one(RunOptionsForm)
        form.query_one("#budget", Input).value = "7200"
        form.query_one("#samples", Input).value = ""
        await pilot.pause()
        assert form.errors() == ["variants: choose at least one variant"]
        settings = form.settings()
        assert settings.budget_s == 7200.0 and settings.samples is None
        options.check(settings)


@sync
async def test_launch_settings_the_form_does_not_show_reach_the_request():
    # `tuiperf app --interleave call --timeout 5`: the app ignored both
    app = FormApp()
    async with app.run_test() as pilot:
        form = app.query_one(RunOptionsForm)
        form.set_settings(RunSettings(interleave="call", timeout_s=5.0, budget_s=0.5))
        await pilot.pause()
        assert form.query_one("#budget", Input).value == "0.5"
        settings = form.settings()
        assert (settings.interleave, settings.timeout_s, settings.budget_s) == ("call", 5.0, 0.5)


# One more row, written into a copy of the table's own file: what a future change does.
NEW_ROW = """    warm_ups: Annotated[
        int, Option("untimed calls before sampling", flag="--warm-ups", metavar="N", min=0, max=100, label="warm-ups")
    ] = 5
"""
STORE_AND_LOAD = """
import json, sys
from scripts.gen_schema import schema_text
from tuiperf.cli import parse_args
from tuiperf.cli.measure import request_from
from tuiperf.contract.options import stored
from tuiperf.results import resultfile
from tuiperf.results.model import DeviceInfo, RunResult, ScenarioRef
request = request_from(parse_args(["run", "tiny", "--warm-ups", "7"]))
options = stored(request.settings, None)
result = RunResult(scenario=ScenarioRef(id="tiny"), device=DeviceInfo(id="cpu:0"), options=options)
loaded = resultfile.decode(resultfile.encode(result))
print(json.dumps([loaded.options.warm_ups, json.loads(schema_text())["$defs"]["RunOptions"]["properties"]["warm_ups"]]))
"""


def test_an_option_added_to_the_table_is_stored_in_the_result(tmp_path):
    # storing a result failed with "Unexpected keyword argument" once the table had one more row; then
    # a new row was stored apart from the others (options.more) while the older ones were a hand copy
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "tuiperf", tmp_path / "tuiperf", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(root / "scripts", tmp_path / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    table = tmp_path / "tuiperf" / "results" / "settings.py"
    start = "class RunSettings(msgspec.Struct, kw_only=True):\n"
    head, docstring_and_rows = table.read_text().split(start)
    docstring, rows = docstring_and_rows.split("\n\n", 1)
    table.write_text(head + start + docstring + "\n\n" + NEW_ROW + rows)
    done = subprocess.run(
        [sys.executable, "-c", STORE_AND_LOAD],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},  # the copy, not this checkout
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [7, {"default": 5, "type": "integer"}]  # the stored value, the schema's row


def test_every_option_is_stored_in_the_result():
    # the stored record is the table plus the variants asked for: no field of its own to drift
    assert issubclass(RunOptions, RunSettings)
    assert {row.name for row in options.declared()} == set(RunOptions.__struct_fields__) - {"variants"}
    record = options.stored(RunSettings(budget_s=2.0, samples=7, timeout_s=None), ["a"], dispatch="async")
    assert (record.budget_s, record.samples, record.timeout_s, record.variants) == (2.0, 7, None, ["a"])
    assert record.dispatch == "async"  # what the process really used


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (RunSettings(budget_s=float("nan")), "budget: nan is not a finite number"),
        (RunSettings(budget_s=25 * 3600.0), "budget: 90000.0 is above the maximum 86400"),
        (RunSettings(samples=0), "samples: 0 is below the minimum 1"),
        (RunSettings(dispatch="fast"), "dispatch: 'fast' is not one of the choices"),
        (RunSettings(processes=101), "processes: 101 is above the maximum 100"),
    ],
)
def test_check_names_the_option_and_what_is_allowed(settings, message):
    with pytest.raises(ParamError) as caught:
        options.check(settings)
    assert str(caught.value).startswith(message)
