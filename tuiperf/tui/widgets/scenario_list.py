"""The scenario list: built-in and user scenarios with a filter; broken files shown with their error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from tuiperf.common.text import one_line
from tuiperf.contract.catalog import Catalog, LoadError, ScenarioEntry


class ScenarioOptions(OptionList):
    """The list itself: a click selects a scenario (focus stays here, so single-key commands work
    next); Enter or a double click opens it (:class:`ScenarioList.Entered`)."""

    BINDINGS = [Binding("enter", "open", "Open", show=False)]

    class Opened(Message):
        """Enter or a double click on the highlighted scenario."""

    def action_open(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.Opened())

    def on_click(self, event: events.Click) -> None:
        # OptionList's own click handler has highlighted the option clicked; a second click opens it
        if event.chain >= 2:
            self.action_open()


class ScenarioList(Vertical):
    """Filter box above an option list. Posts :class:`ScenarioList.Chosen` when the highlight moves."""

    DEFAULT_CSS = """
    ScenarioList {
        height: auto;
        max-height: 45%;
    }
    #scenario-filter {
        margin: 0 1;
    }
    #scenario-options {
        scrollbar-size-vertical: 1;
        height: auto;
        max-height: 100%;
        border: none;
        padding: 0;
    }
    """

    @dataclass
    class Chosen(Message):
        scenario: ScenarioEntry | None  # None for a broken file
        broken: LoadError | None = None

    class Entered(Message):
        """Enter on a scenario: the user wants its parameters."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenarios: list[ScenarioEntry] = []
        self.broken: list[LoadError] = []
        self._rebuilt = False  # the list on screen shows self.scenarios and self.broken
        self.current_key: str | None = None
        self.filter = Input(placeholder="/ filter scenarios", id="scenario-filter", compact=True)
        self.options = ScenarioOptions(id="scenario-options")

    def compose(self) -> ComposeResult:
        yield self.filter
        yield self.options

    def set_catalog(self, catalog: Catalog, select: str | None = None) -> None:
        """Show a (re)loaded catalog, with ``select`` (an id) or else the current scenario selected;
        if the selected scenario's description changed (a new default, another variant, the file
        broke or was fixed) it is chosen again."""
        before = self._entry(self.current_key)
        scenarios, broken = list(catalog.scenarios), list(catalog.broken)
        if select is None and self._rebuilt and (scenarios, broken) == (self.scenarios, self.broken):
            return  # the list on screen already (a reload, or the fresh catalog matching the cached one)
        self.scenarios, self.broken = scenarios, broken
        self._rebuilt = True
        key = self.current_key
        self._rebuild(prefer=f"ok:{select}" if select else None)
        if key is not None and key == self.current_key and self._entry(key) != before:
            self._post_chosen(key)

    def _entry(self, key: str | None) -> ScenarioEntry | LoadError | None:
        kind, _, sid = (key or "").partition(":")
        entries: list[ScenarioEntry] | list[LoadError] = self.scenarios if kind == "ok" else self.broken
        return next((e for e in entries if e.id == sid), None)

    def _post_chosen(self, key: str) -> None:
        entry = self._entry(key)
        if isinstance(entry, LoadError):
            self.post_message(self.Chosen(None, entry))
        else:
            self.post_message(self.Chosen(entry))

    @property
    def filter_text(self) -> str:
        return self.filter.value.strip().lower()

    def _matches(self, *texts: str) -> bool:
        words = self.filter_text.split()
        blob = " ".join(t.lower() for t in texts if t)
        return all(w in blob for w in words)

    def _rank(self, scenario: ScenarioEntry) -> int:
        """Best matches first, so Enter takes the one meant: id, then id start, title, description."""
        words = self.filter_text.split()
        if not words:
            return 0
        sid, title = scenario.id.lower(), scenario.title.lower()
        if " ".join(words) == sid:
            return 0
        if sid.startswith(words[0]):
            return 1
        if all(w in sid for w in words):
            return 2
        if all(w in f"{sid} {title}" for w in words):
            return 3
        return 4

    def _rebuild(self, keep_selection: bool = True, prefer: str | None = None) -> None:
        """Refill the list; a new filter text highlights its best match, a refresh keeps the selection.

        A refresh refills the list without highlight events (clearing it used to highlight the first
        scenario and then the kept one, and each rebuilt the parameter form: 0.2 s of a stalled UI at
        start-up); the scenario then highlighted is chosen once, if it is not the current one.
        """
        options = self.options
        items: list[Option] = []
        for s in sorted(self.scenarios, key=self._rank):
            if self._matches(s.id, s.title, s.question):
                label = Text.assemble((one_line(s.id), "bold"), mark_of(s), "\n", (one_line(s.title), "dim"))
                items.append(Option(label, id=f"ok:{s.id}"))
        for b in self.broken:
            if self._matches(b.id, b.path, b.error):
                label = Text.assemble(("✗ " + one_line(b.id), "bold red"), "\n", (_short(b.error), "red"))
                items.append(Option(label, id=f"broken:{b.id}"))
        ids = [o.id for o in items]
        if not keep_selection:  # typing in the filter: the highlight event chooses the best match
            options.clear_options()
            options.add_options(items)
            if items:
                options.highlighted = 0
            return
        keep = prefer if prefer in ids else self.current_key
        with options.prevent(OptionList.OptionHighlighted):
            options.clear_options()
            options.add_options(items)
            if items:
                options.highlighted = ids.index(keep) if keep in ids else 0
        shown = ids[options.highlighted] if items and options.highlighted is not None else None
        if shown is not None and shown != self.current_key:
            self.current_key = shown
            self._post_chosen(shown)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "scenario-filter":
            event.stop()
            self._rebuild(keep_selection=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "scenario-filter":
            event.stop()
            self.options.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        key = event.option.id
        if key is None or key == self.current_key:
            return
        self.current_key = key
        self._post_chosen(key)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        # a click: the scenario is chosen (its highlight) and focus stays on the list
        event.stop()
        self.on_option_list_option_highlighted(event)  # type: ignore[arg-type]

    def on_scenario_options_opened(self, event: ScenarioOptions.Opened) -> None:
        # Enter or a double click on a scenario moves on to its parameters.
        event.stop()
        self.post_message(self.Entered())

    def select(self, scenario_id: str, show: bool = False) -> bool:
        """Highlight a scenario; ``show``: clear a filter that hides it (a scenario just created)."""
        if self._highlight(scenario_id):
            return True
        field = self.filter
        if not show or not field.value:
            return False
        with self.prevent(Input.Changed):
            field.value = ""
        self._rebuild(prefer=f"ok:{scenario_id}")
        return self._highlight(scenario_id)

    def _highlight(self, scenario_id: str) -> bool:
        options = self.options
        for index in range(options.option_count):
            if options.get_option_at_index(index).id == f"ok:{scenario_id}":
                options.highlighted = index
                return True
        return False


def mark_of(scenario: ScenarioEntry) -> tuple[str, str] | str:
    """What the list says about where a scenario comes from (nothing for a plain built-in)."""
    if scenario.last_good is not None:
        return ("  ⚠ last good version", "bold yellow")
    origin = scenario.origin
    if origin == "shadows built-in":
        return ("  ⇄ your copy", "cyan")
    if origin == "user":
        return ("  ✎ yours", "cyan")
    return ""


def _short(text: str, width: int = 60) -> str:
    return one_line(text, width)
