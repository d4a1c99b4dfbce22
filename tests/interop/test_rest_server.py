"""Java Paimon 2.0's ``RESTCatalog`` and pypaimon 2.1's REST catalog against ``strata serve``
(issue 32).

One ``strata serve`` per module over a local warehouse (bearer token from a token file), one
Java oracle whose ``RESTCatalog`` opens it. Java and pypaimon create databases and tables, write
(their commits go through ``POST .../commit``), read, alter, tag, branch, roll back, rename and
drop through strata's server; the rows are checked against a model by Java, by pypaimon and by
strata -- through the server and straight from the warehouse directory (the server writes
ordinary Paimon files). Wire-level checks: a commit on a stale ``baseSnapshotUuid`` is
``200 {"success": false}``, a wrong ``tableId`` 404, and Java's client maps strata's errors to
the exceptions it maps Java's server's errors to (``DefaultErrorHandler``).
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

from interop_support.canonical import canonical_lines
from interop_support.java_oracle import JavaOracle, JavaOracleError
from interop_support.rest_java_server import StrataRestServer, rest_strata
from interop_support.strata_cli import Strata

pytestmark = pytest.mark.java

PK_SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT NOT NULL"},
               {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
               {"id": 2, "name": "amount", "type": "BIGINT"}],
    "partitionKeys": ["dt"], "primaryKeys": ["id", "dt"], "options": {"bucket": "2"},
}
APPEND_SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT"}, {"id": 1, "name": "name", "type": "STRING"}],
    "partitionKeys": [], "primaryKeys": [], "options": {"bucket": "-1"},
}


@pytest.fixture(scope="module")
def server(strata_bin, tmp_path_factory):
    srv = StrataRestServer(strata_bin, str(tmp_path_factory.mktemp("serve") / "serve_wh"))
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def java():
    try:
        oracle = JavaOracle("2.0.0")
    except JavaOracleError as e:
        pytest.fail(str(e), pytrace=False)
    yield oracle
    oracle.close()


@pytest.fixture
def fs(strata_bin, server, tmp_path) -> Strata:
    """strata's CLI on the server's warehouse directory (the filesystem catalog)."""
    return Strata(strata_bin, server.warehouse_dir, tmp_path / "fs")


@pytest.fixture
def rs(strata_bin, server, tmp_path):
    """strata's CLI through the server."""
    return rest_strata(strata_bin, server, tmp_path / "rest")


def lines(rows: Sequence[dict]) -> List[str]:
    return sorted(json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in rows)


def pypaimon_catalog(server):
    return CatalogFactory.create(server.catalog_options())


def pypaimon_read(server, ident: str) -> List[str]:
    t = pypaimon_catalog(server).get_table(ident)
    rb = t.new_read_builder()
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return canonical_lines(out) if out is not None else []


