#!/usr/bin/env bash
# The append, primary-key and compaction benchmarks: strata, pypaimon-rust, pypaimon, Java
# Paimon and the raw arrow-rs Parquet floor on the same generated data; every phase in a fresh
# process, --runs times.
#
#   bash bench/run.sh [--workload append|pk|compact|all] [--rows N] [--commits C] [--runs R]
#                     [--mem-rows M] [--wa-commits W] [--upgrade-mb U]
#                     [--no-java] [--java-warmup JW] [--java-iterations JI]
#   (defaults: all = append + pk, 2000000, 4, 3, 20000000; --mem-rows 0 skips the PK memory
#   test; W = 200 and U = 1024 at the default --rows, 40 and 1024 × rows / 2M (at least 64)
#   below it; W and U only matter for --workload compact; JW = 2, JI = 1)
#
# Steps: release-build strata-bench (in $CARGO_TARGET_DIR if set, else target/); build the Java
# peer (bench/java/build.sh: javac against the Paimon 2.0.0 jars of tests/java-oracle, which
# Maven resolves into .cache/m2 the first time; skipped when up to date; --no-java leaves Java
# out, e.g. on machines without a JDK or Maven); create/reuse the Python venv .interop-venv
# (pypaimon, pypaimon-rust; set BENCH_VENV to use another); generate the commit files
# (bench/gen_data.py); then for each run and workload: every writer into a fresh warehouse,
# every reader on every writer's table (read, filter `id < 1000`), strata and the raw floor
# also single-threaded.
# Java Paimon (engine java-paimon, Paimon 2.0.0's Java API, strata.bench.JavaPeer; the append
# and PK workloads only) is measured warm and in-process: each phase is one JVM that runs the
# phase JW times untimed (writes into scratch warehouses it deletes, reads of the same table),
# then JI timed times, and reports the median timed iteration's in-JVM time as `seconds` (no
# JVM start, class loading or JIT warm-up), with `cold_s` (the first iteration), `jvm_start_s`,
# `warmup_s` and the whole JVM's peak RSS alongside. The other engines are timed cold, one
# phase per process. JVM options: Java's defaults plus $BENCH_JAVA_OPTS.
# The append floor writes and reads the same batches with arrow-rs; the PK floor (raw-scan)
# reads the live data files of strata's PK table, all columns, no merge. The PK workload also
# runs the memory test: M generated rows into one bucket, write-buffer-size 64mb (strata only),
# then a streaming read-back.
# The compaction workload (strata only; see BENCHMARKS.md "Compaction"): (1) the PK data
# written with write-only=true (4 level-0 runs), its floor raw-rewrite (arrow-rs read + write
# of the same files, 2 threads and 1), then a full compaction (compact-full) and a read-back;
# (2) write amplification: W commits after a load of 200k keys (5,000 rows per commit,
# target-file-size 2mb; all three scaled by rows / 2M below the default --rows), an upsert and
# an insert-mostly key mix, each with compaction.small-file-ratio 0.7, 0.05 and
# force-rewrite-all-files (run 1 only: the byte counts are deterministic); (3) upgrade-only:
# 8 key-disjoint level-0 files of ≈ 0.9 × U/8 MiB (target-file-size U/8 mb; written in run 1,
# later runs restore the table's snapshot/manifest directories, which an upgrade-only
# compaction is the only thing to change), then one full compaction (timed).
# Finally bench/report.py prints the Markdown summary and writes bench/results/latest.json.
# Exits non-zero when a phase fails or any engine returns different rows than expected. Work
# files live under bench/results/ (gitignored; override with BENCH_WORK).
set -euo pipefail

ROWS=2000000
COMMITS=4
RUNS=3
WORKLOAD=all
MEM_ROWS=20000000
WA_COMMITS=
UPGRADE_MB=
JAVA_PEER=1
JAVA_WARMUP=2
JAVA_ITERATIONS=1
while [ $# -gt 0 ]; do
    case "$1" in
        --rows) ROWS="$2"; shift 2 ;;
        --commits) COMMITS="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --workload) WORKLOAD="$2"; shift 2 ;;
        --mem-rows) MEM_ROWS="$2"; shift 2 ;;
        --wa-commits) WA_COMMITS="$2"; shift 2 ;;
        --upgrade-mb) UPGRADE_MB="$2"; shift 2 ;;
        --no-java) JAVA_PEER=0; shift ;;
        --java-warmup) JAVA_WARMUP="$2"; shift 2 ;;
        --java-iterations) JAVA_ITERATIONS="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
case "$WORKLOAD" in
    append|pk|compact|all) ;;
    *) echo "run.sh: --workload must be append, pk, compact or all (got $WORKLOAD)" >&2; exit 2 ;;
