"""strata's REST client for views and functions (issue 32) against Java Paimon 2.0's reference
``RESTCatalogServer`` and against ``strata serve``, with Java 2.0's ``RESTCatalog`` as the other
client (``Paimon2RestViews``).

Both ways: what strata creates, alters, renames and drops (``strata view …``, ``strata function
…``, SQL ``CREATE VIEW`` / ``DROP VIEW``) is what Java's ``RESTCatalog`` reads back, and what
Java creates strata reads; ``strata sql`` queries a view Java created (its ``datafusion``
dialect's query when it has one, else the default query), rows compared with Java's own read of
the table. The filesystem catalog refuses views and functions by name, the JDBC catalog
functions (it keeps views: test_jdbc_catalog.py).

One Java REST server, one ``strata serve`` and one Java oracle per module.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Sequence

import pytest

from interop_support.java_oracle import JavaOracle, JavaOracleError
from interop_support.rest_java_server import JavaRestServer, StrataRestServer, rest_strata
from interop_support.strata_cli import Strata, StrataError

pytestmark = pytest.mark.java

SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT"}, {"id": 1, "name": "name", "type": "STRING"},
               {"id": 2, "name": "amount", "type": "BIGINT"}],
    "partitionKeys": [], "primaryKeys": [], "options": {"bucket": "-1"},
}
ROWS = [{"id": i, "name": f"n{i}", "amount": i * 10} for i in range(1, 7)]


@pytest.fixture(scope="module")
def java():
    try:
        oracle = JavaOracle("2.0.0")
    except JavaOracleError as e:
        pytest.fail(str(e), pytrace=False)
    yield oracle
    oracle.close()


@pytest.fixture(scope="module", params=["java-server", "strata-serve"])
def server(request, tmp_path_factory, strata_bin):
    if request.param == "java-server":
        srv = JavaRestServer(str(tmp_path_factory.mktemp("java-rest") / "data"))
    else:
        srv = StrataRestServer(strata_bin, str(tmp_path_factory.mktemp("serve") / "views_wh"))
    yield srv
    srv.close()


@pytest.fixture
def rs(strata_bin, server, tmp_path):
    return rest_strata(strata_bin, server, tmp_path / "scratch")


def jsonl(path: Path, rows: Sequence[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def lines(rows: Sequence[dict]) -> List[str]:
    return sorted(json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in rows)


def sql_rows(rs: Strata, query: str) -> List[Dict]:
    out = rs.run("sql", "-e", query, "--format", "jsonl").stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def table_with_rows(rs: Strata, tmp_path: Path, ident: str) -> None:
    rs.create_table(ident, SCHEMA)
    rs.write(ident, [jsonl(tmp_path / f"{ident}.jsonl", ROWS)])


def test_views_strata_creates_java_reads(rs, server, java, tmp_path):
    """``strata view create`` (columns from the planned query, comment, option, a second
    dialect), then rename and drop, each seen by Java's RESTCatalog; strata's own show, list and
    SQL read of the view agree."""
    opts = server.catalog_options()
    table_with_rows(rs, tmp_path, "v1.t")
    query = "SELECT id, name FROM t WHERE id > 3"
    rs.run("view", "create", "v1.big", "--query", query, "--column", "id", "--column", "label",
           "--comment", "ids above 3", "--option", "owner.team=lake",
           "--dialect", "spark=SELECT id, name FROM v1.t WHERE id > 3")
    j = java.call("Paimon2RestViews.getView", catalogOptions=opts, view="v1.big")
    assert [f["name"] for f in j["fields"]] == ["id", "label"]
    assert [f["type"] for f in j["fields"]] == ["INT", "STRING"]
    assert j["query"] == query
    assert j["dialects"] == {"datafusion": query, "spark": "SELECT id, name FROM v1.t WHERE id > 3"}
    assert j["comment"] == "ids above 3"
    assert j["options"]["owner.team"] == "lake"
    assert java.call("Paimon2RestViews.views", catalogOptions=opts, database="v1") == ["big"]
    assert java.call("Paimon2RestViews.viewQuery", catalogOptions=opts, view="v1.big", dialect="flink") == query

    shown = rs.json_lines("view", "show", "v1.big")[0]
    assert shown["name"] == "big" and shown["schema"]["query"] == query
    assert [r["view"] for r in rs.json_lines("view", "list", "v1")] == ["big"]
    got = sql_rows(rs, "SELECT * FROM v1.big ORDER BY id")
    assert got == [{"id": r["id"], "label": r["name"]} for r in ROWS if r["id"] > 3]

    # A second create is refused (409), --if-not-exists passes.
    e = rs.run("view", "create", "v1.big", "--query", query, check=False)
    assert e.returncode != 0 and "already exists" in e.stderr, e.stderr
    rs.run("view", "create", "v1.big", "--query", query, "--if-not-exists")

    # strata alters: Java sees each change; Java's 409 / 404 DIALECT answers are named.
    rs.run("view", "alter", "v1.big", "--set-option", "a=1", "--remove-option", "owner.team",
           "--comment", "new comment", "--add-dialect", "flink=SELECT 1",
           "--update-dialect", "spark=SELECT 2", "--drop-dialect", "datafusion")
    j = java.call("Paimon2RestViews.getView", catalogOptions=opts, view="v1.big")
    assert j["dialects"] == {"flink": "SELECT 1", "spark": "SELECT 2"}
    assert j["comment"] == "new comment" and j["options"]["a"] == "1" and "owner.team" not in j["options"]
    e = rs.run("view", "alter", "v1.big", "--add-dialect", "flink=SELECT 3", check=False)
    assert e.returncode != 0 and "dialect flink already exists in view v1.big" in e.stderr, e.stderr
    e = rs.run("view", "alter", "v1.big", "--drop-dialect", "hive", check=False)
    assert e.returncode != 0 and "dialect hive does not exist in view v1.big" in e.stderr, e.stderr
    rs.run("view", "alter", "v1.big", "--remove-comment")
    assert java.call("Paimon2RestViews.getView", catalogOptions=opts, view="v1.big")["comment"] is None
    e = rs.run("view", "alter", "v1.nope", "--set-option", "a=1", check=False)
    assert e.returncode != 0 and "view v1.nope does not exist" in e.stderr, e.stderr

    rs.run("view", "rename", "v1.big", "v1.bigger")
    assert java.call("Paimon2RestViews.views", catalogOptions=opts, database="v1") == ["bigger"]
    e = rs.run("view", "show", "v1.big", check=False)
    assert e.returncode != 0 and "view v1.big does not exist" in e.stderr, e.stderr
    rs.run("view", "drop", "v1.bigger")
    assert java.call("Paimon2RestViews.views", catalogOptions=opts, database="v1") == []
    rs.run("view", "drop", "v1.bigger", "--if-exists")


def test_sql_create_and_drop_view(rs, server, java, tmp_path):
    """``CREATE VIEW`` / ``CREATE OR REPLACE VIEW`` / ``DROP VIEW`` in ``strata sql`` create,
    replace and drop the catalog's view (Java sees each); a view over a view resolves; a name a
    table holds is refused."""
    opts = server.catalog_options()
    table_with_rows(rs, tmp_path, "v2.t")
    rs.run("sql", "-e", "CREATE VIEW v2.totals AS SELECT count(*) AS n, sum(amount) AS total FROM v2.t")
    j = java.call("Paimon2RestViews.getView", catalogOptions=opts, view="v2.totals")
    assert [(f["name"], f["type"]) for f in j["fields"]] == [("n", "BIGINT NOT NULL"), ("total", "BIGINT")]
    assert sql_rows(rs, "SELECT * FROM v2.totals") == [{"n": 6, "total": 210}]
    rs.run("sql", "-e", "CREATE VIEW v2.small AS SELECT id, amount FROM v2.t WHERE id <= 2")
    rs.run("sql", "-e", "CREATE VIEW v2.small_sum AS SELECT sum(amount) AS s FROM v2.small")
    assert sql_rows(rs, "SELECT * FROM v2.small_sum") == [{"s": 30}]
    rs.run("sql", "-e", "CREATE OR REPLACE VIEW v2.small AS SELECT id, amount FROM v2.t WHERE id <= 3")
    assert sql_rows(rs, "SELECT * FROM v2.small_sum") == [{"s": 60}]
    assert java.call("Paimon2RestViews.viewQuery", catalogOptions=opts, view="v2.small",
                     dialect="datafusion").endswith("id <= 3")
    e = rs.run("sql", "-e", "CREATE VIEW v2.t AS SELECT 1 AS x", check=False)
    assert e.returncode != 0 and "a table of that name exists" in e.stderr, e.stderr
    rs.run("sql", "-e", "DROP VIEW v2.small_sum")
    rs.run("sql", "-e", "DROP VIEW IF EXISTS v2.small_sum")
    assert java.call("Paimon2RestViews.views", catalogOptions=opts, database="v2") == ["small", "totals"]


def test_views_java_creates_strata_queries(rs, server, java, tmp_path):
    """A view Java's RESTCatalog created (default query and a ``flink`` dialect) is shown by
    strata and queried by ``strata sql`` (the default query: no ``datafusion`` dialect), rows
    equal to Java's read of the table filtered the same way; after Java adds a ``datafusion``
    dialect strata plans that one; an unparsable ``datafusion`` query is an error naming the
    view and the dialect."""
    opts = server.catalog_options()
    table_with_rows(rs, tmp_path, "v3.t")
    schema = {
        "fields": [{"id": 0, "name": "id", "type": "INT"}, {"id": 1, "name": "amount", "type": "BIGINT"}],
        "query": "SELECT id, amount FROM t WHERE amount >= 30",
        "dialects": {"flink": "SELECT `id`, `amount` FROM `v3`.`t` WHERE `amount` >= 30"},
        "comment": "from java",
        "options": {"k": "v"},
    }
    java.call("Paimon2RestViews.createView", catalogOptions=opts, view="v3.jv", schema=schema)
    shown = rs.json_lines("view", "show", "v3.jv")[0]["schema"]
    assert shown["query"] == schema["query"] and shown["dialects"] == schema["dialects"]
    assert shown["comment"] == "from java" and shown["options"]["k"] == "v"
    assert [f["name"] for f in shown["fields"]] == ["id", "amount"]
    java_rows = java.call("read", catalogOptions=opts, table="v3.t")["rows"]
    want = sorted((json.loads(r)["id"], json.loads(r)["amount"]) for r in java_rows
                  if json.loads(r)["amount"] >= 30)
    got = sorted((r["id"], r["amount"]) for r in sql_rows(rs, "SELECT * FROM v3.jv"))
    assert got == want and len(got) == 4

    java.call("Paimon2RestViews.alterView", catalogOptions=opts, view="v3.jv",
              changes=[{"action": "addDialect", "dialect": "datafusion",
                        "query": "SELECT id, amount FROM v3.t WHERE amount >= 50"}])
    assert sorted(r["id"] for r in sql_rows(rs, "SELECT * FROM v3.jv")) == [5, 6]
    java.call("Paimon2RestViews.alterView", catalogOptions=opts, view="v3.jv",
              changes=[{"action": "updateDialect", "dialect": "datafusion", "query": "SELEC nonsense"}])
    e = rs.run("sql", "-e", "SELECT * FROM v3.jv", check=False)
    assert e.returncode != 0, e.stdout
    assert "view v3.jv" in e.stderr and "datafusion query" in e.stderr, e.stderr
    java.call("Paimon2RestViews.dropView", catalogOptions=opts, view="v3.jv")
    assert [r["view"] for r in rs.json_lines("view", "list", "v3")] == []


FUNCTION = {
    "inputParams": [{"id": 0, "name": "x", "type": "INT"}],
    "returnParams": [{"id": 0, "name": "y", "type": "INT"}],
    "deterministic": True,
    "definitions": {
        "flink": {"type": "file", "fileResources": [{"resourceType": "JAR", "uri": "oss://b/udf.jar"}],
                  "language": "JAVA", "className": "com.example.Plus", "functionName": "eval"},
        "spark": {"type": "lambda", "definition": "(Integer x) -> x + 1", "language": "JAVA"},
        "trino": {"type": "sql", "definition": "x + 1"},
    },
    "comment": "plus one",
    "options": {"k": "v"},
}


def test_functions_both_ways(rs, server, java, tmp_path):
    """``strata function create`` (file, lambda and sql definitions) is Java's function;
    Java's function is strata's; list and drop agree both ways."""
    opts = server.catalog_options()
    rs.run("sql", "-e", "CREATE SCHEMA f1")
    spec = tmp_path / "plus.json"
    spec.write_text(json.dumps(FUNCTION))
    rs.run("function", "create", "f1.plus_one", "--json", str(spec))
    j = java.call("Paimon2RestViews.getFunction", catalogOptions=opts, function="f1.plus_one")
    assert j["name"] == "plus_one" and j["deterministic"] is True
    assert j["definitions"] == FUNCTION["definitions"]
    assert [f["name"] for f in j["inputParams"]] == ["x"]
    assert [f["name"] for f in j["returnParams"]] == ["y"]
    assert j["comment"] == "plus one" and j["options"] == {"k": "v"}

    java.call("Paimon2RestViews.createFunction", catalogOptions=opts, function="f1.twice",
              definitions={"trino": {"type": "sql", "definition": "x * 2"}}, deterministic=False)
    shown = rs.json_lines("function", "show", "f1.twice")[0]
    assert shown["name"] == "twice" and shown["deterministic"] is False
    assert shown["definitions"] == {"trino": {"type": "sql", "definition": "x * 2"}}
    assert shown["inputParams"] is None
    assert [r["function"] for r in rs.json_lines("function", "list", "f1")] == ["plus_one", "twice"]

    changes = tmp_path / "changes.json"
    changes.write_text(json.dumps([
        {"action": "setOption", "key": "k2", "value": "v2"},
        {"action": "removeOption", "key": "k"},
        {"action": "updateComment", "comment": "plus 1"},
        {"action": "addDefinition", "name": "hive", "definition": {"type": "sql", "definition": "x+1"}},
        {"action": "dropDefinition", "name": "spark"},
    ]))
    rs.run("function", "alter", "f1.plus_one", "--json", str(changes))
    j = java.call("Paimon2RestViews.getFunction", catalogOptions=opts, function="f1.plus_one")
    assert j["options"] == {"k2": "v2"} and j["comment"] == "plus 1"
    assert sorted(j["definitions"]) == ["flink", "hive", "trino"]
    assert j["definitions"]["hive"] == {"type": "sql", "definition": "x+1"}
    changes.write_text(json.dumps([{"action": "addDefinition", "name": "hive",
                                    "definition": {"type": "sql", "definition": "y"}}]))
    e = rs.run("function", "alter", "f1.plus_one", "--json", str(changes), check=False)
    assert e.returncode != 0 and "definition hive already exists in function f1.plus_one" in e.stderr, e.stderr
    changes.write_text(json.dumps([{"action": "dropDefinition", "name": "presto"}]))
    e = rs.run("function", "alter", "f1.plus_one", "--json", str(changes), check=False)
    assert e.returncode != 0 and "definition presto does not exist in function f1.plus_one" in e.stderr, e.stderr

    e = rs.run("function", "create", "f1.plus_one", "--json", str(spec), check=False)
    assert e.returncode != 0 and "already exists" in e.stderr, e.stderr
    e = rs.run("function", "create", "f1.bad$name", "--json", str(spec), check=False)
    assert e.returncode != 0 and "Invalid function name" in e.stderr, e.stderr
    rs.run("function", "drop", "f1.plus_one")
    assert java.call("Paimon2RestViews.functions", catalogOptions=opts, database="f1") == ["twice"]
    java.call("Paimon2RestViews.dropFunction", catalogOptions=opts, function="f1.twice")
    assert rs.json_lines("function", "list", "f1") == []
    e = rs.run("function", "show", "f1.twice", check=False)
    assert e.returncode != 0 and "function f1.twice does not exist" in e.stderr, e.stderr


def test_filesystem_and_jdbc_catalogs_refuse_by_name(strata_bin, tmp_path, server):
    """The filesystem catalog (as Java's FileSystemCatalog) refuses each view and function call
    by name; strata's JDBC catalog refuses functions (it keeps views, as Java 2.0's). (Runs once per server parameter; it
    needs none.)"""
    wh = tmp_path / "wh"
    fs = Strata(strata_bin, str(wh), tmp_path / "s")
    fs.run("sql", "-e", "CREATE SCHEMA d")
    for args, call in [(("view", "list", "d"), "listViews"),
                       (("view", "show", "d.v"), "getView"),
                       (("function", "list", "d"), "listFunctions"),
                       (("sql", "-e", "CREATE VIEW d.v AS SELECT 1 AS x"), "getView")]:
        p = fs.run(*args, check=False)
        assert p.returncode != 0 and call in p.stderr and "FileSystemCatalog" in p.stderr, p.stderr
    jdbc = ["--catalog-option", f"metastore=jdbc,uri=jdbc:sqlite:{tmp_path / 'c.db'},"
            f"warehouse={tmp_path / 'jwh'},catalog-key=c"]
    # The JDBC catalog keeps views as Java 2.0's JdbcCatalog (test_jdbc_catalog.py); functions
    # it refuses by name, as Java's JdbcCatalog has none.
    p = fs.run(*jdbc, "function", "list", "d", check=False, warehouse=False)
    assert p.returncode != 0 and "listFunctions" in p.stderr and "JDBC" in p.stderr, p.stderr
    p = fs.run(*jdbc, "view", "list", "d", check=False, warehouse=False)
    assert p.returncode != 0 and "listViews" not in p.stderr and "d" in p.stderr, p.stderr
