#!/usr/bin/env bash
# All tests, Rust and Python: `cargo test --workspace`, then the Python package built
# as a release wheel into a venv (target/py-venv, or $CTXBUDGET_VENV) with the pinned
# test requirements, and pytest over ctxbudget-py/tests.
#
#   scripts/test-all.sh            # everything
#   scripts/test-all.sh --python   # the Python half only
#
# Needs Rust and Python >= 3.9; installs python3-venv and Java 17 (Spark's tests) from
# Debian when they are missing; pip fetches the pins of
# ctxbudget-py/requirements-test.txt from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

# What each part costs, for the CI budget: printed at the end.
timings=()
lap() { timings+=("$(printf '%-36s %4d s' "$1" "$SECONDS")"); SECONDS=0; }
SECONDS=0

if [[ "${1:-}" != "--python" ]]; then
    cargo test --workspace
    lap "cargo test --workspace"
fi

# What the Python half needs beyond Python: venv (Debian splits it out) and a Java 17
# runtime for the Spark recipe's local JVM, installed from Debian when missing.
debian_install() {
    if [[ $(id -u) -eq 0 ]]; then
        apt-get update -qq && apt-get install -y -qq "$@"
    elif command -v sudo >/dev/null; then
        sudo apt-get update -qq && sudo apt-get install -y -qq "$@"
    else
        echo "scripts/test-all.sh: the Python tests need $*; install it and run again" >&2
        exit 1
    fi
}
if ! "${PYTHON:-python3}" -c 'import ensurepip, venv' 2>/dev/null; then
    debian_install python3-venv
fi
if ! command -v java >/dev/null; then
    debian_install openjdk-17-jre-headless
fi

venv="${CTXBUDGET_VENV:-target/py-venv}"
python="${PYTHON:-python3}"
if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r ctxbudget-py/requirements-test.txt
lap "venv and requirements-test.txt"
# The wheel, in release, with the pinned maturin (no isolated build environment, so
# the build uses exactly the pins above) and the workspace's target/ (its
# dependencies build once).
rm -rf target/wheels
(cd ctxbudget-py && ../"$venv"/bin/maturin build --release --quiet --out ../target/wheels \
    --interpreter ../"$venv"/bin/python)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall \
    --no-deps target/wheels/ctxbudget-*.whl
lap "release wheel (maturin) and install"
# From the tests' folder, so `import ctxbudget` is the installed wheel.
printf '%s\n' "${timings[@]}"
# Last, so that pytest's summary (with its own time) closes the output.
cd ctxbudget-py/tests
../../"$venv"/bin/python -m pytest -q -p no:cacheprovider .
