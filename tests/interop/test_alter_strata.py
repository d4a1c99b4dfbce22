"""Schema evolution by strata: strata alters the table (``FileSystemCatalog::alter_table``, driven
through ``crates/strata/examples/alter_table.rs`` until the SQL front end has ``ALTER TABLE``), data is
written before and after by strata, and pypaimon, pypaimon-rust and Java Paimon read every row back.

* append table, partitioned: add a column AFTER another, rename, widen INT -> BIGINT, FLOAT -> DOUBLE,
  VARCHAR(5) -> VARCHAR(20), drop, set an option; pypaimon / pypaimon-rust read strata's files of
  both schemas (``test_peers_read_strata_alters``), and so does Java, which then writes a commit of
  its own in the new schema that strata reads (``test_java_reads_and_writes_after_strata_alters``);
* primary-key table: widen, rename a value and the key column, drop, add; updates after the alter
  merge with the old file; ``strata compact --full`` rewrites the old file into the new schema;
* the schema file strata writes is the one Java's ``SchemaManager`` writes for the same changes on the
  same schema (every member but ``timeMillis``), and both refuse the same changes
  (``test_same_schema_as_java`` / ``test_same_refusals_as_java``, Java 2.0.0 whose source strata's
  ``SchemaChange`` mirrors).

The alter binary is built with cargo (``cargo build -p strata --example alter_table``, the profile of
``STRATA_BIN``) unless ``STRATA_ALTER_BIN`` names one.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

from interop_support import warehouse
from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import write_input
from interop_support.flows import assert_all_read
from interop_support.java_oracle import JavaOracle, JavaOracleError, java, rows_json  # noqa: F401

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def alter_bin(strata_bin) -> str:
    env = os.environ.get("STRATA_ALTER_BIN")
    if env:
        return env
    release = Path(strata_bin).parent.name == "release"
    cmd = ["cargo", "build", "-q", "-p", "strata", "--example", "alter_table"] + (["--release"] if release else [])
    done = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"building the alter example failed:\n{done.stderr[-3000:]}", pytrace=False)
    return str(REPO_ROOT / "target" / ("release" if release else "debug") / "examples" / "alter_table")


def strata_alter(alter_bin: str, wh: str, ident: str, changes: list, check: bool = True):
    done = subprocess.run([alter_bin, wh, ident, json.dumps(changes)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"strata alter of {ident} failed: {done.stderr}\nchanges: {changes}")
    return done


# ---- append table -------------------------------------------------------------------------------

SCHEMA = {
    "fields": [
        {"name": "dt", "type": "STRING"},
        {"name": "id", "type": "BIGINT"},
        {"name": "name", "type": "STRING"},
        {"name": "amount", "type": "INT"},
        {"name": "price", "type": "FLOAT"},
        {"name": "code", "type": "VARCHAR(5)"},
        {"name": "gone", "type": "STRING"},
    ],
    "partitionKeys": ["dt"],
    "options": {"bucket": "-1"},
}
C1 = pa.table({
    "dt": ["a", "b", "a"], "id": pa.array([1, 2, 3], pa.int64()), "name": ["n1", None, "n3"],
    "amount": pa.array([10, None, -3], pa.int32()), "price": pa.array([1.5, 0.25, None], pa.float32()),
    "code": ["abcde", "x", None], "gone": ["g1", "g2", "g3"],
})
CHANGES = [
    {"op": "addColumn", "name": "extra", "type": "STRING", "description": "added", "after": "name"},
    {"op": "renameColumn", "name": "name", "newName": "full_name"},
    {"op": "updateColumnType", "name": "amount", "type": "BIGINT"},
    {"op": "updateColumnType", "name": "price", "type": "DOUBLE"},
    {"op": "updateColumnType", "name": "code", "type": "VARCHAR(20)"},
    {"op": "dropColumn", "name": "gone"},
    {"op": "setOption", "key": "snapshot.num-retained.min", "value": "3"},
]
S1 = pa.schema([("dt", pa.string()), ("id", pa.int64()), ("full_name", pa.string()), ("extra", pa.string()),
                ("amount", pa.int64()), ("price", pa.float64()), ("code", pa.string())])
C2 = pa.table({
    "dt": ["b", "c"], "id": pa.array([4, 5], pa.int64()), "full_name": ["n4", None], "extra": ["e4", None],
    "amount": pa.array([5_000_000_000, None], pa.int64()), "price": pa.array([2.5, -1.0], pa.float64()),
    "code": ["a-much-longer-code", "y"],
}, schema=S1)


def c1_as_s1() -> pa.Table:
    return pa.table({
        "dt": C1["dt"], "id": C1["id"], "full_name": C1["name"], "extra": pa.nulls(3, pa.string()),
        "amount": C1["amount"].cast(pa.int64()), "price": C1["price"].cast(pa.float64()), "code": C1["code"],
    }, schema=S1)


def build_append(strata, alter_bin, inputs, ident="db.ev"):
    strata.create_table(ident, SCHEMA)
    strata.write(ident, [write_input(C1, "parquet", inputs / "c1.parquet")])
    strata_alter(alter_bin, strata.warehouse, ident, CHANGES)
    strata.write(ident, [write_input(C2, "parquet", inputs / "c2.parquet")])


@pytest.mark.cli_write
def test_peers_read_strata_alters(strata, alter_bin, inputs):
    build_append(strata, alter_bin, inputs)
    assert warehouse.schema_ids(strata.warehouse, "db.ev") == [0, 1]
    schema = warehouse.schema_json(strata.warehouse, "db.ev")
    assert [f["name"] for f in schema["fields"]] == S1.names
    assert schema["highestFieldId"] == 7 and schema["fields"][3]["id"] == 7  # extra: a new id
    assert schema["fields"][2]["id"] == 2  # full_name kept name's id
    expected = canonical_lines(pa.concat_tables([c1_as_s1(), C2]))
    assert_all_read(strata, "db.ev", expected)
    # The snapshot before the alter reads with the schema it was committed with.
    assert_all_read(strata, "db.ev", canonical_lines(C1), snapshot=1)


@pytest.mark.java
def test_java_reads_and_writes_after_strata_alters(java, strata, alter_bin, inputs):
    build_append(strata, alter_bin, inputs)
    expected = pa.concat_tables([c1_as_s1(), C2])
    assert_same_rows(java.read(strata.warehouse, "db.ev"), canonical_lines(expected), f"Java {java.version}")
    c3 = pa.table({"dt": ["a"], "id": pa.array([6], pa.int64()), "full_name": ["n6"], "extra": ["e6"],
                   "amount": pa.array([7], pa.int64()), "price": pa.array([0.5]), "code": ["zz"]}, schema=S1)
    java.write(strata.warehouse, "db.ev", rows_json(c3))
    both = canonical_lines(pa.concat_tables([expected, c3]))
    assert_same_rows(java.read(strata.warehouse, "db.ev"), both, f"Java {java.version} after its write")
    assert_all_read(strata, "db.ev", both)


# ---- primary-key table --------------------------------------------------------------------------

PK_SCHEMA = {
    "fields": [
        {"name": "id", "type": "BIGINT NOT NULL"},
        {"name": "v", "type": "INT"},
        {"name": "name", "type": "STRING"},
        {"name": "gone", "type": "STRING"},
    ],
    "primaryKeys": ["id"],
    "options": {"bucket": "2", "write-only": "true"},
}
PK1 = pa.table({"id": pa.array([1, 2, 3, 4], pa.int64()), "v": pa.array([10, 20, None, 40], pa.int32()),
                "name": ["a", "b", "c", "d"], "gone": ["g1", "g2", "g3", "g4"]})
PK_CHANGES = [
    {"op": "updateColumnType", "name": "v", "type": "BIGINT"},
    {"op": "renameColumn", "name": "name", "newName": "label"},
    {"op": "renameColumn", "name": "id", "newName": "key"},
    {"op": "dropColumn", "name": "gone"},
    {"op": "addColumn", "name": "note", "type": "STRING"},
]
PK_S1 = pa.schema([("key", pa.int64()), ("v", pa.int64()), ("label", pa.string()), ("note", pa.string())])
PK2 = pa.table({"key": pa.array([2, 3, 5], pa.int64()), "v": pa.array([9_000_000_000, 33, None], pa.int64()),
                "label": ["B", "C", "E"], "note": ["n2", None, "n5"]}, schema=PK_S1)
PK_EXPECTED = canonical_lines(pa.table({
    "key": pa.array([1, 2, 3, 4, 5], pa.int64()), "v": pa.array([10, 9_000_000_000, 33, 40, None], pa.int64()),
    "label": ["a", "B", "C", "d", "E"], "note": [None, "n2", None, None, "n5"]}, schema=PK_S1))


def build_pk(strata, alter_bin, inputs, ident="db.pk"):
    strata.create_table(ident, PK_SCHEMA)
    strata.write(ident, [write_input(PK1, "parquet", inputs / "pk1.parquet")])
    strata_alter(alter_bin, strata.warehouse, ident, PK_CHANGES)
    strata.write(ident, [write_input(PK2, "parquet", inputs / "pk2.parquet")])


@pytest.mark.cli_compaction
def test_peers_read_strata_altered_primary_key_table(strata, alter_bin, inputs):
    build_pk(strata, alter_bin, inputs)
    assert warehouse.schema_json(strata.warehouse, "db.pk")["primaryKeys"] == ["key"]
    assert_all_read(strata, "db.pk", PK_EXPECTED)
    strata.run("compact", "db.pk", "--full")
    files = strata.files("db.pk")
    assert files and {f["schemaId"] for f in files} == {1}, files
    assert_all_read(strata, "db.pk", PK_EXPECTED)


@pytest.mark.java
def test_java_reads_strata_altered_primary_key_table(java, strata, alter_bin, inputs):
    build_pk(strata, alter_bin, inputs)
    assert_same_rows(java.read(strata.warehouse, "db.pk"), PK_EXPECTED, f"Java {java.version}")
    strata.run("compact", "db.pk", "--full")
    assert_same_rows(java.read(strata.warehouse, "db.pk"), PK_EXPECTED, f"Java {java.version} after compaction")


# ---- the same schema and the same refusals as Java 2.0.0 ----------------------------------------

@pytest.fixture(scope="module")
def java2():
    try:
        oracle = JavaOracle("2.0.0")
    except JavaOracleError as e:
        pytest.fail(str(e), pytrace=False)
    yield oracle
    oracle.close()


RICH_SCHEMA = {
    "fields": [
        {"name": "id", "type": "BIGINT NOT NULL"},
        {"name": "dt", "type": "STRING"},
        {"name": "name", "type": "STRING", "description": "the name"},
        {"name": "price", "type": "INT"},
        {"name": "r", "type": "ROW<x INT, y STRING>"},
        {"name": "m", "type": "MAP<STRING NOT NULL, INT>"},
        {"name": "tags", "type": "ARRAY<INT>"},
    ],
    "partitionKeys": ["dt"], "primaryKeys": ["id", "dt"],
    "options": {"bucket": "2", "sequence.field": "price", "manifest.target-file-size": "4mb",
                "fields.m.map.storage-layout": "shared-shredding", "fields.price.ignore-retract": "true"},
    "comment": "rich",
}
RICH_CHANGES = [
    [
        {"op": "addColumn", "name": "extra", "type": "DOUBLE", "description": "added", "after": "name"},
        {"op": "addColumn", "name": "first_col", "type": "ROW<a INT, b ROW<c STRING>>", "first": True},
        {"op": "addColumn", "path": ["r", "z"], "type": "BIGINT"},
        {"op": "renameColumn", "name": "name", "newName": "full_name"},
        {"op": "renameColumn", "name": "id", "newName": "key_id"},
        {"op": "renameColumn", "name": "price", "newName": "amount"},
        {"op": "renameColumn", "name": "m", "newName": "attrs"},
        {"op": "renameColumn", "path": ["r", "x"], "newName": "x2"},
        {"op": "updateColumnType", "name": "amount", "type": "BIGINT"},
        {"op": "updateColumnType", "path": ["attrs", "value"], "type": "BIGINT"},
        {"op": "updateColumnType", "path": ["tags", "element"], "type": "BIGINT"},
        {"op": "dropColumn", "path": ["r", "y"]},
        {"op": "setOption", "key": "snapshot.num-retained.min", "value": "5"},
        {"op": "removeOption", "key": "manifest.target-file-size"},
    ],
    [
        {"op": "dropColumn", "name": "extra"},
        {"op": "updateColumnType", "name": "full_name", "type": "VARCHAR(100)", "keepNullability": True},
        {"op": "addColumn", "name": "extra", "type": "DECIMAL(10, 2)"},
        {"op": "dropColumn", "name": "attrs"},
    ],
]


def without_time(doc: dict) -> dict:
    """The schema without ``timeMillis`` and the ``path`` option Java's catalog adds on load."""
    out = {k: v for k, v in doc.items() if k != "timeMillis"}
    out["options"] = {k: v for k, v in doc.get("options", {}).items() if k != "path"}
    return out


