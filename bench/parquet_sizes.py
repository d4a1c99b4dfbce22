"""Data file sizes: strata vs Java Paimon 1.4.2 and 2.0.0 writing the same rows with the same
options (BENCHMARKS.md, "Parquet data file sizes").

Each shape is written once by each engine into its own warehouse (Java through the suite's Java
oracle, ``BatchWriteBuilder``; strata through its CLI), then the live data files are summed and
their footers inspected with pyarrow: bytes, files, rows, which columns carry a dictionary page,
and whether pyarrow sees min/max statistics on every DOUBLE column.

    .interop-venv/bin/python bench/parquet_sizes.py [--strata target/release/strata] [--shapes a,b]

Needs the interop venv and the Java oracle (``bash scripts/test.sh --interop-only`` builds both).
Exits non-zero if strata writes more bytes than Java 2.0 on a shape by more than 5 %, or if a DOUBLE
column of a strata file has no min/max pyarrow can use.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "interop"))

from interop_support.datagen import paimon_schema_json, write_input  # noqa: E402
from interop_support.java_oracle import VERSIONS, JavaOracle, rows_json  # noqa: E402
from interop_support.strata_cli import Strata  # noqa: E402


def shape_issue():
    """The issue's table: PK k INT sequential, v 'value-%08d', target-file-size 64 kb."""
    n = 12_000
    data = pa.table({"k": pa.array(range(n), pa.int32()),
                     "v": pa.array([f"value-{i:08d}" for i in range(n)])})
    schema = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("v", pa.string())])
    return schema, ["k"], {"bucket": "1", "target-file-size": "64 kb"}, [data.cast(schema)]


def shape_peers():
    """The peer workload columns (bench/gen_data.py), 100k rows, append table."""
    rng = np.random.default_rng(42)
    n = 100_000
    ids = np.arange(n, dtype=np.int64)
    rng.shuffle(ids)
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v_long", pa.int64()),
                        pa.field("v_double", pa.float64()), pa.field("v_str", pa.string()),
                        pa.field("v_int", pa.int32())])
    data = pa.table([pa.array(ids), pa.array(rng.integers(-(2 ** 62), 2 ** 62, size=n, dtype=np.int64)),
                     pa.array(rng.random(n) * 1e6),
                     pa.array([format(x, "016x") for x in rng.integers(0, 2 ** 63 - 1, size=n).tolist()]),
                     pa.array(rng.integers(-(2 ** 31), 2 ** 31 - 1, size=n, dtype=np.int32))], schema=schema)
    return schema, [], {"bucket": "-1"}, [data]


def shape_low_cardinality():
    """Repetitive columns next to unique ones: dictionaries must stay where they pay."""
    rng = np.random.default_rng(7)
    n = 100_000
    cities = np.array(["Paris", "Lyon", "Nice", "Lille", "Nantes", "Brest", "Metz", "Caen"])
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("city", pa.string()),
                        pa.field("status", pa.int32()), pa.field("price", pa.float64()),
                        pa.field("amount", pa.decimal128(10, 2)), pa.field("note", pa.string())])
    data = pa.table([pa.array(np.arange(n, dtype=np.int64)), pa.array(cities[rng.integers(0, 8, n)].tolist()),
                     pa.array(rng.integers(0, 5, n, dtype=np.int32)),
                     pa.array(np.round(rng.random(n) * 100, 1)),
                     pa.array([None if i % 10 == 0 else
                               __import__("decimal").Decimal(int(x)).scaleb(-2)
                               for i, x in enumerate(rng.integers(0, 10 ** 7, n).tolist())], pa.decimal128(10, 2)),
                     pa.array([f"order {i} for customer {i % 977}" for i in range(n)])], schema=schema)
    return schema, [], {"bucket": "-1"}, [data]


