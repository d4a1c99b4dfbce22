#!/usr/bin/env bash
# The scan-planning benchmark (issue 5): planning time of a repeated single-partition,
# single-bucket scan of a table with many partitions, buckets and commits — strata without and
# with the manifest-entry cache, with lazy and with full manifest decoding, and the peers
# (pypaimon-rust 0.4.0, pypaimon 2.1.0) planning the same scan of the same table in the same run.
#
#   bash bench/scan.sh [--partitions P] [--buckets B] [--commits C] [--repeat K] [--rounds R]
#                      [--fresh M] [--py-repeat Q] [--alloc-repeat N] [--regen]
#   (defaults 200, 4, 500, 20; R = 2 rounds of the K-scan processes, strata and pypaimon-rust
#   interleaved so both see the same machine load; M = 5 fresh processes per strata config for
#   first-scan times; Q = 3 plans of pure-Python pypaimon, which plans in seconds, once; N = 3
#   extra scans in the heaptrack runs, 0 skips them; --regen rebuilds the cached table)
#
# Steps: release-build strata-bench and the strata CLI (in $CARGO_TARGET_DIR if set, else
# target/); create/reuse the venv .interop-venv (as bench/run.sh; BENCH_VENV overrides);
# generate `bench.scan_t` once per (P, B, C) into bench/results/scan-table-P-B-C/ (strata-bench
# scan-gen: a primary-key table partitioned by dt, bucket = B, write-only = true; every commit
# writes 24 rows into each of ⌈0.26 P⌉ random partitions, i.e. about one ADD entry per touched
# bucket, ≈ 104k entries at the defaults; reruns reuse it); pick the scan — the partition with
# the median number of files and bucket 1 (0 when B = 1); then time, each in its own process
# (the first six once per round):
#   strata  nocache-lazy   K scans, no cache, lazy decoding (the defaults)
#   strata  cache          K scans, scan.manifest-entry-cache.max-snapshots=3 (scan 1 fills
#                          the cache, scans 2..K hit it)
#   strata  nocache-full   K scans, no cache, scan.manifest-entry.lazy-decode.enabled=false
#   strata  partition      K scans of the whole partition (every bucket), no cache, lazy
#   strata  <config>-fresh M fresh processes of one scan each per config above (first scan of a
#                          process: a cache miss for `cache`)
#   heaptrack              allocations per scan: the three configs with 1 and 1+N scans, the
#                          difference divided by N (steady-state scans; hits for `cache`)
#   pypaimon-rust          K plans of the bucket (with_shard(b, B)) and of the whole partition
#   pypaimon               Q plans of the bucket (with_shard(b, B)) and of the partition
# Finally bench/scan_report.py prints the Markdown table and writes bench/results/scan-latest.json.
# Exits non-zero when a run fails or any two configurations plan different files or splits.
# Work files live under bench/results/ (gitignored).
set -euo pipefail

PARTITIONS=200
BUCKETS=4
COMMITS=500
REPEAT=20
ROUNDS=2
FRESH=5
PY_REPEAT=3
ALLOC_REPEAT=3
REGEN=0
while [ $# -gt 0 ]; do
    case "$1" in
        --partitions) PARTITIONS="$2"; shift 2 ;;
        --buckets) BUCKETS="$2"; shift 2 ;;
        --commits) COMMITS="$2"; shift 2 ;;
        --repeat) REPEAT="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --fresh) FRESH="$2"; shift 2 ;;
        --py-repeat) PY_REPEAT="$2"; shift 2 ;;
        --alloc-repeat) ALLOC_REPEAT="$2"; shift 2 ;;
        --regen) REGEN=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "scan.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ "$REPEAT" -lt 2 ] || [ "$ROUNDS" -lt 1 ]; then
    echo "scan.sh: --repeat must be at least 2 (scan 1 is reported apart), --rounds at least 1" >&2; exit 2
fi
PER_COMMIT=$(( (PARTITIONS * 26 + 99) / 100 ))
ROWS_PER_PARTITION=24

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="$ROOT/bench/results"
TABLE_DIR="$RESULTS/scan-table-$PARTITIONS-$BUCKETS-$COMMITS"
WH="$TABLE_DIR/wh"
RUN_DIR="$RESULTS/scan-run-$(date +%Y%m%d-%H%M%S)"
VENV="${BENCH_VENV:-$ROOT/.interop-venv}"
mkdir -p "$RESULTS" "$RUN_DIR"
LOG="$RUN_DIR/log.txt"

