"""Tables created and written through strata's SQL (``strata sql``) are ordinary Paimon tables:
pypaimon and Java Paimon read exactly the rows an independent model holds after each script.

Covers DDL (primary key, partitioning, options), INSERT, upserts, UPDATE and DELETE written as
row kinds, static-partition INSERT OVERWRITE, ``CALL sys.compact`` and time travel.
"""
from __future__ import annotations

import decimal
import json
import subprocess

import pyarrow as pa
import pytest

from interop_support import engines
from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.java_oracle import java  # noqa: F401  (fixture)

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


def check(java, wh: str, model: dict, what: str) -> None:
    exp = lines(model)
    assert_same_rows(canonical_lines(engines.read_pypaimon(wh, "db.orders")), exp, f"pypaimon {what}")
    assert_same_rows(java.read(wh, "db.orders"), exp, f"Java {java.version} {what}")


def test_sql_written_primary_key_table_reads_the_same_everywhere(java, strata_bin, wh):
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
    check(java, wh, model, "after INSERT")

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
    check(java, wh, model, "after upsert, UPDATE and DELETE")

    sql(strata_bin, wh, """
        INSERT OVERWRITE db.orders PARTITION (dt = 'd1') VALUES (9, 9.99, 'only');
        CALL sys.compact(table => 'db.orders', compact_strategy => 'full');
    """)
    for k in [k for k in model if k[0] == "d1"]:
        del model[k]
    model[("d1", 9)] = ("9.99", "only")
    check(java, wh, model, "after static overwrite and full compaction")

    # Strata's own SQL agrees, and time travel still sees the first commit.
    got = sql(strata_bin, wh, "SELECT id, note FROM db.orders VERSION AS OF 1 ORDER BY id")
    assert got == [{"id": 1, "note": "a"}, {"id": 2, "note": "b"}, {"id": 3, "note": None},
                   {"id": 4, "note": "d"}]
    files = sql(strata_bin, wh, "SELECT count(*) AS n FROM db.orders")
    assert files == [{"n": len(model)}]
