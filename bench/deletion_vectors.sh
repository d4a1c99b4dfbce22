#!/usr/bin/env bash
# Deletion vectors: what lookup compaction costs the primary-key write, and what a read without
# merging gains. The PK workload of bench/run.sh (ROWS rows in COMMITS commits, `id BIGINT`
# primary key, bucket 1, the last commit updating a third of the ids), written by strata into a
# fresh warehouse per run in three configurations, then read whole:
#
#   write-only      no compaction: COMMITS level-0 sorted runs, read by merge-on-read
#   compacted       the default universal compaction on each commit, merge-on-read of its runs
#   dv              deletion-vectors.enabled: each commit's level 0 compacted up with lookups
#                   into the higher levels, superseded rows marked by deletion vectors; the read
#                   applies them and never merges (level 0 is empty after each commit)
#
#   bash bench/deletion_vectors.sh [--runs N] [--rows R] [--commits C]   (defaults 3, 2000000, 4)
#
# Steps: release-build strata-bench (in $CARGO_TARGET_DIR if set, else target/); generate the
# input once with bench/gen_data.py (the .interop-venv's Python); then N rounds, each writing and
# reading every configuration (`strata-bench write --table pk --option ...`, `strata-bench read
# --table pk`: in-process timings). Prints medians of the write and read seconds, the read's
# files, and fails if any configuration's rows (count, distinct ids, checksum) differ.
set -euo pipefail

RUNS=3
ROWS=2000000
COMMITS=4
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --rows) ROWS="$2"; shift 2 ;;
        --commits) COMMITS="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "deletion_vectors.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

# shellcheck source=bench/pk_workload.sh
source "$(dirname "${BASH_SOURCE[0]}")/pk_workload.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-dv-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
LOG="$WORK/phases.jsonl"

options() {
    case "$1" in
        write-only) echo "--option write-only=true" ;;
        compacted) echo "" ;;
        dv) echo "--option deletion-vectors.enabled=true" ;;
    esac
}
for i in $(seq 1 "$RUNS"); do
    for c in write-only compacted dv; do
        wh="$WORK/$c"
        rm -rf "$wh"
        # shellcheck disable=SC2046
        "$BIN" write --table pk --wh "$wh" --data "$DATA" $(options "$c") \
            | sed "s/^{/{\"config\":\"$c\",\"run\":$i,/" >> "$LOG"
        "$BIN" read --table pk --wh "$wh" | sed "s/^{/{\"config\":\"$c\",\"run\":$i,/" >> "$LOG"
        echo "run $i: $c done" >&2
    done
done

"$PY" - "$LOG" "$ROWS" "$COMMITS" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
def phase(r):
    return r.get("phase") or r.get("op") or ("read" if "files" in r else "write")
by = {}
for r in rows:
    by.setdefault((r["config"], phase(r)), []).append(r)
print(f"PK workload, {sys.argv[2]} rows in {sys.argv[3]} commits, medians of {len(by[('dv', 'read')])} runs")
print("| configuration | write s | read s | files read | rows |")
print("|---|---|---|---|---|")
digests = set()
for c in ("write-only", "compacted", "dv"):
    w = statistics.median(r["seconds"] for r in by[(c, "write")])
    rd = by[(c, "read")]
    d = {(r["rows"], r["distinct_ids"], r["sum_v_int"]) for r in rd}
    digests |= d
    print(f"| {c} | {w:.3f} | {statistics.median(r['seconds'] for r in rd):.3f} | "
          f"{rd[-1]['files']} | {rd[-1]['rows']} |")
if len(digests) != 1:
    sys.exit(f"the configurations read different rows: {digests}")
EOF
