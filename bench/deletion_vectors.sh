#!/usr/bin/env bash
# Deletion vectors and the lookup / full-compaction changelog producers: what lookup compaction
# (and the changelog it writes) costs the primary-key write, and what a read without merging
# gains. The PK workload of bench/run.sh (ROWS rows in COMMITS commits, `id BIGINT` primary key,
# bucket 1, the last commit updating a third of the ids), written by strata into a fresh
# warehouse per run in six configurations, then read whole:
#
#   write-only      no compaction: COMMITS level-0 sorted runs, read by merge-on-read
#   compacted       the default universal compaction on each commit, merge-on-read of its runs
#   dv              deletion-vectors.enabled: each commit's level 0 compacted up with lookups
#                   into the higher levels, superseded rows marked by deletion vectors; the read
#                   applies them and never merges (level 0 is empty after each commit)
#   lookup          changelog-producer=lookup: the same lookup compaction of level 0 after each
#                   commit, writing -U/+U/+I/-D changelog files; merge-on-read of levels >= 1
#   dv-lookup       deletion-vectors.enabled + changelog-producer=lookup: both (read as dv)
#   full            changelog-producer=full-compaction: a full compaction at each commit that
#                   writes the changelog against the max level; the read is of one file
#
#   bash bench/deletion_vectors.sh [--runs N] [--rows R] [--commits C]   (defaults 3, 2000000, 4)
#                                  [--java | --no-java] [--java-warmup JW] [--java-iterations JI]
#   (JW = 1, JI = 3; --java is the default when the Java peer builds)
#
# Steps: release-build strata-bench (in $CARGO_TARGET_DIR if set, else target/); generate the
# input once with bench/gen_data.py (the .interop-venv's Python); then N rounds, each writing and
# reading every configuration (`strata-bench write --table pk --option ...`, `strata-bench read
# --table pk`: in-process timings), recording the bytes of the changelog-* files each write left.
# Then, unless --no-java (or the peer does not build: bench/java/build.sh, a JDK 17+ and Maven
# the first time), Java Paimon 2.0.0 (strata.bench.JavaPeer, as bench/run.sh runs it) writes and
# reads every configuration on the same data: one JVM per phase and configuration, JW untimed
# warm-up iterations, then the median of JI timed ones, timed inside the JVM (no JVM start or
# JIT warm-up; tables that need lookups get an IOManager temp directory, as Flink gives one);
# strata also reads each Java table. Java's *batch* writer never runs a full compaction per
# commit for `full` (Flink's sink schedules those), so Java's `full` row is printed as not
# comparable and left out of the ratios. JVM options: Java's defaults plus $BENCH_JAVA_OPTS;
# JVM stderr goes to bench/results/deletion_vectors-java.log.
# Prints the medians of the write and read seconds (strata and Java), the read's files, the
# changelog bytes, the ratios, and fails if any configuration or engine reads different rows
# (count, distinct ids, checksum of v_int) than the others.
set -euo pipefail

RUNS=3
ROWS=2000000
COMMITS=4
JAVA_PEER=1
JAVA_WARMUP=1
JAVA_ITERATIONS=3
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --rows) ROWS="$2"; shift 2 ;;
        --commits) COMMITS="$2"; shift 2 ;;
        --java) JAVA_PEER=1; shift ;;
        --no-java) JAVA_PEER=0; shift ;;
        --java-warmup) JAVA_WARMUP="$2"; shift 2 ;;
        --java-iterations) JAVA_ITERATIONS="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "deletion_vectors.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

# shellcheck source=bench/pk_workload.sh
source "$(dirname "${BASH_SOURCE[0]}")/pk_workload.sh"

if [ "$JAVA_PEER" = 1 ]; then
    echo "== building the Java Paimon peer (bench/java/build.sh)" >&2
    if bash "$ROOT/bench/java/build.sh"; then
        JAVA_CP="$(cat "$ROOT/.cache/bench-java/classpath.txt")"
        # shellcheck disable=SC2206  # BENCH_JAVA_OPTS is a list of JVM options
        JAVA_CMD=(java ${BENCH_JAVA_OPTS:-} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAVA_CP"
                  strata.bench.JavaPeer)
        JAVA_RUN=(--warmup "$JAVA_WARMUP" --iterations "$JAVA_ITERATIONS")
        JAVA_LOG="$RESULTS/deletion_vectors-java.log"
        : > "$JAVA_LOG"
    else
        echo "deletion_vectors.sh: the Java peer does not build (needs a JDK 17+ and, the first time, Maven); running strata only" >&2
        JAVA_PEER=0
    fi
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-dv-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
LOG="$WORK/phases.jsonl"

