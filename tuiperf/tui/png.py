"""PNG copies of SVG screenshots, when the optional cairosvg (and the cairo library) is installed."""

from __future__ import annotations

from pathlib import Path


def write_png(svg_path: Path) -> Path | None:
    """Write a PNG beside an SVG; None when cairosvg is missing or fails (the SVG is what matters)."""
    try:
        import cairosvg  # type: ignore[import-untyped,unused-ignore]
    except Exception:  # noqa: BLE001 - optional extra (and the cairo system library)
        return None
    png = svg_path.with_suffix(".png")
    try:
        cairosvg.svg2png(url=str(svg_path), write_to=str(png))
    except Exception:  # noqa: BLE001 - a PNG is a bonus, the SVG is saved
        return None
    return png
