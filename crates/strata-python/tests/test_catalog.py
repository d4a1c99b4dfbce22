"""Catalog: databases and tables, schemas given in every accepted form."""

from __future__ import annotations

import json
import pathlib

import pyarrow as pa
import pytest

import strata
from conftest import PEOPLE_SCHEMA, people, rows


def test_databases_create_list_drop(warehouse):
    c = strata.Catalog(warehouse)
    assert c.list_databases() == []
    c.create_database("b")
    c.create_database("a")
    assert c.list_databases() == ["a", "b"]
    with pytest.raises(strata.AlreadyExistsError):
        c.create_database("a")
    c.create_database("a", ignore_if_exists=True)
    c.drop_database("a")
    assert c.list_databases() == ["b"]
    with pytest.raises(strata.NotFoundError):
        c.drop_database("a")
    c.drop_database("a", ignore_if_not_exists=True)


def test_database_properties_refused(warehouse):
    c = strata.Catalog(warehouse)
    with pytest.raises(strata.UnsupportedError):
        c.create_database("db", properties={"owner": "me"})
    c.create_database("db", properties={})
    assert c.list_databases() == ["db"]


def test_drop_non_empty_database(catalog):
    catalog.create_table("db.t", PEOPLE_SCHEMA)
    with pytest.raises(strata.ConflictError):
        catalog.drop_database("db")
    catalog.drop_database("db", cascade=True)
    assert catalog.list_databases() == []


def test_catalog_forms(warehouse, tmp_path):
    strata.Catalog(warehouse).create_database("db")
    for c in (
        strata.Catalog(warehouse),
        strata.Catalog(pathlib.Path(warehouse)),
        strata.Catalog({"warehouse": warehouse}),
        strata.Catalog({"warehouse": warehouse, "metastore": "filesystem"}),
    ):
        assert c.list_databases() == ["db"]
        assert "strata.Catalog" in repr(c)
    assert strata.Catalog(warehouse).warehouse == warehouse
    with pytest.raises(strata.InvalidInputError):
        strata.Catalog({"metastore": "filesystem"})
    with pytest.raises(strata.UnsupportedError):
        strata.Catalog({"warehouse": warehouse, "metastore": "hive"})


def test_every_catalog_option_honoured_or_refused(warehouse):
    """Catalog options other than s3.* were dropped without a word: a REST catalog's uri, a
    lock, a cache setting, a typo. Each is now refused, naming the key."""
    strata.Catalog(warehouse).create_database("db")
    for key, value in [
        ("uri", "http://localhost:8080"),
        ("token", "t"),
        ("lock.enabled", "true"),
        ("cache-enabled", "false"),
        ("fs.oss.endpoint", "oss-cn-hangzhou.aliyuncs.com"),
        ("table-defaults.bucket", "2"),  # a typo of table-default.
        ("s3.acces-key", "x"),  # a typo, on a local warehouse too
    ]:
        with pytest.raises(strata.UnsupportedError, match=key.replace(".", r"\.")):
            strata.Catalog(warehouse, {key: value})
        with pytest.raises(strata.UnsupportedError, match=key.replace(".", r"\.")):
            strata.Catalog({"warehouse": warehouse, key: value})
    # Keys of another catalog on a filesystem catalog are refused too, naming the catalog.
    with pytest.raises(strata.UnsupportedError, match=r"uri.*filesystem"):
        strata.Catalog({"warehouse": warehouse, "metastore": "filesystem", "uri": "http://x"})
    with pytest.raises(strata.UnsupportedError, match="metastore = hive"):
        strata.Catalog(warehouse, {"metastore": "hive"})
    with pytest.raises(strata.InvalidInputError, match="two warehouses"):
        strata.Catalog(warehouse, {"warehouse": warehouse + "/other"})
    with pytest.raises(strata.InvalidInputError, match="table-default"):
        strata.Catalog(warehouse, {"table-default.": "x"})
    # What is honoured opens the catalog.
    c = strata.Catalog(
        warehouse,
        {"warehouse": warehouse, "metastore": "filesystem", "table-default.bucket": "2"},
    )
    assert c.list_databases() == ["db"]


