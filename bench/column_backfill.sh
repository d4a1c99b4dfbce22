#!/usr/bin/env bash
# Column backfill on a data-evolution table (issue 31): one INT column set on every row of a
# ROWS-row table (default 2M) with `row-tracking.enabled` and `data-evolution.enabled`, three
# ways, by strata and by Java Paimon 2.0, timed in-process on both sides:
#
#   update    a partial-column write: per row-id range one file of only the column (strata
#             `Table::update_columns`; Java: Flink's `DataEvolutionPartialWriteOperator`
#             reproduced in strata.bench.Issue31Peer: the range's current values read, merged
#             with the new ones, written through `withWriteType`, `firstRowId` assigned)
#   rewrite   an OVERWRITE of every row with the new column (what a table without data
#             evolution has to do)
#
# The table (bench/src/issue31.rs; Java writes the same rows): `id BIGINT NOT NULL, name STRING,
# a INT, b STRING, c DOUBLE, score INT`, written in one commit (untimed), then `score = id % 97`
# set (timed: from get_table to the committed snapshot, input already in memory). Bytes written
# are the new files under the table directory (data files apart from manifests/snapshots) and
# the process's /proc/self/io `wchar` delta over the timed region.
#
#   bash bench/column_backfill.sh [--runs N] [--rows R] [--no-java] [--java-warmup JW] [--java-iterations JI]
#   (N = 5, R = 2000000, JW = 2, JI = 5)
#
# strata: `strata-bench backfill --mode update|rewrite`, release build, one process per run and
# mode, a fresh warehouse each. Java Paimon 2.0.0 (bench/java/build.sh): one JVM per mode, JW
# warm-up iterations then JI timed ones (each on a fresh table), the median reported. The
# release build is `cargo build --release -p strata-bench --no-default-features` under `nice -n
# 19`; set STRATA_BENCH_BIN to use a binary built elsewhere. JSON lines go to
# bench/results/column_backfill.jsonl; the summary (medians) is printed by
# bench/issue31_report.py. (bench/column_backfill.py is the older CLI + oracle version.)
set -euo pipefail

RUNS=5
ROWS=2000000
JAVA_PEER=1
JAVA_WARMUP=2
JAVA_ITERATIONS=5
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --rows) ROWS="$2"; shift 2 ;;
        --no-java) JAVA_PEER=0; shift ;;
        --java-warmup) JAVA_WARMUP="$2"; shift 2 ;;
        --java-iterations) JAVA_ITERATIONS="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "column_backfill.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="$ROOT/bench/results"
mkdir -p "$RESULTS"
OUT="$RESULTS/column_backfill.jsonl"
: > "$OUT"
if [ -z "${STRATA_BENCH_BIN:-}" ]; then
    echo "== building strata-bench (release, no DataFusion)" >&2
    (cd "$ROOT" && nice -n 19 cargo build --release -p strata-bench --no-default-features)
    STRATA_BENCH_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/strata-bench"
fi
BIN="$STRATA_BENCH_BIN"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-backfill-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

for run in $(seq 1 "$RUNS"); do
    for mode in update rewrite; do
        echo "== run $run/$RUNS: strata $mode" >&2
        rm -rf "$WORK/strata"
        "$BIN" backfill --wh "$WORK/strata" --rows "$ROWS" --mode "$mode" >> "$OUT"
    done
done
rm -rf "$WORK/strata"

if [ "$JAVA_PEER" = 1 ]; then
    bash "$ROOT/bench/java/build.sh"
    JAVA_CP="$(cat "$ROOT/.cache/bench-java/classpath.txt")"
    # shellcheck disable=SC2206  # BENCH_JAVA_OPTS is a list of JVM options
    JAVA=(java ${BENCH_JAVA_OPTS:-} -cp "$JAVA_CP" strata.bench.Issue31Peer)
    LOG="$RESULTS/column_backfill-java.log"
    : > "$LOG"
    for mode in update rewrite; do
        echo "== java $mode" >&2
        "${JAVA[@]}" backfill --wh "$WORK/java" --rows "$ROWS" --mode "$mode" \
            --warmup "$JAVA_WARMUP" --iterations "$JAVA_ITERATIONS" >> "$OUT" 2>> "$LOG"
    done
fi
"${BENCH_PYTHON:-python3}" "$ROOT/bench/issue31_report.py" backfill "$OUT"
