"""strata and Spark 3.5 (Paimon's ``SparkCatalog``, paimon-spark-3.5 0.9.0) on the same tables.

* strata writes append and primary-key tables (partitioned, fixed buckets), compacts them, and
  Spark reads the model after every commit; Spark's ``$files`` lists exactly strata's live files
  (bucket, level, name, row count);
* Spark creates and writes tables (``CREATE TABLE``/``INSERT``/``INSERT OVERWRITE``), strata reads
  the model and lists the same files;
* Spark compacts a strata table (``CALL sys.compact``), strata reads it and keeps writing;
* alternating writers on one primary-key table: strata write, Spark write, strata compact, Java
  compact, strata write, every read by strata, Spark and Java;
* lifecycle: Spark tags, expires and rolls back a strata table (``sys.create_tag``,
  ``sys.expire_snapshots``, ``sys.rollback``) and strata reads it; strata tags, expires and rolls
  back and Spark reads (``VERSION AS OF``);
* schema evolution done by Spark (ADD / RENAME / DROP COLUMN, INT -> BIGINT) read by strata;
* tables created, altered, merged and rewritten copy-on-write by ``strata sql``, read by Spark;
* a strata writer and a Spark writer committing 50 times each to one table at the same time.

Expected rows always come from the test's model, never from one engine's output.
"""
from __future__ import annotations

import datetime as dt
import itertools
import threading
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pyarrow as pa
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import paimon_schema_json, write_input
from interop_support.sql_flows import SCHEMA, Model, _seq, create_strata, rows, strata_write, values_sql
from interop_support.java_oracle import VERSIONS, JavaOracle, JavaOracleError
from interop_support.spark import spark  # noqa: F401  (fixture)

pytestmark = pytest.mark.spark

def spark_read(spark, strata, ident: str, version: Optional[str] = None,
               schema: pa.Schema = SCHEMA) -> List[str]:
    at = f" VERSION AS OF {version}" if version is not None else ""
    return canonical_lines(spark.arrow(f"SELECT * FROM {spark.table(strata.warehouse, ident)}{at}", schema))


def assert_same_files(spark, strata, ident: str) -> List[dict]:
    """Spark's ``$files`` and ``strata files`` list the same files at the same levels."""
    keys = ("bucket", "level", "fileName", "rowCount")
    ours = sorted(({k: f[k] for k in keys} for f in strata.files(ident)), key=lambda r: r["fileName"])
    theirs = sorted(({k: f[k] for k in keys} for f in spark.files(strata.warehouse, ident)),
                    key=lambda r: r["fileName"])
    assert ours == theirs, f"strata files and Spark $files of {ident} differ:\n{ours}\n{theirs}"
    return ours


# ---- strata writes, Spark reads ------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["append", "append_bucket", "pk"])
def test_strata_writes_spark_reads(spark, strata, kind):
    ident = "db.t"
    pk = kind == "pk"
    options = {"bucket": "2"} if kind != "append" else {}
    if kind == "append_bucket":
        options["bucket-key"] = "k"
    create_strata(strata, ident, pk, options)
    model = Model(["k", "dt"] if pk else None)
    for i, keys in enumerate([range(0, 40), range(20, 60), range(50, 51)]):
        data = rows(keys, f"c{i}")
        strata_write(strata, ident, data)
        model.commit(data)
        assert_same_rows(spark_read(spark, strata, ident), model.lines(), f"Spark read after commit {i + 1}")
        assert_same_files(spark, strata, ident)
    # time travel by snapshot id
    assert_same_rows(spark_read(spark, strata, ident, version="1"), model.lines(1), "Spark read of snapshot 1")
    # INSERT OVERWRITE by strata (dynamic partition overwrite of 2026-01-02)
    data = rows([1, 3, 5], "ow", dts=("2026-01-02",))
    strata_write(strata, ident, data, overwrite=True)
    model.rows = [r for r in model.rows if r["dt"] != "2026-01-02"] + data.to_pylist()
    assert_same_rows(spark_read(spark, strata, ident), model.lines(), "Spark read after strata's overwrite")
    if pk:
        strata.run("compact", ident, "--full")
        files = assert_same_files(spark, strata, ident)
        assert {f["level"] for f in files} == {5}, files
        assert_same_rows(spark_read(spark, strata, ident), model.lines(), "Spark read after strata compact --full")