def test_table_default_options_apply_at_create(warehouse):
    """``table-default.K`` sets option K of every table the catalog creates whose own options
    do not (Java's AbstractCatalog.copyTableDefaultOptions); it was dropped before."""
    c = strata.Catalog(
        {
            "warehouse": warehouse,
            "table-default.bucket": "3",
            "table-default.file.format": "parquet",
            "table-default.snapshot.num-retained.max": "70",
        }
    )
    c.create_database("db")
    t = c.create_table("db.t", PEOPLE_SCHEMA, primary_keys=["id"])
    assert t.options["bucket"] == "3"
    assert t.options["snapshot.num-retained.max"] == "70"
    # The table's own options win.
    u = c.create_table("db.u", PEOPLE_SCHEMA, primary_keys=["id"], options={"bucket": "2"})
    assert u.options["bucket"] == "2" and u.options["file.format"] == "parquet"
    # The defaults are in the table's schema file, for every engine to see...
    schema0 = json.loads((pathlib.Path(warehouse) / "db.db" / "t" / "schema" / "schema-0").read_text())
    assert schema0["options"]["bucket"] == "3"
    # ... and the data is laid out by them: 3 buckets.
    t.write(people(range(60)))
    assert sorted(set(t.files().column("bucket").to_pylist())) == [0, 1, 2]
    # Loading a table does not apply them (Java applies them at creation only).
    plain = strata.Catalog(warehouse).create_table("db.v", PEOPLE_SCHEMA)
    assert "bucket" not in plain.options
    assert "bucket" not in c.get_table("db.v").options
    # SQL's CREATE TABLE goes through the same catalog: the defaults apply there too.
    c.sql(
        "CREATE TABLE db.w (id BIGINT NOT NULL, PRIMARY KEY (id) NOT ENFORCED); "
        "CREATE TABLE db.x (id BIGINT) WITH ('bucket' = '-1')"
    )
    assert c.get_table("db.w").options["bucket"] == "3"
    assert c.get_table("db.w").options["snapshot.num-retained.max"] == "70"
    assert c.get_table("db.x").options["bucket"] == "-1"
    assert c.sql("SELECT count(*) AS n FROM db.t").column("n").to_pylist() == [60]


def test_tables_create_list_get_drop(catalog):
    assert catalog.list_tables("db") == []
    t = catalog.create_table("db.b", PEOPLE_SCHEMA)
    catalog.create_table("db.a", PEOPLE_SCHEMA)
    assert catalog.list_tables("db") == ["a", "b"]
    assert t.full_name == "db.b"
    assert t.name == "b"
    assert t.database == "db"
    assert t.location.rstrip("/").endswith("db.db/b")
    assert t.latest_snapshot_id() is None
    assert not t.is_primary_key_table
    assert t.primary_keys == []
    assert t.partition_keys == []
    assert t.schema_id == 0
    assert "db.b" in repr(t)
    with pytest.raises(strata.AlreadyExistsError):
        catalog.create_table("db.a", PEOPLE_SCHEMA)
    again = catalog.create_table("db.a", PEOPLE_SCHEMA, ignore_if_exists=True)
    assert again.full_name == "db.a"
    g = catalog.get_table("db.b")
    assert g.schema == t.schema
    catalog.drop_table("db.a")
    assert catalog.list_tables("db") == ["b"]
    with pytest.raises(strata.NotFoundError):
        catalog.get_table("db.a")
    with pytest.raises(strata.NotFoundError):
        catalog.drop_table("db.a")
    catalog.drop_table("db.a", ignore_if_not_exists=True)


