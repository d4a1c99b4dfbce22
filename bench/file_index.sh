#!/usr/bin/env bash
# File indexes (issue 31): a point lookup on a non-key column of a ROWS-row append table
# (default 10M) with and without a bloom filter on that column, strata against Java Paimon 2.0.
#
# The table (bench/src/issue31.rs; Java: strata.bench.Issue31Peer, the same rows): `id BIGINT
# NOT NULL, user STRING, v BIGINT`, `user = u%08d` of `id * 7368787 mod ROWS` (a permutation, so
# every file's min/max of `user` spans nearly the whole range and statistics cannot prune),
# unaware bucket, `target-file-size = 1 mb`, written in one commit, in two configurations:
#
#   plain   no file index
#   bloom   file-index.bloom-filter.columns = user, file-index.bloom-filter.user.items = 400000
#           (≈ the rows of one file; fpp 0.1, Paimon's default): a `<file>.index` per data file
#
# then read with `user = VALUE` (one row matches; VALUE defaults to the user of row ROWS/3).
#
#   bash bench/file_index.sh [--runs N] [--rows R] [--no-java] [--java-warmup JW] [--java-iterations JI]
#   (N = 5, R = 10000000, JW = 2, JI = 5)
#
# strata: `strata-bench fi-write` / `fi-lookup`, release build, one process per run and
# configuration, N runs into fresh warehouses, timed in-process (write: get_table to the
# committed snapshot, input already in memory; lookup: plan + read into memory after the
# catalog is opened). Java Paimon 2.0.0 (bench/java/build.sh): one JVM per phase and
# configuration, JW warm-up iterations then JI timed ones, timed inside the JVM, the median
# reported; strata also looks up in Java's tables. The release build is `cargo build --release
# -p strata-bench --no-default-features` under `nice -n 19` (no DataFusion); set
# STRATA_BENCH_BIN to use a binary built elsewhere. JSON lines go to
# bench/results/file_index.jsonl, JVM stderr to bench/results/file_index-java.log; the summary
# (medians) is printed by bench/issue31_report.py.
set -euo pipefail

RUNS=5
ROWS=10000000
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
        *) echo "file_index.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="$ROOT/bench/results"
mkdir -p "$RESULTS"
OUT="$RESULTS/file_index.jsonl"
: > "$OUT"
VALUE="$(printf 'u%08d' $((ROWS / 3)))"
if [ -z "${STRATA_BENCH_BIN:-}" ]; then
    echo "== building strata-bench (release, no DataFusion)" >&2
    (cd "$ROOT" && nice -n 19 cargo build --release -p strata-bench --no-default-features)
    STRATA_BENCH_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/strata-bench"
fi
BIN="$STRATA_BENCH_BIN"
COMMON=(--option "target-file-size=1 mb")
BLOOM=(--option file-index.bloom-filter.columns=user --option file-index.bloom-filter.user.items=400000)

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-fi-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

for run in $(seq 1 "$RUNS"); do
    for cfg in plain bloom; do
        wh="$WORK/strata-$cfg"
        rm -rf "$wh"
        extra=("${COMMON[@]}")
        [ "$cfg" = bloom ] && extra+=("${BLOOM[@]}")
        echo "== run $run/$RUNS: strata $cfg" >&2
        "$BIN" fi-write --wh "$wh" --table "fi_$cfg" --rows "$ROWS" "${extra[@]}" >> "$OUT"
        "$BIN" fi-lookup --wh "$wh" --table "fi_$cfg" --value "$VALUE" >> "$OUT"
    done
done

if [ "$JAVA_PEER" = 1 ]; then
    bash "$ROOT/bench/java/build.sh"
    JAVA_CP="$(cat "$ROOT/.cache/bench-java/classpath.txt")"
    # shellcheck disable=SC2206  # BENCH_JAVA_OPTS is a list of JVM options
    JAVA=(java ${BENCH_JAVA_OPTS:-} -cp "$JAVA_CP" strata.bench.Issue31Peer)
    JRUN=(--warmup "$JAVA_WARMUP" --iterations "$JAVA_ITERATIONS")
    LOG="$RESULTS/file_index-java.log"
    : > "$LOG"
    for cfg in plain bloom; do
        wh="$WORK/java-$cfg"
        extra=("${COMMON[@]}")
        [ "$cfg" = bloom ] && extra+=("${BLOOM[@]}")
        echo "== java $cfg" >&2
        "${JAVA[@]}" fi-write --wh "$wh" --table "fi_$cfg" --rows "$ROWS" "${extra[@]}" "${JRUN[@]}" >> "$OUT" 2>> "$LOG"
        "${JAVA[@]}" fi-lookup --wh "$wh" --table "fi_$cfg" --value "$VALUE" "${JRUN[@]}" >> "$OUT" 2>> "$LOG"
        # strata reading Java's table (one run per process, RUNS runs)
        for run in $(seq 1 "$RUNS"); do
            "$BIN" fi-lookup --wh "$wh" --table "fi_$cfg" --value "$VALUE" \
                | sed 's/"engine":"strata"/"engine":"strata-on-java-table"/' >> "$OUT"
        done
    done
fi
"${BENCH_PYTHON:-python3}" "$ROOT/bench/issue31_report.py" file-index "$OUT"
