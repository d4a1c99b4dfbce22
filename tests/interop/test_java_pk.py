"""Primary-key tables between strata and Java Paimon 1.4.2 / 2.0.0, both directions.

Every case of ``pk.PK_CASES`` (deduplicate with overlapping commits, composite keys with bucket=4,
partitioned, dynamic bucket with and without partitions, ``rowkind.field`` deletes/updates with and
without ``ignore-delete``, partial-update plain and with sequence groups, aggregation over every
function, first-row, ``sequence.field``):

* strata writes it (each write compacting as Java's batch writer does) -> Java reads the merge
  model after every write, and ``strata files`` equals Java's live files (partition, bucket, level,
  name, size, keys, sequence numbers, delete counts, file source);
* Java writes it (``BatchWriteBuilder``; dynamic buckets from a ``HashBucketAssigner``) -> strata
  reads the model after every commit; same files both ways;
* strata and Java alternate commits on one table (sequence numbers, bucket hashing and the
  dynamic-bucket HASH index continue across engines);
* Java compacts a strata table (``BatchTableWrite.compact(partition, bucket, true)``), strata reads
  it and keeps writing, strata compacts (``strata compact --full``), Java reads.

Row kinds given per row through the API (no ``rowkind.field``) are written by Java and read by
strata.  Expected rows always come from ``pk.merge_model``.
"""
from __future__ import annotations

import dataclasses

import pyarrow as pa
import pytest

from interop_support import pk, warehouse
from interop_support.canonical import assert_same_rows
from interop_support.compaction import max_level
from interop_support.java_flows import assert_same_files, write
from interop_support.java_oracle import java, rows_json  # noqa: F401  (fixture)

pytestmark = pytest.mark.java

CASE_NAMES = sorted(pk.CASES)


def expected(case: pk.PkCase, strata, ident, snapshot=None, n=None):
    """The model after ``n`` commits.  A batch read of a first-row table skips level 0: nothing
    while every file is at level 0, the merged rows once none is; a mix has no model here."""
    if not case.reads_empty:
        return case.merged_lines(n)
    levels = {f["level"] for f in strata.files(ident, snapshot=snapshot)}
    if levels <= {0}:
        return []
    assert 0 not in levels, f"first-row {case.name}: level-0 and upper-level files mixed at {snapshot}"
    return case.merged_lines(n)


def assert_case_read(case, strata, java, ident, n=None, snapshot=None, what=""):
    exp = expected(case, strata, ident, snapshot=snapshot, n=n)
    at = f" at snapshot {snapshot}" if snapshot is not None else ""
    assert_same_rows(java.read(strata.warehouse, ident, snapshot=snapshot), exp,
                     f"Java {java.version} read of {case.name}{at}{what}")
    assert_same_rows(strata.read_lines(ident, snapshot=snapshot), exp, f"strata read of {case.name}{at}{what}")


def _java_write(java, strata, ident, case, data):
    return java.write(strata.warehouse, ident, rows_json(data))


@pytest.mark.parametrize("case_name", CASE_NAMES)
def test_strata_writes_java_reads(java, strata, inputs, case_name):
    case = pk.CASES[case_name]
    per_write = pk.build_strata(strata, "db.t", case, inputs)
    for n, sids in enumerate(per_write, start=1):
        assert_case_read(case, strata, java, "db.t", n=n, snapshot=sids[-1])
    assert_case_read(case, strata, java, "db.t")
    assert_same_files(strata, java, "db.t")


@pytest.mark.parametrize("case_name", CASE_NAMES)
def test_java_writes_strata_reads(java, strata, inputs, case_name):
    case = pk.CASES[case_name]
    java.create_table(strata.warehouse, "db.t", pk.pk_schema_json(case))
    last = []
    for n, data in enumerate(case.commits, start=1):
        last.append(_java_write(java, strata, "db.t", case, data))
        assert_case_read(case, strata, java, "db.t", n=n, what=f" after Java commit {n}")
    for n, sid in enumerate(last, start=1):
        assert_case_read(case, strata, java, "db.t", n=n, snapshot=sid)
    assert_same_files(strata, java, "db.t")


