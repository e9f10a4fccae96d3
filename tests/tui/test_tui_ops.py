"""The Profile tab shows each variant's operations table below its Python profile, where the result
holds one (a result stored before the table existed shows as it did)."""

from __future__ import annotations

import msgspec
from tui_helpers import FakeRunner, ready, run_to_end, sync, wait_until

from tuiperf.results.model import NOT_ATTRIBUTED, Operations, OpRow
from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.widgets.text_grid import TextGrid


def with_ops(saved):
    result = saved["result"]
    variants = []
    for index, v in enumerate(result.variants):
        rows = [
            OpRow(
                op=f"convolution.{index}",
                kind="convolution",
                detail="3-D, window 3x3x3",
                shapes="f32[8] → f32[8]",
                source="model.py:42",
                calls=1.0,
                ns=9_000.0 + index,
                share=0.9,
            ),
            OpRow(op="(not attributed)", kind=NOT_ATTRIBUTED, ns=1_000.0, share=0.1),
        ]
        table = Operations(rows=rows, calls=10, batches=5, traced_ns=9_000.0, compute_ns=10_000.0)
        variants.append(msgspec.structs.replace(v, program=msgspec.structs.replace(v.program, ops=table)))
    return {**saved, "result": msgspec.structs.replace(result, variants=variants)}


@sync
async def test_the_profile_tab_shows_the_operations_of_each_program(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(with_ops(saved)), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)
        main = await run_to_end(pilot)
        await pilot.press("5")
        grid = app.query_one("#ops-rows", TextGrid)
        await wait_until(pilot, lambda: grid.display, what="the operations shown")
        assert grid.row_count == 2 * len(main.result.variants)
        first = grid.get_row(grid.keys[0])
        assert first[:3] == ["9.00", "90%", "1"]
        assert first[4] == "convolution.0 (convolution, 3-D, window 3x3x3, f32[8] → f32[8], model.py:42)"
