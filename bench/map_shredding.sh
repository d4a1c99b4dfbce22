#!/usr/bin/env bash
# The MAP shared-shredding benchmark (issue 6, PIP-43): the same rows written in five layouts —
# `default` and shared-shredding with column-placement-policy `lru` (Paimon's default), `lru-java`
# (lru with `max-dedicated-columns` = 0), `plain` and `sequential` — then, per layout, the
# benchmark query, a full-map read and the write, with pypaimon-rust 0.4.0 running the same query
# on the same tables in the same run.
#
# `lru`, `plain` and `sequential` keep strata's default placement: the strata-only option
# fields.metrics.map.shared-shredding.max-dedicated-columns (default 32) gives frequent keys
# (in >= 20% of the sampled rows) a column of their own (`__col_0..__col_{D-1}`) and sends a
# churning tail of keys to `__overflow`. `lru-java` sets it to 0: Java's / pypaimon-rust's
# placement (no dedicated columns, every column shared, K by Java's rule), for comparison.
#
#   bash bench/map_shredding.sh [--rows N] [--runs R] [--commits C] [--partitions P]
#                               [--layouts "default lru lru-java plain sequential"] [--max-columns K]
#                               [--keep]
#   QUICK=1 bash bench/map_shredding.sh      # smoke run: 50,000 rows, 3 runs
#   (defaults: 1,000,000 rows, 3 runs, 4 commits, 4 partitions; --max-columns sets
#   fields.metrics.map.shared-shredding.max-columns, default: the table default 256; --keep
#   keeps the scratch warehouses)
#
# Table `bench.map_t` (strata-bench map-gen, bench/src/map_gen.rs): `id BIGINT NOT NULL, dt
# STRING, metrics MAP<STRING NOT NULL, DOUBLE>`, partitioned by dt, bucket -1; 5,000 distinct
# keys (`usage` + `k0000`…), 1–20 entries per row, Zipf(1.1) key popularity, `usage` in ≈30% of
# the rows with `usage > 30` in ≈8% of those; deterministic seed, identical rows for every layout,
# written with the strata library in C commits. One warehouse per layout under /tmp/map-bench
# (MAP_BENCH_DIR overrides), deleted at the end unless --keep.
#
# Steps, every measurement in its own process, R rounds with the layouts interleaved so all see
# the same machine load:
#   write   strata-bench map-gen into a fresh warehouse (write time = the C commits only)
#   footers per data file of the last write: size, row groups, the Parquet footer's size and
#           `paimon.map.*` field metadata of `metrics` (ARROW:schema) — K = num-columns,
#           max-row-width, exclusive (dedicated) columns, overflow keys — and the compressed
#           bytes of the column chunks the query needs
#   base    `strata schema bench.map_t`: process start + catalog/table open (the baseline)
#   query   `strata read bench.map_t --columns "metrics['usage']" --where
#           "metrics['usage'] > 30" --metrics --format jsonl` (wall time; --metrics JSON on stderr)
#   iquery  the same query in process: strata-bench map-read --columns "metrics['usage']"
#           --where "metrics['usage'] > 30" (plan + read timed, no process start or output)
#   full    strata-bench map-read: plan + read of `id, metrics` in process
#   peer    bench/map_peer.py query: pypaimon-rust reads `metrics` and filters in pyarrow
#           (default, lru and lru-java tables); `map_peer.py full` once on every layout as a
#           reconstruction check
# Finally bench/map_report.py prints the Markdown section for BENCHMARKS.md ("MAP
# shared-shredding") and writes bench/results/map-latest.json. A layout strata rejects, or a
# query the CLI does not support yet, is reported as such; the exit status is non-zero when any
# step failed or any result differs from the generated data.
set -euo pipefail

ROWS=1000000
RUNS=3
COMMITS=4
PARTITIONS=4
LAYOUTS="default lru lru-java plain sequential"
MAX_COLUMNS=""
KEEP=0
if [ "${QUICK:-0}" = 1 ]; then
    ROWS=50000
    RUNS=3
fi
ARGS_TEXT="$*"
while [ $# -gt 0 ]; do
    case "$1" in
        --rows) ROWS="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --commits) COMMITS="$2"; shift 2 ;;
        --partitions) PARTITIONS="$2"; shift 2 ;;
        --layouts) LAYOUTS="$2"; shift 2 ;;
        --max-columns) MAX_COLUMNS="$2"; shift 2 ;;
        --keep) KEEP=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "map_shredding.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ "$RUNS" -lt 1 ]; then echo "map_shredding.sh: --runs must be at least 1" >&2; exit 2; fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="$ROOT/bench/results"
