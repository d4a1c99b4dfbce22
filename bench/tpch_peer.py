#!/usr/bin/env python3
"""The pypaimon-rust side of the TPC-H benchmark (bench/tpch.sh): the 22 queries through
pypaimon-rust 0.4.0's DataFusion SQL layer (``pypaimon_rust.datafusion.SQLContext``) over the
strata-written warehouse ``DIR/wh`` (database ``tpch``).

  tpch_peer.py --dir D --queries bench/tpch/queries [--runs 3] [--only q1,q6]

Per query: one warm-up, then RUNS timed runs (``ctx.sql(text)``: plan, execute, collect as
Arrow), on a fresh ``SQLContext`` each run, as the Rust side uses a fresh ``SessionContext``.
One JSON line per query, in the format of ``strata-bench tpch-run``: ``median_s``,
``times_s``, ``rows``, ``digest`` (rows as text, floats and decimals to 2 places, sorted,
FNV-1a, as bench/src/tpch.rs computes it), or ``error``.
"""
import argparse
import decimal
import json
import os
import statistics
import sys
import time


def fnv(lines):
    h = 0xcbf29ce484222325
    for line in lines:
        for b in line.encode() + b"\n":
            h ^= b
            h = (h * 0x100000001b3) & ((1 << 64) - 1)
    return "%016x" % h


def cell(v):
    if v is None:
        return "NULL"
    if isinstance(v, float):
        return str(decimal.Decimal(repr(v)).quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP))
    if isinstance(v, decimal.Decimal):
        if -v.as_tuple().exponent > 2:
            return str(v.quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP))
        return str(v)
    return str(v)


def digest(batches):
    lines = []
    for b in batches:
        cols = [c.to_pylist() for c in b.columns]
        for row in zip(*cols):
            lines.append("|".join(cell(v) for v in row))
    lines.sort()
    return len(lines), fnv(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only")
    a = ap.parse_args()
    from pypaimon_rust.datafusion import SQLContext
    wh = os.path.abspath(os.path.join(a.dir, "wh"))
    names = sorted((f for f in os.listdir(a.queries) if f.startswith("q") and f.endswith(".sql")),
                   key=lambda f: int(f[1:-4]))
    only = set(a.only.split(",")) if a.only else None
    for f in names:
        q = f[:-4]
        if only and q not in only:
            continue
        sql = open(os.path.join(a.queries, f)).read().strip().rstrip(";")
        out = {"engine": "pypaimon-rust", "phase": "tpch", "query": q}
        try:
            times, batches = [], None
            for i in range(a.runs + 1):
                t0 = time.perf_counter()
                ctx = SQLContext()
                ctx.register_catalog("paimon", {"warehouse": wh}, default_database="tpch")
                ctx.set_current_catalog("paimon")
                ctx.set_current_database("tpch")
                batches = ctx.sql(sql)
                if i > 0:
                    times.append(time.perf_counter() - t0)
            rows, d = digest(batches)
            out.update({"median_s": statistics.median(times), "times_s": times, "rows": rows, "digest": d})
        except Exception as e:  # noqa: BLE001 - the report shows the failure and goes on
            out["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
