"""Arrow in and out through the Arrow PyCapsule interface: Polars, DuckDB, pandas, pyarrow."""

from __future__ import annotations

import datetime
import decimal

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import strata
from conftest import PEOPLE_SCHEMA, people, rows


def test_write_polars_dataframe(append_table):
    df = pl.DataFrame(
        {"id": [1, 2, 3], "name": ["a", "b", None], "score": [0.5, 1.5, 2.5], "dt": ["d"] * 3}
    )
    assert hasattr(df, "__arrow_c_stream__")
    append_table.write(df)
    w = append_table.new_batch_write_builder()
    bw = w.new_write()
    bw.write_arrow(df.with_columns(pl.col("id") + 10))
    w.new_commit().commit(bw.prepare_commit())
    got = rows(append_table.read(), "id")
    assert [r["id"] for r in got] == [1, 2, 3, 11, 12, 13]
    assert [r["name"] for r in got] == ["a", "b", None] * 2


def test_write_duckdb_relation(append_table):
    con = duckdb.connect()
    rel = con.sql(
        "select i::BIGINT as id, 'n' || i as name, i * 1.5::DOUBLE as score, '2024-01-01' as dt "
        "from range(5) t(i)"
    )
    append_table.write(rel)
    assert rows(append_table.read(), "id") == rows(people(range(5)), "id")


def test_write_pandas_and_record_batch(append_table):
    append_table.write(people([1, 2]).to_pandas())
    append_table.write(people([3]).to_batches()[0])
    append_table.write(
        pa.RecordBatchReader.from_batches(PEOPLE_SCHEMA, people([4, 5]).to_batches())
    )
    assert rows(append_table.read(), "id") == rows(people(range(1, 6)), "id")


def test_write_rejects_non_arrow(append_table):
    with pytest.raises((strata.InvalidInputError, TypeError)):
        append_table.write([{"id": 1}])
    assert append_table.latest_snapshot_id() is None


def test_stream_output_consumers(append_table):
    append_table.write(people(range(10)))
    rb = append_table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    stream = rb.new_read().to_arrow_stream(splits)
    assert hasattr(stream, "__arrow_c_stream__")
    df = pl.DataFrame(stream)
    assert sorted(df["id"].to_list()) == list(range(10))
    table = pa.table(rb.new_read().to_arrow_stream(splits))
    assert rows(table, "id") == rows(people(range(10)), "id")
    rel = duckdb.from_arrow(rb.new_read().to_arrow_stream(splits))
    assert sorted(r[0] for r in rel.select("id").fetchall()) == list(range(10))
    reader = pa.RecordBatchReader.from_stream(rb.new_read().to_arrow_stream(splits))
    assert reader.schema.names == PEOPLE_SCHEMA.names
    assert sum(b.num_rows for b in reader) == 10


def test_schema_capsule(append_table):
    schema = append_table.schema
    assert isinstance(schema, pa.Schema)
    assert schema.names == PEOPLE_SCHEMA.names
    assert pa.schema(schema) == schema


def test_types_round_trip(catalog):
    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            ("i8", pa.int8()),
            ("i16", pa.int16()),
            ("i32", pa.int32()),
            ("f32", pa.float32()),
            ("f64", pa.float64()),
            ("flag", pa.bool_()),
            ("s", pa.string()),
            ("b", pa.binary()),
            ("d", pa.date32()),
            ("ts", pa.timestamp("us")),
            ("ts_ms", pa.timestamp("ms")),
            ("dec", pa.decimal128(12, 3)),
            ("l", pa.list_(pa.int64())),
            ("m", pa.map_(pa.string(), pa.float64())),
        ]
    )
    t = catalog.create_table("db.types", schema)
    data = pa.table(
        {
            "id": [1, 2],
            "i8": [1, None],
            "i16": [300, -5],
            "i32": [70000, 0],
            "f32": [1.5, None],
            "f64": [2.25, -1.0],
            "flag": [True, False],
            "s": ["x", "ü"],
            "b": [b"\x00\x01", None],
            "d": [datetime.date(2024, 1, 2), datetime.date(1969, 12, 31)],
            "ts": [datetime.datetime(2024, 1, 2, 3, 4, 5, 123456), None],
            "ts_ms": [datetime.datetime(2024, 1, 2, 3, 4, 5, 123000), None],
            "dec": [decimal.Decimal("1.250"), decimal.Decimal("-3.000")],
            "l": [[1, 2], []],
            "m": [[("a", 1.0)], None],
        },
        schema=schema,
    )
    t.write(data)
    got = t.read()
    assert got.schema.names == schema.names
    assert rows(got, "id") == rows(data, "id")
    assert got.schema.field("dec").type == pa.decimal128(12, 3)
    assert got.schema.field("ts").type == pa.timestamp("us")


def test_struct_column_round_trip(catalog):
    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            ("st", pa.struct([("x", pa.int32()), ("y", pa.string())])),
        ]
    )
    t = catalog.create_table("db.structs", schema)
    data = pa.table({"id": [1, 2], "st": [{"x": 1, "y": "p"}, None]}, schema=schema)
    t.write(data)
    assert rows(t.read(), "id") == rows(data, "id")
    t2 = catalog.create_table("db.structs2", [("id", "INT"), ("r", "ROW<x INT, y STRING>")])
    assert dict(t2.fields)["r"].startswith("ROW<")
