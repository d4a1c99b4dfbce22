"""Tables created and written through strata's SQL (``strata sql``) are ordinary Paimon tables:
pypaimon, Java Paimon and Spark (``paimon-spark-3.5``) read exactly the rows an independent model
holds after each script.

Covers DDL (primary key, partitioning, options), INSERT, upserts, UPDATE and DELETE written as
row kinds, MERGE INTO, static-partition INSERT OVERWRITE, ``CALL sys.compact``, time travel,
UPDATE / DELETE on an append table (copy-on-write rewrites of the touched files), and ALTER TABLE
(add, rename, widen, set an option) between writes.
"""
from __future__ import annotations

import decimal
import json
import subprocess

import pyarrow as pa
import pytest

from interop_support import engines, warehouse
from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.java_oracle import java  # noqa: F401  (fixture)
from interop_support.spark import spark  # noqa: F401  (fixture)

pytestmark = pytest.mark.cli_write

SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("dt", pa.string(), nullable=False),
    pa.field("amount", pa.decimal128(10, 2)),
    pa.field("note", pa.string()),
])


def sql(strata_bin: str, wh: str, text: str) -> list:
    r = subprocess.run([strata_bin, "--warehouse", wh, "sql", "--format", "jsonl", "-e", text],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"strata sql failed:\n{text}\n{r.stderr}"
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


def lines(model: dict) -> list:
    rows = [{"id": k[1], "dt": k[0], "amount": decimal.Decimal(a) if a is not None else None,
             "note": n} for k, (a, n) in sorted(model.items())]
    return canonical_lines(pa.Table.from_pylist(rows, schema=SCHEMA))


def check(java, spark, wh: str, model: dict, what: str) -> None:
    exp = lines(model)
    assert_same_rows(canonical_lines(engines.read_pypaimon(wh, "db.orders")), exp, f"pypaimon {what}")
    assert_same_rows(java.read(wh, "db.orders"), exp, f"Java {java.version} {what}")
    assert_same_rows(spark_lines(spark, wh, "db.orders", SCHEMA), exp, f"Spark {spark.version} {what}")


def spark_lines(spark, wh: str, ident: str, schema: pa.Schema, at: str = "") -> list:
    """Spark's rows of ``ident`` (``at``: e.g. `` VERSION AS OF 1``) as canonical lines."""
    return canonical_lines(spark.arrow(f"SELECT * FROM {spark.table(wh, ident)}{at}", schema))


def test_sql_written_primary_key_table_reads_the_same_everywhere(java, spark, strata_bin, wh):
    sql(strata_bin, wh, """
        CREATE TABLE db.orders (
            id BIGINT NOT NULL, dt STRING NOT NULL, amount DECIMAL(10, 2), note STRING,
            PRIMARY KEY (dt, id) NOT ENFORCED
        ) PARTITIONED BY (dt) WITH ('bucket' = '2', 'file.format' = 'parquet');
        INSERT INTO db.orders VALUES
            (1, 'd1', 1.50, 'a'), (2, 'd1', 2.00, 'b'), (3, 'd2', 3.25, NULL), (4, 'd2', 4.00, 'd');
    """)
    model = {("d1", 1): ("1.50", "a"), ("d1", 2): ("2.00", "b"),
             ("d2", 3): ("3.25", None), ("d2", 4): ("4.00", "d")}
    check(java, spark, wh, model, "after INSERT")

    sql(strata_bin, wh, """
        INSERT INTO db.orders VALUES (2, 'd1', 20.00, 'b2'), (5, 'd3', 5.00, 'e');
        UPDATE db.orders SET note = 'upd', amount = amount + 1 WHERE id IN (1, 3);
        DELETE FROM db.orders WHERE dt = 'd2' AND id = 4;
    """)
    model[("d1", 2)] = ("20.00", "b2")
    model[("d3", 5)] = ("5.00", "e")
    model[("d1", 1)] = ("2.50", "upd")
    model[("d2", 3)] = ("4.25", "upd")
    del model[("d2", 4)]
    check(java, spark, wh, model, "after upsert, UPDATE and DELETE")

    sql(strata_bin, wh, """
        INSERT OVERWRITE db.orders PARTITION (dt = 'd1') VALUES (9, 9.99, 'only');
        CALL sys.compact(table => 'db.orders', compact_strategy => 'full');
    """)
    for k in [k for k in model if k[0] == "d1"]:
        del model[k]
    model[("d1", 9)] = ("9.99", "only")
    check(java, spark, wh, model, "after static overwrite and full compaction")

    # Strata's own SQL agrees, and time travel still sees the first commit.
    got = sql(strata_bin, wh, "SELECT id, note FROM db.orders VERSION AS OF 1 ORDER BY id")
    assert got == [{"id": 1, "note": "a"}, {"id": 2, "note": "b"}, {"id": 3, "note": None},
                   {"id": 4, "note": "d"}]
    files = sql(strata_bin, wh, "SELECT count(*) AS n FROM db.orders")
    assert files == [{"n": len(model)}]


def test_sql_merge_into_reads_the_same_everywhere(java, spark, strata_bin, wh):
    sql(strata_bin, wh, """
        CREATE TABLE db.orders (
            id BIGINT NOT NULL, dt STRING NOT NULL, amount DECIMAL(10, 2), note STRING,
            PRIMARY KEY (dt, id) NOT ENFORCED
        ) PARTITIONED BY (dt) WITH ('bucket' = '2');
        INSERT INTO db.orders VALUES
            (1, 'd1', 1.00, 'a'), (2, 'd1', 2.00, 'b'), (3, 'd2', 3.00, 'c'), (4, 'd2', 4.00, 'd');
        CREATE TABLE db.changes (id BIGINT, dt STRING, amount DECIMAL(10, 2), op STRING);
        INSERT INTO db.changes VALUES
            (1, 'd1', 10.00, 'u'), (3, 'd2', NULL, 'd'), (7, 'd3', 7.00, 'i'), (8, 'd1', 8.00, 'i');
        MERGE INTO db.orders t USING db.changes s ON t.dt = s.dt AND t.id = s.id
            WHEN MATCHED AND s.op = 'd' THEN DELETE
            WHEN MATCHED THEN UPDATE SET amount = s.amount, note = 'merged'
            WHEN NOT MATCHED THEN INSERT (id, dt, amount, note) VALUES (s.id, s.dt, s.amount, s.op);
    """)
    model = {("d1", 1): ("10.00", "merged"), ("d1", 2): ("2.00", "b"),
             ("d2", 4): ("4.00", "d"), ("d3", 7): ("7.00", "i"), ("d1", 8): ("8.00", "i")}
    check(java, spark, wh, model, "after MERGE INTO")
    snaps = sql(strata_bin, wh, 'SELECT commit_kind FROM "db"."orders$snapshots" ORDER BY snapshot_id')
    assert [s["commit_kind"] for s in snaps] == ["APPEND", "APPEND"], "one commit per MERGE"
    audit = sql(strata_bin, wh, 'SELECT rowkind, id FROM "db"."orders$audit_log" ORDER BY id')
    assert [(a["rowkind"], a["id"]) for a in audit] == [
        ("+U", 1), ("+I", 2), ("-D", 3), ("+I", 4), ("+I", 7), ("+I", 8)]


EVENTS = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("kind", pa.string()),
    pa.field("dt", pa.string(), nullable=False),
])


