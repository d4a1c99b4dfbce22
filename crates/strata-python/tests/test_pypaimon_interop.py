"""Interop in one process: pypaimon 2.1 (and pypaimon-rust) read what strata writes, and
strata reads what pypaimon writes, with the same rows."""

from __future__ import annotations

import pyarrow as pa
import pytest

import strata
from conftest import PEOPLE_SCHEMA, people, rows

pypaimon = pytest.importorskip("pypaimon")


def pypaimon_catalog(warehouse):
    from pypaimon import CatalogFactory

    return CatalogFactory.create({"warehouse": warehouse})


def pypaimon_read(table):
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    return rb.new_read().to_arrow(splits)


def pypaimon_write(table, data, overwrite=False):
    wb = table.new_batch_write_builder()
    if overwrite:
        wb = wb.overwrite()
    w = wb.new_write()
    c = wb.new_commit()
    try:
        w.write_arrow(data)
        c.commit(w.prepare_commit())
    finally:
        w.close()
        c.close()


def _strata_tables(catalog):
    """An append table and a partitioned primary-key table written by strata (with an
    upsert), and the rows each must hold."""
    app = catalog.create_table("db.app", PEOPLE_SCHEMA, partition_keys=["dt"])
    app.write(pa.concat_tables([people([1, 2], "2024-01-01"), people([3], "2024-01-02")]))
    app.write(people([4], "2024-01-02"))
    pk = catalog.create_table(
        "db.pk", PEOPLE_SCHEMA, partition_keys=["dt"], primary_keys=["dt", "id"],
        options={"bucket": "2"},
    )
    pk.write(pa.concat_tables([people(range(10), "2024-01-01"), people([1], "2024-01-02")]))
    pk.write(people([3, 4], "2024-01-01", tag="v2"))
    expected_pk = {(r["dt"], r["id"]): r for r in people(range(10), "2024-01-01").to_pylist()}
    expected_pk[("2024-01-02", 1)] = people([1], "2024-01-02").to_pylist()[0]
    for r in people([3, 4], "2024-01-01", tag="v2").to_pylist():
        expected_pk[(r["dt"], r["id"])] = r
    expected_app = pa.concat_tables(
        [people([1, 2], "2024-01-01"), people([3], "2024-01-02"), people([4], "2024-01-02")]
    )
    return app, pk, rows(expected_app, "id"), sorted(
        expected_pk.values(), key=lambda r: (r["dt"], r["id"])
    )


def test_pypaimon_reads_strata_tables(catalog, warehouse):
    _, _, expected_app, expected_pk = _strata_tables(catalog)
    pc = pypaimon_catalog(warehouse)
    assert rows(pypaimon_read(pc.get_table("db.app")), "id") == expected_app
    assert rows(pypaimon_read(pc.get_table("db.pk")), "dt", "id") == expected_pk


def test_pypaimon_reads_after_strata_compaction(catalog, warehouse):
    _, pk, _, expected_pk = _strata_tables(catalog)
    pk.compact(full=True)
    pc = pypaimon_catalog(warehouse)
    assert rows(pypaimon_read(pc.get_table("db.pk")), "dt", "id") == expected_pk


def test_strata_reads_pypaimon_tables(warehouse):
    from pypaimon import Schema

    pc = pypaimon_catalog(warehouse)
    pc.create_database("db", False)
    pc.create_table(
        "db.app", Schema.from_pyarrow_schema(PEOPLE_SCHEMA, partition_keys=["dt"]), False
    )
    pc.create_table(
        "db.pk",
        Schema.from_pyarrow_schema(
            PEOPLE_SCHEMA, partition_keys=["dt"], primary_keys=["dt", "id"],
            options={"bucket": "2"},
        ),
        False,
    )
    app_data = pa.concat_tables([people([1, 2], "2024-01-01"), people([3], "2024-01-02")])
    pypaimon_write(pc.get_table("db.app"), app_data)
    pypaimon_write(pc.get_table("db.app"), people([4], "2024-01-01"))
    pk_table = pc.get_table("db.pk")
    pypaimon_write(pk_table, pa.concat_tables([people(range(5), "2024-01-01"),
                                              people([1], "2024-01-02")]))
    pypaimon_write(pc.get_table("db.pk"), people([2], "2024-01-01", tag="v2"))

    c = strata.Catalog(warehouse)
    assert c.list_tables("db") == ["app", "pk"]
    app = c.get_table("db.app")
    assert app.partition_keys == ["dt"]
    assert rows(app.read(), "id") == rows(
        pa.concat_tables([app_data, people([4], "2024-01-01")]), "id"
    )
    pk = c.get_table("db.pk")
    assert pk.primary_keys == ["dt", "id"]
    expected = {(r["dt"], r["id"]): r for r in people(range(5), "2024-01-01").to_pylist()}
    expected[("2024-01-02", 1)] = people([1], "2024-01-02").to_pylist()[0]
    expected[("2024-01-01", 2)] = people([2], "2024-01-01", tag="v2").to_pylist()[0]
    exp = sorted(expected.values(), key=lambda r: (r["dt"], r["id"]))
    assert rows(pk.read(), "dt", "id") == exp
    assert rows(pk.read(where="dt = '2024-01-02'")) == rows(people([1], "2024-01-02"))

    # strata writes on top of pypaimon's table; pypaimon reads the result.
    pk.write(people([1], "2024-01-02", tag="strata"))
    expected[("2024-01-02", 1)] = people([1], "2024-01-02", tag="strata").to_pylist()[0]
    exp = sorted(expected.values(), key=lambda r: (r["dt"], r["id"]))
    assert rows(pypaimon_read(pypaimon_catalog(warehouse).get_table("db.pk")), "dt", "id") == exp
    assert rows(pk.read(), "dt", "id") == exp


def test_pypaimon_rust_reads_strata_tables(catalog, warehouse):
    pytest.importorskip("pypaimon_rust")
    _, _, expected_app, expected_pk = _strata_tables(catalog)
    from pypaimon_rust.datafusion import PaimonCatalog

    pc = PaimonCatalog({"warehouse": warehouse})
    assert sorted(pc.list_tables("db")) == ["app", "pk"]
    for name, expected, keys in (("app", expected_app, ("id",)), ("pk", expected_pk, ("dt", "id"))):
        table = pc.get_table(f"db.{name}")
        rb = table.new_read_builder()
        splits = rb.new_scan().plan().splits()
        batches = rb.new_read().read(splits)
        got = pa.Table.from_batches(batches) if batches else pa.table({})
        assert rows(got.select(PEOPLE_SCHEMA.names), *keys) == expected
