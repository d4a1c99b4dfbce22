"""``strata.Catalog`` over every catalog ``strata::catalog::open`` knows, with pypaimon's
``CatalogFactory.create`` options: a REST catalog (pypaimon's own mock REST server, in this
process, as pypaimon's tests run it) and a JDBC catalog on SQLite. Rows written through strata
read back through a second catalog object, a pickle (what Ray tasks carry) and, for REST,
pypaimon itself; options nothing honours are refused by name; secrets are masked."""

from __future__ import annotations

import pickle
import sys
import uuid
from pathlib import Path

import pyarrow as pa
import pytest

import strata
from conftest import PEOPLE_SCHEMA, people, rows

REST_DIR = Path(__file__).resolve().parents[3] / "tests" / "rest"
TOKEN = "strata-py-" + uuid.uuid4().hex


@pytest.fixture
def rest_uri(tmp_path):
    """The URL of pypaimon's mock REST catalog server (bearer ``TOKEN``, prefix ``mock``,
    warehouse ``warehouse``) over a fresh data directory."""
    pytest.importorskip("pypaimon")
    sys.path.insert(0, str(REST_DIR))
    try:
        from pypaimon.api.api_response import ConfigResponse
        from pypaimon.api.auth import BearTokenAuthProvider
        from pypaimon_rest_server import RESTCatalogServer
    finally:
        sys.path.remove(str(REST_DIR))
    data = tmp_path / "rest-data"
    data.mkdir()
    server = RESTCatalogServer(
        data_path=str(data),
        auth_provider=BearTokenAuthProvider(TOKEN),
        config=ConfigResponse(defaults={"prefix": "mock"}),
        warehouse="warehouse",
    )
    server.start()
    try:
        yield server.get_url()
    finally:
        server.shutdown()


def rest_options(uri, token=TOKEN):
    return {
        "metastore": "rest",
        "uri": uri,
        "warehouse": "warehouse",
        "token.provider": "bear",
        "token": token,
    }


def test_rest_catalog_with_pypaimons_options(rest_uri):
    c = strata.Catalog(rest_options(rest_uri))
    c.create_database("db")
    t = c.create_table("db.people", PEOPLE_SCHEMA, primary_keys=["id"], options={"bucket": "2"})
    t.write(people(range(5)))
    t.write(people([1, 7], tag="v2"))
    want = rows(pa.concat_tables([people([0, 2, 3, 4]), people([1, 7], tag="v2")]), "id")
    assert rows(t.read(), "id") == want
    # A second catalog object, and the pickled table (what a Ray task carries).
    assert c.list_databases() == ["db"]
    other = strata.Catalog(rest_options(rest_uri))
    assert other.list_tables("db") == ["people"]
    assert rows(other.get_table("db.people").read(), "id") == want
    assert rows(pickle.loads(pickle.dumps(t)).read(), "id") == want
    assert pickle.loads(pickle.dumps(c)).list_databases() == ["db"]
    # The token is never shown.
    assert c.options["token"] == "***"
    assert c.options["uri"] == rest_uri and c.warehouse == "warehouse"
    assert TOKEN not in repr(c) and rest_uri in repr(c)
    # pypaimon, through the same server and options, reads what strata committed.
    from pypaimon import CatalogFactory

    pt = CatalogFactory.create(rest_options(rest_uri)).get_table("db.people")
    rb = pt.new_read_builder()
    assert rows(rb.new_read().to_arrow(rb.new_scan().plan().splits()), "id") == want
    # pypaimon's value types: a bool option.
    strata.Catalog({**rest_options(rest_uri), "data-token.enabled": False}).list_databases()


def test_rest_catalog_refusals(rest_uri):
    with pytest.raises(strata.UnsupportedError, match="bogus-option"):
        strata.Catalog({**rest_options(rest_uri), "bogus-option": "1"})
    # JDBC keys on a REST catalog: nothing there honours them.
    with pytest.raises(strata.UnsupportedError, match="catalog-key"):
        strata.Catalog({**rest_options(rest_uri), "catalog-key": "c"})
    with pytest.raises(strata.StrataError):
        strata.Catalog(rest_options(rest_uri, token="wrong")).list_databases()
    with pytest.raises(strata.InvalidInputError, match="two warehouses"):
        strata.Catalog("/somewhere", rest_options(rest_uri))
    with pytest.raises(strata.InvalidInputError):
        strata.Catalog({"metastore": "rest", "uri": rest_uri, "token": {"not": "text"}})


def test_jdbc_catalog_on_sqlite(tmp_path):
    warehouse = tmp_path / "wh"
    warehouse.mkdir()
    options = {
        "metastore": "jdbc",
        "uri": f"jdbc:sqlite:{tmp_path / 'catalog.db'}",
        "warehouse": str(warehouse),
        "catalog-key": "strata_py",
    }
    c = strata.Catalog(options)
    c.create_database("db")
    t = c.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]))
    t.write(pa.table({"id": [1, 2, 3], "v": ["a", "b", None]}))
    want = [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}, {"id": 3, "v": None}]
    # The catalog's rows are in the SQLite file; the table's files in the warehouse.
    assert (warehouse / "db.db" / "t" / "snapshot" / "snapshot-1").is_file()
    again = strata.Catalog(dict(options))
    assert again.list_tables("db") == ["t"]
    assert rows(again.get_table("db.t").read(), "id") == want
    assert rows(pickle.loads(pickle.dumps(t)).read(), "id") == want
    # Another catalog-key is another catalog in the same database file.
    assert strata.Catalog({**options, "catalog-key": "other"}).list_databases() == []
    # SQL through the same catalog.
    assert c.sql("SELECT count(*) AS n FROM db.t").to_pylist() == [{"n": 3}]
    with pytest.raises(strata.UnsupportedError, match="token"):
        strata.Catalog({**options, "token": "x"})