@pytest.mark.java
def test_same_schema_as_java(java2, strata, alter_bin, tmp_path):
    """One schema-0 (created by strata), the same changes applied by strata in one warehouse and by
    Java in a copy of it: the schema files agree member by member (Java writes options in HashMap
    order, strata sorted; the JSON is compared as values)."""
    strata.create_table("db.t", RICH_SCHEMA)
    java_wh = str(tmp_path / "java-wh")
    shutil.copytree(strata.warehouse, java_wh)
    for i, changes in enumerate(RICH_CHANGES, start=1):
        strata_alter(alter_bin, strata.warehouse, "db.t", changes)
        java2.alter_table(java_wh, "db.t", changes)
        ours = warehouse.schema_json(strata.warehouse, "db.t", i)
        theirs = warehouse.schema_json(java_wh, "db.t", i)
        assert without_time(ours) == without_time(theirs), f"schema-{i}"
        # And Java loads strata's file as its own.
        assert without_time(java2.schema(strata.warehouse, "db.t")) == without_time(theirs)


REFUSED_BY_BOTH = [
    [{"op": "dropColumn", "name": "dt"}],
    [{"op": "dropColumn", "name": "id"}],
    [{"op": "renameColumn", "name": "dt", "newName": "day"}],
    [{"op": "updateColumnType", "name": "id", "type": "INT"}],
    [{"op": "updateColumnType", "name": "dt", "type": "INT"}],
    [{"op": "updateColumnType", "name": "v", "type": "DATE"}],
    [{"op": "addColumn", "name": "v", "type": "INT"}],
    [{"op": "addColumn", "name": "n", "type": "INT NOT NULL"}],
    [{"op": "addColumn", "name": "n", "type": "INT", "after": "ghost"}],
    [{"op": "dropColumn", "name": "ghost"}],
    [{"op": "renameColumn", "name": "v", "newName": "s"}],
    [{"op": "renameColumn", "name": "ghost", "newName": "g"}],
    [{"op": "updateColumnType", "name": "v", "type": "BIGINT NOT NULL"}],
    [{"op": "setOption", "key": "merge-engine", "value": "first-row"}],
    [{"op": "setOption", "key": "bucket", "value": "-1"}],
    [{"op": "removeOption", "key": "bucket"}],
    [{"op": "setOption", "key": "type", "value": "format-table"}],
    [{"op": "setOption", "key": "sequence.field", "value": "ghost"}],
]
# Java accepts these; strata refuses them, saying why (it cannot read the old files as Java would,
# or does not implement the option). A new bucket count is accepted as Java does (test_postpone.py).
REFUSED_BY_STRATA_ONLY = [
    ([{"op": "updateColumnType", "name": "v", "type": "SMALLINT"}], "strata cannot yet read"),
    ([{"op": "updateColumnType", "name": "s", "type": "INT"}], "strata cannot yet read"),
    ([{"op": "setOption", "key": "partition.expiration-time", "value": "7 d"}],
     "partition.expiration-time"),
]


