"""Picking Python environments beside the device: the list is read off the UI thread, ``current`` is
ticked alone at first, the order ticked is the order run (the first is the reference), and the
request carries it; the launch's ``--env`` ticks its names."""

from __future__ import annotations

from tui_helpers import FakeRunner, ready, record_notifications, sync, wait_until

from tuiperf.processes.python_envs import CURRENT, PythonEnv, current
from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.controller import planned_variants, run_header
from tuiperf.tui.launch import LaunchOptions

OLD = PythonEnv(name="old", python="/envs/old/bin/python")
NEWER = PythonEnv(name="newer", python="/envs/newer/bin/python")


def _app(saved, tmp_path, registered, **launch):
    return TuiperfApp(
        FakeRunner(saved),
        scenario_dirs=[],
        screenshots_dir=tmp_path,
        launch=LaunchOptions(**launch),
        list_environments=lambda: list(registered),
    )


async def _listed(pilot, names):
    main = await ready(pilot)
    await wait_until(pilot, lambda: main.setup.options._env_names == names, what="the environment list")
    return main


@sync
async def test_ticking_an_environment_sends_it_after_the_reference(saved, tmp_path):
    app = _app(saved, tmp_path, [current(), NEWER, OLD])
    async with app.run_test(size=(100, 40)) as pilot:
        main = await _listed(pilot, [CURRENT, "newer", "old"])
        options = main.setup.options
        assert options.environments == [CURRENT]
        assert main.build_request().environments == []  # current alone: the ordinary run
        checklist = options.query_one("#environments")
        checklist.focus()
        await pilot.pause()
        await pilot.press("down", "down", "space")  # old
        await pilot.press("up", "space")  # then newer
        await wait_until(pilot, lambda: len(options.environments) == 3, what="two more ticked")
        assert options.environments == [CURRENT, "old", "newer"]
        note = str(options.query_one("#environments-note").render())
        assert "reference current" in note and "old, newer" in note
        await pilot.press("r")
        await main.runs.wait_for_end(30)
        assert app.runner.requests[-1].environments == [CURRENT, "old", "newer"]


@sync
async def test_unticking_the_reference_makes_the_next_one_the_reference(saved, tmp_path):
    app = _app(saved, tmp_path, [current(), OLD], environments=[CURRENT, "old"])
    async with app.run_test(size=(100, 40)) as pilot:
        main = await _listed(pilot, [CURRENT, "old"])
        options = main.setup.options
        assert options.environments == [CURRENT, "old"]
        options.query_one("#environments").focus()
        await pilot.pause()
        await pilot.press("space")  # current off: old is the reference
        await wait_until(pilot, lambda: options.environments == ["old"], what="current unticked")
        await pilot.press("space")  # current again, now after old
        await wait_until(pilot, lambda: len(options.environments) == 2, what="current ticked again")
        assert main.build_request().environments == ["old", CURRENT]
        await pilot.press("space", "down", "space")  # nothing ticked: the form cannot run, and says why
        await wait_until(pilot, lambda: not options.environments, what="all unticked")
        assert any(p.startswith("environments: tick at least one") for p in main.setup.problems())
        assert main.build_request() is None


@sync
async def test_the_launch_ticks_its_environments_in_its_order_and_names_an_unknown_one(saved, tmp_path):
    app = _app(saved, tmp_path, [current(), OLD], environments=["old", "gone", CURRENT])
    shown = record_notifications(app)
    async with app.run_test(size=(100, 40)) as pilot:
        main = await _listed(pilot, [CURRENT, "old"])
        assert main.setup.options.environments == ["old", CURRENT]
        await wait_until(pilot, lambda: shown, what="the notification")
        assert "Unknown environment: no environment 'gone'" in shown[0]


@sync
async def test_with_current_alone_the_form_says_how_to_add_one(saved, tmp_path):
    app = _app(saved, tmp_path, [current()])
    async with app.run_test(size=(80, 24)) as pilot:
        main = await _listed(pilot, [CURRENT])
        options = main.setup.options
        assert not options.query_one("#environments").display
        hint = str(options.query_one("#environments-none").render())
        assert "tuiperf env add NAME PYTHON" in hint and "env create NAME REQ" in hint
        assert main.build_request().environments == []


@sync
async def test_a_list_that_cannot_be_read_leaves_current_and_says_why(saved, tmp_path):
    from tuiperf.common.errors import PythonEnvError

    def broken():
        raise PythonEnvError("the environment list is not valid JSON", where="/data/environments.json")

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path, list_environments=broken)
    shown = record_notifications(app)
    async with app.run_test(size=(100, 40)) as pilot:
        main = await ready(pilot)
        await wait_until(pilot, lambda: shown, what="the notification")
        assert "not valid JSON" in shown[0]
        assert main.setup.options.environments == [CURRENT]
        assert main.build_request().environments == []


def test_a_run_over_several_environments_plans_a_row_per_variant_and_environment():
    from tuiperf.contract.request import RunRequest

    request = RunRequest("s", variants=["a", "b"], environments=[CURRENT, "old"])
    assert planned_variants(request) == ["a @ current", "b @ current", "a @ old", "b @ old"]
    assert " · in current, old · " in run_header(request)
    assert planned_variants(RunRequest("s", variants=["a"], environments=["old"])) == ["a"]  # one: not renamed
