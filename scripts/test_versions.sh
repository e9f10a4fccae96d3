#!/usr/bin/env bash
# Install tuiperf into an environment that already has other supported versions of the libraries it
# measures, check that the install kept them, and run the test suite there.
#
#   scripts/test_versions.sh lowest    # constraints-lowest.txt
#   scripts/test_versions.sh newest    # the newest releases pip finds
#
# Not part of CI (it downloads a few hundred MB); the README records its last results.
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-lowest}"
venv="${VENV:-/tmp/tuiperf-$which}"
measured="jax|jaxlib|equinox|flax|optax|numpy"
python3 -m venv --clear "$venv"
if [ "$which" = lowest ]; then
  "$venv/bin/pip" install -q -c constraints-lowest.txt jax jaxlib equinox flax optax numpy
else
  "$venv/bin/pip" install -q --upgrade jax jaxlib equinox flax optax numpy
fi
"$venv/bin/pip" freeze | grep -i -E "^($measured)==" | sort > "$venv/before.txt"
"$venv/bin/pip" install -q -e '.[test]'
"$venv/bin/pip" freeze | grep -i -E "^($measured)==" | sort > "$venv/after.txt"
if ! diff -u "$venv/before.txt" "$venv/after.txt"; then
  echo "installing tuiperf changed the measured libraries' versions" >&2
  exit 1
fi
echo "measured libraries kept:"; cat "$venv/after.txt"
"$venv/bin/python" -m pytest -q -p no:cacheprovider