@pytest.mark.parametrize("case_name", CASE_NAMES)
def test_alternating_commits(java, strata, inputs, case_name):
    """Commits alternate strata, Java, strata, ...; both read the model after each one."""
    case = pk.CASES[case_name]
    strata.create_table("db.t", pk.pk_schema_json(case))
    for n, data in enumerate(case.commits, start=1):
        writer = "strata" if n % 2 else "java"
        if writer == "strata":
            pk.strata_write_commit(strata, "db.t", data, "parquet", inputs, f"c{n}")
        else:
            _java_write(java, strata, "db.t", case, data)
        assert_case_read(case, strata, java, "db.t", n=n, what=f" after commit {n} by {writer}")
    assert_same_files(strata, java, "db.t")


@pytest.mark.parametrize("case_name", ["dedup_basic", "part_bucket2", "dynamic_part", "aggregation",
                                       "partial_update_seq_group", "first_row", "rowkind"])
def test_compaction_across_engines(java, strata, inputs, case_name):
    """strata writes (write-only: all level 0), Java fully compacts, strata reads and writes on,
    strata fully compacts, Java reads; files agree at every step, and full compactions leave
    every file at the max level."""
    case = pk.with_options(pk.CASES[case_name], {"write-only": "true"})
    top = max_level(case.options)
    strata.create_table("db.t", pk.pk_schema_json(case))
    k = len(case.commits) - 1
    for n, data in enumerate(case.commits[:k], start=1):
        pk.strata_write_commit(strata, "db.t", data, "parquet", inputs, f"c{n}")
    java.compact(strata.warehouse, "db.t", full=True)
    files = assert_same_files(strata, java, "db.t")
    assert {f["level"] for f in files} == {top}, files
    assert warehouse.snapshot_json(strata.warehouse, "db.t",
                                   warehouse.snapshot_ids(strata.warehouse, "db.t")[-1])["commitKind"] == "COMPACT"
    assert_case_read(case, strata, java, "db.t", n=k, what=" after Java's full compaction")
    pk.strata_write_commit(strata, "db.t", case.commits[k], "parquet", inputs, "last")
    if not case.reads_empty:
        assert_case_read(case, strata, java, "db.t", what=" after strata wrote over Java's compaction")
    strata.run("compact", "db.t", "--full")
    files = assert_same_files(strata, java, "db.t")
    assert {f["level"] for f in files} == {top}, files
    assert_case_read(case, strata, java, "db.t", what=" after strata's full compaction")
    # Java compacts once more (nothing to merge: upgrades only) and keeps the rows
    java.compact(strata.warehouse, "db.t", full=True)
    assert_case_read(case, strata, java, "db.t", what=" after Java's second full compaction")
    assert_same_files(strata, java, "db.t")


def test_row_kinds_through_the_api(java, strata):
    """Java writes the rowkind case's records with their kinds set on the rows (no rowkind.field);
    strata reads the model after every commit."""
    case = pk.CASES["rowkind"]
    opts = {k: v for k, v in case.options.items() if k != "rowkind.field"}
    plain = dataclasses.replace(case, options=opts)
    java.create_table(strata.warehouse, "db.t", pk.pk_schema_json(plain))
    for n, data in enumerate(case.commits, start=1):
        java.write(strata.warehouse, "db.t", rows_json(data, row_kind_column="rk"))
        exp = case.merged_lines(n)       # the model of the case WITH rowkind.field: same kinds
        assert_same_rows(strata.read_lines("db.t"), exp, f"strata read after Java commit {n}")
        assert_same_rows(java.read(strata.warehouse, "db.t"), exp, f"Java read after commit {n}")
    assert_same_files(strata, java, "db.t")


def test_stream_writer_commits(java, strata, inputs):
    """One Java StreamWriteBuilder writer commits three times into a strata dynamic-bucket table;
    strata reads each snapshot, then writes on."""
    case = pk.CASES["dynamic"]
    strata.create_table("db.t", pk.pk_schema_json(case))
    pk.strata_write_commit(strata, "db.t", case.commits[0], "parquet", inputs, "c0")
    sids = java.write_commits(strata.warehouse, "db.t", [rows_json(c) for c in case.commits[1:4]])
    assert len(sids) == 3 and sids == sorted(sids)
    for n, sid in enumerate(sids, start=2):
        assert_same_rows(strata.read_lines("db.t", snapshot=sid), case.merged_lines(n), f"strata at {sid}")
    pk.strata_write_commit(strata, "db.t", case.commits[4], "parquet", inputs, "c4")
    assert_case_read(case, strata, java, "db.t")
    assert_same_files(strata, java, "db.t")