@pytest.mark.java
def test_same_refusals_as_java(java2, strata, alter_bin, inputs, tmp_path):
    schema = {"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "dt", "type": "STRING"},
                         {"name": "v", "type": "INT"}, {"name": "s", "type": "STRING"},
                         {"name": "x", "type": "INT"}],
              "partitionKeys": ["dt"], "primaryKeys": ["id", "dt"], "options": {"bucket": "2"}}
    strata.create_table("db.r", schema)
    rows = pa.table({"id": pa.array([1], pa.int64()), "dt": ["a"], "v": pa.array([1], pa.int32()),
                     "s": ["s"], "x": pa.array([2], pa.int32())})
    strata.write("db.r", [write_input(rows, "parquet", inputs / "r.parquet")])
    java_wh = str(tmp_path / "java-wh")
    shutil.copytree(strata.warehouse, java_wh)
    for changes in REFUSED_BY_BOTH:
        done = strata_alter(alter_bin, strata.warehouse, "db.r", changes, check=False)
        assert done.returncode != 0, f"strata accepted {changes}"
        assert done.stderr.strip(), changes
        with pytest.raises(JavaOracleError):
            java2.alter_table(java_wh, "db.r", changes)
    assert warehouse.schema_ids(strata.warehouse, "db.r") == [0]
    assert warehouse.schema_ids(java_wh, "db.r") == [0]
    for i, (changes, why) in enumerate(REFUSED_BY_STRATA_ONLY):
        done = strata_alter(alter_bin, strata.warehouse, "db.r", changes, check=False)
        assert done.returncode != 0 and why in done.stderr, (changes, done.stderr)
        copy = str(tmp_path / f"java-wh-{i}")
        shutil.copytree(strata.warehouse, copy)
        java2.alter_table(copy, "db.r", changes)  # Java accepts it
    assert warehouse.schema_ids(strata.warehouse, "db.r") == [0]