# ---- Spark writes, strata reads ------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["append", "pk"])
def test_spark_writes_strata_reads(spark, strata, kind):
    ident = "db.t"
    t = spark.table(strata.warehouse, ident)
    spark.run(f"CREATE DATABASE IF NOT EXISTS {spark.catalog(strata.warehouse)}.db")
    props = "'primary-key' = 'k,dt', 'bucket' = '2'" if kind == "pk" else "'bucket' = '-1'"
    spark.run(f"CREATE TABLE {t} (k INT NOT NULL, dt STRING NOT NULL, v STRING, n BIGINT, x DOUBLE) "
              f"PARTITIONED BY (dt) TBLPROPERTIES ({props})")
    model = Model(["k", "dt"] if kind == "pk" else None)
    for i, keys in enumerate([range(0, 30), range(10, 45)]):
        data = rows(keys, f"s{i}")
        spark.run(f"INSERT INTO {t} VALUES {values_sql(data)}")
        model.commit(data)
        assert_same_rows(strata.read_lines(ident), model.lines(), f"strata read after Spark commit {i + 1}")
        assert_same_files(spark, strata, ident)
    # INSERT OVERWRITE of one partition by Spark
    data = rows([2, 4], "sow", dts=("2026-01-01",))
    spark.run(f"INSERT OVERWRITE {t} PARTITION (dt = '2026-01-01') "
              f"SELECT k, v, n, x FROM VALUES {values_sql(data.drop_columns(['dt']))} AS s(k, v, n, x)")
    model.rows = [r for r in model.rows if r["dt"] != "2026-01-01"] + data.to_pylist()
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read after Spark's INSERT OVERWRITE")
    # strata keeps writing the Spark table; Spark reads it
    data = rows(range(40, 50), "after")
    strata_write(strata, ident, data)
    if kind == "pk":
        model.commit(data)
    else:
        model.rows += data.to_pylist()
    assert_same_rows(spark_read(spark, strata, ident), model.lines(), "Spark read after strata's commit")
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read after its own commit")


# ---- Spark compacts a strata table -----------------------------------------------------------------

def test_spark_compacts_strata_table(spark, strata):
    ident = "db.t"
    create_strata(strata, ident, pk=True, options={"bucket": "2", "num-sorted-run.compaction-trigger": "10"})
    model = Model(["k", "dt"])
    for i in range(4):
        data = rows(range(i * 10, i * 10 + 25), f"w{i}")
        strata_write(strata, ident, data)
        model.commit(data)
    assert 0 in {f["level"] for f in strata.files(ident)}
    spark.call(strata.warehouse, "compact", table=ident)
    files = assert_same_files(spark, strata, ident)
    # num-levels defaults to num-sorted-run.compaction-trigger + 1: the max level is 10
    assert {f["level"] for f in files} == {10}, f"Spark's full compaction left {files}"
    assert strata.snapshots(ident)[-1]["commitKind"] == "COMPACT"
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read after Spark's compaction")
    # strata keeps writing on top of Spark's level-5 files and compacts again
    data = rows(range(5, 15), "after")
    strata_write(strata, ident, data)
    model.commit(data)
    strata.run("compact", ident, "--full")
    assert_same_files(spark, strata, ident)
    assert_same_rows(spark_read(spark, strata, ident), model.lines(), "Spark read after strata's compaction")
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read after its compaction")


# ---- alternating writers: strata, Spark, Java --------------------------------------------------------

@pytest.fixture(scope="module")
def java_latest():
    try:
        oracle = JavaOracle(VERSIONS[-1])
    except JavaOracleError as e:
        pytest.fail(str(e), pytrace=False)
    yield oracle
    oracle.close()


