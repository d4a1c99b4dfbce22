"""Data files of every format: partitioned tables Java Paimon 1.0.1 / 1.4.2 / 2.0.0 writes with
``file.format`` = parquet / orc / avro, read by strata.

Every column type (``all_types``: extremes, NULLs at every level, nested ARRAY/MAP/ROW, MAP with
INT keys -- an array of records in Avro --, DECIMAL in all physical widths, TIMESTAMP/LTZ; Avro
stores no timestamps finer than microseconds, so its tables leave out the precision-9 columns)
in partitioned append and primary-key tables, with updates, deletes and Java's full compaction;
projections and filters; a table whose ``file.format`` changed between commits, so one snapshot
holds Parquet, ORC and Avro files.  Java 1.0 is here because its files differ (its Avro writer
declares the top-level record as the union ``["null", record]``).  strata writes only Parquet:
on a Parquet table strata writes on and Java reads strata's commit; a write or compaction on an
ORC/Avro table is refused naming ``file.format``, with nothing committed.  Expected rows: the
canonical lines of the input (a model), never one engine's output -- Java's own read is checked
against the same model.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from interop_support.all_types import rows_table, schema_doc
from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import write_input
from interop_support.java_oracle import ALL_VERSIONS, java_fixture, rows_json
from interop_support.strata_cli import StrataError

pytestmark = pytest.mark.java

# Every Java line the suite knows, the oldest deployed one (1.0) included: data files are where
# the releases differ (1.0's Avro writer declares the record as a nullable union).
java = java_fixture(ALL_VERSIONS)

# Columns each format leaves out: Avro has no timestamp type finer than microseconds (Paimon's
# AvroSchemaConverter refuses TIMESTAMP(9)).
EXCLUDE = {"parquet": (), "orc": (), "avro": ("ts9", "ltz9")}
FORMATS = sorted(EXCLUDE)


_EPOCH = dt.datetime(1970, 1, 1)


def as_stored(t: pa.Table, fmt: str) -> pa.Table:
    """The rows an ``fmt`` file holds for input ``t``, as every reader (Java's, Apache ORC's C++
    one, strata) reads them back.  ORC differs from the input in two documented ways: CHAR(n)
    is blank-padded on disk and read with trailing blanks stripped (Hive's CHAR semantics, Java's
    ``CharTreeReader``), so trailing blanks of a CHAR value do not survive; and an ORC timestamp
    cannot hold an instant in the second before the Unix epoch with a fraction (ORC-763): Java's
    writer stores it one second later."""
    if fmt != "orc":
        return t
    rows = t.to_pylist()
    for r in rows:
        if r.get("c") is not None:
            r["c"] = r["c"].rstrip(" ")
        for name in ("ts0", "ts3", "ts6"):
            v = r.get(name)
            if v is not None and _EPOCH - dt.timedelta(seconds=1) < v < _EPOCH:
                r[name] = v + dt.timedelta(seconds=1)
    return pa.Table.from_pylist(rows, schema=t.schema)


def data_paths(wh: str, ident: str):
    db, name = ident.split(".")
    root = Path(wh) / f"{db}.db" / name
    return sorted(p for p in root.rglob("data-*") if p.is_file())


def data_files(wh: str, ident: str):
    return sorted(p.name for p in data_paths(wh, ident))


def assert_refuses_writes(strata, java, ident, data: pa.Table, fmt: str, expected, compact: bool = False):
    """strata writes only Parquet: a write or a compaction would put Parquet files into a table
    whose ``file.format`` says otherwise, so both are refused and nothing is committed."""
    before = len(strata.snapshots(ident))
    src = write_input(data, "parquet", Path(strata.scratch) / f"refused-{fmt}.parquet")
    with pytest.raises(StrataError, match="file.format"):
        strata.write(ident, [src])
    if compact:
        with pytest.raises(StrataError, match="file.format"):
            strata.run("compact", ident, "--full")
    assert len(strata.snapshots(ident)) == before
    assert_same_rows(java.read(strata.warehouse, ident), expected, f"{fmt}: Java read after the refused writes")


def _keyed(ids, gen, exclude):
    t = rows_table(ids, gen, exclude)
    t = t.append_column(pa.field("dkey", pa.date32(), nullable=False),
                        pa.array([dt.date(2024, 1, 1 + i % 3) for i in ids], pa.date32()))
    return t.append_column(pa.field("skey", pa.string(), nullable=False),
                           pa.array(["k-%d" % (i % 4) if i % 2 else "é%d" % i for i in ids]))


@pytest.mark.parametrize("fmt", FORMATS)
def test_append_table_written_by_java(java, strata, fmt):
    """A partitioned append table: strata reads Java's files of each commit, projections and a
    filter pushed into decoding; then strata writes on (Parquet) and Java reads that, or its
    write is refused (ORC, Avro)."""
    ident = "db.t"
    exclude = EXCLUDE[fmt]
    doc = schema_doc(partition_keys=("dkey",), options={"file.format": fmt}, exclude=exclude)
    doc["fields"] += [{"name": "dkey", "type": "DATE NOT NULL"}, {"name": "skey", "type": "STRING NOT NULL"}]
    java.create_table(strata.warehouse, ident, doc)
    commits = [_keyed(range(0, 16), 1, exclude), _keyed(range(16, 24), 2, exclude)]
    for data in commits:
        java.write(strata.warehouse, ident, rows_json(data))
    files = data_files(strata.warehouse, ident)
    assert files and all(f.endswith(f".{fmt}") for f in files), files
    assert len({p.parent.parent.name for p in data_paths(strata.warehouse, ident)}) == 3

    everything = as_stored(pa.concat_tables(commits), fmt)
    expected = canonical_lines(everything)
    assert_same_rows(strata.read_lines(ident), expected, f"{fmt}: strata read of Java's {fmt} files")
    assert_same_rows(java.read(strata.warehouse, ident), expected, f"{fmt}: Java {java.version} read")
    assert_same_rows(strata.read_lines(ident, snapshot=1), canonical_lines(as_stored(commits[0], fmt)),
                     f"{fmt}: strata at 1")
    cols = ["m_int", "id", "dec38", "r", "ltz6", "dkey"]
    assert_same_rows(strata.read_lines(ident, columns=cols), canonical_lines(everything.select(cols)),
                     f"{fmt}: strata projection")
    # A filter pushed into decoding keeps exactly the matching rows.
    mask = pc.and_(pc.greater_equal(everything["id"], 5), pc.is_valid(everything["s"]))
    assert_same_rows(strata.read_lines(ident, where="id >= 5 AND s IS NOT NULL"),
                     canonical_lines(everything.filter(mask)), f"{fmt}: strata filtered read")
    if fmt == "parquet":
        more = _keyed(range(24, 30), 3, exclude)
        strata.write(ident, [write_input(more, "parquet", Path(strata.scratch) / "more.parquet")])
        expected = canonical_lines(pa.concat_tables([everything, more]))
        assert_same_rows(java.read(strata.warehouse, ident), expected,
                         f"{fmt}: Java {java.version} read after strata's commit")
        assert_same_rows(strata.read_lines(ident), expected, f"{fmt}: strata read after its commit")
    else:
        assert_refuses_writes(strata, java, ident, commits[0], fmt, expected)


@pytest.mark.parametrize("fmt", FORMATS)
def test_primary_key_table_written_by_java(java, strata, fmt):
    """Updates across commits, deletes by row kind, then Java's full compaction: strata reads the
    merged rows from Java's level-0 runs and from the compacted files; then strata upserts
    (Parquet) and Java reads that, or its write and compaction are refused (ORC, Avro)."""
    ident = "db.t"
    exclude = EXCLUDE[fmt]
    doc = schema_doc(primary_keys=("dkey", "skey", "id"), partition_keys=("dkey",),
                     options={"bucket": "2", "file.format": fmt}, exclude=exclude)
    doc["fields"] += [{"name": "dkey", "type": "DATE NOT NULL"}, {"name": "skey", "type": "STRING NOT NULL"}]
    java.create_table(strata.warehouse, ident, doc)
    commits = [(_keyed(range(0, 12), 1, exclude), "+I"), (_keyed(range(6, 18), 2, exclude), "+U"),
               (_keyed(range(0, 20, 3), 3, exclude), "-D"), (_keyed(range(1, 20, 4), 4, exclude), "+U")]
    model = {}
    for n, (data, kind) in enumerate(commits, start=1):
        java.write(strata.warehouse, ident, rows_json(data, row_kinds=[kind] * data.num_rows))
        for r in data.to_pylist():
            key = (r["dkey"], r["skey"], r["id"])
            if kind == "-D":
                model.pop(key, None)
            else:
                model[key] = r
        expected = canonical_lines(as_stored(pa.Table.from_pylist(list(model.values()), schema=commits[0][0].schema),
                                             fmt))
        assert_same_rows(java.read(strata.warehouse, ident), expected, f"{fmt}: Java read after commit {n}")
        assert_same_rows(strata.read_lines(ident), expected, f"{fmt}: strata read after Java's commit {n}")
    java.compact(strata.warehouse, ident, full=True)
    assert all(f.endswith(f".{fmt}") for f in data_files(strata.warehouse, ident))
    assert_same_rows(strata.read_lines(ident), expected, f"{fmt}: strata read after Java's full compaction")
    assert_same_rows(strata.read_lines(ident, where="id < 10", columns=["id", "skey", "m"]),
                     canonical_lines(as_stored(pa.Table.from_pylist(
                         [r for r in model.values() if r["id"] < 10],
                         schema=commits[0][0].schema), fmt).select(["id", "skey", "m"])),
                     f"{fmt}: strata filtered projection after compaction")
    if fmt == "parquet":
        # strata upserts into Java's compacted table; Java reads strata's level-0 run over it.
        more = _keyed(range(0, 24, 2), 5, exclude)
        strata.write(ident, [write_input(more, "parquet", Path(strata.scratch) / "more.parquet")])
        for r in more.to_pylist():
            model[(r["dkey"], r["skey"], r["id"])] = r
        expected = canonical_lines(pa.Table.from_pylist(list(model.values()), schema=commits[0][0].schema))
        assert_same_rows(java.read(strata.warehouse, ident), expected,
                         f"{fmt}: Java {java.version} read after strata's upserts")
        assert_same_rows(strata.read_lines(ident), expected, f"{fmt}: strata read after its upserts")
    else:
        assert_refuses_writes(strata, java, ident, commits[0][0], fmt, expected, compact=True)


def test_one_snapshot_with_parquet_orc_and_avro_files(java, strata):
    """Paimon reads each file by its extension: after ``file.format`` changes, older files keep
    theirs.  strata writes Parquet, Java then switches the table to ORC, then to Avro; strata
    reads the three kinds of files of one primary-key bucket, merged by key, and of the
    snapshots in between."""
    ident = "db.t"
    schema = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("v", pa.string()),
                        pa.field("m", pa.map_(pa.int32(), pa.string()))])
    strata.create_table(ident, {"fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"},
                                           {"name": "m", "type": "MAP<INT, STRING>"}],
                                "primaryKeys": ["k"], "partitionKeys": [], "options": {"bucket": "1"}})

    def batch(keys, tag):
        keys = list(keys)
        return pa.table({"k": pa.array(keys, pa.int32()), "v": [f"{tag}-{k}" for k in keys],
                         "m": pa.array([[(k, tag)] for k in keys], pa.map_(pa.int32(), pa.string()))},
                        schema=schema)

    model = {}
    expected_at = []

    def commit(data):
        for r in data.to_pylist():
            model[r["k"]] = r
        expected_at.append(canonical_lines(pa.Table.from_pylist(list(model.values()), schema=schema)))

    first = batch(range(0, 30), "parquet")
    strata.write(ident, [write_input(first, "parquet", Path(strata.scratch) / "first.parquet")])
    commit(first)
    for fmt, keys in (("orc", range(10, 40)), ("avro", range(20, 50))):
        java.alter_table(strata.warehouse, ident, [{"op": "setOption", "key": "file.format", "value": fmt}])
        data = batch(keys, fmt)
        java.write(strata.warehouse, ident, rows_json(data))
        commit(data)
    kinds = {f.rsplit(".", 1)[1] for f in data_files(strata.warehouse, ident)}
    assert kinds == {"parquet", "orc", "avro"}, kinds
    assert_same_rows(java.read(strata.warehouse, ident), expected_at[-1], "Java read of the mixed table")
    assert_same_rows(strata.read_lines(ident), expected_at[-1], "strata read of the mixed table")
    by_commit = [s for s in strata.snapshots(ident) if s["commitKind"] == "APPEND"]
    assert len(by_commit) == len(expected_at), strata.snapshots(ident)
    for snap, expected in zip(by_commit, expected_at):
        assert_same_rows(strata.read_lines(ident, snapshot=snap["id"]), expected,
                         f"strata read at snapshot {snap['id']}")