def http(server, method: str, path: str, body: Optional[dict] = None, token: Optional[str] = None):
    """One raw call: (status, parsed body or None)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(server.url + path, data=data, method=method, headers={
        "Authorization": f"Bearer {token or server.token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw) if raw else None
        except ValueError:
            return e.code, raw.decode(errors="replace")


def prefix(server) -> str:
    status, cfg = http(server, "GET", f"/v1/config?warehouse={server.warehouse}")
    assert status == 200, cfg
    p = cfg["defaults"].get("prefix")
    return f"/v1/{p}" if p else "/v1"


def test_java_creates_writes_reads_and_everyone_agrees(server, java, fs, rs):
    """Java's RESTCatalog creates a partitioned primary-key table and commits twice (an upsert);
    Java, pypaimon, strata through the server and strata on the warehouse directory all read
    the model; the table id stays the same across loads and is the server's ``GET`` id."""
    opts = server.catalog_options()
    # a filesystem warehouse keeps no database options: refused by name (501), not dropped
    got = java.call("Paimon2Rest.expectError", catalogOptions=opts, inner={
        "cmd": "Paimon2Rest.createDatabase", "name": "j1", "options": {"purpose": "tests"}})
    assert got["simpleName"] == "NotImplementedException" and "purpose" in got["message"], got
    assert "j1" not in java.call("Paimon2Rest.databases", catalogOptions=opts)
    java.call("Paimon2Rest.createDatabase", catalogOptions=opts, name="j1")
    assert "j1" in java.call("Paimon2Rest.databases", catalogOptions=opts)
    java.call("createTable", catalogOptions=opts, table="j1.orders", schema=PK_SCHEMA)
    model: Dict[tuple, dict] = {}
    first = [{"id": i, "dt": f"d{i % 2}", "amount": i} for i in range(6)]
    java.call("write", catalogOptions=opts, table="j1.orders", rows=first)
    second = [{"id": 0, "dt": "d0", "amount": 1000}, {"id": 7, "dt": "d2", "amount": 7}]
    sid = java.call("write", catalogOptions=opts, table="j1.orders", rows=second)["snapshotId"]
    assert sid == 2
    for r in first + second:
        model[(r["id"], r["dt"])] = r
    want = lines(model.values())
    assert sorted(java.call("read", catalogOptions=opts, table="j1.orders")["rows"]) == want
    assert pypaimon_read(server, "j1.orders") == want
    assert fs.read_lines("j1.orders") == want
    assert rs.read_lines("j1.orders") == want
    assert [s["id"] for s in fs.snapshots("j1.orders")] == [1, 2]
    a = java.call("Paimon2Rest.tableInfo", catalogOptions=opts, table="j1.orders")
    b = java.call("Paimon2Rest.tableInfo", catalogOptions=opts, table="j1.orders")
    assert a["uuid"] and a["uuid"] == b["uuid"]
    status, got = http(server, "GET", f"{prefix(server)}/databases/j1/tables/orders")
    assert status == 200 and got["id"] == a["uuid"]
    assert a["primaryKeys"] == ["id", "dt"] and a["partitionKeys"] == ["dt"]
    # Java's RESTCatalog copies the response's owner / created* / updated* into the options
    # (AuditRESTResponse.putAuditOptionsTo): none may be missing (a null option breaks Flink)
    audit = {k: a["options"].get(k) for k in ("owner", "createdAt", "createdBy", "updatedAt", "updatedBy")}
    assert all(v not in (None, "null") for v in audit.values()), audit
    snap = java.call("Paimon2Rest.latestSnapshot", catalogOptions=opts, table="j1.orders")
    assert snap["id"] == 2 and snap["totalRecordCount"] == 8
    assert java.call("Paimon2Rest.getDatabase", catalogOptions=opts, name="j1")["name"] == "j1"


def test_pypaimon_writes_java_and_strata_read(server, java, fs):
    """pypaimon creates an append table through strata's server and commits twice; Java and
    strata read every row; then Java commits and pypaimon reads Java's rows too."""
    cat = pypaimon_catalog(server)
    cat.create_database("p1", True)
    sch = pa.schema([("id", pa.int32()), ("name", pa.string())])
    cat.create_table("p1.t", Schema.from_pyarrow_schema(sch, options={"bucket": "-1"}), False)
    model: List[dict] = []
    for i in range(2):
        t = cat.get_table("p1.t")
        wb = t.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        rows = [{"id": 10 * i + k, "name": f"py{i}"} for k in range(3)]
        w.write_arrow(pa.Table.from_pylist(rows, schema=sch))
        c.commit(w.prepare_commit())
        w.close()
        c.close()
        model += rows
    opts = server.catalog_options()
    assert sorted(java.call("read", catalogOptions=opts, table="p1.t")["rows"]) == lines(model)
    assert fs.read_lines("p1.t") == lines(model)
    jrows = [{"id": 99, "name": "java"}]
    java.call("write", catalogOptions=opts, table="p1.t", rows=jrows)
    model += jrows
    assert pypaimon_read(server, "p1.t") == lines(model)
    assert [s["id"] for s in fs.snapshots("p1.t")] == [1, 2, 3]