def test_alternating_writers(spark, strata, java_latest):
    """strata write, Spark write, strata compact, Java compact, strata write: all read alike."""
    ident = "db.t"
    java = java_latest
    create_strata(strata, ident, pk=True, options={"bucket": "2"})
    t = spark.table(strata.warehouse, ident)
    model = Model(["k", "dt"])

    def check(what: str) -> None:
        expected = model.lines()
        assert_same_rows(strata.read_lines(ident), expected, f"strata read after {what}")
        assert_same_rows(spark_read(spark, strata, ident), expected, f"Spark read after {what}")
        assert_same_rows(java.read(strata.warehouse, ident), expected, f"Java {java.version} read after {what}")
        assert_same_files(spark, strata, ident)

    data = rows(range(0, 30), "strata1")
    strata_write(strata, ident, data)
    model.commit(data)
    check("strata's write")
    data = rows(range(20, 50), "spark1")
    spark.run(f"INSERT INTO {t} VALUES {values_sql(data)}")
    model.commit(data)
    check("Spark's write")
    strata.run("compact", ident, "--full")
    check("strata's compaction")
    data = rows(range(45, 60), "spark2")
    spark.run(f"INSERT INTO {t} VALUES {values_sql(data)}")
    model.commit(data)
    java.compact(strata.warehouse, ident, full=True)
    check("Java's compaction")
    data = rows(range(0, 60, 3), "strata2")
    strata_write(strata, ident, data)
    model.commit(data)
    check("strata's second write")
    kinds = [s["commitKind"] for s in strata.snapshots(ident)]
    assert kinds.count("COMPACT") >= 2, kinds


# ---- lifecycle -----------------------------------------------------------------------------------

def test_spark_tags_expires_and_rolls_back_a_strata_table(spark, strata):
    ident = "db.t"
    create_strata(strata, ident, pk=True, options={"bucket": "1"})
    model = Model(["k", "dt"])
    latest = []   # the latest snapshot id after each write (a write may add a COMPACT snapshot)
    for i in range(5):
        data = rows(range(i * 5, i * 5 + 12), f"l{i}")
        strata_write(strata, ident, data)
        model.commit(data)
        latest.append(strata.snapshots(ident)[-1]["id"])
    spark.call(strata.warehouse, "create_tag", table=ident, tag="two", snapshot=latest[1])
    tags = strata.json_lines("tags", ident)
    assert [(t["name"], t["snapshotId"]) for t in tags] == [("two", latest[1])], tags
    assert_same_rows(canonical_lines(strata_read_tag(strata, ident, "two")), model.lines(2),
                     "strata read of Spark's tag")
    all_ids = [s["id"] for s in strata.snapshots(ident)]
    spark.call(strata.warehouse, "expire_snapshots", table=ident, retain_max=2)
    ids = [s["id"] for s in strata.snapshots(ident)]
    assert ids == all_ids[-2:], ids
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read after Spark's expiry")
    assert_same_rows(canonical_lines(strata_read_tag(strata, ident, "two")), model.lines(2),
                     "strata read of the tag after expiry")
    spark.call(strata.warehouse, "rollback", table=ident, version="two")
    assert_same_rows(strata.read_lines(ident), model.lines(2), "strata read after Spark's rollback to the tag")
    # strata keeps writing after the rollback
    model.rows = list(model.history[1])
    data = rows(range(100, 105), "after")
    strata_write(strata, ident, data)
    model.commit(data)
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read after writing on the rollback")
    assert_same_rows(spark_read(spark, strata, ident), model.lines(), "Spark read after strata's write")


def strata_read_tag(strata, ident: str, tag: str) -> pa.Table:
    import pyarrow.parquet as pq
    out = Path(strata.scratch) / f"tag-{next(_seq)}.parquet"
    strata.run("read", ident, "--tag", tag, "--format", "parquet", "--output", str(out))
    return pq.read_table(out)


