"""Views and functions of ``strata serve`` seen by Java Paimon 2.0's ``RESTCatalog`` (issue 32).

One scenario -- ``createView``, ``getView``, ``alterView`` (every ``ViewChange``), the
``listViews*`` calls (paged, patterns, details, globally), ``renameView``, ``dropView``, the
same for functions (every ``FunctionDefinition`` kind and ``FunctionChange``) and the
exceptions Java's client raises for each refusal -- is run by Java's client
(``Paimon2RestViews.java``) against Java's own ``RESTCatalogServer`` and against ``strata
serve``; the two transcripts must be equal (the servers' audit members aside, and paging
compared by content: Java's server ends a full last page with one more empty page, strata's
does not). Then what only a persistent server can show: a restarted ``strata serve`` still has
the views and functions, and their hidden folders are no tables to Java's ``FileSystemCatalog``,
to strata's filesystem catalog or to pypaimon's. And pypaimon 2.1's REST catalog (functions
only) creating, altering and reading functions with Java's client on ``strata serve``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
from pypaimon import CatalogFactory

from interop_support.java_oracle import JavaOracle, JavaOracleError
from interop_support.rest_java_server import JavaRestServer, StrataRestServer
from interop_support.strata_cli import Strata

pytestmark = pytest.mark.java

AUDIT = {"owner", "createdAt", "createdBy", "updatedAt", "updatedBy"}

FIELDS = [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"}, {"id": 1, "name": "v", "type": "STRING"}]
VIEW_SCHEMA = {"fields": FIELDS, "query": "SELECT id, v FROM t", "dialects": {"spark": "SELECT id, v FROM vdb.t"},
               "comment": "first", "options": {"k": "v"}}
DEFINITIONS = {
    "flink": {"type": "file", "fileResources": [{"resourceType": "JAR", "uri": "/lib/f.jar"}],
              "language": "JAVA", "className": "com.example.F", "functionName": "eval"},
    "spark": {"type": "lambda", "definition": "(Integer x) -> x + 1", "language": "JAVA"},
    "trino": {"type": "sql", "definition": "x + 1"},
}


@pytest.fixture(scope="module")
def java():
    try:
        oracle = JavaOracle("2.0.0")
    except JavaOracleError as e:
        pytest.fail(str(e), pytrace=False)
    yield oracle
    oracle.close()


def normalized(value: Any) -> Any:
    """``value`` without the servers' audit members (in a view's or function's options)."""
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items()
                if not (k in AUDIT and isinstance(v, str)) and k != "uuid"}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def flat(pages: List[List[Any]], limit: int = 1000) -> List[Any]:
    """The elements of every page, in order (each page at most ``limit`` long)."""
    assert all(len(p) <= limit for p in pages), pages
    return [x for p in pages for x in p]


