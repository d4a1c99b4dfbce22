#!/usr/bin/env bash
# The Python package benchmark: strata (the release wheel of crates/strata-python) against
# pypaimon 2.1.0 and pypaimon-rust 0.4.0, in-process, on the 2M-row workload (bench/python/
# bench_python.py has the phases and how memory is measured).
#
# Usage: bash bench/python.sh [--setup-only] [ARGS...]
#   --setup-only  create/reuse the venv and build + install the release wheel, then stop
#   ARGS          passed to bench_python.py, e.g. --runs 3, --rows 100000, --phases read_full
# Env:   PYTHON=python3.11   interpreter for the venv (CPython >= 3.10; default python3)
#        BENCH_PY_VENV=DIR   venv location (default .cache/bench-python-venv)
#        SKIP_BUILD=1        do not rebuild the wheel (use the one installed in the venv)
#
# The venv is made from crates/strata-python/tests/requirements.txt (exact pins, including
# pypaimon and pypaimon-rust) and rebuilt whenever that file or the interpreter changes. The wheel
# is built with `bash scripts/build-python.sh VENV --release` (serialized by its lock).
# Results: bench/results/python-<timestamp>.{md,json} (ignored by git); the table is printed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
VENV="${BENCH_PY_VENV:-$ROOT/.cache/bench-python-venv}"
REQ="crates/strata-python/tests/requirements.txt"
SETUP_ONLY=0
if [[ "${1:-}" == "--setup-only" ]]; then
    SETUP_ONLY=1
    shift
fi

want="$( { sha256sum "$REQ" | cut -d' ' -f1; "$PY" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
stamp="$VENV/.requirements.sha256"
if [[ -x "$VENV/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "reusing $VENV ($REQ unchanged)"
else
    echo "creating $VENV from $REQ"
    rm -rf "$VENV"
    mkdir -p "$(dirname "$VENV")"
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$REQ"
    echo "$want" > "$stamp"
fi

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    echo "building the release wheel (scripts/build-python.sh $VENV --release)"
    bash scripts/build-python.sh "$VENV" --release
fi
[[ $SETUP_ONLY == 1 ]] && exit 0

mkdir -p bench/results
exec "$VENV/bin/python" bench/python/bench_python.py --out-dir bench/results "$@"
