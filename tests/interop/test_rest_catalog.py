"""strata's REST catalog client against Java Paimon 2.0's reference server (issue 32).

One Java ``RESTCatalogServer`` (paimon-core's test server, ``Paimon2RestServerMain``; bearer
token, warehouse ``rest_wh``, prefix ``paimon``) per module, and one Java oracle whose
``RESTCatalog`` opens the same server. strata's CLI opens it with ``--catalog-option
metastore=rest,uri=...,warehouse=rest_wh,token.provider=bear,token=...``. Every test checks the
rows against a model with both strata and Java's client, and what strata asked the server for
(Java's server logs each request: method, path, status, a commit's ``success``): commits go
through ``POST .../commit``, tags, branches and rollback through their endpoints, and no call
strata makes is answered 5xx.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Sequence

import pytest

from interop_support.java_oracle import JavaOracle, JavaOracleError
from interop_support.rest_java_server import JavaRestServer, RestServer, rest_strata
from interop_support.strata_cli import StrataError

pytestmark = pytest.mark.java

PK_SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT NOT NULL"},
               {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
               {"id": 2, "name": "amount", "type": "BIGINT"},
               {"id": 3, "name": "note", "type": "STRING"}],
    "partitionKeys": ["dt"], "primaryKeys": ["id", "dt"], "options": {"bucket": "2"},
}
APPEND_SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT"}, {"id": 1, "name": "name", "type": "STRING"}],
    "partitionKeys": [], "primaryKeys": [], "options": {"bucket": "-1"},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = JavaRestServer(str(tmp_path_factory.mktemp("java-rest") / "data"))
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
def rs(strata_bin, server, tmp_path):
    """strata's CLI on the module's Java server; the server's request log starts empty."""
    server.clear_requests()
    return rest_strata(strata_bin, server, tmp_path / "scratch")


def lines(rows: Sequence[dict]) -> List[str]:
    """The oracle's canonical lines of plain rows (ints and strings: sorted-key-free JSON in
    schema order, as canonical_lines writes them)."""
    return sorted(json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in rows)


