"""``strata.Catalog``'s views and functions (``list_views``, ``get_view``, ``create_view``,
``drop_view``, ``list_functions``, ``get_function``, ``create_function``, ``drop_function``):
through ``strata serve`` (the CLI binary built beside this package: ``$STRATA_BIN`` or
``target/debug/strata``) for views and functions, pypaimon's own mock REST server for
functions, read back by pypaimon's REST client where it has the call; the filesystem catalog
refuses each by name (Java's ``FileSystemCatalog`` keeps neither)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pyarrow as pa
import pytest

import strata
from test_catalog_metastores import rest_options, rest_uri  # noqa: F401 (fixture)

REPO = Path(__file__).resolve().parents[3]
SERVE_TOKEN = "strata-py-views"

PLUS_ONE = {
    "trino": {"type": "sql", "definition": "x + 1"},
    "spark": {"type": "lambda", "definition": "(Integer x) -> x + 1", "language": "JAVA"},
    "flink": {
        "type": "file",
        "fileResources": [{"resourceType": "JAR", "uri": "file:/udf.jar"}],
        "language": "JAVA",
        "className": "com.example.Plus",
        "functionName": "eval",
    },
}


def _strata_bin() -> Path:
    p = Path(os.environ.get("STRATA_BIN", REPO / "target" / "debug" / "strata"))
    if not (p.is_file() and os.access(p, os.X_OK)):
        pytest.skip(f"the strata CLI is not built at {p} (cargo build -p strata-cli)")
    return p


@pytest.fixture
def serve(tmp_path):
    """``strata serve`` over a fresh warehouse: its catalog options."""
    binary = _strata_bin()
    wh = tmp_path / "serve_wh"
    wh.mkdir()
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{SERVE_TOKEN} admin-principal\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(tmp_path / "serve.log", "w+")
    proc = subprocess.Popen(
        [str(binary), "serve", "--warehouse", str(wh), "--listen", f"127.0.0.1:{port}",
         "--token-file", str(tokens)],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            req = urllib.request.Request(f"{url}/v1/config?warehouse=serve_wh",
                                         headers={"Authorization": f"Bearer {SERVE_TOKEN}"})
            urllib.request.urlopen(req, timeout=5).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                pytest.fail(f"strata serve did not start:\n{log.read()[-3000:]}")
            time.sleep(0.1)
    try:
        yield {"metastore": "rest", "uri": url, "warehouse": "serve_wh",
               "token.provider": "bear", "token": SERVE_TOKEN}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def test_views_through_strata_serve(serve):
    c = strata.Catalog(serve)
    c.create_database("db")
    t = c.create_table("db.t", [("id", "INT"), ("amount", "BIGINT")])
    t.write(pa.table({"id": pa.array([1, 2, 3, 4], pa.int32()),
                      "amount": pa.array([10, 20, 30, 40], pa.int64())}))
    c.create_view("db.big", "SELECT id, amount FROM t WHERE amount > 15",
                  columns=["id", "money"], dialects={"spark": "SELECT id, amount FROM db.t WHERE amount > 15"},
                  comment="above 15", options={"k": "v"})
    v = c.get_view("db.big")
    assert (v["database"], v["name"]) == ("db", "big")
    assert [(f["name"], f["type"]) for f in v["fields"]] == [("id", "INT"), ("money", "BIGINT")]
    assert v["query"] == "SELECT id, amount FROM t WHERE amount > 15"
    assert v["dialects"] == {"datafusion": v["query"],
                             "spark": "SELECT id, amount FROM db.t WHERE amount > 15"}
    assert v["comment"] == "above 15" and v["options"] == {"k": "v"}
    assert c.list_views("db") == ["big"]
    got = c.sql("SELECT * FROM db.big ORDER BY id")
    assert got.column_names == ["id", "money"]
    assert got.column("money").to_pylist() == [20, 30, 40]
    with pytest.raises(strata.AlreadyExistsError, match="view db.big already exists"):
        c.create_view("db.big", "SELECT 1 AS x")
    c.create_view("db.big", "SELECT 1 AS x", ignore_if_exists=True)
    with pytest.raises(strata.InvalidInputError):
        c.create_view("db.two", "SELECT 1 AS x", columns=["a", "b"])
    c.drop_view("db.big")
    assert c.list_views("db") == []
    with pytest.raises(strata.NotFoundError, match="view db.big does not exist"):
        c.get_view("db.big")
    c.drop_view("db.big", ignore_if_not_exists=True)


def _functions_round_trip(c: strata.Catalog) -> None:
    c.create_function("db.plus_one", PLUS_ONE,
                      input_params=[{"id": 0, "name": "x", "type": "INT"}],
                      return_params=[{"id": 0, "name": "y", "type": "INT"}],
                      comment="plus one", options={"k": "v"})
    f = c.get_function("db.plus_one")
    assert (f["database"], f["name"]) == ("db", "plus_one")
    assert f["definitions"] == PLUS_ONE and f["deterministic"] is True
    assert [p["name"] for p in f["inputParams"]] == ["x"]
    assert [p["name"] for p in f["returnParams"]] == ["y"]
    assert f["comment"] == "plus one" and f["options"] == {"k": "v"}
    c.create_function("db.twice", {"trino": {"type": "sql", "definition": "x * 2"}},
                      deterministic=False)
    assert c.get_function("db.twice")["inputParams"] is None
    assert c.list_functions("db") == ["plus_one", "twice"]
    with pytest.raises(strata.AlreadyExistsError):
        c.create_function("db.twice", {"trino": {"type": "sql", "definition": "x"}})
    with pytest.raises(strata.InvalidInputError, match="Invalid function name"):
        c.create_function("db.bad name", {"trino": {"type": "sql", "definition": "x"}})
    with pytest.raises(strata.InvalidInputError, match="definitions"):
        c.create_function("db.f", {"trino": {"type": "python"}})
    c.drop_function("db.plus_one")
    assert c.list_functions("db") == ["twice"]
    with pytest.raises(strata.NotFoundError, match="function db.plus_one does not exist"):
        c.get_function("db.plus_one")
    c.drop_function("db.plus_one", ignore_if_not_exists=True)


def test_functions_through_strata_serve(serve):
    c = strata.Catalog(serve)
    c.create_database("db")
    _functions_round_trip(c)


def test_functions_through_pypaimons_server(rest_uri):  # noqa: F811 (fixture)
    c = strata.Catalog(rest_options(rest_uri))
    c.create_database("db")
    _functions_round_trip(c)
    # pypaimon's client reads the function strata created.
    from pypaimon import CatalogFactory

    py = CatalogFactory.create(rest_options(rest_uri))
    assert py.list_functions("db") == ["twice"]


def test_the_filesystem_catalog_refuses_views_and_functions_by_name(tmp_path):
    c = strata.Catalog(str(tmp_path / "wh"))
    c.create_database("db")
    for call, name in [(lambda: c.list_views("db"), "listViews"),
                       (lambda: c.get_view("db.v"), "getView"),
                       (lambda: c.create_view("db.v", "SELECT 1 AS x"), "createView"),
                       (lambda: c.drop_view("db.v"), "dropView"),
                       (lambda: c.list_functions("db"), "listFunctions"),
                       (lambda: c.get_function("db.f"), "getFunction"),
                       (lambda: c.drop_function("db.f"), "dropFunction")]:
        with pytest.raises(strata.UnsupportedError, match=name) as e:
            call()
        assert "FileSystemCatalog" in str(e.value)