def test_schema_from_pyarrow(catalog):
    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            ("i", pa.int32()),
            ("s", pa.string()),
            ("d", pa.date32()),
            ("ts", pa.timestamp("us")),
            ("dec", pa.decimal128(10, 2)),
            ("b", pa.binary()),
            ("flag", pa.bool_()),
            ("f", pa.float32()),
            ("m", pa.map_(pa.string(), pa.int64())),
            ("l", pa.list_(pa.int32())),
        ]
    )
    t = catalog.create_table("db.t", schema)
    fields = dict(t.fields)
    assert fields["id"] == "BIGINT NOT NULL"
    assert fields["i"] == "INT"
    assert fields["s"] == "STRING"
    assert fields["d"] == "DATE"
    assert fields["ts"] == "TIMESTAMP(6)"
    assert fields["dec"] == "DECIMAL(10, 2)"
    assert fields["b"] == "BYTES"
    assert fields["flag"] == "BOOLEAN"
    assert fields["f"] == "FLOAT"
    assert fields["m"].startswith("MAP<STRING")
    assert fields["l"] == "ARRAY<INT>"
    assert t.schema.names == schema.names
    assert t.schema.field("id").nullable is False


def test_schema_from_pairs_and_dict(catalog):
    pairs = [("id", "BIGINT NOT NULL"), ("v", "STRING"), ("m", "MAP<STRING, INT>")]
    t1 = catalog.create_table("db.pairs", pairs, primary_keys=["id"], options={"bucket": "1"})
    t2 = catalog.create_table("db.dict", dict(pairs), primary_keys=["id"], options={"bucket": "1"})
    for t in (t1, t2):
        assert [n for n, _ in t.fields] == ["id", "v", "m"]
        assert dict(t.fields)["id"] == "BIGINT NOT NULL"
        assert dict(t.fields)["m"] == "MAP<STRING, INT>"
        assert t.primary_keys == ["id"]
        assert t.is_primary_key_table
        assert t.options["bucket"] == "1"
    t1.write(
        pa.table(
            {
                "id": pa.array([1], pa.int64()),
                "v": ["x"],
                "m": pa.array([[("a", 1)]], pa.map_(pa.string(), pa.int32())),
            }
        )
    )
    assert t1.read().to_pylist() == [{"id": 1, "v": "x", "m": [("a", 1)]}]


def test_schema_strata_schema(catalog):
    s = strata.Schema.from_pyarrow_schema(
        PEOPLE_SCHEMA,
        partition_keys=["dt"],
        primary_keys=["dt", "id"],
        options={"bucket": 2},
        comment="people",
    )
    assert s.options == {"bucket": "2"}
    t = catalog.create_table("db.t", s)
    assert t.partition_keys == ["dt"]
    assert t.primary_keys == ["dt", "id"]
    assert t.options["bucket"] == "2"
    # Arguments override the Schema's.
    t2 = catalog.create_table("db.t2", s, options={"bucket": "3"})
    assert t2.options["bucket"] == "3"
    with pytest.raises(TypeError):
        strata.Schema.from_pyarrow_schema([("id", "INT")])


def test_bad_schema_input(catalog):
    with pytest.raises(strata.InvalidInputError, match="NOT A TYPE"):
        catalog.create_table("db.t", [("id", "NOT A TYPE")])
    with pytest.raises(strata.InvalidInputError):
        catalog.create_table("db.t", 42)
    with pytest.raises(strata.InvalidInputError):
        catalog.create_table("db.t", [("id",)])
    assert catalog.list_tables("db") == []


def test_partitioned_table_layout(catalog):
    t = catalog.create_table("db.p", PEOPLE_SCHEMA, partition_keys=["dt"])
    t.write(pa.concat_tables([people([1, 2], "2024-01-01"), people([3], "2024-01-02")]))
    assert t.partition_keys == ["dt"]
    files = t.files().to_pylist()
    assert len({f["partition"] for f in files}) == 2
    assert all("2024-01-0" in f["partition"] for f in files)
    assert rows(t.read(), "id") == rows(
        pa.concat_tables([people([1, 2], "2024-01-01"), people([3], "2024-01-02")]), "id"
    )