def test_sql_copy_on_write_append_table_reads_the_same_everywhere(java, spark, strata_bin, wh):
    sql(strata_bin, wh, """
        CREATE TABLE db.events (id BIGINT NOT NULL, kind STRING, dt STRING NOT NULL)
            PARTITIONED BY (dt) WITH ('bucket' = '-1');
        INSERT INTO db.events VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2');
        INSERT INTO db.events VALUES (4, 'a', 'd2'), (5, 'b', 'd2');
        DELETE FROM db.events WHERE kind = 'b';
        UPDATE db.events SET kind = 'z' WHERE id >= 3;
    """)
    model = [{"id": 1, "kind": "a", "dt": "d1"}, {"id": 3, "kind": "z", "dt": "d2"},
             {"id": 4, "kind": "z", "dt": "d2"}]
    exp = canonical_lines(pa.Table.from_pylist(model, schema=EVENTS))
    assert_same_rows(canonical_lines(engines.read_pypaimon(wh, "db.events")), exp,
                     "pypaimon after copy-on-write DELETE and UPDATE")
    assert_same_rows(java.read(wh, "db.events"), exp,
                     f"Java {java.version} after copy-on-write DELETE and UPDATE")
    assert_same_rows(spark_lines(spark, wh, "db.events", EVENTS), exp,
                     f"Spark {spark.version} after copy-on-write DELETE and UPDATE")
    snaps = sql(strata_bin, wh,
                'SELECT commit_kind, total_record_count FROM "db"."events$snapshots" ORDER BY snapshot_id')
    assert [(s["commit_kind"], s["total_record_count"]) for s in snaps] == [
        ("APPEND", 3), ("APPEND", 5), ("APPEND", 3), ("APPEND", 3)]


