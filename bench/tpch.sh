#!/usr/bin/env bash
# TPC-H through DataFusion: strata tables vs the same rows as plain Parquet vs pypaimon-rust's
# SQL layer over the strata-written warehouse (see bench/src/tpch.rs, bench/tpch_peer.py).
#
# Usage: bash bench/tpch.sh [--sf 1] [--runs 3] [--only q1,q6]
# Env:   TPCH_DIR (default .cache/tpch-sf<SF>: generated once, reused), BENCH_VENV (default
#        .cache/bench-venv with pypaimon-rust 0.4.0 from tests/interop/requirements.txt)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SF=1 RUNS=3 ONLY=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sf) SF="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --only) ONLY="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
DIR="${TPCH_DIR:-$ROOT/.cache/tpch-sf$SF}"
VENV="${BENCH_VENV:-$ROOT/.cache/bench-venv}"
OUT="$DIR/results.jsonl"
QUERIES="$ROOT/bench/tpch/queries"

cargo build --release -q -p strata-bench
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/strata-bench"
if [[ ! -x "$VENV/bin/python" ]]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q -r tests/interop/requirements.txt
fi
if [[ ! -f "$DIR/loaded" ]]; then
    rm -rf "$DIR" && mkdir -p "$DIR"
    "$BIN" tpch-load --dir "$DIR" --sf "$SF" | tee "$DIR/load.json"
    touch "$DIR/loaded"
fi
only=()
[[ -n "$ONLY" ]] && only=(--only "$ONLY")
: > "$OUT"
for engine in parquet strata; do
    "$BIN" tpch-run --dir "$DIR" --engine "$engine" --queries "$QUERIES" --runs "$RUNS" "${only[@]}" | tee -a "$OUT"
done
"$VENV/bin/python" bench/tpch_peer.py --dir "$DIR" --queries "$QUERIES" --runs "$RUNS" "${only[@]}" | tee -a "$OUT"
"$VENV/bin/python" bench/tpch_report.py "$OUT"