def test_java_alters_tags_branches_rolls_back(server, java, fs):
    """Java's schema changes, tags, branches and rollback through strata's server: each is on
    disk as Java's filesystem catalog would leave it (strata reads it there) and Java reads
    the result back through the server."""
    opts = server.catalog_options()
    java.call("createTable", catalogOptions=opts, table="j2.t", schema=APPEND_SCHEMA)
    java.call("write", catalogOptions=opts, table="j2.t", rows=[{"id": 1, "name": "a"}])
    java.call("write", catalogOptions=opts, table="j2.t", rows=[{"id": 2, "name": "b"}])
    java.call("alterTable", catalogOptions=opts, table="j2.t", changes=[
        {"op": "addColumn", "name": "score", "type": "DOUBLE"},
        {"op": "setOption", "key": "snapshot.num-retained.max", "value": "40"}])
    schema = fs.run("schema", "j2.t").stdout
    assert '"score"' in schema and "snapshot.num-retained.max" in schema
    java.call("write", catalogOptions=opts, table="j2.t", rows=[{"id": 3, "name": "c", "score": 1.5}])
    java.call("Paimon2Rest.createTag", catalogOptions=opts, table="j2.t", tag="v1", snapshot=1)
    java.call("Paimon2Rest.createTag", catalogOptions=opts, table="j2.t", tag="v3")
    assert java.call("Paimon2Rest.tags", catalogOptions=opts, table="j2.t") == ["v1", "v3"]
    assert java.call("Paimon2Rest.getTag", catalogOptions=opts, table="j2.t", tag="v3")["snapshotId"] == 3
    assert sorted(t["name"] for t in fs.json_lines("tags", "j2.t")) == ["v1", "v3"]
    java.call("Paimon2Rest.createBranch", catalogOptions=opts, table="j2.t", branch="b1", tag="v1")
    assert java.call("Paimon2Rest.branches", catalogOptions=opts, table="j2.t") == ["b1"]
    java.call("write", catalogOptions=opts, table="j2.t$branch_b1", rows=[{"id": 7, "name": "br"}])
    assert sorted(java.call("read", catalogOptions=opts, table="j2.t$branch_b1")["rows"]) == \
        lines([{"id": 1, "name": "a"}, {"id": 7, "name": "br"}])
    assert fs.read_lines("j2.t$branch_b1") == lines([{"id": 1, "name": "a"}, {"id": 7, "name": "br"}])
    java.call("Paimon2Rest.rollbackTo", catalogOptions=opts, table="j2.t", snapshot=2)
    want = [{"id": 1, "name": "a", "score": None}, {"id": 2, "name": "b", "score": None}]
    assert sorted(java.call("read", catalogOptions=opts, table="j2.t")["rows"]) == lines(want)
    assert [s["id"] for s in fs.snapshots("j2.t")] == [1, 2]
    java.call("Paimon2Rest.rollbackTo", catalogOptions=opts, table="j2.t", tag="v1")
    assert fs.read_lines("j2.t") == lines([{"id": 1, "name": "a", "score": None}])
    java.call("Paimon2Rest.deleteTag", catalogOptions=opts, table="j2.t", tag="v1")
    java.call("Paimon2Rest.dropBranch", catalogOptions=opts, table="j2.t", branch="b1")
    assert java.call("Paimon2Rest.tags", catalogOptions=opts, table="j2.t") == []
    assert java.call("Paimon2Rest.branches", catalogOptions=opts, table="j2.t") == []


def test_java_renames_and_drops(server, java, fs):
    """renameTable, dropTable and dropDatabase(cascade) by Java: gone from the server's lists
    and from the warehouse."""
    opts = server.catalog_options()
    for t in ("a", "b"):
        java.call("createTable", catalogOptions=opts, table=f"j3.{t}", schema=APPEND_SCHEMA)
    java.call("write", catalogOptions=opts, table="j3.a", rows=[{"id": 1, "name": "x"}])
    java.call("Paimon2Rest.renameTable", catalogOptions=opts, table="j3.a", to="j3.c")
    assert java.call("Paimon2Rest.tables", catalogOptions=opts, database="j3") == ["b", "c"]
    assert sorted(java.call("read", catalogOptions=opts, table="j3.c")["rows"]) == lines([{"id": 1, "name": "x"}])
    java.call("Paimon2Rest.dropTable", catalogOptions=opts, table="j3.b")
    assert java.call("Paimon2Rest.tables", catalogOptions=opts, database="j3") == ["c"]
    java.call("Paimon2Rest.dropDatabase", catalogOptions=opts, name="j3", cascade=True)
    assert "j3" not in java.call("Paimon2Rest.databases", catalogOptions=opts)
    assert not (Path(server.warehouse_dir) / "j3.db").exists()