def jsonl(path: Path, rows: Sequence[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def calls(server: JavaRestServer) -> List[Dict]:
    reqs = server.requests()
    bad = [r for r in reqs if r["status"] >= 500]
    assert not bad, f"Java's server answered 5xx to strata: {bad}"
    return reqs


def called(reqs: List[Dict], method: str, suffix: str) -> List[Dict]:
    return [r for r in reqs if r["method"] == method and r["path"].endswith(suffix)]


def test_strata_creates_writes_and_java_reads(rs, server, java, tmp_path):
    """A partitioned primary-key table created and written (two commits, the second an upsert)
    by strata through Java's server: rows equal the model in strata and in Java's RESTCatalog;
    each commit was one ``POST .../commit`` answered ``success: true``; the server's statistics
    (summed from the commits' per-partition statistics) equal the snapshot's record count and
    the live files."""
    opts = server.catalog_options()
    rs.create_table("s1.orders", PK_SCHEMA)
    model: Dict[tuple, dict] = {}
    first = [{"id": i, "dt": f"2026-01-0{1 + i % 2}", "amount": i * 10, "note": f"n{i}"} for i in range(6)]
    rs.write("s1.orders", [jsonl(tmp_path / "c1.jsonl", first)])
    for r in first:
        model[(r["id"], r["dt"])] = r
    second = [{"id": i, "dt": f"2026-01-0{1 + i % 2}", "amount": i * 100, "note": "upd"} for i in (0, 3)] + \
             [{"id": 9, "dt": "2026-01-03", "amount": 9, "note": "new"}]
    rs.write("s1.orders", [jsonl(tmp_path / "c2.jsonl", second)])
    for r in second:
        model[(r["id"], r["dt"])] = r
    want = lines(model.values())
    assert rs.read_lines("s1.orders") == want
    assert sorted(java.call("read", catalogOptions=opts, table="s1.orders")["rows"]) == want

    reqs = calls(server)
    commits = called(reqs, "POST", "/databases/s1/tables/orders/commit")
    assert [c["success"] for c in commits] == [True, True], commits
    assert called(reqs, "POST", "/databases") or called(reqs, "GET", "/databases/s1"), \
        "strata's create-table did not create or look up the database through the server"
    assert called(reqs, "POST", "/databases/s1/tables"), "the table was not created through the server"

    snap = java.call("Paimon2Rest.latestSnapshot", catalogOptions=opts, table="s1.orders")
    assert snap["id"] == 2 and snap["commitKind"] == "APPEND"
    assert snap["recordCount"] == snap["totalRecordCount"] == 9
    assert snap["fileCount"] == len(rs.files("s1.orders"))
    parts = java.call("Paimon2Rest.partitions", catalogOptions=opts, table="s1.orders")
    assert [p["spec"] for p in parts] == [{"dt": "2026-01-01"}, {"dt": "2026-01-02"}, {"dt": "2026-01-03"}]
    assert sum(p["recordCount"] for p in parts) == 9
    info = java.call("Paimon2Rest.tableInfo", catalogOptions=opts, table="s1.orders")
    assert info["primaryKeys"] == ["id", "dt"] and info["partitionKeys"] == ["dt"]
    assert info["options"]["bucket"] == "2"


def test_java_and_strata_alternate_on_an_append_table(rs, server, java, tmp_path):
    """Java's RESTCatalog creates an append table and commits; strata reads and commits on
    top; twice: both read every row after every commit, four snapshots in order."""
    opts = server.catalog_options()
    java.call("Paimon2Rest.createDatabase", catalogOptions=opts, name="s2", ignoreIfExists=True)
    java.call("createTable", catalogOptions=opts, table="s2.events", schema=APPEND_SCHEMA)
    model: List[dict] = []
    for round_ in range(2):
        jrows = [{"id": 100 * round_ + i, "name": f"java{round_}"} for i in range(3)]
        java.call("write", catalogOptions=opts, table="s2.events", rows=jrows)
        model += jrows
        assert rs.read_lines("s2.events") == lines(model)
        srows = [{"id": 100 * round_ + 50 + i, "name": f"strata{round_}"} for i in range(2)]
        rs.write("s2.events", [jsonl(tmp_path / f"s{round_}.jsonl", srows)])
        model += srows
        assert sorted(java.call("read", catalogOptions=opts, table="s2.events")["rows"]) == lines(model)
    snaps = rs.snapshots("s2.events")
    assert [s["id"] for s in snaps] == [1, 2, 3, 4]
    reqs = calls(server)
    strata_commits = [c for c in called(reqs, "POST", "/databases/s2/tables/events/commit")]
    assert len(strata_commits) == 4 and all(c["success"] for c in strata_commits)


def test_tags_branches_and_rollback_through_the_server(rs, server, java, tmp_path):
    """strata's tag and branch are seen by Java's RESTCatalog (tags, getTag, listBranches);
    strata writes to a branch Java created and rolls the table back through ``POST
    .../rollback``; Java reads the branch and the rolled-back table.

    Java's server knows a branch table only when its own createBranch made it, and records the
    *main* branch's latest snapshot as the new branch's latest (RESTCatalogServer's branch
    handler), whatever the tag: so the branch is made from a tag of main's latest snapshot (a
    branch of an older tag makes Java's own client commit main's rows onto the branch, and
    strata's commit -- based on the branch's real latest snapshot -- conflict forever)."""
    opts = server.catalog_options()
    rs.create_table("s3.t", APPEND_SCHEMA)
    rs.write("s3.t", [jsonl(tmp_path / "a.jsonl", [{"id": 1, "name": "a"}])])
    rs.run("create-tag", "s3.t", "v1", "--snapshot", "1")
    assert java.call("Paimon2Rest.tags", catalogOptions=opts, table="s3.t") == ["v1"]
    assert java.call("Paimon2Rest.getTag", catalogOptions=opts, table="s3.t", tag="v1")["snapshotId"] == 1
    rs.run("create-branch", "s3.t", "b0")
    assert java.call("Paimon2Rest.branches", catalogOptions=opts, table="s3.t") == ["b0"]
    java.call("Paimon2Rest.createBranch", catalogOptions=opts, table="s3.t", branch="b1", tag="v1")
    assert [b["branchName"] for b in rs.json_lines("branches", "s3.t")] == ["b0", "b1"]
    rs.write("s3.t", [jsonl(tmp_path / "b.jsonl", [{"id": 2, "name": "b"}])])
    rs.write("s3.t$branch_b1", [jsonl(tmp_path / "c.jsonl", [{"id": 3, "name": "branch"}])])
    branch_rows = lines([{"id": 1, "name": "a"}, {"id": 3, "name": "branch"}])
    assert sorted(java.call("read", catalogOptions=opts, table="s3.t$branch_b1")["rows"]) == branch_rows
    assert rs.read_lines("s3.t$branch_b1") == branch_rows
    assert rs.read_lines("s3.t") == lines([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    rs.run("rollback", "s3.t", "--to-snapshot", "1")
    assert sorted(java.call("read", catalogOptions=opts, table="s3.t")["rows"]) == lines([{"id": 1, "name": "a"}])
    assert rs.read_lines("s3.t") == lines([{"id": 1, "name": "a"}])
    reqs = calls(server)
    assert called(reqs, "POST", "/databases/s3/tables/t/rollback"), "the rollback did not go through the server"
    branch_commits = called(reqs, "POST", "/databases/s3/tables/t%24branch_b1/commit")
    assert [c["success"] for c in branch_commits] == [True], branch_commits


def test_alter_list_and_drop(rs, server, java, tmp_path):
    """strata alters (SQL ADD COLUMN, an option), lists and drops through the server; Java's
    RESTCatalog sees each change."""
    opts = server.catalog_options()
    rs.create_table("s4.t", APPEND_SCHEMA)
    rs.create_table("s4.u", APPEND_SCHEMA)
    rs.run("sql", "-e", "ALTER TABLE s4.t ADD COLUMN extra BIGINT")
    rs.run("sql", "-e", "ALTER TABLE s4.t SET TBLPROPERTIES ('snapshot.num-retained.max' = '50')")
    info = java.call("Paimon2Rest.tableInfo", catalogOptions=opts, table="s4.t")
    assert info["fields"] == ["id", "name", "extra"]
    assert info["options"]["snapshot.num-retained.max"] == "50"
    assert java.call("Paimon2Rest.tables", catalogOptions=opts, database="s4") == ["t", "u"]
    listed = sorted(r.get("table") or r.get("name") for r in rs.list("s4"))
    assert listed == ["t", "u"], rs.list("s4")
    assert "s4" in {r.get("database") or r.get("name") for r in rs.list()}
    rs.run("drop-table", "s4.u")
    assert java.call("Paimon2Rest.tables", catalogOptions=opts, database="s4") == ["t"]
    reqs = calls(server)
    assert called(reqs, "POST", "/databases/s4/tables/t"), "ALTER did not go through the server"
    assert called(reqs, "DELETE", "/databases/s4/tables/u"), "drop-table did not go through the server"


def test_errors_are_mapped(rs, server, strata_bin, tmp_path):
    """A missing table is a not-found error; a wrong token is refused as unauthorized (401), and
    neither is answered 5xx."""
    p = rs.run("read", "nodb.missing", check=False)
    assert p.returncode != 0
    assert "not exist" in p.stderr.lower() or "not found" in p.stderr.lower(), p.stderr
    bad = RestServer()
    bad.url, bad.warehouse, bad.token = server.url, server.warehouse, "wrong-token"
    p = rest_strata(strata_bin, bad, tmp_path / "bad").run("list", check=False)
    assert p.returncode != 0
    err = p.stderr.lower()
    assert "401" in err or "unauthori" in err or "permission" in err or "not authorized" in err, p.stderr
    reqs = server.requests()
    assert any(r["status"] == 401 for r in reqs)
    assert not [r for r in reqs if r["status"] >= 500]


def test_vended_tokens(strata_bin, tmp_path, java):
    """A server with ``data-token.enabled``: strata asks ``GET .../token`` for the table it
    writes and reads (Java's server vends its dummy credentials for a local warehouse), the
    rows are right for strata and Java."""
    srv = JavaRestServer(str(tmp_path / "data"), warehouse="vend_wh", data_token=True)
    try:
        rs = rest_strata(strata_bin, srv, tmp_path / "scratch")
        rs.create_table("v.t", APPEND_SCHEMA)
        rows = [{"id": 1, "name": "x"}, {"id": 2, "name": "y"}]
        rs.write("v.t", [jsonl(tmp_path / "r.jsonl", rows)])
        assert rs.read_lines("v.t") == lines(rows)
        reqs = calls(srv)
        assert called(reqs, "GET", "/databases/v/tables/t/token"), \
            "strata did not ask for the table's data token"
    finally:
        srv.close()


def test_strata_error_exit_commits_nothing(rs, server, tmp_path):
    """A write refused by the table (a NULL into a NOT NULL key) commits nothing through the
    server."""
    rs.create_table("s5.t", PK_SCHEMA)
    with pytest.raises(StrataError):
        rs.write("s5.t", [jsonl(tmp_path / "bad.jsonl", [{"id": None, "dt": "d", "amount": 1, "note": "x"}])])
    reqs = calls(server)
    assert not called(reqs, "POST", "/databases/s5/tables/t/commit")


def test_branch_commands_go_through_the_catalog(rs, server, java, tmp_path):
    """strata's branch commands on a REST table ask the catalog, as Java's
    ``CatalogBranchManager`` does (Java's ``RESTCatalog.supportsVersionManagement``): create,
    fast-forward and delete are the server's ``POST .../branches``, ``.../forward`` and ``DELETE
    .../branches/{b}``, so Java's server registers the branch and strata can then commit to
    ``t$branch_b`` through it (a branch made in the files behind the server's back is one the
    server does not know). Java's client lists the branch, reads the rows strata wrote to it and
    writes to it through its own table API; strata reads Java's rows. A start the REST API
    cannot express (a snapshot id) is refused by name; a rename, which Java's server
    acknowledges without doing, is refused by name rather than reported done."""
    opts = server.catalog_options()
    rs.create_table("s6.t", APPEND_SCHEMA)
    rs.write("s6.t", [jsonl(tmp_path / "a.jsonl", [{"id": 1, "name": "a"}])])
    rs.run("create-tag", "s6.t", "v1", "--snapshot", "1")
    rs.run("create-branch", "s6.t", "b", "--tag", "v1")
    reqs = calls(server)
    assert [r["status"] for r in called(reqs, "POST", "/databases/s6/tables/t/branches")] == [200], reqs
    assert java.call("Paimon2Rest.branches", catalogOptions=opts, table="s6.t") == ["b"]
    assert [b["branchName"] for b in rs.json_lines("branches", "s6.t")] == ["b"]
    assert called(calls(server), "GET", "/databases/s6/tables/t/branches"), "strata listed the files"

    # strata commits to the branch through the server; Java reads it and writes to it
    rs.write("s6.t$branch_b", [jsonl(tmp_path / "b.jsonl", [{"id": 2, "name": "branch"}])])
    want = [{"id": 1, "name": "a"}, {"id": 2, "name": "branch"}]
    assert sorted(java.call("read", catalogOptions=opts, table="s6.t$branch_b")["rows"]) == lines(want)
    java.call("write", catalogOptions=opts, table="s6.t$branch_b", rows=[{"id": 3, "name": "java"}])
    want.append({"id": 3, "name": "java"})
    assert rs.read_lines("s6.t$branch_b") == lines(want)
    commits = called(calls(server), "POST", "/databases/s6/tables/t%24branch_b/commit")
    assert [c["success"] for c in commits] == [True, True], commits

    # refused by name: a snapshot start, a rename the server does not do
    e = rs.run("create-branch", "s6.t", "c", "--snapshot", "1", check=False)
    assert e.returncode != 0 and "from snapshot 1" in e.stderr, e.stderr
    assert java.call("Paimon2Rest.branches", catalogOptions=opts, table="s6.t") == ["b"]
    e = rs.run("rename-branch", "s6.t", "b", "b2", check=False)
    assert e.returncode != 0 and "did not rename" in e.stderr, e.stderr
    assert called(calls(server), "POST", "/databases/s6/tables/t/branches/b/rename")

    # fast-forward main to the branch, then drop it: Java sees both
    rs.run("fast-forward", "s6.t", "b")
    assert called(calls(server), "POST", "/databases/s6/tables/t/branches/b/forward")
    assert sorted(java.call("read", catalogOptions=opts, table="s6.t")["rows"]) == lines(want)
    assert rs.read_lines("s6.t") == lines(want)
    rs.run("delete-branch", "s6.t", "b")
    assert called(calls(server), "DELETE", "/databases/s6/tables/t/branches/b")
    assert java.call("Paimon2Rest.branches", catalogOptions=opts, table="s6.t") == []
    e = rs.run("delete-branch", "s6.t", "b", check=False)
    assert e.returncode != 0 and "Branch name 'b' doesn't exist" in e.stderr, e.stderr
