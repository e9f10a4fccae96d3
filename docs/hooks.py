"""MkDocs hook: serve the repository's screenshots/ at the site's screenshots/, so pages show the same
images the README does without a second copy of them in docs/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

SCREENSHOTS = Path(__file__).resolve().parent.parent / "screenshots"


def on_files(files: Files, config: Any) -> Files:
    for image in sorted(SCREENSHOTS.glob("*.png")):
        files.append(
            File(
                f"screenshots/{image.name}",
                src_dir=str(SCREENSHOTS.parent),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files