def scenario(java: JavaOracle, opts: Dict[str, str]) -> Dict[str, Any]:
    """Java's client on the server of ``opts``: what it answered and raised, step by step."""
    out: Dict[str, Any] = {}

    def call(cmd: str, **kw: Any) -> Any:
        return java.call(f"Paimon2RestViews.{cmd}", catalogOptions=opts, **kw)

    def err(cmd: str, **kw: Any) -> str:
        inner = {"cmd": cmd if "." in cmd else f"Paimon2RestViews.{cmd}", **kw}
        return java.call("Paimon2Rest.expectError", catalogOptions=opts, inner=inner)["simpleName"]

    for db in ("vdb", "vdb2"):
        java.call("Paimon2Rest.createDatabase", catalogOptions=opts, name=db)
    # views
    for v in ("vdb.v1", "vdb.v2", "vdb.x1", "vdb2.w"):
        call("createView", view=v, schema=VIEW_SCHEMA)
    out["view exists"] = err("createView", view="vdb.v1", schema=VIEW_SCHEMA)
    call("createView", view="vdb.v1", schema=VIEW_SCHEMA, ignoreIfExists=True)
    out["view in missing db"] = err("createView", view="nodb.v", schema=VIEW_SCHEMA)
    out["get"] = normalized(call("getView", view="vdb.v1"))
    out["get missing"] = err("getView", view="vdb.nope")
    call("alterView", view="vdb.v1", changes=[
        {"action": "addDialect", "dialect": "flink", "query": "SELECT 2"},
        {"action": "updateDialect", "dialect": "spark", "query": "SELECT 3"},
        {"action": "setOption", "key": "x", "value": "1"},
        {"action": "removeOption", "key": "k"},
        {"action": "updateComment", "comment": None}])
    out["altered"] = normalized(call("getView", view="vdb.v1"))
    out["query flink"] = call("viewQuery", view="vdb.v1", dialect="flink")
    out["query hive"] = call("viewQuery", view="vdb.v1", dialect="hive")
    out["dialect exists"] = err("alterView", view="vdb.v1",
                                changes=[{"action": "addDialect", "dialect": "flink", "query": "q"}])
    out["dialect missing"] = err("alterView", view="vdb.v1",
                                 changes=[{"action": "dropDialect", "dialect": "nope"}])
    out["update missing dialect"] = err("alterView", view="vdb.v1",
                                        changes=[{"action": "updateDialect", "dialect": "nope", "query": "q"}])
    out["alter missing"] = err("alterView", view="vdb.nope", changes=[{"action": "setOption", "key": "a", "value": "b"}])
    call("alterView", view="vdb.nope", changes=[], ignoreIfNotExists=True)
    out["views"] = call("views", database="vdb")
    out["views paged"] = flat(call("viewsPaged", database="vdb", maxResults=1), 1)
    out["views pattern"] = flat(call("viewsPaged", database="vdb", pattern="v%"))
    out["view details"] = normalized(flat(call("viewDetails", database="vdb", maxResults=1, pattern="v%"), 1))
    out["views globally"] = flat(call("viewsGlobally", maxResults=1), 1)
    out["views globally vdb2"] = flat(call("viewsGlobally", databasePattern="vdb2"))
    out["views of missing db"] = err("views", database="nodb")
    call("renameView", view="vdb.v2", to="vdb.v3")
    out["renamed"] = call("views", database="vdb")
    out["renamed get"] = normalized(call("getView", view="vdb.v3"))["name"]
    out["rename onto existing"] = err("renameView", view="vdb.v1", to="vdb.v3")
    out["rename missing"] = err("renameView", view="vdb.v2", to="vdb.v4")
    call("dropView", view="vdb.v3")
    out["drop missing"] = err("dropView", view="vdb.v3")
    call("dropView", view="vdb.v3", ignoreIfNotExists=True)
    out["after drop"] = call("views", database="vdb")
    # a view may take a table's name (Java's server allows it): each list keeps its own
    java.call("createTable", catalogOptions=opts, table="vdb.tt", schema={
        "fields": FIELDS, "partitionKeys": [], "primaryKeys": [], "options": {}})
    call("createView", view="vdb.tt", schema=VIEW_SCHEMA)
    out["tables beside views"] = java.call("Paimon2Rest.tables", catalogOptions=opts, database="vdb")
    out["views beside tables"] = call("views", database="vdb")

    # functions
    fn = {"inputParams": [{"id": 0, "name": "x", "type": "INT"}],
          "returnParams": [{"id": 0, "name": "y", "type": "INT NOT NULL"}],
          "deterministic": True, "definitions": DEFINITIONS, "comment": "adds one", "options": {"k": "v"}}
    for f in ("vdb.f1", "vdb.f2", "vdb.g.1", "vdb2.h"):
        call("createFunction", function=f, **fn)
    call("createFunction", function="vdb.bare")
    out["function exists"] = err("createFunction", function="vdb.f1", **fn)
    out["function bad name"] = err("createFunction", function="vdb.123", **fn)
    out["function"] = normalized(call("getFunction", function="vdb.f1"))
    out["bare function"] = normalized(call("getFunction", function="vdb.bare"))
    out["function missing"] = err("getFunction", function="vdb.nope")
    call("alterFunction", function="vdb.f1", changes=[
        {"action": "addDefinition", "name": "hive", "definition": {"type": "sql", "definition": "x+1"}},
        {"action": "updateDefinition", "name": "trino",
         "definition": {"type": "lambda", "definition": "x -> x + 2", "language": "PYTHON"}},
        {"action": "dropDefinition", "name": "spark"},
        {"action": "setOption", "key": "a", "value": "b"},
        {"action": "removeOption", "key": "k"},
        {"action": "updateComment", "comment": "adds"}])
    out["function altered"] = normalized(call("getFunction", function="vdb.f1"))
    out["definition exists"] = err("alterFunction", function="vdb.f1", changes=[
        {"action": "addDefinition", "name": "hive", "definition": {"type": "sql", "definition": "1"}}])
    out["definition missing"] = err("alterFunction", function="vdb.f1", changes=[
        {"action": "dropDefinition", "name": "spark"}])
    out["alter missing function"] = err("alterFunction", function="vdb.nope", changes=[])
    out["functions"] = call("functions", database="vdb")
    out["functions paged"] = flat(call("functionsPaged", database="vdb", maxResults=1), 1)
    out["functions pattern"] = flat(call("functionsPaged", database="vdb", pattern="f%"))
    out["function details"] = normalized(flat(call("functionDetails", database="vdb", maxResults=1, pattern="f%"), 1))
    out["functions globally"] = flat(call("functionsGlobally", maxResults=1), 1)
    out["functions globally vdb2"] = flat(call("functionsGlobally", databasePattern="vdb2"))
    call("dropFunction", function="vdb.f2")
    out["drop missing function"] = err("dropFunction", function="vdb.f2")
    call("dropFunction", function="vdb.f2", ignoreIfNotExists=True)
    out["functions after drop"] = call("functions", database="vdb")
    return out


