#!/usr/bin/env bash
# Builds the `strata` Python package (crates/strata-python) as a wheel with maturin and installs
# it into a venv: the path a user takes (`pip install` of a locally built wheel).
#
# Usage: bash scripts/build-python.sh VENV [--release]
#   VENV       a venv with maturin installed (tests/python/requirements.txt has it)
#   --release  an optimized wheel (benchmarks); the default is the dev profile (debug build,
#              fast to compile). maturin builds only this package, so cargo unifies features over
#              its dependency graph alone: after `cargo test --workspace` (whose dev-dependencies
#              turn on tokio's `full`, strata's `failpoints`, ...) most crates compile once more,
#              ~10 minutes on 2 cores; later builds reuse them.
# Builds are serialized with a lock (two cores; helpers and scripts share the target dir).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${1:?usage: build-python.sh VENV [--release]}"
PROFILE=(--profile dev)
OUT="$ROOT/target/wheels-dev"
if [[ "${2:-}" == "--release" ]]; then
    PROFILE=(--release)
    OUT="$ROOT/target/wheels"
fi
[[ -x "$VENV/bin/maturin" ]] || { echo "build-python.sh: $VENV has no maturin (pip install maturin)" >&2; exit 1; }
mkdir -p "$ROOT/target"
exec 9>"$ROOT/target/.python-build.lock"
flock 9
rm -rf "$OUT"
# maturin picks the venv's interpreter for the abi3 floor check; the wheel itself is abi3.
VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" build "${PROFILE[@]}" --quiet \
    -m "$ROOT/crates/strata-python/Cargo.toml" --interpreter "$VENV/bin/python" --out "$OUT"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall "$OUT"/strata_paimon-*.whl
echo "installed $(ls "$OUT"/strata_paimon-*.whl) into $VENV"
