"""Writes to a fixed-bucket table whose ``bucket`` Java changed (issue 29, item 1, write side).

Java lets a user change a fixed-bucket table's ``bucket`` (``ALTER TABLE ... SET ('bucket' =
'4')``) and keeps old partitions in their old bucket count until they are overwritten; every
manifest entry records its own ``totalBuckets``.  Java then refuses a write -- and a compaction
(its ``CompactAction`` writer checks the same) -- into such a partition: "Try to write partition
... with a new bucket num 4, but the previous bucket num is 2".  strata used to report success
and leave an updated key in two buckets.  Now it refuses with Java's message, commits nothing,
and an INSERT OVERWRITE of the partition (``strata write --overwrite --partition``) rescales it;
Java reads the result and writes on.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import write_input
from interop_support.java_oracle import JavaOracleError, java, rows_json  # noqa: F401  (fixture)

pytestmark = pytest.mark.java

SCHEMA = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("dt", pa.string(), nullable=False),
                    pa.field("v", pa.string())])
MESSAGE = ("Try to write partition dt=1 with a new bucket num 4, but the previous bucket num is 2. "
           "Please switch to batch mode, and perform INSERT OVERWRITE to rescale current data layout first.")


def rows(keys, dt: str, tag: str) -> pa.Table:
    keys = list(keys)
    return pa.table({"k": pa.array(keys, pa.int32()), "dt": [dt] * len(keys),
                     "v": [f"{tag}-{k}" for k in keys]}, schema=SCHEMA)


def schema_doc(pk: bool) -> dict:
    return {"fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "dt", "type": "STRING NOT NULL"},
                       {"name": "v", "type": "STRING"}],
            "partitionKeys": ["dt"], "primaryKeys": ["k", "dt"] if pk else [],
            "options": {"bucket": "2"} if pk else {"bucket": "2", "bucket-key": "k"}}


@pytest.mark.parametrize("pk", [True, False], ids=["primary_key", "append"])
def test_write_into_a_rescaled_partition_is_refused_until_overwritten(java, strata, pk):
    wh, ident = strata.warehouse, "db.rs"
    java.create_table(wh, ident, schema_doc(pk))
    java.write(wh, ident, rows_json(rows(range(0, 40), "1", "one")))
    java.alter_table(wh, ident, [{"op": "setOption", "key": "bucket", "value": "4"}])
    # Java itself refuses the write.
    with pytest.raises(JavaOracleError, match="with a new bucket num 4, but the previous bucket num is 2"):
        java.write(wh, ident, rows_json(rows(range(0, 10), "1", "java")))
    snapshots = strata.snapshots(ident)
    scratch = Path(strata.scratch)
    two = write_input(rows(range(0, 40), "1", "two"), "parquet", scratch / "two.parquet")
    p = strata.write(ident, [two], check=False)
    assert p.returncode != 0 and MESSAGE in p.stderr, p.stderr
    if pk:
        # A compaction of it is refused as Java's is (its compaction writer checks the same).
        with pytest.raises(JavaOracleError, match="with a new bucket num 4"):
            java.compact(wh, ident, full=True)
        p = strata.run("compact", ident, "--full", check=False)
        assert p.returncode != 0 and "with a new bucket num 4" in p.stderr, p.stderr
    assert strata.snapshots(ident) == snapshots
    one = canonical_lines(rows(range(0, 40), "1", "one"))
    assert_same_rows(java.read(wh, ident), one, f"Java {java.version} after the refused writes")
    # INSERT OVERWRITE of the partition rescales it; Java reads it and writes on.
    strata.write(ident, [two], overwrite=True, partition={"dt": "1"})
    totals = {f["totalBuckets"] for f in java.files(wh, ident)}
    assert totals == {4}, totals
    expected = canonical_lines(rows(range(0, 40), "1", "two"))
    assert_same_rows(java.read(wh, ident), expected, f"Java {java.version} after strata's overwrite")
    assert_same_rows(strata.read_lines(ident), expected, "strata after its overwrite")
    java.write(wh, ident, rows_json(rows(range(30, 50), "1", "java")))
    three = write_input(rows(range(45, 60), "1", "three"), "parquet", scratch / "three.parquet")
    strata.write(ident, [three])
    if pk:
        model = {r["k"]: r for t in (rows(range(0, 40), "1", "two"), rows(range(30, 50), "1", "java"),
                                     rows(range(45, 60), "1", "three")) for r in t.to_pylist()}
        expected = canonical_lines(pa.Table.from_pylist(list(model.values()), schema=SCHEMA))
    else:
        expected = canonical_lines(pa.concat_tables([rows(range(0, 40), "1", "two"),
                                                     rows(range(30, 50), "1", "java"),
                                                     rows(range(45, 60), "1", "three")]))
    assert_same_rows(java.read(wh, ident), expected, f"Java {java.version} after both wrote on")
    assert_same_rows(strata.read_lines(ident), expected, "strata after both wrote on")
