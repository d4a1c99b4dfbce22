"""Flink 2.0 SQL (Paimon 2.0's Flink catalog, ``'metastore' = 'rest'``) against ``strata serve``
(issue 32): a primary-key table created, written (two INSERTs, an upsert) and read by Flink through
strata's server, read by strata on the warehouse directory; strata's commit through the server read
by Flink.
Views both ways: a view Flink created queried by ``strata sql``, a view strata created queried by
Flink.

Java's ``RESTCatalog`` (inside Flink's catalog) turns a table's audit members (``owner``,
``createdAt``, ...) into table options, and Flink refuses a table with a null option: so this
module also checks that strata's server answers them as Java's does.
"""
from __future__ import annotations

import json
from typing import List, Sequence

import pytest

from interop_support.flink import flink  # noqa: F401 - module fixture
from interop_support.rest_java_server import StrataRestServer, rest_strata
from interop_support.strata_cli import Strata

pytestmark = pytest.mark.flink


@pytest.fixture(scope="module")
def server(strata_bin, tmp_path_factory):
    srv = StrataRestServer(strata_bin, str(tmp_path_factory.mktemp("serve") / "flink_wh"))
    yield srv
    srv.close()


def lines(rows: Sequence[dict]) -> List[str]:
    return sorted(json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in rows)


def test_flink_through_strata_serve(server, flink, strata_bin, tmp_path):  # noqa: F811
    opts = ", ".join(f"'{k}' = '{v}'" for k, v in server.catalog_options().items())
    flink.sql(f"CREATE CATALOG strata_rest WITH ('type' = 'paimon', {opts})")
    flink.sql("CREATE DATABASE IF NOT EXISTS strata_rest.fdb")
    flink.sql("CREATE TABLE strata_rest.fdb.t (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) "
              "WITH ('bucket' = '1')")
    flink.sql("INSERT INTO strata_rest.fdb.t VALUES (1, 'a'), (2, 'b')")
    flink.sql("INSERT INTO strata_rest.fdb.t VALUES (2, 'c'), (3, 'd')")
    want = lines([{"id": 1, "name": "a"}, {"id": 2, "name": "c"}, {"id": 3, "name": "d"}])
    got = sorted(json.dumps({"id": r[0], "name": r[1]}, separators=(",", ":"))
                 for r in flink.rows("SELECT id, name FROM strata_rest.fdb.t"))
    assert got == want
    fs = Strata(strata_bin, server.warehouse_dir, tmp_path / "fs")
    assert fs.read_lines("fdb.t") == want
    assert [s["id"] for s in fs.snapshots("fdb.t")][:2] == [1, 2]
    # strata commits through the server; Flink reads it
    rows = tmp_path / "more.jsonl"
    rows.write_text(json.dumps({"id": 4, "name": "strata"}) + "\n")
    rest_strata(strata_bin, server, tmp_path / "rest").write("fdb.t", [str(rows)])
    got = sorted(r[0] for r in flink.rows("SELECT id FROM strata_rest.fdb.t"))
    assert got == [1, 2, 3, 4]


def test_views_between_flink_and_strata(server, flink, strata_bin, tmp_path):  # noqa: F811
    """Views both ways through ``strata serve``: a view Flink's Paimon catalog created (its
    original query as the default query and the ``flink`` dialect's) is shown by strata and
    queried by ``strata sql``, rows equal to Flink's query of the view; a view strata created
    (``strata view create``) is queried by Flink, rows equal to strata's."""
    opts = ", ".join(f"'{k}' = '{v}'" for k, v in server.catalog_options().items())
    flink.sql(f"CREATE CATALOG strata_rest_views WITH ('type' = 'paimon', {opts})")
    flink.sql("CREATE DATABASE IF NOT EXISTS strata_rest_views.vdb")
    flink.sql("CREATE TABLE strata_rest_views.vdb.t (id INT, name STRING) WITH ('bucket' = '-1')")
    flink.sql("INSERT INTO strata_rest_views.vdb.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    flink.sql("USE CATALOG strata_rest_views", "USE vdb",
              "CREATE VIEW fv AS SELECT id, name FROM t WHERE id >= 2")
    rs = rest_strata(strata_bin, server, tmp_path / "rest")
    shown = rs.json_lines("view", "show", "vdb.fv")[0]["schema"]
    assert "flink" in shown["dialects"], shown
    assert [f["name"] for f in shown["fields"]] == ["id", "name"]
    flink_rows = sorted(tuple(r) for r in flink.rows("SELECT id, name FROM strata_rest_views.vdb.fv"))
    assert flink_rows == [(2, "b"), (3, "c")]
    out = rs.run("sql", "-e", "SELECT id, name FROM vdb.fv", "--format", "jsonl").stdout
    strata_rows = sorted((r["id"], r["name"]) for r in (json.loads(x) for x in out.splitlines() if x))
    assert strata_rows == flink_rows

    rs.run("view", "create", "vdb.sv", "--query", "SELECT id FROM t WHERE id < 3")
    got = sorted(r[0] for r in flink.rows("SELECT * FROM strata_rest_views.vdb.sv"))
    assert got == [1, 2]
