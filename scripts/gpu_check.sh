#!/usr/bin/env bash
# One command that checks tuiperf on a bare GPU machine and writes one report (see the README,
# "On a GPU box"). Run it from the repository root there; `bash scripts/gpu_wheels.sh` beforehand,
# on a machine with the package index, brings the wheels it installs from .whl/.
#   bash scripts/gpu_check.sh [REPORT_DIR] [--device cpu]   (default: gpu-report/)
# Where $OUT is set (the device tool), the report and one .tar.gz of REPORT_DIR are copied there:
# only a few files may come back.
set -uo pipefail
cd "$(dirname "$0")/.."
report_dir="${1:-gpu-report}"
shift || true
mkdir -p "$report_dir"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/tuiperf-site .whl/*.whl \
        || { echo "could not install the carried wheels" >&2; exit 1; }
    export PYTHONPATH="/tmp/tuiperf-site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
else
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONUNBUFFERED=1 TUIPERF_HISTORY=off
# The limit leaves the report and its archive to come back even when a step hangs.
timeout "${GPU_CHECK_LIMIT_S:-480}" python3 scripts/gpu_check.py --out "$report_dir" "$@"
status=$?
if [ -n "${OUT:-}" ]; then
    cp "$report_dir/gpu_check.md" "$OUT/" 2>/dev/null
    tar czf "$OUT/gpu-report.tar.gz" --exclude=traces -C "$(dirname "$report_dir")" "$(basename "$report_dir")"
fi
exit $status