echo "== building strata-bench and strata (release)" >&2
(cd "$ROOT" && cargo build --release -p strata-bench -p strata-cli)
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
BENCH_BIN="$TARGET_DIR/release/strata-bench"
STRATA="${STRATA_BIN:-$TARGET_DIR/release/strata}"  # STRATA_BIN: another strata binary

if [ ! -x "$VENV/bin/python" ]; then
    echo "== creating $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q -r "$ROOT/tests/interop/requirements.txt"
fi
PY="$VENV/bin/python"
"$PY" -c 'import pypaimon, pypaimon_rust' \
    || { echo "scan.sh: $VENV lacks pypaimon / pypaimon-rust (pip install -r tests/interop/requirements.txt)" >&2; exit 1; }

if [ "$REGEN" -eq 1 ] || [ ! -s "$TABLE_DIR/table.json" ]; then
    echo "== generating bench.scan_t ($PARTITIONS partitions × $BUCKETS buckets, $COMMITS commits of $PER_COMMIT partitions) in $TABLE_DIR" >&2
    rm -rf "${TABLE_DIR:?}"
    mkdir -p "$TABLE_DIR"
    "$BENCH_BIN" scan-gen --wh "$WH" --partitions "$PARTITIONS" --buckets "$BUCKETS" \
        --commits "$COMMITS" --partitions-per-commit "$PER_COMMIT" \
        --rows-per-partition "$ROWS_PER_PARTITION" >"$TABLE_DIR/table.json.tmp"
    mv "$TABLE_DIR/table.json.tmp" "$TABLE_DIR/table.json"
else
    echo "== reusing $TABLE_DIR (--regen to rebuild)" >&2
fi
cp "$TABLE_DIR/table.json" "$RUN_DIR/table.json"

read -r VALUE BUCKET < <("$PY" "$ROOT/bench/scan_report.py" target --table-json "$TABLE_DIR/table.json")
COLUMN=dt
WHERE="$COLUMN = '$VALUE'"
echo "== scan: $WHERE, bucket $BUCKET (run files in $RUN_DIR)" >&2
cat >"$RUN_DIR/meta.json" <<EOF
{"partitions": $PARTITIONS, "buckets": $BUCKETS, "commits": $COMMITS, "repeat": $REPEAT, "rounds": $ROUNDS,
 "fresh": $FRESH, "py_repeat": $PY_REPEAT, "alloc_repeat": $ALLOC_REPEAT,
 "column": "$COLUMN", "value": "$VALUE", "bucket": $BUCKET, "where": "$WHERE",
 "strata_commit": "$(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- crates || echo '+dirty')",
 "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "load": "$(cut -d' ' -f1-3 /proc/loadavg)"}
EOF

CACHE=(-o scan.manifest-entry-cache.max-snapshots=3)
FULL=(-o scan.manifest-entry.lazy-decode.enabled=false)
config_args() { # config_args NAME: the extra strata scan arguments of a configuration
    case "$1" in
        nocache-lazy) echo "--bucket $BUCKET" ;;
        cache) echo "--bucket $BUCKET ${CACHE[*]}" ;;
        nocache-full) echo "--bucket $BUCKET ${FULL[*]}" ;;
        partition) echo "" ;;
    esac
}

FAILED=0
# strata_run NAME REPEAT: one strata process; its --metrics lines go to NAME.jsonl, its
# /usr/bin/time record (max RSS KiB, elapsed, user, system seconds) to NAME.time.
strata_run() {
    local name="$1" repeat="$2" cfg="$3" rc=0
    # shellcheck disable=SC2046
    /usr/bin/time -f '%M %e %U %S' -o "$RUN_DIR/$name.time" \
        "$STRATA" --warehouse "$WH" scan bench.scan_t --where "$WHERE" $(config_args "$cfg") \
        --repeat "$repeat" --metrics >"$RUN_DIR/$name.jsonl" 2>>"$LOG" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "  strata $name FAILED (exit $rc), see $LOG" >&2
        FAILED=1
    else
        printf '  strata %-22s %s\n' "$name" "$(tail -n 1 "$RUN_DIR/$name.jsonl")" >&2
    fi
}