def shape_pk_updates():
    """A primary-key table with two overlapping commits, bucket 2, doubles and timestamps."""
    rng = np.random.default_rng(11)
    schema = pa.schema([pa.field("k", pa.int64(), nullable=False), pa.field("score", pa.float64()),
                        pa.field("tag", pa.string()), pa.field("ts", pa.timestamp("us"))])
    commits = []
    for c, (lo, hi) in enumerate([(0, 60_000), (30_000, 90_000)]):
        n = hi - lo
        commits.append(pa.table([pa.array(np.arange(lo, hi, dtype=np.int64)), pa.array(rng.normal(size=n)),
                                 pa.array([f"t{x}" for x in rng.integers(0, 50, n).tolist()]),
                                 pa.array((1_700_000_000_000_000 + np.arange(n) * 1_000_003 + c).astype("datetime64[us]"))],
                                schema=schema))
    return schema, ["k"], {"bucket": "2"}, commits


SHAPES = {"issue_pk_12k": shape_issue, "peers_100k": shape_peers, "low_cardinality_100k": shape_low_cardinality,
          "pk_updates_120k": shape_pk_updates}


def inspect(wh: str, ident: str, files: list) -> dict:
    db, t = ident.split(".")
    root = Path(wh) / f"{db}.db" / t
    total = rows = 0
    dict_cols, doubles_without_stats = set(), set()
    for f in files:
        path = next(root.rglob(f["fileName"]))
        total += path.stat().st_size
        md = pq.ParquetFile(path).metadata
        rows += md.num_rows
        for rg in range(md.num_row_groups):
            for c in range(md.num_columns):
                col = md.row_group(rg).column(c)
                if col.dictionary_page_offset is not None:
                    dict_cols.add(col.path_in_schema)
                if col.physical_type == "DOUBLE" and (col.statistics is None or not col.statistics.has_min_max):
                    doubles_without_stats.add(col.path_in_schema)
    return {"bytes": total, "files": len(files), "rows": rows, "dictionary": sorted(dict_cols),
            "doubles_without_min_max": sorted(doubles_without_stats)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--strata", default=str(ROOT / "target" / "release" / "strata"))
    ap.add_argument("--shapes", default=",".join(SHAPES))
    args = ap.parse_args()
    oracles = {v: JavaOracle(v) for v in VERSIONS}
    failed = False
    results = []
    try:
        for name in args.shapes.split(","):
            schema, pk, options, commits = SHAPES[name]()
            doc = paimon_schema_json(schema, [], options)
            doc["primaryKeys"] = pk
            row = {"shape": name}
            for engine in ["strata"] + [f"java-{v}" for v in VERSIONS]:
                with tempfile.TemporaryDirectory() as tmp:
                    wh = str(Path(tmp) / "wh")
                    Path(wh).mkdir()
                    strata = Strata(args.strata, wh, Path(tmp) / "scratch")
                    ident = "db.t"
                    if engine == "strata":
                        strata.create_table(ident, doc)
                        for i, data in enumerate(commits):
                            strata.write(ident, [write_input(data, "parquet", Path(tmp) / f"in{i}.parquet")])
                    else:
                        java = oracles[engine.split("-", 1)[1]]
                        java.create_table(wh, ident, doc)
                        for data in commits:
                            java.write(wh, ident, rows_json(data))
                    row[engine] = inspect(wh, ident, strata.files(ident))
            base = row[f"java-{VERSIONS[-1]}"]["bytes"]
            row["ratio_vs_java2"] = round(row["strata"]["bytes"] / base, 3)
            if row["ratio_vs_java2"] > 1.05 or row["strata"]["doubles_without_min_max"]:
                failed = True
            results.append(row)
            print(json.dumps(row), flush=True)
    finally:
        for o in oracles.values():
            o.close()
    print()
    print("| shape | engine | bytes | files | rows | dictionary columns | ratio vs Java 2.0 |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        base = r[f"java-{VERSIONS[-1]}"]["bytes"]
        for engine in ["strata"] + [f"java-{v}" for v in VERSIONS]:
            e = r[engine]
            print(f"| {r['shape']} | {engine} | {e['bytes']:,} | {e['files']} | {e['rows']:,} | "
                  f"{', '.join(e['dictionary']) or '-'} | {e['bytes'] / base:.3f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
