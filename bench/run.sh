#!/usr/bin/env bash
# The append and primary-key benchmarks in one invocation: strata, pypaimon-rust, pypaimon and
# the raw arrow-rs Parquet floor on the same generated data; every phase in a fresh process,
# --runs times.
#
#   bash bench/run.sh [--workload append|pk|all] [--rows N] [--commits C] [--runs R]
#                     [--mem-rows M]
#   (defaults: all, 2000000, 4, 3, 20000000; --mem-rows 0 skips the PK memory test)
#
# Steps: release-build strata-bench; create/reuse the Python venv .interop-venv (pypaimon,
# pypaimon-rust; set BENCH_VENV to use another); generate the commit files (bench/gen_data.py);
# then for each run and workload: every writer into a fresh warehouse, every reader on every
# writer's table (read, filter `id < 1000`), strata and the raw floor also single-threaded.
# The append floor writes and reads the same batches with arrow-rs; the PK floor (raw-scan)
# reads the live data files of strata's PK table, all columns, no merge. The PK workload also
# runs the memory test: M generated rows into one bucket, write-buffer-size 64mb (strata only),
# then a streaming read-back. Finally bench/report.py prints the Markdown summary and writes
# bench/results/latest.json. Exits non-zero when a phase fails or any engine returns different
# rows than expected. Work files live under bench/results/ (gitignored; override with BENCH_WORK).
set -euo pipefail

ROWS=2000000
COMMITS=4
RUNS=3
WORKLOAD=all
MEM_ROWS=20000000
while [ $# -gt 0 ]; do
    case "$1" in
        --rows) ROWS="$2"; shift 2 ;;
        --commits) COMMITS="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --workload) WORKLOAD="$2"; shift 2 ;;
        --mem-rows) MEM_ROWS="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
case "$WORKLOAD" in
    append|pk|all) ;;
    *) echo "run.sh: --workload must be append, pk or all (got $WORKLOAD)" >&2; exit 2 ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="$ROOT/bench/results"
WORK="${BENCH_WORK:-$RESULTS/work}"
DATA="$RESULTS/data-$ROWS-$COMMITS"
VENV="${BENCH_VENV:-$ROOT/.interop-venv}"
RUNS_FILE="$RESULTS/runs-$(date +%Y%m%d-%H%M%S).jsonl"
LOG="${RUNS_FILE%.jsonl}.log"
mkdir -p "$RESULTS" "$WORK"

echo "== building strata-bench (release)" >&2
(cd "$ROOT" && cargo build --release -p strata-bench)
BIN="$ROOT/target/release/strata-bench"

if [ ! -x "$VENV/bin/python" ]; then
    echo "== creating $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q -r "$ROOT/tests/interop/requirements.txt"
fi
PY="$VENV/bin/python"
"$PY" -c 'import pypaimon, pypaimon_rust, numpy, pyarrow' \
    || { echo "run.sh: $VENV lacks pypaimon / pypaimon-rust (pip install -r tests/interop/requirements.txt)" >&2; exit 1; }

echo "== generating data ($ROWS rows, $COMMITS commits) in $DATA" >&2
"$PY" "$ROOT/bench/gen_data.py" --rows "$ROWS" --commits "$COMMITS" --out "$DATA"

# phase RUN ENGINE PHASE DATA CMD...: runs CMD in a fresh process and appends a JSON line to
# RUNS_FILE (tagged with the current $WL workload); its last stdout line is the phase's JSON,
# stderr goes to LOG.
WL=append
phase() {
    local run="$1" engine="$2" ph="$3" data="$4"; shift 4
    local out rc=0
    echo "-- run $run ($WL): $engine $ph (data: $data)" >>"$LOG"
    out="$(timeout 900 "$@" 2>>"$LOG" | tail -n 1)" || rc=$?
    if [ "$rc" -eq 0 ] && [ "${out:0:1}" = "{" ]; then
        printf '{"run":%d,"workload":"%s","engine":"%s","phase":"%s","data":"%s","result":%s}\n' \
            "$run" "$WL" "$engine" "$ph" "$data" "$out" >>"$RUNS_FILE"
        printf '  %-6s %-15s %-9s data=%-14s %s\n' "$WL" "$engine" "$ph" "$data" "$out" >&2
    else
        printf '{"run":%d,"workload":"%s","engine":"%s","phase":"%s","data":"%s","result":null,"error":"exit %d, see %s"}\n' \
            "$run" "$WL" "$engine" "$ph" "$data" "$rc" "$LOG" >>"$RUNS_FILE"
        echo "  $WL $engine $ph (data $data) FAILED (exit $rc), see $LOG" >&2
    fi
}