CONFIGS=(write-only compacted dv lookup dv-lookup full)
options() {
    case "$1" in
        write-only) echo "--option write-only=true" ;;
        compacted) echo "" ;;
        dv) echo "--option deletion-vectors.enabled=true" ;;
        lookup) echo "--option changelog-producer=lookup" ;;
        dv-lookup) echo "--option deletion-vectors.enabled=true --option changelog-producer=lookup" ;;
        full) echo "--option changelog-producer=full-compaction" ;;
    esac
}
tag() {  # tag CONFIG RUN ENGINE: prefixes each JSON line with the configuration, run and engine
    sed "s/^{/{\"config\":\"$1\",\"run\":$2,\"by\":\"$3\",/"
}
sizes() {  # sizes CONFIG RUN ENGINE WAREHOUSE: a JSON line with the bytes of the data and changelog files
    local data log nlog
    data=$(find "$4" -name 'data-*' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    log=$(find "$4" -name 'changelog-*' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    nlog=$(find "$4" -name 'changelog-*' | wc -l)
    printf '{"config":"%s","run":%s,"by":"%s","phase":"sizes","data_bytes":%s,"changelog_bytes":%s,"changelog_files":%s}\n' \
        "$1" "$2" "$3" "$data" "$log" "$nlog"
}

for i in $(seq 1 "$RUNS"); do
    for c in "${CONFIGS[@]}"; do
        wh="$WORK/$c"
        rm -rf "$wh"
        # shellcheck disable=SC2046
        "$BIN" write --table pk --wh "$wh" --data "$DATA" $(options "$c") | tag "$c" "$i" strata >> "$LOG"
        sizes "$c" "$i" strata "$wh" >> "$LOG"
        "$BIN" read --table pk --wh "$wh" | tag "$c" "$i" strata >> "$LOG"
        echo "run $i: $c done" >&2
    done
done

if [ "$JAVA_PEER" = 1 ]; then
    for c in "${CONFIGS[@]}"; do
        wh="$WORK/java-$c"
        rm -rf "$wh"
        echo "-- java $c write" >> "$JAVA_LOG"
        # shellcheck disable=SC2046
        "${JAVA_CMD[@]}" write --table pk --wh "$wh" --data "$DATA" $(options "$c") "${JAVA_RUN[@]}" \
            2>> "$JAVA_LOG" | tail -n 1 | tag "$c" 1 java >> "$LOG" \
            || { echo "deletion_vectors.sh: Java write of $c failed, see $JAVA_LOG" >&2; exit 1; }
        sizes "$c" 1 java "$wh" >> "$LOG"
        echo "-- java $c read" >> "$JAVA_LOG"
        "${JAVA_CMD[@]}" read --table pk --wh "$wh" "${JAVA_RUN[@]}" 2>> "$JAVA_LOG" | tail -n 1 \
            | tag "$c" 1 java >> "$LOG" \
            || { echo "deletion_vectors.sh: Java read of $c failed, see $JAVA_LOG" >&2; exit 1; }
        # strata reads Java's table: the rows must be the same.
        "$BIN" read --table pk --wh "$wh" | sed 's/"phase":"read"/"phase":"read-java-table"/' \
            | tag "$c" 1 strata >> "$LOG"
        echo "java: $c done" >&2
    done
fi

"$PY" - "$LOG" "$ROWS" "$COMMITS" "$JAVA_PEER" "$JAVA_WARMUP" "$JAVA_ITERATIONS" <<'EOF'
import json, statistics, sys
log, nrows, ncommits, java, jw, ji = sys.argv[1:]
java = java == "1"
rows = [json.loads(l) for l in open(log) if l.startswith("{")]
by = {}
for r in rows:
    by.setdefault((r["by"], r["config"], r["phase"]), []).append(r)
CONFIGS = ["write-only", "compacted", "dv", "lookup", "dv-lookup", "full"]
# Java's batch writer runs no full compaction per commit for changelog-producer=full-compaction.
NOT_COMPARABLE = {"full"}

def med(eng, c, phase):
    rs = by.get((eng, c, phase))
    return statistics.median(r["seconds"] for r in rs) if rs else None

def fmt(x, d=3):
    return "–" if x is None else f"{x:.{d}f}"

def mb(eng, c):
    s = by.get((eng, c, "sizes"))
    if not s:
        return "–"
    s = s[-1]
    return f"{s['changelog_bytes'] / 1e6:.1f} ({s['changelog_files']})" if s["changelog_bytes"] else "0"

nruns = len(by[("strata", "dv", "read")])
print(f"PK workload, {nrows} rows in {ncommits} commits; strata: medians of {nruns} runs, one process per"
      f" phase, in-process times" + (f"; Java Paimon 2.0.0: one JVM per phase, {jw} warm-up + median of {ji}"
      f" timed iterations, in-JVM times" if java else ""))
print()
head = "| configuration | strata write s | strata read s | files read | changelog MB (files) |"
sep = "|---|---|---|---|---|"
if java:
    head += " Java write s | Java read s | Java files read | Java changelog MB (files) | strata ÷ Java write | strata ÷ Java read |"
    sep += "---|---|---|---|---|---|"
print(head)
print(sep)
for c in CONFIGS:
    rd = by[("strata", c, "read")]
    line = (f"| {c} | {fmt(med('strata', c, 'write'))} | {fmt(med('strata', c, 'read'))} | {rd[-1]['files']} | "
            f"{mb('strata', c)} |")
    if java:
        jw_, jr = med("java", c, "write"), med("java", c, "read")
        jrd = by.get(("java", c, "read"))
        mark = " †" if c in NOT_COMPARABLE else ""
        if c in NOT_COMPARABLE:
            ratios = "not comparable † | not comparable † |"
        else:
            ratios = (f"{fmt(med('strata', c, 'write') / jw_, 2) if jw_ else '–'} | "
                      f"{fmt(med('strata', c, 'read') / jr, 2) if jr else '–'} |")
        line += (f" {fmt(jw_)}{mark} | {fmt(jr)}{mark} | {jrd[-1]['files'] if jrd else '–'} | {mb('java', c)}{mark} | "
                 f"{ratios}")
    print(line)
if java:
    print()
    print("† Java's batch writer (BatchTableWrite) runs no full compaction per commit for"
          " changelog-producer=full-compaction (only Flink's sink schedules them): its `full` write is a universal-compaction"
          " write that writes changelog only when a compaction happens to reach the max level. Not comparable with"
          " strata's `full`, which fully compacts at every commit.")

def ratio_lines(eng):
    w = {c: med(eng, c, "write") for c in CONFIGS}
    r = {c: med(eng, c, "read") for c in CONFIGS}
    if any(v is None for v in list(w.values()) + list(r.values())):
        return
    name = "strata" if eng == "strata" else "Java"
    print()
    print(f"{name} ratios of medians:")
    for c in ("dv", "lookup", "dv-lookup", "full"):
        if eng == "java" and c in NOT_COMPARABLE:
            continue
        print(f"  write {c} / write-only = {w[c] / w['write-only']:.2f}x, / compacted (universal) = "
              f"{w[c] / w['compacted']:.2f}x")
    print(f"  write lookup / dv = {w['lookup'] / w['dv']:.2f}x   (the changelog's cost on the same lookup compaction)")
    print(f"  write dv-lookup / dv = {w['dv-lookup'] / w['dv']:.2f}x, / lookup = {w['dv-lookup'] / w['lookup']:.2f}x")
    print(f"  read dv / compacted (merge-on-read) = {r['dv'] / r['compacted']:.2f}x, / write-only = "
          f"{r['dv'] / r['write-only']:.2f}x")
    print(f"  read dv-lookup / lookup (merge-on-read of the same levels) = {r['dv-lookup'] / r['lookup']:.2f}x")

ratio_lines("strata")
if java:
    ratio_lines("java")

digests = {}
for (eng, c, phase), rs in by.items():
    if phase in ("read", "read-java-table"):
        for r in rs:
            digests.setdefault((r["rows"], r["distinct_ids"], r["sum_v_int"]), []).append(f"{eng}:{phase}:{c}")
print()
if len(digests) != 1:
    for d, who in digests.items():
        print(f"  rows/distinct/sum {d}: {sorted(set(who))}")
    sys.exit("the configurations or engines read different rows")
d = next(iter(digests))
print(f"every read agrees (rows {d[0]}, distinct ids {d[1]}, sum v_int {d[2]}): strata's tables"
      + (", Java's tables read by Java and by strata" if java else ""))
EOF
