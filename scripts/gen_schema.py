"""Write the JSON Schema of result documents, generated from the typed model.

python scripts/gen_schema.py          # rewrite tuiperf/results/result.schema.json
python scripts/gen_schema.py --check  # exit 1 if the committed schema differs (tests do this too)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec

from tuiperf.results.model import SCHEMA_VERSION, RunResult
from tuiperf.results.settings import SAME, RunSettings, options_of

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "tuiperf" / "results" / "result.schema.json"


def schema_text() -> str:
    schema = msgspec.json.schema(RunResult)
    # A schema's default is what a document that leaves the field out means: for a run option an
    # older tuiperf did not have, that is the row's `absent`, not a new run's default.
    stored = schema["$defs"]["RunOptions"]["properties"]
    for name, (_, option) in options_of(RunSettings).items():
        if option.absent is not SAME:
            stored[name]["default"] = option.absent
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"tuiperf result document, schema version {SCHEMA_VERSION}",
        **schema,
    }
    return json.dumps(schema, indent=1, sort_keys=True) + "\n"


def main() -> int:
    text = schema_text()
    if "--check" in sys.argv[1:]:
        current = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
        if current != text:
            print(f"{SCHEMA_PATH} is out of date: run python scripts/gen_schema.py", file=sys.stderr)
            return 1
        return 0
    SCHEMA_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