def test_strata_tags_expires_and_rolls_back_spark_reads(spark, strata):
    ident = "db.t"
    create_strata(strata, ident, pk=False)
    model = Model()
    for i in range(4):
        data = rows(range(i * 10, i * 10 + 10), f"m{i}")
        strata_write(strata, ident, data)
        model.commit(data)
    assert [s["id"] for s in strata.snapshots(ident)] == [1, 2, 3, 4]   # append table: one per write
    strata.run("create-tag", ident, "t1", "--snapshot", "1")
    strata.run("create-tag", ident, "t3", "--snapshot", "3")
    strata.run("expire-snapshots", ident, "--retain-max", "1", "--retain-min", "1")
    assert [s["id"] for s in strata.snapshots(ident)] == [4]
    tags = {r[0] for r in spark.run(f"SELECT tag_name FROM {spark.table(strata.warehouse, ident, 'tags')}")}
    assert tags == {"t1", "t3"}, tags
    assert_same_rows(spark_read(spark, strata, ident, version="'t1'"), model.lines(1), "Spark read of tag t1")
    assert_same_rows(spark_read(spark, strata, ident, version="'t3'"), model.lines(3), "Spark read of tag t3")
    assert_same_rows(spark_read(spark, strata, ident), model.lines(), "Spark read of the latest snapshot")
    strata.run("rollback", ident, "--to-tag", "t3")
    assert_same_rows(spark_read(spark, strata, ident), model.lines(3), "Spark read after strata's rollback")
    # Spark writes on top of strata's rollback
    data = rows(range(500, 505), "sp")
    spark.run(f"INSERT INTO {spark.table(strata.warehouse, ident)} VALUES {values_sql(data)}")
    expected = canonical_lines(pa.Table.from_pylist(model.history[2] + data.to_pylist(), schema=SCHEMA))
    assert_same_rows(strata.read_lines(ident), expected, "strata read after Spark's write on the rollback")


# ---- schema evolution by Spark ---------------------------------------------------------------------

def test_schema_evolution_by_spark(spark, strata):
    ident = "db.t"
    schema = pa.schema([pa.field("id", pa.int32(), nullable=False), pa.field("a", pa.int32()),
                        pa.field("b", pa.string()), pa.field("c", pa.float64())])
    strata.create_table(ident, paimon_schema_json(schema))
    first = pa.table({"id": [1, 2], "a": [10, None], "b": ["x", "y"], "c": [0.5, None]}, schema=schema)
    strata_write(strata, ident, first)
    t = spark.table(strata.warehouse, ident)
    spark.run(f"ALTER TABLE {t} ADD COLUMNS (d STRING)")
    spark.run(f"INSERT INTO {t} VALUES (3, 30, 'z', 1.5, 'd3')")
    spark.run(f"ALTER TABLE {t} RENAME COLUMN b TO b2")
    spark.run(f"ALTER TABLE {t} ALTER COLUMN a TYPE BIGINT")
    spark.run(f"ALTER TABLE {t} DROP COLUMN c")
    spark.run(f"INSERT INTO {t} VALUES (4, 40000000000, 'w', 'd4')")
    final = pa.schema([pa.field("id", pa.int32(), nullable=False), pa.field("a", pa.int64()),
                       pa.field("b2", pa.string()), pa.field("d", pa.string())])
    expected = canonical_lines(pa.Table.from_pylist([
        {"id": 1, "a": 10, "b2": "x", "d": None}, {"id": 2, "a": None, "b2": "y", "d": None},
        {"id": 3, "a": 30, "b2": "z", "d": "d3"}, {"id": 4, "a": 40000000000, "b2": "w", "d": "d4"},
    ], schema=final))
    got = strata.read_arrow(ident)
    assert got.schema.names == final.names, got.schema
    assert got.schema.field("a").type == pa.int64(), got.schema
    assert_same_rows(canonical_lines(got), expected, "strata read after Spark's schema changes")
    # strata writes with the evolved schema; Spark reads it
    strata_write(strata, ident, pa.table({"id": [5], "a": [5], "b2": ["v"], "d": ["d5"]}, schema=final))
    expected = sorted(expected + canonical_lines(pa.table({"id": [5], "a": [5], "b2": ["v"], "d": ["d5"]},
                                                          schema=final)))
    assert_same_rows(canonical_lines(spark.arrow(f"SELECT * FROM {t}", final)), expected,
                     "Spark read after strata's write in the evolved schema")


