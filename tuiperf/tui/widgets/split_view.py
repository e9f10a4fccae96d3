"""Setup beside results on a wide screen; on a narrow one (the screen's ``-narrow`` class) only the half
chosen with the Setup/Results tabs (``#view-tabs``, above this row), with focus kept in the half shown.

Which half shows is set on the two halves' ``display``, not as a class on the screen: a class on the
screen restyles every widget. While the Setup half shows alone, the Results tab says what a run started
from there is doing (live mode re-runs after each change without switching to the results).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Tab, Tabs

RESULTS = "Results"


class SplitView(Horizontal):
    def __init__(self, *children: Widget, **kwargs: Any) -> None:
        super().__init__(*children, **kwargs)
        self.view = "setup"  # the half a narrow screen shows: "setup" or "results"
        self.switchable = False  # the results half and the view tabs are mounted

    @property
    def narrow(self) -> bool:
        return self.screen.has_class("-narrow")

    async def add_results(self, results: Widget) -> None:
        """Mount the results half, and the Setup/Results switch above this row: it comes with the half
        it switches to (shown only when narrow, it was a quarter of the first frame's widgets)."""
        results.display = not self.narrow or self.view == "results"
        tabs = [Tab("Setup", id="view-setup"), Tab("Results", id="view-results")]
        await self.screen.mount(Tabs(*tabs, active=f"view-{self.view}", id="view-tabs"), before=self)
        await self.mount(results)

    def _half(self, view: str) -> Widget:
        return self.query_one("#sidebar" if view == "setup" else "#results")

    def show(self, view: str) -> None:
        """Setup or results; on a narrow screen only one is visible, and focus must stay visible."""
        self.view = view
        self.apply()
        if not self.switchable:
            return  # the switch and the results half come with the panels; they start at self.view
        tabs = self.screen.query_one("#view-tabs", Tabs)
        if tabs.active != f"view-{view}":
            tabs.active = f"view-{view}"
        focused = self.screen.focused
        if self.narrow and (focused is None or self._half(view) not in focused.ancestors_with_self):
            self.screen.query_one("#scenario-options" if view == "setup" else "#tabs Tabs").focus()

    def apply(self) -> None:
        """Both halves on a wide screen, the chosen one on a narrow screen."""
        narrow = self.narrow
        self._half("setup").display = not narrow or self.view == "setup"
        if self.switchable:
            self._half("results").display = not narrow or self.view == "results"
            if self._half("results").display:
                self._label_results(RESULTS)  # seen: no news left to tell

    def tell_results(self, news: str) -> None:
        """Say on the Results tab what a run is doing, while the results half is hidden (a narrow screen
        showing Setup); the tab reads plain "Results" again once the results are shown."""
        if self.switchable and not self._half("results").display:
            self._label_results(f"{RESULTS} · {news}")

    def _label_results(self, label: str) -> None:
        tab = self.screen.query_one("#view-results", Tab)
        if tab.label.plain != label:  # a new label lays the tabs out again
            tab.label = Text(label)

    def keep_focus_visible(self) -> None:
        if self.app.screen is self.screen and self.narrow:
            self.show(self.view)