WRITERS=(strata pypaimon-rust pypaimon)

# The append workload (bench.append_t, bucket -1) in $WORK/<writer>.
append_run() {
    local run="$1"
    WL=append
    rm -rf "${WORK:?}"/strata "$WORK"/pypaimon-rust "$WORK"/pypaimon "$WORK"/raw-parquet
    phase "$run" raw-parquet write raw-parquet "$BIN" raw-write --data "$DATA" --out "$WORK/raw-parquet"
    phase "$run" strata write strata "$BIN" write --wh "$WORK/strata" --data "$DATA"
    for e in pypaimon-rust pypaimon; do
        phase "$run" "$e" write "$e" "$PY" "$ROOT/bench/peers.py" write --engine "$e" --wh "$WORK/$e" --data "$DATA"
    done
    phase "$run" raw-parquet read raw-parquet "$BIN" raw-read --out "$WORK/raw-parquet" --threads 2
    phase "$run" raw-parquet-1t read raw-parquet "$BIN" raw-read --out "$WORK/raw-parquet" --threads 1
    for ph in read filter; do
        phase "$run" strata-1t "$ph" strata "$BIN" "$ph" --wh "$WORK/strata" --threads 1
        for w in "${WRITERS[@]}"; do
            phase "$run" strata "$ph" "$w" "$BIN" "$ph" --wh "$WORK/$w"
            for e in pypaimon-rust pypaimon; do
                phase "$run" "$e" "$ph" "$w" "$PY" "$ROOT/bench/peers.py" "$ph" --engine "$e" --wh "$WORK/$w"
            done
        done
    done
}

# The primary-key workload (bench.pk_t, PK id, bucket 1) in $WORK/pk/<writer>, its raw floor on
# strata's data files, and the memory test in $WORK/pk/mem.
pk_run() {
    local run="$1" pk="$WORK/pk"
    WL=pk
    rm -rf "${pk:?}"
    mkdir -p "$pk"
    phase "$run" strata write strata "$BIN" write --table pk --wh "$pk/strata" --data "$DATA"
    for e in pypaimon-rust pypaimon; do
        phase "$run" "$e" write "$e" "$PY" "$ROOT/bench/peers.py" write --table pk --engine "$e" --wh "$pk/$e" --data "$DATA"
    done
    phase "$run" raw-parquet read strata "$BIN" raw-scan --table pk --wh "$pk/strata" --threads 2
    phase "$run" raw-parquet-1t read strata "$BIN" raw-scan --table pk --wh "$pk/strata" --threads 1
    for ph in read filter; do
        phase "$run" strata-1t "$ph" strata "$BIN" "$ph" --table pk --wh "$pk/strata" --threads 1
        for w in "${WRITERS[@]}"; do
            phase "$run" strata "$ph" "$w" "$BIN" "$ph" --table pk --wh "$pk/$w"
            for e in pypaimon-rust pypaimon; do
                phase "$run" "$e" "$ph" "$w" "$PY" "$ROOT/bench/peers.py" "$ph" --table pk --engine "$e" --wh "$pk/$w"
            done
        done
    done
    if [ "$MEM_ROWS" -gt 0 ]; then
        phase "$run" strata mem-write strata "$BIN" mem-write --wh "$pk/mem" --rows "$MEM_ROWS"
        phase "$run" strata mem-read strata "$BIN" mem-read --wh "$pk/mem" --rows "$MEM_ROWS"
        rm -rf "${pk:?}/mem"
    fi
}

for run in $(seq 1 "$RUNS"); do
    echo "== run $run of $RUNS" >&2
    if [ "$WORKLOAD" != pk ]; then append_run "$run"; fi
    if [ "$WORKLOAD" != append ]; then pk_run "$run"; fi
done

echo "== report ($RUNS_FILE)" >&2
"$PY" "$ROOT/bench/report.py" --runs "$RUNS_FILE" --expected "$DATA/expected.json" --work "$WORK" \
    --mem-rows "$MEM_ROWS" --json "$RESULTS/latest.json"
