"""Every command of the explorer, once: its keys, what it does, where it appears.

The main screen's key bindings, the command palette and the ``?`` help are all derived from this
table, so they cannot disagree. Actions are names of ``action_*`` methods of the main screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

RESULT_TABS: tuple[tuple[str, str], ...] = (
    ("histogram", "Histogram"),
    ("breakdown", "Breakdown"),
    ("sweep", "Sweep"),
    ("stats", "Statistics"),
    ("profile", "Profile"),
    ("warnings", "Warnings"),
)


@dataclass(frozen=True)
class Command:
    keys: str  # Textual key names, comma-separated; "" for palette-only commands
    action: str
    title: str  # in the palette and the footer
    help: str  # in the palette and the ? screen
    footer: str = ""  # a short label in the footer ("" : not in the footer)
    key_label: str = ""  # how the ? screen writes the keys (default: keys)

    @property
    def shown_keys(self) -> str:
        return self.key_label or self.keys.replace("question_mark", "?").replace(",", " / ")


COMMANDS: tuple[Command, ...] = (
    Command(
        "r,ctrl+r",
        "run",
        "Run",
        "run the selected scenario with the form's values (ctrl+r inside a field)",
        footer="Run",
        key_label="r / ctrl+r",
    ),
    Command(
        "escape",
        "cancel",
        "Cancel run",
        "stop the run in progress and keep its partial result; leave a field",
        footer="Cancel",
    ),
    Command(
        "w", "sweep", "Sweep a parameter", "run once per value of one parameter (log-log plot, slopes)", footer="Sweep"
    ),
    Command("l", "toggle_log", "Toggle log scale", "linear or log time axis of the histogram", footer="Log"),
    Command(
        "m",
        "toggle_sweep_memory",
        "Sweep: time, memory, compile",
        "plot the sweep's time per call, program memory or compile time",
    ),
    Command("b", "next_baseline", "Next baseline", "compare the variants against the next one"),
    Command(
        "v",
        "choose_plotted",
        "Choose plotted variants",
        "which variants the histogram draws (up to 3 overlaid, more as strips, at most 12)",
    ),
    Command(
        "h", "history", "Run history", "stored runs: open one, or compare the shown result with it", footer="History"
    ),
    Command("x", "export", "Export result", "the shown result as Markdown (for an issue), CSV or JSON"),
    Command(
        "c",
        "copy_markdown",
        "Copy as Markdown",
        "the shown result's Markdown to your clipboard (OSC 52: works over SSH; tmux: set-clipboard on)",
    ),
    Command("t", "trace", "Trace a variant", "a JAX profiler trace of the shown scenario's first measured variant"),
    Command("e", "edit_scenario", "Edit scenario", "open the selected scenario's file; ctrl+s saves", footer="Edit"),
    Command("n", "new_scenario", "New scenario", "a scenario of your own from a template, opened in the editor"),
    Command("ctrl+l", "reload_scenarios", "Reload scenarios", "read the scenario files again (changes are noticed)"),
    Command("", "revert_builtin", "Revert to built-in", "set your copy of a built-in aside and use the built-in"),
    Command(
        "s", "screenshot", "Save screenshot", "SVG (and PNG) of the screen into the screenshots folder", footer="Shot"
    ),
    *(
        Command(
            str(i + 1),
            f"show_tab('{tab}')",
            f"Show {label}",
            f"the {label.lower()} tab",
            key_label="1 … 6" if i == 0 else "",
        )
        for i, (tab, label) in enumerate(RESULT_TABS)
    ),
    Command("left_square_bracket", "prev_tab", "Previous tab", "the result tab to the left", key_label="["),
    Command("right_square_bracket", "next_tab", "Next tab", "the result tab to the right", key_label="]"),
    Command("slash", "focus_filter", "Filter scenarios", "type to filter the scenario list", key_label="/"),
    Command("f2", "toggle_view", "Setup / results", "switch panels on a narrow screen"),
    Command("question_mark", "help", "Show keys", "every key and what it does", footer="Keys"),
    Command("ctrl+p", "palette", "Command palette", "every command by name", footer="Palette"),
    Command("q", "quit", "Quit", "leave tuiperf (asks first while a run is measuring)"),
)


def bindings() -> list[Binding]:
    """The main screen's bindings, one per command with keys."""
    return [Binding(c.keys, c.action, c.footer or c.title, show=bool(c.footer)) for c in COMMANDS if c.keys]


def help_rows() -> list[tuple[str, str]]:
    """(keys, what) for the ? screen: one row per command, the tab keys folded into one."""
    rows = []
    for command in COMMANDS:
        if command.action.startswith("show_tab") and not command.key_label:
            continue
        what = (
            command.help
            if not command.action.startswith("show_tab")
            else ("result tabs: " + ", ".join(label.lower() for _, label in RESULT_TABS))
        )
        rows.append((command.shown_keys or "palette", f"{command.title}: {what}" if not command.keys else what))
    rows.append(("tab / shift+tab", "move between fields"))
    return rows
