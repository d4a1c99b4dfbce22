#!/usr/bin/env bash
# The cost of `changelog-producer = input` on the primary-key write: the PK workload of
# bench/run.sh (ROWS rows in COMMITS commits, `id BIGINT` primary key, bucket 1, the last commit
# updating a third of the ids) written by strata into a fresh warehouse per run, with and without
# the input changelog, both `write-only` (no compaction, so the difference is the changelog alone).
#
#   bash bench/changelog.sh [--runs N] [--rows R] [--commits C]     (defaults 5, 2000000, 4)
#
# Steps: release-build strata-bench (in $CARGO_TARGET_DIR if set, else target/); generate the
# input once with bench/gen_data.py (the .interop-venv's Python, pyarrow); then N rounds of
# `strata-bench write --table pk` per configuration, alternating which goes first. Prints the
# wall time of each run, the medians, their ratio, and the bytes of data and changelog files.
set -euo pipefail

RUNS=5
ROWS=2000000
COMMITS=4
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --rows) ROWS="$2"; shift 2 ;;
        --commits) COMMITS="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "changelog.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

# shellcheck source=bench/pk_workload.sh
source "$(dirname "${BASH_SOURCE[0]}")/pk_workload.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-changelog-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

run() {  # run NAME OPTIONS...: one write into a fresh warehouse, prints seconds
    local name="$1"; shift
    local wh="$WORK/$name"
    rm -rf "$wh"
    local t0 t1
    t0=$(date +%s.%N)
    "$BIN" write --table pk --wh "$wh" --data "$DATA" "$@" > /dev/null
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}
sizes() {  # sizes NAME: bytes of data-* and changelog-* files of the last run
    local wh="$WORK/$1"
    local data log
    data=$(find "$wh" -name 'data-*' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    log=$(find "$wh" -name 'changelog-*' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    echo "$1: data files $data bytes, changelog files $log bytes"
}

PLAIN=()
INPUT=()
for i in $(seq 1 "$RUNS"); do
    if (( i % 2 )); then
        PLAIN+=("$(run plain --option write-only=true)")
        INPUT+=("$(run input --option write-only=true --option changelog-producer=input)")
    else
        INPUT+=("$(run input --option write-only=true --option changelog-producer=input)")
        PLAIN+=("$(run plain --option write-only=true)")
    fi
    echo "run $i: plain ${PLAIN[-1]} s, input changelog ${INPUT[-1]} s" >&2
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
MP=$(median "${PLAIN[@]}")
MI=$(median "${INPUT[@]}")
echo "PK write, $ROWS rows in $COMMITS commits, $RUNS runs (wall time of the strata-bench process)"
echo "  changelog-producer = none : median $MP s  (runs: ${PLAIN[*]})"
echo "  changelog-producer = input: median $MI s  (runs: ${INPUT[*]})"
echo "  input / none: $(echo "scale=3; $MI / $MP" | bc)x"
sizes plain
sizes input