RUN_DIR="$RESULTS/map-run-$(date +%Y%m%d-%H%M%S)"
WORK="${MAP_BENCH_DIR:-/tmp/map-bench}"
VENV="${BENCH_VENV:-$ROOT/.interop-venv}"
TABLE=bench.map_t
KEY=usage
THRESHOLD=30
COLUMNS="metrics['$KEY']"
WHERE="metrics['$KEY'] > $THRESHOLD"
mkdir -p "$RUN_DIR"
LOG="$RUN_DIR/log.txt"
: >"$LOG"

cleanup() {
    if [ "$KEEP" -eq 0 ]; then rm -rf "${WORK:?}"; fi
}
trap cleanup EXIT
rm -rf "${WORK:?}"
mkdir -p "$WORK"

echo "== building strata-bench and strata (release)" >&2
(cd "$ROOT" && cargo build --release -p strata-bench -p strata-cli)
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
BENCH_BIN="$TARGET_DIR/release/strata-bench"
STRATA="${STRATA_BIN:-$TARGET_DIR/release/strata}"

if [ ! -x "$VENV/bin/python" ]; then
    echo "== creating $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q -r "$ROOT/tests/interop/requirements.txt"
fi
PY="$VENV/bin/python"
"$PY" -c 'import pyarrow, pypaimon_rust' \
    || { echo "map_shredding.sh: $VENV lacks pyarrow / pypaimon-rust (pip install -r tests/interop/requirements.txt)" >&2; exit 1; }

layout_options() { # the map-gen --option arguments of a layout
    local prefix=fields.metrics.map
    case "$1" in
        default) ;;
        lru|plain|sequential|lru-java)
            echo "--option $prefix.storage-layout=shared-shredding"
            echo "--option $prefix.shared-shredding.column-placement-policy=${1%-java}"
            if [ "$1" = lru-java ]; then # Java's placement: no dedicated columns
                echo "--option $prefix.shared-shredding.max-dedicated-columns=0"
            fi
            if [ -n "$MAX_COLUMNS" ]; then
                echo "--option $prefix.shared-shredding.max-columns=$MAX_COLUMNS"
            fi ;;
        *) echo "map_shredding.sh: unknown layout $1" >&2; exit 2 ;;
    esac
}
for l in $LAYOUTS; do layout_options "$l" >/dev/null; done

# STRATA_COMMIT overrides (e.g. when running from an exported tree without .git)
COMMIT_ID="${STRATA_COMMIT:-$( (cd "$ROOT" && git rev-parse --short HEAD \
    && { git diff --quiet HEAD -- crates bench/src || echo '+dirty'; }) 2>/dev/null | tr -d '\n' || true)}"
COMMIT_ID="${COMMIT_ID:-unknown}"
"$PY" - "$RUN_DIR/meta.json" <<EOF
import json, sys
json.dump({"rows": $ROWS, "runs": $RUNS, "commits": $COMMITS, "partitions": $PARTITIONS,
           "layouts": "$LAYOUTS".split(), "max_columns": "$MAX_COLUMNS" or None,
           "table": "$TABLE", "key": "$KEY", "threshold": $THRESHOLD,
           "columns": "$COLUMNS", "where": "$WHERE", "quick": "${QUICK:-0}" == "1",
           "command": ("QUICK=1 " if "${QUICK:-0}" == "1" else "") + "bash bench/map_shredding.sh $ARGS_TEXT".strip(),
           "strata_commit": "$COMMIT_ID", "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
           "load": "$(cut -d' ' -f1-3 /proc/loadavg)", "nproc": $(nproc)},
          open(sys.argv[1], "w"), indent=1)
EOF

FAILED=0
# timed NAME CMD...: runs CMD with stdout → NAME.out, stderr → NAME.err; NAME.time gets
# "<wall ns> <exit code>" and NAME.rusage /usr/bin/time's "%M %U %S" (max RSS KiB, user, sys s).
timed() {
    local name="$1" t0 t1 rc=0
    shift
    t0=$(date +%s%N)
    /usr/bin/time -f '%M %U %S' -o "$RUN_DIR/$name.rusage" "$@" \
        >"$RUN_DIR/$name.out" 2>"$RUN_DIR/$name.err" || rc=$?
    t1=$(date +%s%N)
    echo "$((t1 - t0)) $rc" >"$RUN_DIR/$name.time"
    if [ -s "$RUN_DIR/$name.err" ]; then
        { echo "--- $name (exit $rc)"; tail -n 20 "$RUN_DIR/$name.err"; } >>"$LOG"
    fi
    return "$rc"
}
note() { # note NAME: one progress line (last stdout / stderr JSON line)
    local line
    line="$(grep -h '^{' "$RUN_DIR/$1.out" "$RUN_DIR/$1.err" 2>/dev/null | tail -n 1 | cut -c1-220 || true)"
    printf '  %-22s %6.3f s  %s\n' "$1" "$(awk '{print $1 / 1e9}' "$RUN_DIR/$1.time")" "$line" >&2
}
fail() { # fail NAME: report a failed step (first error line), remember it
    printf '  %-22s FAILED: %s\n' "$1" "$(grep -hv '^\s*$' "$RUN_DIR/$1.err" "$RUN_DIR/$1.out" 2>/dev/null | grep -iv '^command exited' | head -n 1 | cut -c1-200)" >&2
    FAILED=1
}

