# Sourced by bench/changelog.sh and bench/deletion_vectors.sh: the release build of strata-bench
# and the PK workload's input (bench/gen_data.py), both reused between runs.
#   in:  ROWS, COMMITS           out: ROOT, RESULTS, DATA, BIN, PY
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="$ROOT/bench/results"
DATA="$RESULTS/data-$ROWS-$COMMITS"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
PY="${BENCH_PYTHON:-$ROOT/.interop-venv/bin/python}"
mkdir -p "$RESULTS"

echo "== building strata-bench (release)" >&2
(cd "$ROOT" && cargo build --release -p strata-bench)
BIN="$TARGET_DIR/release/strata-bench"
[[ -d "$DATA" ]] || "$PY" "$ROOT/bench/gen_data.py" --rows "$ROWS" --commits "$COMMITS" --out "$DATA"
