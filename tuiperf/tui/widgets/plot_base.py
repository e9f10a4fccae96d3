"""A plotext plot that rebuilds only when its data, options or size changed."""

from __future__ import annotations

import os
from typing import Any

from textual.app import RenderResult
from textual_plotext import PlotextPlot

# Distinct, colour-blind-friendly-ish colours for variants (Okabe-Ito inspired), as RGB for plotext
# and as hex for Rich text, so tables and plots use the same colour for the same variant.
PALETTE = [(86, 180, 233), (230, 159, 0), (204, 121, 167), (0, 158, 115), (240, 228, 66),
           (0, 114, 178), (213, 94, 0), (170, 170, 170)]
MARKERS_NO_COLOR = ["braille", "x", "o", "+", "*", "#", "@", "%"]


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def variant_rgb(index: int) -> tuple[int, int, int]:
    return PALETTE[index % len(PALETTE)]


def variant_hex(index: int) -> str:
    r, g, b = variant_rgb(index)
    return f"#{r:02x}{g:02x}{b:02x}"


def variant_marker(index: int, default: str = "braille") -> str:
    return MARKERS_NO_COLOR[index % len(MARKERS_NO_COLOR)] if no_color() else default


class CachedPlot(PlotextPlot):
    """Subclasses implement :meth:`draw`; call :meth:`invalidate` after changing their data."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._version = 0
        self._drawn_key: tuple | None = None

    def invalidate(self) -> None:
        self._version += 1
        self.refresh()

    def draw(self, width: int, height: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def render(self) -> RenderResult:
        key = (self._version, self.size.width, self.size.height)
        if key != self._drawn_key:
            plt = self.plt
            plt.clear_figure()
            if self.size.width > 4 and self.size.height > 3:
                self.draw(self.size.width, self.size.height)
            self._drawn_key = key
        return super().render()