def test_tables_written_by_strata_sql_read_by_spark(spark, strata):
    """``strata sql``: CREATE, INSERT, ALTER TABLE (add, rename, widen), MERGE INTO on a
    primary-key table, copy-on-write DELETE / UPDATE on an append table; Spark reads the model."""
    strata.run("sql", "-e", """
        CREATE TABLE db.pk (id INT NOT NULL, v STRING, n INT, PRIMARY KEY (id) NOT ENFORCED)
            WITH ('bucket' = '2');
        INSERT INTO db.pk VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3);
        ALTER TABLE db.pk ADD COLUMN extra STRING;
        ALTER TABLE db.pk RENAME COLUMN v TO label;
        ALTER TABLE db.pk ALTER COLUMN n SET DATA TYPE BIGINT;
        CREATE TABLE db.src (id INT, label STRING, n BIGINT);
        INSERT INTO db.src VALUES (1, 'A', 10), (3, NULL, NULL), (4, 'D', 40);
        MERGE INTO db.pk t USING db.src s ON t.id = s.id
            WHEN MATCHED AND s.label IS NULL THEN DELETE
            WHEN MATCHED THEN UPDATE SET label = s.label, n = s.n, extra = 'merged'
            WHEN NOT MATCHED THEN INSERT (id, label, n) VALUES (s.id, s.label, s.n);
        CREATE TABLE db.log (id INT NOT NULL, kind STRING, dt STRING NOT NULL) PARTITIONED BY (dt);
        INSERT INTO db.log VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'b', 'y');
        DELETE FROM db.log WHERE id = 2;
        UPDATE db.log SET kind = 'B' WHERE kind = 'b';
    """)
    pk = pa.schema([pa.field("id", pa.int32(), nullable=False), pa.field("label", pa.string()),
                    pa.field("n", pa.int64()), pa.field("extra", pa.string())])
    expected = canonical_lines(pa.Table.from_pylist([
        {"id": 1, "label": "A", "n": 10, "extra": "merged"},
        {"id": 2, "label": "b", "n": 2, "extra": None},
        {"id": 4, "label": "D", "n": 40, "extra": None},
    ], schema=pk))
    t = spark.table(strata.warehouse, "db.pk")
    assert_same_rows(canonical_lines(spark.arrow(f"SELECT * FROM {t}", pk)), expected,
                     "Spark reads the SQL-altered, merged primary-key table")
    log = pa.schema([pa.field("id", pa.int32(), nullable=False), pa.field("kind", pa.string()),
                     pa.field("dt", pa.string(), nullable=False)])
    expected = canonical_lines(pa.Table.from_pylist([
        {"id": 1, "kind": "a", "dt": "x"}, {"id": 3, "kind": "B", "dt": "y"}], schema=log))
    t = spark.table(strata.warehouse, "db.log")
    assert_same_rows(canonical_lines(spark.arrow(f"SELECT * FROM {t}", log)), expected,
                     "Spark reads the append table strata rewrote copy-on-write")
    assert_same_files(spark, strata, "db.log")


# ---- concurrency -----------------------------------------------------------------------------------

