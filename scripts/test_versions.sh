#!/usr/bin/env bash
# Install tuiperf into an environment that already has other supported versions of the libraries it
# measures and of Textual, check that the install kept them, and run the test suite there (at a
# Textual other than the one the snapshots were taken with, the snapshot tests skip, saying why).
#
#   scripts/test_versions.sh lowest    # constraints-lowest.txt
#   scripts/test_versions.sh newest    # the newest releases pip finds
#
# Not part of CI (it downloads a few hundred MB); the README records its last results.
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-lowest}"
venv="${VENV:-/tmp/tuiperf-$which}"
kept="jax|jaxlib|equinox|flax|optax|numpy|textual"
python3 -m venv --clear "$venv"
if [ "$which" = lowest ]; then
  "$venv/bin/pip" install -q -c constraints-lowest.txt jax jaxlib equinox flax optax numpy 'textual[syntax]'
else
  "$venv/bin/pip" install -q --upgrade jax jaxlib equinox flax optax numpy 'textual[syntax]'
fi
"$venv/bin/pip" freeze | grep -i -E "^($kept)==" | sort > "$venv/before.txt"
"$venv/bin/pip" install -q -e '.[test]'
"$venv/bin/pip" freeze | grep -i -E "^($kept)==" | sort > "$venv/after.txt"
if ! diff -u "$venv/before.txt" "$venv/after.txt"; then
  echo "installing tuiperf changed the versions of the measured libraries or Textual" >&2
  exit 1
fi
echo "measured libraries and Textual kept:"; cat "$venv/after.txt"
"$venv/bin/python" -m pytest -q -p no:cacheprovider
