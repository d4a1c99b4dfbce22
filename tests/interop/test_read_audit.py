"""Tables Java Paimon 1.4.2 / 2.0.0 writes with features that change what a read must return,
read by strata exactly as Java reads them -- or refused, by name, before any row is printed
(issue 29: "never silently wrong on any table another engine writes").

* a fixed-bucket table whose ``bucket`` was changed (``ALTER TABLE ... SET ('bucket' = '4')``):
  old partitions keep their bucket count, so point reads hash each key with every entry's own
  ``totalBuckets``;
* ``scan.*`` options stored in the table (``scan.snapshot-id``, ``scan.tag-name``,
  ``scan.mode = compacted-full``, ``scan.file-creation-time-millis``): strata's read equals
  Java's read of the same table;
* ``data-file.external-paths`` (files outside the table directory), ``data-file.path-directory``,
  ``partition.default-name``, ``file.suffix.include.compression``: the same rows as Java;
* ``bucket = -2`` (postpone) tables: the rows Java's batch read sees (real buckets only), and no
  error about a ``bucket--2`` directory;
* data-evolution and row-tracking tables (``row-tracking.enabled``, ``data-evolution.enabled``):
  the rows Java reads (``test_row_tracking`` covers the row ids and partial-column files).

Expected rows come from each case's model; Java's own read is checked against it too.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List

import pyarrow as pa
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.java_oracle import java, rows_json  # noqa: F401  (fixture)
from interop_support.strata_cli import StrataError

pytestmark = pytest.mark.java

SCHEMA = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("dt", pa.string(), nullable=False),
                    pa.field("v", pa.string())])


def rows(keys, dt: str, tag: str) -> pa.Table:
    keys = list(keys)
    return pa.table({"k": pa.array(keys, pa.int32()), "dt": [dt] * len(keys),
                     "v": [f"{tag}-{k}" for k in keys]}, schema=SCHEMA)


def schema_doc(pk: bool, options: Dict[str, str], partitioned: bool = True) -> dict:
    return {"fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "dt", "type": "STRING NOT NULL"},
                       {"name": "v", "type": "STRING"}],
            "partitionKeys": ["dt"] if partitioned else [],
            "primaryKeys": ["k", "dt"] if pk else [], "options": options}


def model_lines(*tables: pa.Table) -> List[str]:
    return canonical_lines(pa.concat_tables(tables))


def sql_lines(strata, query: str) -> List[str]:
    """``strata sql -e QUERY --format parquet``: the result's canonical lines (the SQL front end
    plans through the same scans as ``strata read``)."""
    out = strata.scratch / f"sql-{abs(hash(query))}.parquet"
    strata.run("sql", "-e", query, "--format", "parquet", "--output", str(out))
    import pyarrow.parquet as pq
    return canonical_lines(pq.read_table(out))


def test_point_reads_of_a_rescaled_table(java, strata, wh):
    ident = "db.rescaled"
    java.create_table(wh, ident, schema_doc(True, {"bucket": "2"}))
    java.write(wh, ident, rows_json(rows(range(0, 60), "a", "one")))
    java.alter_table(wh, ident, [{"op": "setOption", "key": "bucket", "value": "4"}])
    java.write(wh, ident, rows_json(rows(range(60, 120), "b", "two")))
    totals = {(str(f["partition"]), f["totalBuckets"]) for f in java.files(wh, ident)}
    assert {t for _, t in totals} == {2, 4}, totals
    expected = model_lines(rows(range(0, 60), "a", "one"), rows(range(60, 120), "b", "two"))
    assert java.read(wh, ident) == expected
    assert strata.read_lines(ident) == expected
    missing = []
    for k in range(0, 120, 3):
        got = strata.read_arrow(ident, where=f"k = {k}").column("k").to_pylist()
        if got != [k]:
            missing.append((k, got))
    assert not missing, f"point reads of keys written before the ALTER found nothing: {missing}"
    # SQL: the same point reads through DataFusion's filter pushdown.
    for k in (0, 7, 33, 59, 61, 118):
        assert sql_lines(strata, f"SELECT k, dt, v FROM db.rescaled WHERE k = {k}") == [
            line for line in expected if f'"k":{k},' in line], k


def test_scan_options_stored_in_the_table(java, strata, wh):
    ident = "db.scanopts"
    java.create_table(wh, ident, schema_doc(True, {"bucket": "1"}, partitioned=False))
    one, two, three = rows(range(0, 10), "x", "one"), rows(range(5, 20), "x", "two"), rows(range(100, 105), "x", "three")
    s1 = java.write(wh, ident, rows_json(one))
    java.create_tag(wh, ident, "t1", snapshot=s1)
    java.write(wh, ident, rows_json(two))
    java.compact(wh, ident, full=True)
    java.write(wh, ident, rows_json(three))
    compacted = model_lines(one.slice(0, 5), two)
    cases = [
        ({"scan.snapshot-id": str(s1)}, canonical_lines(one)),
        ({"scan.tag-name": "t1"}, canonical_lines(one)),
        ({"scan.mode": "compacted-full"}, compacted),
    ]
    for opts, expected in cases:
        java.alter_table(wh, ident, [{"op": "setOption", "key": k, "value": v} for k, v in opts.items()])
        assert java.read(wh, ident) == expected, f"Java with {opts}"
        assert strata.read_lines(ident) == expected, f"strata with {opts}"
        assert sql_lines(strata, "SELECT k, dt, v FROM db.scanopts") == expected, f"SQL with {opts}"
        java.alter_table(wh, ident, [{"op": "removeOption", "key": k} for k in opts])
    latest = model_lines(one.slice(0, 5), two, three)
    assert java.read(wh, ident) == latest
    assert strata.read_lines(ident) == latest


def test_external_paths_path_directory_default_partition_name(java, strata, wh, tmp_path):
    ext = tmp_path / "external"
    ext.mkdir()
    ident = "db.ext"
    java.create_table(wh, ident, schema_doc(False, {
        "bucket": "-1", "data-file.external-paths": f"file://{ext}",
        "data-file.external-paths.strategy": "round-robin"}))
    data = rows(range(0, 20), "a", "one")
    java.write(wh, ident, rows_json(data))
    outside = [p for p in ext.rglob("*.parquet")]
    assert outside, "Java wrote no file under the external path"
    assert java.read(wh, ident) == canonical_lines(data)
    assert strata.read_lines(ident) == canonical_lines(data)

    ident = "db.pathdir"
    java.create_table(wh, ident, schema_doc(True, {"bucket": "2", "data-file.path-directory": "data"}))
    java.write(wh, ident, rows_json(data))
    table_dir = Path(wh) / "db.db" / "pathdir"
    assert list((table_dir / "data").rglob("*.parquet")), "no data file under data-file.path-directory"
    assert strata.read_lines(ident) == canonical_lines(data)

    # A NULL partition value under another default name; file names with the compression.
    ident = "db.nullpart"
    nullable = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("dt", pa.string()),
                          pa.field("v", pa.string())])
    doc = schema_doc(False, {"bucket": "-1", "partition.default-name": "NO_DAY",
                             "file.suffix.include.compression": "true"})
    doc["fields"][1]["type"] = "STRING"
    java.create_table(wh, ident, doc)
    withnull = pa.table({"k": pa.array([1, 2, 3], pa.int32()), "dt": ["a", None, None],
                         "v": ["x", "y", "z"]}, schema=nullable)
    java.write(wh, ident, rows_json(withnull))
    assert (Path(wh) / "db.db" / "nullpart" / "dt=NO_DAY").is_dir()
    assert java.read(wh, ident) == canonical_lines(withnull)
    assert strata.read_lines(ident) == canonical_lines(withnull)
    assert strata.read_arrow(ident, where="dt IS NULL").num_rows == 2


def test_postpone_bucket_tables_read_their_real_buckets(java, strata, wh):
    ident = "db.postpone"
    java.create_table(wh, ident, schema_doc(True, {"bucket": "-2"}))
    java.write(wh, ident, rows_json(rows(range(0, 20), "a", "one")))
    dirs = {p.name for p in (Path(wh) / "db.db" / "postpone" / "dt=a").iterdir()}
    assert "bucket-postpone" in dirs, dirs
    # Java's batch read sees the real buckets only: nothing until a postpone compaction.
    theirs = java.read(wh, ident)
    assert strata.read_lines(ident) == theirs
    assert strata.read_arrow(ident, where="k = 3").num_rows == len([r for r in theirs if '"k":3,' in r])


def test_data_evolution_and_row_tracking_tables_read_as_java(java, strata, wh):
    # Data evolution: batch reads stitch the files of a row-id range (test_row_tracking has the
    # partial-column files); whole-row files read as Java reads them.
    ident = "db.evo"
    java.create_table(wh, ident, schema_doc(False, {
        "bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true"},
        partitioned=False))
    java.write(wh, ident, rows_json(rows(range(0, 5), "x", "one")))
    assert strata.read_lines(ident) == java.read(wh, ident)
    # Row tracking alone does not change the table's rows: read as Java reads it.
    ident = "db.rowtracking"
    java.create_table(wh, ident, schema_doc(False, {"bucket": "-1", "row-tracking.enabled": "true"},
                                           partitioned=False))
    data = rows(range(0, 5), "x", "one")
    java.write(wh, ident, rows_json(data))
    java.write(wh, ident, rows_json(rows(range(5, 8), "x", "two")))
    assert strata.read_lines(ident) == java.read(wh, ident)