def test_concurrent_commits_strata_and_spark(spark, strata):
    """50 strata commits and 50 Spark commits at the same time: all 100 land, none is lost."""
    ident = "db.t"
    create_strata(strata, ident, pk=False)
    t = spark.table(strata.warehouse, ident)
    spark.run(f"SELECT count(*) FROM {t}")   # load the catalog before the race
    n = 50
    batches = {w: [rows(range(base + i * 10, base + i * 10 + 10), f"{w}{i}") for i in range(n)]
               for w, base in (("strata", 0), ("spark", 100_000))}
    inputs = [write_input(b, "parquet", Path(strata.scratch) / f"conc-{i}.parquet")
              for i, b in enumerate(batches["strata"])]
    errors: List[BaseException] = []

    def strata_side():
        try:
            for f in inputs:
                strata.write(ident, [f])
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    th = threading.Thread(target=strata_side)
    th.start()
    for b in batches["spark"]:
        spark.run(f"INSERT INTO {t} VALUES {values_sql(b)}")
    th.join()
    assert not errors, errors
    snaps = strata.snapshots(ident)
    assert [s["id"] for s in snaps] == list(range(1, 2 * n + 1)), [s["id"] for s in snaps]
    assert all(s["commitKind"] == "APPEND" for s in snaps)
    assert sum(s["deltaRecordCount"] for s in snaps) == 2 * n * 10
    expected = canonical_lines(pa.concat_tables(batches["strata"] + batches["spark"]))
    assert_same_rows(strata.read_lines(ident), expected, "strata read after the race")
    assert_same_rows(spark_read(spark, strata, ident), expected, "Spark read after the race")


# ---- merge engines other than deduplicate -------------------------------------------------------

MERGE_ENGINES = {
    "partial-update": {"merge-engine": "partial-update"},
    "aggregation": {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
                    "fields.x.aggregate-function": "max"},
    "first-row": {"merge-engine": "first-row"},
}


def merge(engine: str, old: Optional[dict], new: dict) -> dict:
    """One key's row after ``new`` meets ``old`` under ``engine`` (Paimon's merge functions:
    partial-update keeps non-NULL fields, aggregation sums ``n``, keeps the max ``x`` and the last
    non-NULL ``v``, first-row keeps the first)."""
    if old is None:
        return dict(new)
    if engine == "first-row":
        return old
    out = dict(old)
    for c in ("v", "n", "x"):
        if new[c] is None:
            continue
        if engine == "aggregation" and c == "n" and old[c] is not None:
            out[c] = old[c] + new[c]
        elif engine == "aggregation" and c == "x" and old[c] is not None:
            out[c] = max(old[c], new[c])
        else:
            out[c] = new[c]
    return out


@pytest.mark.parametrize("engine", sorted(MERGE_ENGINES))
def test_merge_engines_with_alternating_writers(spark, strata, engine):
    """strata and Spark commit in turn to a table of each merge engine; after every commit both
    read the rows the merge function gives, and after strata's and Spark's compactions too."""
    ident = "db.t"
    create_strata(strata, ident, pk=True, options={"bucket": "2", **MERGE_ENGINES[engine]})
    t = spark.table(strata.warehouse, ident)
    state: Dict[tuple, dict] = {}
    for i, (writer, keys) in enumerate([("strata", range(0, 30)), ("spark", range(15, 45)),
                                        ("strata", range(10, 20)), ("spark", range(0, 50, 3))]):
        data = rows(keys, f"{writer[0]}{i}")
        if engine == "partial-update":
            # NULL fields must not overwrite what earlier commits wrote
            data = data.set_column(3, "n", pa.array([None if k % 2 else v for k, v in
                                                     zip(keys, data.column("n").to_pylist())], pa.int64()))
        if writer == "strata":
            strata_write(strata, ident, data)
        else:
            spark.run(f"INSERT INTO {t} VALUES {values_sql(data)}")
        for r in data.to_pylist():
            key = (r["k"], r["dt"])
            state[key] = merge(engine, state.get(key), r)
        want = canonical_lines(pa.Table.from_pylist(list(state.values()), schema=SCHEMA))
        assert_same_rows(strata.read_lines(ident), want, f"{engine}: strata read after {writer}'s commit {i + 1}")
        assert_same_rows(spark_read(spark, strata, ident), want, f"{engine}: Spark read after {writer}'s commit {i + 1}")
    strata.run("compact", ident, "--full")
    assert_same_rows(spark_read(spark, strata, ident), want, f"{engine}: Spark read after strata's compaction")
    spark.call(strata.warehouse, "compact", table=ident)
    assert_same_rows(strata.read_lines(ident), want, f"{engine}: strata read after Spark's compaction")
    assert_same_files(spark, strata, ident)
