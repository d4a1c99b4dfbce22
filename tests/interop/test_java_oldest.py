"""The oldest Java Paimon line still deployed (1.0.1, ``java_oracle.OLDEST``) on the tables of the
default matrix: one append and one primary-key round trip, both directions, so a table an old
cluster writes and strata continues (and the reverse) is covered without running every
``test_java_*`` module a third time.  Its data files of every format are in
``test_java_formats.py``.

* a partitioned fixed-bucket append table: each engine writes it commit by commit; both read
  every snapshot; both list the same live files;
* a partitioned primary-key table (bucket 2): strata and Java 1.0 commit in turn; both read the
  merge model after every commit; same files (levels, keys, sequence numbers) both ways.
"""
from __future__ import annotations

import pytest

from interop_support import pk, warehouse
from interop_support.canonical import assert_same_rows
from interop_support.datagen import SHAPES, shape_schema_json
from interop_support.java_flows import assert_both_read, assert_same_files, create, write
from interop_support.java_oracle import OLDEST, java_fixture, rows_json

pytestmark = pytest.mark.java

java = java_fixture((OLDEST,))


@pytest.mark.parametrize("writer", ["strata", "java"])
def test_append_round_trip(java, strata, inputs, writer):
    shape = SHAPES["bucket_fixed_part"]
    create(writer, strata, java, "db.t", shape_schema_json(shape))
    for data in shape.commits:
        write(writer, strata, java, "db.t", data, inputs)
    n = len(shape.commits)
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == list(range(1, n + 1))
    assert_both_read(strata, java, "db.t", shape.expected_lines())
    for sid in range(1, n):
        assert_both_read(strata, java, "db.t", shape.expected_after(sid), snapshot=sid)
    files = assert_same_files(strata, java, "db.t")
    assert sum(f["rowCount"] for f in files) == shape.all_rows().num_rows


def test_primary_key_alternating_commits(java, strata, inputs):
    case = pk.CASES["part_bucket2"]
    strata.create_table("db.t", pk.pk_schema_json(case))
    for n, data in enumerate(case.commits, start=1):
        writer = "strata" if n % 2 else "java"
        if writer == "strata":
            pk.strata_write_commit(strata, "db.t", data, "parquet", inputs, f"c{n}")
        else:
            java.write(strata.warehouse, "db.t", rows_json(data))
        exp = case.merged_lines(n)
        assert_same_rows(java.read(strata.warehouse, "db.t"), exp,
                         f"Java {java.version} read after commit {n} by {writer}")
        assert_same_rows(strata.read_lines("db.t"), exp, f"strata read after commit {n} by {writer}")
    assert_same_files(strata, java, "db.t")