def test_java_client_sees_the_same_views_and_functions_on_both_servers(java, strata_bin, tmp_path):
    jserver = JavaRestServer(str(tmp_path / "java_data"))
    try:
        want = scenario(java, jserver.catalog_options())
    finally:
        jserver.close()
    wh = tmp_path / "serve_wh"
    server = StrataRestServer(strata_bin, str(wh))
    try:
        got = scenario(java, server.catalog_options())
    finally:
        server.close()
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == want[k], f"{k}:\n strata serve: {json.dumps(got[k])}\n Java server:  {json.dumps(want[k])}"
    # the transcript checks real answers, not just agreement
    assert want["altered"]["dialects"] == {"flink": "SELECT 2", "spark": "SELECT 3"}
    assert want["query hive"] == "SELECT id, v FROM t"
    assert want["views"] == ["v1", "v2", "x1"] and want["renamed"] == ["v1", "v3", "x1"]
    assert want["view exists"] == "ViewAlreadyExistException"
    assert want["dialect missing"] == "DialectNotExistException"
    assert want["function altered"]["definitions"]["trino"]["type"] == "lambda"
    assert want["definition exists"] == "DefinitionAlreadyExistException"
    assert want["function bad name"] == "IllegalArgumentException"
    assert want["tables beside views"] == ["tt"] and "tt" in want["views beside tables"]

    # a restarted strata serve still has them, and their folders are no tables to anyone
    server = StrataRestServer(strata_bin, str(wh))
    try:
        opts = server.catalog_options()
        assert normalized(java.call("Paimon2RestViews.getView", catalogOptions=opts, view="vdb.v1")) == want["altered"]
        f1 = java.call("Paimon2RestViews.getFunction", catalogOptions=opts, function="vdb.f1")
        assert normalized(f1) == want["function altered"]
        java.call("createTable", catalogOptions=opts, table="vdb.t", schema={
            "fields": FIELDS, "partitionKeys": [], "primaryKeys": [], "options": {}})
    finally:
        server.close()
    assert (wh / "vdb.db" / ".views" / "v1.json").is_file()
    assert (wh / "vdb.db" / ".functions" / "f1.json").is_file()
    assert java.call("Paimon2Rest.tables", warehouse=str(wh), database="vdb") == ["t", "tt"]
    listed = Strata(strata_bin, str(wh), tmp_path / "cli").list("vdb")
    assert [row.get("table", row.get("name")) for row in listed] == ["t", "tt"], listed
    assert CatalogFactory.create({"warehouse": str(wh)}).list_tables("vdb") == ["t", "tt"]


def test_pypaimon_and_java_share_functions_on_strata_serve(java, strata_bin, tmp_path):
    """pypaimon 2.1's REST catalog (functions only: it has no views) creates and alters a
    function on ``strata serve`` that Java's ``RESTCatalog`` reads, and reads Java's."""
    from pypaimon.common.identifier import Identifier
    from pypaimon.function.function import FunctionImpl
    from pypaimon.function.function_change import FunctionChange
    from pypaimon.function.function_definition import FunctionDefinition
    from pypaimon.schema.data_types import AtomicType, DataField

    server = StrataRestServer(strata_bin, str(tmp_path / "serve_wh"))
    try:
        opts = server.catalog_options()
        java.call("Paimon2Rest.createDatabase", catalogOptions=opts, name="fdb")
        py = CatalogFactory.create(dict(opts))
        ident = Identifier.create("fdb", "py_fn")
        py.create_function(ident, FunctionImpl(
            ident, input_params=[DataField(0, "x", AtomicType("INT"))],
            return_params=[DataField(0, "y", AtomicType("BIGINT"))], deterministic=True,
            definitions={"trino": FunctionDefinition.sql("x + 1"),
                         "spark": FunctionDefinition.lambda_def("x -> x + 1", "PYTHON")},
            comment="from pypaimon", options={"o": "1"}))
        py.alter_function(ident, [FunctionChange.add_definition("hive", FunctionDefinition.sql("x+1")),
                                  FunctionChange.set_option("o", "2")])
        got = java.call("Paimon2RestViews.getFunction", catalogOptions=opts, function="fdb.py_fn")
        assert got["inputParams"] == [{"id": 0, "name": "x", "type": "INT"}]
        assert got["returnParams"] == [{"id": 0, "name": "y", "type": "BIGINT"}]
        assert got["definitions"] == {
            "trino": {"type": "sql", "definition": "x + 1"},
            "spark": {"type": "lambda", "definition": "x -> x + 1", "language": "PYTHON"},
            "hive": {"type": "sql", "definition": "x+1"}}
        assert (got["deterministic"], got["comment"], got["options"]) == (True, "from pypaimon", {"o": "2"})

        java.call("Paimon2RestViews.createFunction", catalogOptions=opts, function="fdb.java_fn",
                  definitions=DEFINITIONS, deterministic=True, comment="from java")
        f = py.get_function("fdb.java_fn")
        assert (f.name(), f.comment(), f.is_deterministic()) == ("java_fn", "from java", True)
        assert f.definition("trino").to_dict() == DEFINITIONS["trino"]
        assert f.definition("flink").to_dict()["className"] == "com.example.F"
        assert sorted(py.list_functions("fdb")) == ["java_fn", "py_fn"]
        py.drop_function("fdb.py_fn")
        assert java.call("Paimon2RestViews.functions", catalogOptions=opts, database="fdb") == ["java_fn"]
    finally:
        server.close()
