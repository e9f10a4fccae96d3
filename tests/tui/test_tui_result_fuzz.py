"""100 generated hostile results (any type in any field, texts full of control characters and markup:
``fuzz_documents``) opened in one app as stored runs: every tab, the header and the progress rows hold
no raw control character, nor, for every 50th, the screen drawn tab by tab, the variant picker,
the comparison, export and error dialogs and the editor. ``benchmarks/result_fuzz.py --app`` runs more
(2,000 by default; the suite ran 1,000, then 200, until its 8 minutes needed the time)."""

from __future__ import annotations

from app_fuzz import drive, generated_results
from tui_helpers import FakeRunner, ready, sync

from tuiperf.tui.app import TuiperfApp

COUNT = 100


@sync
async def test_a_hundred_generated_hostile_results_draw_no_control_character(saved, scenario_dirs, tmp_path):
    results = generated_results(COUNT)
    assert len(results) == COUNT
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path / "s")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        findings = await drive(pilot, results, full_every=50)
    assert (findings.results, findings.full) == (COUNT, COUNT // 50)
    assert findings.raw == []