# alloc_run NAME CFG REPEAT: heaptrack of one strata process; summary and size histogram.
alloc_run() {
    local name="$1" cfg="$2" repeat="$3" rc=0
    rm -f "$RUN_DIR/$name".zst
    # shellcheck disable=SC2046
    heaptrack -o "$RUN_DIR/$name" "$STRATA" --warehouse "$WH" scan bench.scan_t --where "$WHERE" \
        $(config_args "$cfg") --repeat "$repeat" --metrics >"$RUN_DIR/$name.jsonl" 2>>"$LOG" || rc=$?
    if [ "$rc" -ne 0 ] || [ ! -s "$RUN_DIR/$name.zst" ]; then
        echo "  heaptrack $name FAILED (exit $rc), see $LOG" >&2
        FAILED=1
        return
    fi
    heaptrack_print -p 0 -a 0 -T 0 -H "$RUN_DIR/$name.hist" "$RUN_DIR/$name.zst" \
        | grep -E '^(calls to allocation|temporary memory|peak heap|total runtime)' >"$RUN_DIR/$name.summary" || true
    rm -f "$RUN_DIR/$name.zst"
    printf '  heaptrack %-19s %s\n' "$name" "$(tr '\n' ';' <"$RUN_DIR/$name.summary")" >&2
}

# peer_run NAME ARGS...: one scan_peer.py process; its JSON line goes to NAME.json.
peer_run() {
    local name="$1" rc=0; shift
    timeout 1800 "$PY" "$ROOT/bench/scan_peer.py" --wh "$WH" --table bench.scan_t --column "$COLUMN" \
        --value "$VALUE" "$@" >"$RUN_DIR/$name.json" 2>>"$LOG" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "  $name FAILED (exit $rc), see $LOG" >&2
        FAILED=1
    else
        printf '  %-29s %s\n' "$name" "$(cut -c1-200 "$RUN_DIR/$name.json")" >&2
    fi
}

for r in $(seq 1 "$ROUNDS"); do
    echo "== round $r of $ROUNDS: strata and pypaimon-rust, $REPEAT scans per process" >&2
    for cfg in nocache-lazy cache nocache-full partition; do
        strata_run "$cfg.r$r" "$REPEAT" "$cfg"
    done
    peer_run "peer-pypaimon-rust-bucket.r$r" --engine pypaimon-rust --bucket "$BUCKET" --buckets "$BUCKETS" --repeat "$REPEAT"
    peer_run "peer-pypaimon-rust-partition.r$r" --engine pypaimon-rust --repeat "$REPEAT"
done
echo "== strata, first scan of $FRESH fresh processes" >&2
for i in $(seq 1 "$FRESH"); do
    for cfg in nocache-lazy cache nocache-full partition; do
        strata_run "$cfg-fresh-$i" 1 "$cfg"
    done
done
if [ "$ALLOC_REPEAT" -gt 0 ]; then
    if command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null; then
        echo "== allocations (heaptrack; 1 vs $((ALLOC_REPEAT + 1)) scans)" >&2
        for cfg in nocache-lazy cache nocache-full; do
            alloc_run "alloc-$cfg-1" "$cfg" 1
            alloc_run "alloc-$cfg-$((ALLOC_REPEAT + 1))" "$cfg" "$((ALLOC_REPEAT + 1))"
        done
    else
        echo "== no heaptrack: allocation counts skipped" >&2
    fi
fi
echo "== pypaimon" >&2
peer_run peer-pypaimon-bucket.r1 --engine pypaimon --bucket "$BUCKET" --buckets "$BUCKETS" --repeat "$PY_REPEAT"
peer_run peer-pypaimon-partition.r1 --engine pypaimon --repeat "$PY_REPEAT"

echo "== report" >&2
rc=0
"$PY" "$ROOT/bench/scan_report.py" summarize --dir "$RUN_DIR" --json "$RESULTS/scan-latest.json" || rc=$?
if [ "$FAILED" -ne 0 ] && [ "$rc" -eq 0 ]; then
    echo "scan.sh: some runs failed (see $LOG)" >&2
    rc=1
fi
exit "$rc"
