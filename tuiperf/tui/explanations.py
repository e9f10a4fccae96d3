"""Why each variant differs from a baseline: made once per baseline in a thread, shared by the
Statistics and Breakdown tabs (no Textual here).

Reconciling a gap is a paired bootstrap in pure Python, a quarter of a second for ten variants:
the two tabs each made their own, and `b` waited for the next baseline's with an empty block that
laid the screen out twice. The panel makes them here, once, and the next baseline's ahead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text

from tuiperf.common.text import one_line
from tuiperf.results.model import RunResult
from tuiperf.results.reconcile import Reconciliation, Resampled, reconcile
from tuiperf.results.verdict import verdicts

# A why holds its evidence, a remedy tried and the operations that differ: at 400 characters, the
# Statistics and Breakdown tabs cut loop-compile's "…, absent from u…" and the rest was nowhere in the app.
WHY_CHARS = 2000


def why_bullet(sentence: str) -> Text:
    """One variant's why as the Statistics and Breakdown tabs list it: one line (wrapped by its block),
    whole unless it is longer than :data:`WHY_CHARS` (a name of pathological length)."""
    return Text(f"• {one_line(sentence, WHY_CHARS)}")


@dataclass(frozen=True)
class Explanation:
    result: RunResult
    baseline: str
    splits: dict[str, Reconciliation]  # each variant's gap to the baseline split by stage, by variant
    sentences: list[tuple[str, str]]  # (variant, why), as results.verdict.verdicts gives them
    error: str = ""  # what stopped it being made (then no splits and no sentences)


def explain(result: RunResult, baseline: str, cache: Resampled | None = None) -> Explanation:
    """Every measured variant's gap to ``baseline`` split by stage, and the sentences on why; ``cache``
    kept between baselines of one result resamples each variant once."""
    base = result.variant(baseline)
    splits: dict[str, Reconciliation | None] = {}
    if base is not None:
        splits = {v.name: reconcile(v, base, cache) for v in result.measured if v.name != baseline}
    made = {name: split for name, split in splits.items() if split is not None}
    return Explanation(result, baseline, made, verdicts(result, baseline, splits, cache))


class Explanations:
    """The explanations of the result shown, by baseline; ``start(result, baseline)`` makes one in a
    thread and hands it back through :meth:`add`."""

    def __init__(self, start: Callable[[RunResult, str], object]) -> None:
        self._start = start
        self._result: RunResult | None = None
        self._made: dict[str, Explanation] = {}
        self._asked: set[str] = set()
        self.resampled: Resampled = {}  # the result's, for explain (its threads add to it)

    def made(self, result: RunResult | None, baseline: str | None) -> Explanation | None:
        if result is None or result is not self._result or baseline is None:
            return None
        return self._made.get(baseline)

    def ask(self, result: RunResult, baseline: str) -> Explanation | None:
        """The explanation if made, else None, its making started (once)."""
        if result is not self._result:
            self._result, self._made, self._asked, self.resampled = result, {}, set(), {}
        if baseline not in self._made and baseline not in self._asked:
            self._asked.add(baseline)
            self._start(result, baseline)
        return self._made.get(baseline)

    def add(self, explanation: Explanation) -> bool:
        """Keep ``explanation``; False when it is of a result no longer shown."""
        if explanation.result is not self._result:
            return False
        self._made[explanation.baseline] = explanation
        self._asked.discard(explanation.baseline)
        return True