ITEMS_V0 = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("dt", pa.string(), nullable=False),
    pa.field("qty", pa.int32()),
    pa.field("name", pa.string()),
])
ITEMS = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("dt", pa.string(), nullable=False),
    pa.field("qty", pa.int64()),
    pa.field("note", pa.string()),
    pa.field("title", pa.string()),
])


def test_sql_altered_table_reads_the_same_everywhere(java, spark, strata_bin, wh):
    """A table created and altered by SQL (ADD COLUMN … AFTER, RENAME COLUMN, INT -> BIGINT, SET
    an option), written before and after: pypaimon and Java read the old files in the new schema,
    merged by key with the new ones, and the first snapshot in its own schema."""
    sql(strata_bin, wh, """
        CREATE TABLE db.items (
            id BIGINT NOT NULL, dt STRING NOT NULL, qty INT, name STRING,
            PRIMARY KEY (dt, id) NOT ENFORCED
        ) PARTITIONED BY (dt) WITH ('bucket' = '2');
        INSERT INTO db.items VALUES (1, 'd1', 10, 'a'), (2, 'd1', 20, 'b'), (3, 'd2', NULL, 'c');
        ALTER TABLE db.items ADD COLUMN note STRING COMMENT 'added by SQL' AFTER qty;
        ALTER TABLE db.items RENAME COLUMN name TO title;
        ALTER TABLE db.items ALTER COLUMN qty SET DATA TYPE BIGINT;
        ALTER TABLE db.items SET ('snapshot.num-retained.min' = '3');
        INSERT INTO db.items VALUES (2, 'd1', 5000000000, 'n2', 'b2'), (4, 'd2', -4, NULL, 'd');
        UPDATE db.items SET note = 'upd' WHERE id = 1;
    """)
    schema = warehouse.schema_json(wh, "db.items")
    assert [f["name"] for f in schema["fields"]] == ITEMS.names
    assert [f["type"] for f in schema["fields"]] == ["BIGINT NOT NULL", "STRING NOT NULL", "BIGINT",
                                                     "STRING", "STRING"]
    assert schema["fields"][3]["description"] == "added by SQL"
    assert schema["fields"][4]["id"] == 3, "title keeps name's field id"
    assert schema["options"]["snapshot.num-retained.min"] == "3"

    rows = [
        {"id": 1, "dt": "d1", "qty": 10, "note": "upd", "title": "a"},
        {"id": 2, "dt": "d1", "qty": 5_000_000_000, "note": "n2", "title": "b2"},
        {"id": 3, "dt": "d2", "qty": None, "note": None, "title": "c"},
        {"id": 4, "dt": "d2", "qty": -4, "note": None, "title": "d"},
    ]
    exp = canonical_lines(pa.Table.from_pylist(rows, schema=ITEMS))
    assert_same_rows(canonical_lines(engines.read_pypaimon(wh, "db.items")), exp,
                     "pypaimon after ALTER TABLE")
    assert_same_rows(java.read(wh, "db.items"), exp, f"Java {java.version} after ALTER TABLE")
    assert_same_rows(spark_lines(spark, wh, "db.items", ITEMS), exp, f"Spark {spark.version} after ALTER TABLE")
    got = sql(strata_bin, wh, "SELECT * FROM db.items ORDER BY id")
    assert canonical_json(got, ITEMS) == exp, "strata's SQL after ALTER TABLE"

    # Snapshot 1 was committed with the first schema: every reader sees it as it was.
    first = [
        {"id": 1, "dt": "d1", "qty": 10, "name": "a"},
        {"id": 2, "dt": "d1", "qty": 20, "name": "b"},
        {"id": 3, "dt": "d2", "qty": None, "name": "c"},
    ]
    exp1 = canonical_lines(pa.Table.from_pylist(first, schema=ITEMS_V0))
    assert_same_rows(canonical_lines(engines.read_pypaimon(wh, "db.items", snapshot=1)), exp1,
                     "pypaimon at snapshot 1")
    assert_same_rows(java.read(wh, "db.items", snapshot=1), exp1, f"Java {java.version} at snapshot 1")
    assert_same_rows(spark_lines(spark, wh, "db.items", ITEMS_V0, " VERSION AS OF 1"), exp1,
                     f"Spark {spark.version} at snapshot 1")
    got = sql(strata_bin, wh, "SELECT * FROM db.items VERSION AS OF 1 ORDER BY id")
    assert canonical_json(got, ITEMS_V0) == exp1, "strata's SQL at snapshot 1"


def canonical_json(rows: list, schema: pa.Schema) -> list:
    """strata's ``--format jsonl`` rows as canonical lines of ``schema``."""
    return canonical_lines(pa.Table.from_pylist(rows, schema=schema))
