"""Column backfill on a data-evolution table (issue 31): bytes written and time to set one INT
column of every row, by strata (`strata update-columns`: one file of that column per row-id
range) and Java Paimon 2.0 (its partial-column writer, the oracle's
`Paimon2RowTracking.updateColumns` as Flink's `DataEvolutionPartialWriteOperator`), against
rewriting the table with strata (`strata write --overwrite` of every row with the new column).

    STRATA_BIN=target/debug/strata .interop-venv/bin/python bench/column_backfill.py [ROWS]

Times here include process start (strata's CLI) and the oracle's JSON rows (Java): for timings
use bench/column_backfill.sh (in-process on both sides, release build, medians).
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "interop"))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from interop_support.java_oracle import JavaOracle  # noqa: E402
from interop_support.strata_cli import Strata  # noqa: E402

SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
               {"id": 1, "name": "name", "type": "STRING"},
               {"id": 2, "name": "a", "type": "INT"},
               {"id": 3, "name": "b", "type": "STRING"},
               {"id": 4, "name": "c", "type": "DOUBLE"},
               {"id": 5, "name": "score", "type": "INT"}],
    "partitionKeys": [], "primaryKeys": [],
    "options": {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true"},
}


def live_bytes(java, wh, ident):
    meta = java.call("Paimon2RowTracking.meta", warehouse=wh, table=ident)
    return {f["fileName"]: f for f in meta["files"]}


def main():
    import os
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    strata_bin = os.environ.get("STRATA_BIN", str(ROOT / "target" / "debug" / "strata"))
    tmp = Path(tempfile.mkdtemp(prefix="backfill-"))
    wh = str(tmp / "wh")
    java = JavaOracle("2.0.0")
    strata = Strata(strata_bin, wh, tmp / "scratch")
    rows = [{"id": i, "name": f"user-{i:08d}", "a": i % 1000, "b": f"b-{i * 7919 % 100003}",
             "c": i / 7.0, "score": 0} for i in range(n)]
    results = []
    for who in ("strata", "java"):
        ident = f"db.t_{who}"
        java.create_table(wh, ident, SCHEMA)
        java.write(wh, ident, rows)
        before = live_bytes(java, wh, ident)
        table_bytes = sum(f["fileSize"] for f in before.values())
        t0 = time.perf_counter()
        if who == "strata":
            f = tmp / "scores.parquet"
            pq.write_table(pa.table({"_ROW_ID": pa.array(range(n), pa.int64()),
                                     "score": pa.array([i % 97 for i in range(n)], pa.int32())}), f)
            strata.run("update-columns", ident, str(f))
        else:
            java.call("Paimon2RowTracking.updateColumns", warehouse=wh, table=ident,
                      columns=["score"], rows=[{"_ROW_ID": i, "score": i % 97} for i in range(n)])
        elapsed = time.perf_counter() - t0
        after = live_bytes(java, wh, ident)
        written = sum(f["fileSize"] for k, f in after.items() if k not in before)
        results.append((who, table_bytes, written, elapsed))
    # Rewriting the table instead: every row again with the new column (strata, INSERT OVERWRITE).
    ident = "db.t_rewrite"
    java.create_table(wh, ident, SCHEMA)
    java.write(wh, ident, rows)
    before = live_bytes(java, wh, ident)
    f = tmp / "rows.parquet"
    pq.write_table(pa.Table.from_pylist([dict(r, score=r["id"] % 97) for r in rows]), f)
    t0 = time.perf_counter()
    strata.write(ident, [str(f)], overwrite=True)
    elapsed = time.perf_counter() - t0
    after = live_bytes(java, wh, ident)
    written = sum(f["fileSize"] for k, f in after.items() if k not in before)
    results.append(("strata rewrite", sum(f["fileSize"] for f in before.values()), written, elapsed))
    java.close()
    print(json.dumps({"rows": n, "results": [
        {"writer": w, "table_bytes": t, "bytes_written": b, "seconds": round(s, 3)}
        for w, t, b, s in results]}, indent=1))


if __name__ == "__main__":
    main()
