"""The dispatch mode is a CPU setting: with a GPU (or any accelerator) chosen, the form shows the mode
that applies there (async), greyed, with a tooltip saying why; back on the CPU, the user's choice."""

from __future__ import annotations

import copy

from tui_helpers import FakeRunner, ready, sync

from tuiperf.results.model import DeviceInfo
from tuiperf.tui.app import TuiperfApp

GPU = DeviceInfo("cuda:0", "gpu", "NVIDIA H100 80GB HBM3", 0)


@sync
async def test_the_dispatch_choice_is_greyed_with_why_on_a_gpu_and_restored_on_the_cpu(saved, scenario_dirs, tmp_path):
    with_gpu = copy.deepcopy(saved)
    with_gpu["devices"] = [*saved["devices"], GPU]
    app = TuiperfApp(FakeRunner(with_gpu), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        form = main.setup.options
        dispatch, device = form.query_one("#dispatch"), form.query_one("#device")
        dispatch.value = "sync"
        await pilot.pause()
        assert not dispatch.disabled and form.settings().dispatch == "sync"
        device.value = "cuda:0"
        await pilot.pause()
        assert dispatch.disabled and dispatch.value == "async" and form.settings().dispatch == "async"
        assert "CPU-only" in str(dispatch.tooltip) and "gpu" in str(dispatch.tooltip)
        device.value = "cpu:0"
        await pilot.pause()
        assert not dispatch.disabled and dispatch.value == "sync" and dispatch.tooltip is None
