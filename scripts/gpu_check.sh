#!/usr/bin/env bash
# One command that checks tuiperf on a bare GPU machine and writes one report (see the README,
# "On a GPU box"). Run it from the repository root there; `bash scripts/gpu_wheels.sh` beforehand,
# on a machine with the package index, brings the wheels it installs from .whl/.
#   bash scripts/gpu_check.sh [REPORT_DIR]      (default: $OUT when set, else gpu-report/)
set -uo pipefail
cd "$(dirname "$0")/.."
report_dir="${1:-${OUT:-gpu-report}}"
mkdir -p "$report_dir"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/tuiperf-site .whl/*.whl \
        || { echo "could not install the carried wheels" >&2; exit 1; }
    export PYTHONPATH="/tmp/tuiperf-site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
else
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONUNBUFFERED=1 TUIPERF_HISTORY=off
exec python3 scripts/gpu_check.py --out "$report_dir"