esac
# The compaction workload's sizes follow --rows (full size at 2M rows).
FULL_ROWS=2000000
scaled() { # scaled VALUE MIN: VALUE × ROWS / 2M, at least MIN
    local v=$(( $1 * ROWS / FULL_ROWS ))
    [ "$v" -lt "$2" ] && v="$2"
    echo "$v"
}
if [ "$ROWS" -ge "$FULL_ROWS" ]; then
    WA_COMMITS="${WA_COMMITS:-200}"
else
    WA_COMMITS="${WA_COMMITS:-40}"
fi
UPGRADE_MB="${UPGRADE_MB:-$(scaled 1024 64)}"
WA_KEYS="$(scaled 200000 1000)"
WA_ROWS="$(scaled 5000 50)"
WA_HOT="$(scaled 5000 50)"
WA_TARGET="$(scaled 2048 64)kb"
[ "$WA_TARGET" = 2048kb ] && WA_TARGET=2mb

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
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
BIN="$TARGET_DIR/release/strata-bench"

# The Java peer: java-paimon JavaPeer PHASE ARGS... (see bench/java/src/.../JavaPeer.java).
if [ "$JAVA_PEER" = 1 ] && [ "$WORKLOAD" != compact ]; then
    echo "== building the Java Paimon peer (bench/java/build.sh)" >&2
    bash "$ROOT/bench/java/build.sh" \
        || { echo "run.sh: building the Java peer failed (needs a JDK 17+ and, the first time, Maven); --no-java skips it" >&2; exit 1; }
    JAVA_CP="$(cat "$ROOT/.cache/bench-java/classpath.txt")"
    # shellcheck disable=SC2206  # BENCH_JAVA_OPTS is a list of JVM options
    JAVA_CMD=(java ${BENCH_JAVA_OPTS:-} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAVA_CP"
              strata.bench.JavaPeer)
    JAVA_RUN=(--warmup "$JAVA_WARMUP" --iterations "$JAVA_ITERATIONS")
else
    JAVA_PEER=0
fi

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
[ "$JAVA_PEER" = 1 ] && WRITERS+=(java-paimon)

# The append workload (bench.append_t, bucket -1) in $WORK/<writer>.
append_run() {
    local run="$1"
    WL=append
    rm -rf "${WORK:?}"/strata "$WORK"/pypaimon-rust "$WORK"/pypaimon "$WORK"/raw-parquet "$WORK"/java-paimon*
    phase "$run" raw-parquet write raw-parquet "$BIN" raw-write --data "$DATA" --out "$WORK/raw-parquet"
    phase "$run" strata write strata "$BIN" write --wh "$WORK/strata" --data "$DATA"
    for e in pypaimon-rust pypaimon; do
        phase "$run" "$e" write "$e" "$PY" "$ROOT/bench/peers.py" write --engine "$e" --wh "$WORK/$e" --data "$DATA"
    done
    if [ "$JAVA_PEER" = 1 ]; then
        phase "$run" java-paimon write java-paimon "${JAVA_CMD[@]}" write --wh "$WORK/java-paimon" --data "$DATA" "${JAVA_RUN[@]}"
    fi
    phase "$run" raw-parquet read raw-parquet "$BIN" raw-read --out "$WORK/raw-parquet" --threads 2
    phase "$run" raw-parquet-1t read raw-parquet "$BIN" raw-read --out "$WORK/raw-parquet" --threads 1
    for ph in read filter; do
        phase "$run" strata-1t "$ph" strata "$BIN" "$ph" --wh "$WORK/strata" --threads 1
        for w in "${WRITERS[@]}"; do
            phase "$run" strata "$ph" "$w" "$BIN" "$ph" --wh "$WORK/$w"
            for e in pypaimon-rust pypaimon; do
                phase "$run" "$e" "$ph" "$w" "$PY" "$ROOT/bench/peers.py" "$ph" --engine "$e" --wh "$WORK/$w"
            done
            if [ "$JAVA_PEER" = 1 ]; then
                phase "$run" java-paimon "$ph" "$w" "${JAVA_CMD[@]}" "$ph" --wh "$WORK/$w" "${JAVA_RUN[@]}"
            fi
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
    if [ "$JAVA_PEER" = 1 ]; then
        phase "$run" java-paimon write java-paimon "${JAVA_CMD[@]}" write --table pk --wh "$pk/java-paimon" --data "$DATA" "${JAVA_RUN[@]}"
    fi
    phase "$run" raw-parquet read strata "$BIN" raw-scan --table pk --wh "$pk/strata" --threads 2
    phase "$run" raw-parquet-1t read strata "$BIN" raw-scan --table pk --wh "$pk/strata" --threads 1
    for ph in read filter; do
        phase "$run" strata-1t "$ph" strata "$BIN" "$ph" --table pk --wh "$pk/strata" --threads 1
        for w in "${WRITERS[@]}"; do
            phase "$run" strata "$ph" "$w" "$BIN" "$ph" --table pk --wh "$pk/$w"
            for e in pypaimon-rust pypaimon; do
                phase "$run" "$e" "$ph" "$w" "$PY" "$ROOT/bench/peers.py" "$ph" --table pk --engine "$e" --wh "$pk/$w"
            done
            if [ "$JAVA_PEER" = 1 ]; then
                phase "$run" java-paimon "$ph" "$w" "${JAVA_CMD[@]}" "$ph" --table pk --wh "$pk/$w" "${JAVA_RUN[@]}"
            fi
        done
    done
    if [ "$MEM_ROWS" -gt 0 ]; then
        phase "$run" strata mem-write strata "$BIN" mem-write --wh "$pk/mem" --rows "$MEM_ROWS"
        phase "$run" strata mem-read strata "$BIN" mem-read --wh "$pk/mem" --rows "$MEM_ROWS"
        rm -rf "${pk:?}/mem"
    fi
}