def test_java_client_sees_java_exceptions(server, java):
    """strata's error answers become the exceptions Java's DefaultErrorHandler raises for
    Java's own server."""
    opts = server.catalog_options()
    java.call("createTable", catalogOptions=opts, table="j4.t", schema=APPEND_SCHEMA)
    java.call("write", catalogOptions=opts, table="j4.t", rows=[{"id": 1, "name": "x"}])
    java.call("Paimon2Rest.createTag", catalogOptions=opts, table="j4.t", tag="v1")
    java.call("Paimon2Rest.createBranch", catalogOptions=opts, table="j4.t", branch="b1")

    def err(cmd: str, **kw: Any) -> str:
        return java.call("Paimon2Rest.expectError", catalogOptions=opts, inner={"cmd": cmd, **kw})["simpleName"]

    assert err("Paimon2Rest.tableInfo", table="j4.nope") == "TableNotExistException"
    assert err("Paimon2Rest.getDatabase", name="nodb") == "DatabaseNotExistException"
    assert err("Paimon2Rest.createDatabase", name="j4") == "DatabaseAlreadyExistException"
    assert err("createTable", table="j4.t", schema=APPEND_SCHEMA) == "TableAlreadyExistException"
    assert err("Paimon2Rest.createTag", table="j4.t", tag="v1") == "TagAlreadyExistException"
    assert err("Paimon2Rest.getTag", table="j4.t", tag="nope") == "TagNotExistException"
    assert err("Paimon2Rest.createBranch", table="j4.t", branch="b1") == "BranchAlreadyExistException"
    assert err("Paimon2Rest.dropBranch", table="j4.t", branch="nope") == "BranchNotExistException"
    assert err("Paimon2Rest.tables", database="nodb") == "DatabaseNotExistException"
    bad = dict(opts, token="wrong-token")
    got = java.call("Paimon2Rest.expectError", catalogOptions=bad,
                    inner={"cmd": "Paimon2Rest.databases"})["simpleName"]
    assert got == "NotAuthorizedException"


def test_commit_compare_and_set_on_the_wire(server, java):
    """``POST .../commit`` as Java's RESTCatalogServer decides it: a snapshot planned on a
    stale ``baseSnapshotUuid`` is ``200 {"success": false}`` and changes nothing; a wrong
    ``tableId`` is 404; a body that is not a commit is 400 -- never 5xx."""
    opts = server.catalog_options()
    java.call("createTable", catalogOptions=opts, table="j5.t", schema=APPEND_SCHEMA)
    java.call("write", catalogOptions=opts, table="j5.t", rows=[{"id": 1, "name": "x"}])
    java.call("write", catalogOptions=opts, table="j5.t", rows=[{"id": 2, "name": "y"}])
    base = f"{prefix(server)}/databases/j5/tables/t"
    status, table = http(server, "GET", base)
    assert status == 200
    status, first = http(server, "GET", f"{base}/snapshots/1")
    assert status == 200, first
    status, latest = http(server, "GET", f"{base}/snapshot")
    assert status == 200, latest
    snap3 = dict(latest["snapshot"]["snapshot"] if "snapshot" in latest["snapshot"] else latest["snapshot"])
    snap3["id"] = snap3["id"] + 1
    snap3["uuid"] = "00000000-0000-0000-0000-000000000003"
    stale = {"tableId": table["id"], "baseSnapshotUuid": first["snapshot"]["uuid"], "snapshot": snap3,
             "statistics": []}
    status, body = http(server, "POST", f"{base}/commit", stale)
    assert (status, body) == (200, {"success": False}), (status, body)
    wrong_id = dict(stale, tableId="ffffffff-ffff-ffff-ffff-ffffffffffff")
    status, body = http(server, "POST", f"{base}/commit", wrong_id)
    assert status == 404, (status, body)
    status, body = http(server, "POST", f"{base}/commit", {"tableId": 5})
    assert status == 400, (status, body)
    status, body = http(server, "POST", f"{base}/commit", None)
    assert 400 <= status < 500, (status, body)
    assert java.call("Paimon2Rest.latestSnapshot", catalogOptions=opts, table="j5.t")["id"] == 2
    assert sorted(java.call("read", catalogOptions=opts, table="j5.t")["rows"]) == \
        lines([{"id": 1, "name": "x"}, {"id": 2, "name": "y"}])


