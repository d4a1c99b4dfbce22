#!/usr/bin/env bash
# Planning on a continuously committing table: a table of C commits over P partitions × B
# buckets, and a one-partition, one-bucket scan planned after each new commit — strata without
# the manifest-entry cache, strata through a long-lived cache whose slot for each new snapshot
# is built from the previous snapshot's slot plus the new delta manifests, and pypaimon-rust.
#
#   bash bench/scan_continuous.sh [--partitions P] [--buckets B] [--commits C]
#                                 [--max-snapshots N] [--rebuild-every R] [--no-peer] [--regen]
#   (defaults 100, 4, 1000, N = 3, R = 10; --regen rebuilds the cached table)
#
# Steps: release-build strata-bench (in $CARGO_TARGET_DIR if set, else target/); create/reuse
# the venv .interop-venv (BENCH_VENV overrides); generate `bench.scan_t` once per (P, B, C) into
# bench/results/scan-table-P-B-C/ (the table of bench/scan.sh: `strata-bench scan-gen`, each
# commit writes 24 rows into each of ⌈0.26 P⌉ random partitions, a level-0 file per touched
# bucket, manifests merged on commit as Java does); pick the scan as bench/scan.sh does (the
# partition with the median file count, bucket 1); then
#   strata         `strata-bench scan-continuous`: for each snapshot 1..C in commit order, one
#                  process: the plan without cache; the plan through the cache
#                  (scan.manifest-entry-cache.max-snapshots = N, one 1 GiB LRU for the run) —
#                  a miss built incrementally from the previous snapshot's slot; the same plan
#                  again — a hit; and every R-th snapshot a plan through an empty cache — the
#                  full rebuild a miss costs without a base. The first two alternate which goes
#                  first. Wall time around `plan()`.
#   pypaimon-rust  bench/scan_peer.py --snapshots 1:C: one process, for each snapshot a read
#                  builder with `scan.snapshot-id` (untimed) and one timed
#                  `new_scan().with_shard(b, B).plan().splits()`.
# Planning snapshot s by id after s - 1 is what a reader planning the latest snapshot after each
# commit does, without the writer running in the timed loop. bench/scan_continuous_report.py
# prints the Markdown table (medians over every snapshot and over the last tenth, ratios) and
# writes bench/results/scan-continuous-latest.json; it exits non-zero if any plan differs (the
# strata configurations from each other, or pypaimon-rust's file count from strata's). Run files
# live in bench/results/scan-continuous-run-<time>/ (gitignored).
set -euo pipefail

PARTITIONS=100
BUCKETS=4
COMMITS=1000
MAX_SNAPSHOTS=3
REBUILD_EVERY=10
PEER=1
REGEN=0
while [ $# -gt 0 ]; do
    case "$1" in
        --partitions) PARTITIONS="$2"; shift 2 ;;
        --buckets) BUCKETS="$2"; shift 2 ;;
        --commits) COMMITS="$2"; shift 2 ;;
        --max-snapshots) MAX_SNAPSHOTS="$2"; shift 2 ;;
        --rebuild-every) REBUILD_EVERY="$2"; shift 2 ;;
        --no-peer) PEER=0; shift ;;
        --regen) REGEN=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "scan_continuous.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
PER_COMMIT=$(( (PARTITIONS * 26 + 99) / 100 ))
ROWS_PER_PARTITION=24

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="$ROOT/bench/results"
TABLE_DIR="$RESULTS/scan-table-$PARTITIONS-$BUCKETS-$COMMITS"
WH="$TABLE_DIR/wh"
RUN_DIR="$RESULTS/scan-continuous-run-$(date +%Y%m%d-%H%M%S)"
VENV="${BENCH_VENV:-$ROOT/.interop-venv}"
mkdir -p "$RESULTS" "$RUN_DIR"
LOG="$RUN_DIR/log.txt"

echo "== building strata-bench (release)" >&2
(cd "$ROOT" && cargo build --release -p strata-bench)
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
BENCH_BIN="$TARGET_DIR/release/strata-bench"

if [ ! -x "$VENV/bin/python" ]; then
    echo "== creating $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q -r "$ROOT/tests/interop/requirements.txt"
fi
PY="$VENV/bin/python"
if [ "$PEER" -eq 1 ]; then
    "$PY" -c 'import pypaimon_rust' \
        || { echo "scan_continuous.sh: $VENV lacks pypaimon-rust (pip install -r tests/interop/requirements.txt)" >&2; exit 1; }
fi

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
LAST=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["snapshot_id"])' "$TABLE_DIR/table.json")
WHERE="dt = '$VALUE'"
echo "== scan: $WHERE, bucket $BUCKET, snapshots 1..$LAST (run files in $RUN_DIR)" >&2
cat >"$RUN_DIR/meta.json" <<EOF
{"partitions": $PARTITIONS, "buckets": $BUCKETS, "commits": $COMMITS, "max_snapshots": $MAX_SNAPSHOTS,
 "rebuild_every": $REBUILD_EVERY, "value": "$VALUE", "bucket": $BUCKET, "where": "$WHERE", "last": $LAST,
 "strata_commit": "$(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- crates || echo '+dirty')",
 "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "load": "$(cut -d' ' -f1-3 /proc/loadavg)"}
EOF

FAILED=0
echo "== strata: one plan per snapshot, uncached / incremental / hit / rebuild" >&2
/usr/bin/time -f '%M %e %U %S' -o "$RUN_DIR/strata.time" \
    "$BENCH_BIN" scan-continuous --wh "$WH" --value "$VALUE" --bucket "$BUCKET" \
    --max-snapshots "$MAX_SNAPSHOTS" --rebuild-every "$REBUILD_EVERY" --out "$RUN_DIR/strata.jsonl" \
    >"$RUN_DIR/strata.json" 2>>"$LOG" || { echo "  strata FAILED, see $LOG" >&2; FAILED=1; }
echo "  $(cut -c1-300 "$RUN_DIR/strata.json")" >&2
if [ "$PEER" -eq 1 ]; then
    echo "== pypaimon-rust: one plan per snapshot" >&2
    timeout 7200 "$PY" "$ROOT/bench/scan_peer.py" --engine pypaimon-rust --wh "$WH" --table bench.scan_t \
        --column dt --value "$VALUE" --bucket "$BUCKET" --buckets "$BUCKETS" \
        --snapshots "1:$LAST" --out "$RUN_DIR/peer-pypaimon-rust.jsonl" \
        >"$RUN_DIR/peer-pypaimon-rust.json" 2>>"$LOG" || { echo "  pypaimon-rust FAILED, see $LOG" >&2; FAILED=1; }
    echo "  $(cut -c1-300 "$RUN_DIR/peer-pypaimon-rust.json")" >&2
fi

echo "== report" >&2
rc=0
"$PY" "$ROOT/bench/scan_continuous_report.py" --dir "$RUN_DIR" --json "$RESULTS/scan-continuous-latest.json" || rc=$?
if [ "$FAILED" -ne 0 ] && [ "$rc" -eq 0 ]; then
    echo "scan_continuous.sh: some runs failed (see $LOG)" >&2
    rc=1
fi
exit "$rc"