# The compaction workload in $WORK/compact (see the header).
LIVE_ROWS="$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["pk"]["read"]["rows"])' "$DATA/expected.json")"
compact_run() {
    local run="$1" c="$WORK/compact"
    WL=compact
    mkdir -p "$c"
    # (1) Rewrite throughput: 4 level-0 runs, the raw floor on the same files, a full compaction.
    rm -rf "${c:?}/full" "$c/raw"
    phase "$run" strata write-l0 pk "$BIN" write --table pk --wh "$c/full" --data "$DATA" --option write-only=true
    phase "$run" raw-parquet rewrite pk "$BIN" raw-rewrite --wh "$c/full" --out "$c/raw" --threads 2 --write-rows "$LIVE_ROWS"
    phase "$run" raw-parquet-1t rewrite pk "$BIN" raw-rewrite --wh "$c/full" --out "$c/raw" --threads 1 --write-rows "$LIVE_ROWS"
    phase "$run" strata compact-full pk "$BIN" compact --full --wh "$c/full"
    phase "$run" strata read pk "$BIN" read --table pk --wh "$c/full"
    rm -rf "${c:?}/raw"
    # (2) Write amplification (run 1 only: deterministic bytes; one timing).
    # upsert: 90% updates of Zipf(0.99) keys scattered over the loaded keys, 10% new keys;
    # insert: 90% new (time-ordered) keys, 10% updates of the newest WA_HOT keys.
    if [ "$run" -eq 1 ]; then
        local scen name opt
        local -a sargs
        for scen in upsert insert; do
            case "$scen" in
                upsert) sargs=(--layout scattered --new-fraction 0.1) ;;
                insert) sargs=(--layout recent --new-fraction 0.9 --hot-keys "$WA_HOT") ;;
            esac
            for name in ratio-0.7 ratio-0.05 rewrite-all; do
                case "$name" in
                    ratio-0.7) opt=compaction.small-file-ratio=0.7 ;;
                    ratio-0.05) opt=compaction.small-file-ratio=0.05 ;;
                    rewrite-all) opt=compaction.force-rewrite-all-files=true ;;
                esac
                rm -rf "${c:?}/wa"
                phase "$run" strata wa "$scen/$name" "$BIN" stream --wh "$c/wa" --commits "$WA_COMMITS" \
                    --keys "$WA_KEYS" --rows-per-commit "$WA_ROWS" --target-file-size "$WA_TARGET" \
                    "${sargs[@]}" --option "$opt"
            done
        done
        rm -rf "${c:?}/wa"
    fi
    # (3) Upgrade-only compaction of UPGRADE_MB of large level-0 files.
    local up="$c/upgrade" meta="$c/upgrade-meta" tbl="$c/upgrade/bench.db/pk_t"
    if [ "$run" -eq 1 ] || [ ! -d "$meta" ]; then
        rm -rf "${up:?}" "${meta:?}"
        phase "$run" strata upgrade-write upgrade "$BIN" upgrade-write --wh "$up" --files 8 --file-mb "$((UPGRADE_MB / 8))"
        mkdir -p "$meta" && cp -a "$tbl/snapshot" "$tbl/manifest" "$meta/"
    else
        rm -rf "${tbl:?}/snapshot" "$tbl/manifest" && cp -a "$meta/snapshot" "$meta/manifest" "$tbl/"
    fi
    phase "$run" strata compact-upgrade upgrade "$BIN" compact --full --wh "$up" --label compact-upgrade
}

for run in $(seq 1 "$RUNS"); do
    echo "== run $run of $RUNS" >&2
    case "$WORKLOAD" in
        append) append_run "$run" ;;
        pk) pk_run "$run" ;;
        compact) compact_run "$run" ;;
        all) append_run "$run"; pk_run "$run" ;;
    esac
done
if [ "$WORKLOAD" = compact ]; then
    rm -rf "${WORK:?}/compact/upgrade" "$WORK/compact/upgrade-meta"  # ~1 GB
fi

echo "== report ($RUNS_FILE)" >&2
"$PY" "$ROOT/bench/report.py" --runs "$RUNS_FILE" --expected "$DATA/expected.json" --work "$WORK" \
    --mem-rows "$MEM_ROWS" --json "$RESULTS/latest.json"