declare -A WRITE_OK
for r in $(seq 1 "$RUNS"); do
    echo "== round $r of $RUNS: write $ROWS rows in $COMMITS commits per layout" >&2
    for l in $LAYOUTS; do
        [ "$r" -gt 1 ] && [ "${WRITE_OK[$l]:-0}" = 0 ] && continue
        rm -rf "${WORK:?}/$l"
        # shellcheck disable=SC2046
        if timed "write-$l.r$r" "$BENCH_BIN" map-gen --wh "$WORK/$l" --rows "$ROWS" \
            --commits "$COMMITS" --partitions "$PARTITIONS" $(layout_options "$l"); then
            WRITE_OK[$l]=1
            note "write-$l.r$r"
        else
            WRITE_OK[$l]=0
            fail "write-$l.r$r"
        fi
    done
done

echo "== data files: sizes and Parquet footer metadata" >&2
for l in $LAYOUTS; do
    [ "${WRITE_OK[$l]:-0}" = 1 ] || continue
    if "$PY" "$ROOT/bench/map_report.py" footers --table-dir "$WORK/$l/bench.db/map_t" --key "$KEY" \
        >"$RUN_DIR/footers-$l.json" 2>>"$LOG"; then
        "$PY" - "$RUN_DIR/footers-$l.json" "$l" <<'EOF' >&2
import json, sys
d = json.load(open(sys.argv[1]))
ks = sorted({(f.get('num_columns'), f.get('max_row_width')) for f in d['files']})
print(f"  {sys.argv[2]:<11} {len(d['files'])} files, {d['data_bytes']:,} data bytes, "
      f"{d.get('footer_bytes', 0):,} footer bytes, {d['table_bytes']:,} table bytes; "
      f"(K, max-row-width): {ks}")
EOF
    else
        echo "  footers $l FAILED (see $LOG)" >&2
        FAILED=1
    fi
done

for r in $(seq 1 "$RUNS"); do
    echo "== round $r of $RUNS: reads" >&2
    for l in $LAYOUTS; do
        [ "${WRITE_OK[$l]:-0}" = 1 ] || continue
        wh="$WORK/$l"
        if timed "base-$l.r$r" "$STRATA" --warehouse "$wh" schema "$TABLE"; then note "base-$l.r$r"; else fail "base-$l.r$r"; fi
        if timed "query-$l.r$r" "$STRATA" --warehouse "$wh" read "$TABLE" --columns "$COLUMNS" \
            --where "$WHERE" --metrics --format jsonl; then
            note "query-$l.r$r"
        else
            fail "query-$l.r$r"
        fi
        if timed "iquery-$l.r$r" "$BENCH_BIN" map-read --wh "$wh" --columns "$COLUMNS" --where "$WHERE"; then
            note "iquery-$l.r$r"
        else
            fail "iquery-$l.r$r"
        fi
        if timed "full-$l.r$r" "$BENCH_BIN" map-read --wh "$wh" --columns id,metrics; then
            note "full-$l.r$r"
        else
            fail "full-$l.r$r"
        fi
        case "$l" in
            default|lru|lru-java)
                if timed "peer-query-$l.r$r" timeout 1800 "$PY" "$ROOT/bench/map_peer.py" query \
                    --wh "$wh" --table "$TABLE" --key "$KEY" --threshold "$THRESHOLD"; then
                    note "peer-query-$l.r$r"
                else
                    fail "peer-query-$l.r$r"
                fi ;;
        esac
        if [ "$r" -eq 1 ]; then
            if timed "peer-full-$l.r$r" timeout 1800 "$PY" "$ROOT/bench/map_peer.py" full \
                --wh "$wh" --table "$TABLE"; then
                note "peer-full-$l.r$r"
            else
                fail "peer-full-$l.r$r"
            fi
        fi
    done
done

echo "== report" >&2
rc=0
"$PY" "$ROOT/bench/map_report.py" summarize --dir "$RUN_DIR" --json "$RESULTS/map-latest.json" \
    | tee "$RUN_DIR/report.md" || rc=$?
echo "== run files in $RUN_DIR" >&2
if [ "$FAILED" -ne 0 ] && [ "$rc" -eq 0 ]; then
    echo "map_shredding.sh: some steps failed (see $LOG and the report)" >&2
    rc=1
fi
exit "$rc"
