#!/usr/bin/env bash
# Fetch, on a machine with pip and the package index, the wheels a bare GPU machine lacks to run
# tuiperf's UI and checks (its image has jax, equinox, flax, optax, rich, pytest; not Textual,
# plotext or msgspec). They land in .whl/ (keep it out of git: `echo /.whl/ >> .git/info/exclude`),
# for Python 3.12 on x86-64 Linux; scripts/gpu_check.sh installs them there.
set -euo pipefail
cd "$(dirname "$0")/.."
pin() { grep -i "^$1==" constraints.txt | head -1; }
mkdir -p .whl
platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp "${platforms[@]}" \
    -d .whl "$(pin textual)" "$(pin textual-plotext)" "$(pin plotext)" "$(pin msgspec)" "$(pin platformdirs)" \
    "$(pin watchfiles)" "$(pin rich)" markdown-it-py==4.3.0 mdurl==0.1.2 pygments==2.21.0 mdit-py-plugins linkify-it-py uc-micro-py
ls .whl