def test_branches_consumers_and_schema_rollback_through_strata_serve(server, java, fs, rs, tmp_path):
    """strata's branch commands through ``strata serve`` (the catalog's ``POST .../branches``,
    ``.../rename``, ``.../forward``, ``DELETE .../branches/{b}``), seen by Java's RESTCatalog,
    which reads the branch rows strata wrote; Java's own ``Table.createBranch`` /
    ``deleteBranch`` (its ``CatalogBranchManager``) seen by strata; Java's ``resetConsumer`` /
    ``listConsumersPaged`` over the table's consumer files; Java's ``rollbackSchema`` deleting
    the newer schema file."""
    opts = server.catalog_options()

    def jsonl(name: str, rows: Sequence[dict]) -> str:
        p = tmp_path / name
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return str(p)

    rs.create_table("bv.t", APPEND_SCHEMA)
    rs.write("bv.t", [jsonl("a.jsonl", [{"id": 1, "name": "a"}])])
    rs.run("create-tag", "bv.t", "v1", "--snapshot", "1")
    rs.run("create-branch", "bv.t", "b", "--tag", "v1")
    assert java.call("Paimon2Rest.branches", catalogOptions=opts, table="bv.t") == ["b"]
    rs.write("bv.t$branch_b", [jsonl("b.jsonl", [{"id": 2, "name": "branch"}])])
    want = [{"id": 1, "name": "a"}, {"id": 2, "name": "branch"}]
    assert sorted(java.call("read", catalogOptions=opts, table="bv.t$branch_b")["rows"]) == lines(want)
    # strata's server really renames (Java's reference server only acknowledges)
    rs.run("rename-branch", "bv.t", "b", "b2")
    assert java.call("Paimon2Rest.branches", catalogOptions=opts, table="bv.t") == ["b2"]
    assert sorted(java.call("read", catalogOptions=opts, table="bv.t$branch_b2")["rows"]) == lines(want)
    assert not (Path(server.warehouse_dir) / "bv.db/t/branch/branch-b").exists()
    rs.run("fast-forward", "bv.t", "b2")
    assert sorted(java.call("read", catalogOptions=opts, table="bv.t")["rows"]) == lines(want)
    # Java's Table API goes through the catalog too; strata lists what it made
    got = java.call("Paimon2RestVersions.tableBranch", catalogOptions=opts, table="bv.t", op="create",
                    branch="jb", tag="v1")
    assert got == ["b2", "jb"]
    assert [b["branchName"] for b in rs.json_lines("branches", "bv.t")] == ["b2", "jb"]
    assert java.call("Paimon2RestVersions.tableBranch", catalogOptions=opts, table="bv.t", op="create",
                     branch="jb", ignoreIfExists=True) == ["b2", "jb"]
    rs.run("delete-branch", "bv.t", "b2")
    assert java.call("Paimon2RestVersions.tableBranch", catalogOptions=opts, table="bv.t", op="delete",
                     branch="jb") == []
    assert [b["branchName"] for b in rs.json_lines("branches", "bv.t")] == []

    # consumers: Java's client over the table's consumer/consumer-<id> files
    consumer = Path(server.warehouse_dir) / "bv.db/t/consumer/consumer-j1"
    java.call("Paimon2RestVersions.resetConsumer", catalogOptions=opts, table="bv.t", consumerId="j1", next=2)
    assert json.loads(consumer.read_text()) == {"nextSnapshot": 2}
    java.call("Paimon2RestVersions.resetConsumer", catalogOptions=opts, table="bv.t", consumerId="j0", next=1)
    assert java.call("Paimon2RestVersions.consumers", catalogOptions=opts, table="bv.t", maxResults=1) == [
        {"consumerId": "j0", "nextSnapshot": 1}, {"consumerId": "j1", "nextSnapshot": 2}]
    java.call("Paimon2RestVersions.resetConsumer", catalogOptions=opts, table="bv.t", consumerId="j1")
    assert not consumer.exists()
    assert java.call("Paimon2RestVersions.consumers", catalogOptions=opts, table="bv.t") == [
        {"consumerId": "j0", "nextSnapshot": 1}]

    # rollbackSchema: a schema no snapshot uses goes
    java.call("alterTable", catalogOptions=opts, table="bv.t", changes=[
        {"op": "addColumn", "name": "score", "type": "DOUBLE"}])
    schemas = Path(server.warehouse_dir) / "bv.db/t/schema"
    assert (schemas / "schema-1").exists()
    java.call("Paimon2RestVersions.rollbackSchema", catalogOptions=opts, table="bv.t", schemaId=0)
    assert not (schemas / "schema-1").exists()
    assert '"score"' not in fs.run("schema", "bv.t").stdout
    assert sorted(java.call("read", catalogOptions=opts, table="bv.t")["rows"]) == lines(want)
