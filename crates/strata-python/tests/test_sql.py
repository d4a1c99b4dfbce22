"""SQL: strata.sql / Catalog.sql over the warehouse, and strata tables inside DataFusion's
Python package through its FFI (``register_table_provider``)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import strata
from conftest import people, rows


def test_sql_select(catalog, warehouse):
    t = catalog.create_table("db.people", people([]).schema)
    t.write(people(range(10)))
    got = strata.sql("SELECT id, name FROM db.people WHERE id >= 7 ORDER BY id", catalog)
    assert isinstance(got, pa.Table)
    assert got.to_pylist() == [{"id": i, "name": f"n{i}"} for i in (7, 8, 9)]
    # a warehouse path works too.
    got = strata.sql("SELECT count(*) AS n, sum(id) AS s FROM db.people", warehouse)
    assert got.to_pylist() == [{"n": 10, "s": 45}]
    agg = catalog.sql("SELECT dt, count(*) AS n FROM db.people GROUP BY dt")
    assert agg.to_pylist() == [{"dt": "2024-01-01", "n": 10}]


def test_sql_ddl_and_dml(catalog):
    catalog.sql(
        "CREATE TABLE db.kv (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1')"
    )
    assert "kv" in catalog.list_tables("db")
    t = catalog.get_table("db.kv")
    assert t.primary_keys == ["id"]
    catalog.sql("INSERT INTO db.kv VALUES (1, 'a'), (2, 'b')")
    catalog.sql("INSERT INTO db.kv VALUES (2, 'B'), (3, 'c')")
    assert rows(t.read(), "id") == [
        {"id": 1, "v": "a"},
        {"id": 2, "v": "B"},
        {"id": 3, "v": "c"},
    ]
    got = catalog.sql("SELECT * FROM db.kv ORDER BY id")
    assert got.to_pylist() == rows(t.read(), "id")
    # several statements: the last one's rows; USE carries over between calls.
    got = catalog.sql("USE db; SELECT v FROM kv WHERE id = 1")
    assert got.to_pylist() == [{"v": "a"}]
    assert catalog.sql("SELECT count(*) AS n FROM kv").to_pylist() == [{"n": 3}]


def test_sql_sees_strata_writes(catalog):
    t = catalog.create_table("db.t", [("id", "BIGINT"), ("s", "STRING")])
    t.write(pa.table({"id": [1, 2], "s": ["x", "y"]}))
    assert catalog.sql("SELECT count(*) AS n FROM db.t").to_pylist() == [{"n": 2}]
    t.write(pa.table({"id": [3], "s": ["z"]}))
    assert catalog.sql("SELECT count(*) AS n FROM db.t").to_pylist() == [{"n": 3}]


def test_sql_errors(catalog):
    with pytest.raises(strata.StrataError):
        catalog.sql("SELECT * FROM db.missing")
    with pytest.raises(strata.StrataError):
        catalog.sql("SELEKT 1")
    with pytest.raises(strata.StrataError):
        catalog.sql("")


@pytest.mark.filterwarnings("ignore:Use register_table:DeprecationWarning")
def test_datafusion_ffi_table_provider(catalog):
    datafusion = pytest.importorskip("datafusion")
    t = catalog.create_table(
        "db.df", people([]).schema, primary_keys=["id"], options={"bucket": "2"}
    )
    t.write(people(range(20)))
    t.write(people(range(5), tag="new"))
    ctx = datafusion.SessionContext()
    ctx.register_table_provider("t", t)
    got = ctx.sql("select * from t").to_arrow_table()
    assert rows(got, "id") == rows(t.read(), "id")
    got = ctx.sql("select id, name from t where id < 3 order by id").to_arrow_table()
    assert got.to_pylist() == [{"id": i, "name": f"n{i}new"} for i in range(3)]
    assert ctx.sql("select count(*) as n from t").to_arrow_table().to_pylist() == [{"n": 20}]


def test_sql_create_table_with_map_column(catalog):
    catalog.sql("CREATE TABLE db.mt (id BIGINT NOT NULL, m MAP<STRING, INT>)")
    t = catalog.get_table("db.mt")
    assert dict(t.fields)["m"] == "MAP<STRING, INT>"
    t.write(
        pa.table(
            {
                "id": pa.array([1, 2], pa.int64()),
                "m": pa.array([[("a", 1)], [("b", 2)]], pa.map_(pa.string(), pa.int32())),
            }
        )
    )
    assert rows(t.read(columns=["id", "m['a']"]), "id") == [
        {"id": 1, "m['a']": 1},
        {"id": 2, "m['a']": None},
    ]
