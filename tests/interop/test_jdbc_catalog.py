"""strata's JDBC catalog (``metastore=jdbc``) and Java Paimon 2.0's ``JdbcCatalog`` on one catalog
(issue 32): the same SQLite file, and the same PostgreSQL database of a server this module starts
(``initdb`` + ``pg_ctl`` in a temp directory on a free loopback port; as the ``postgres`` user when
the tests run as root, since PostgreSQL refuses root).

Java opens the catalog through ``CatalogFactory`` with the same options strata's CLI gets as
``--catalog-option`` flags (``uri``, ``warehouse``, ``catalog-key``, ``jdbc.user``, ``lock.enabled``).
Tables created by either are listed and read by the other, both write to them, and the catalog's
rows (``paimon_tables``, the ``exists`` row of ``paimon_database_properties``) are Java's. With
``lock.enabled`` Java and strata writers commit concurrently through ``paimon_distributed_locks``
and no commit is lost; a lock row in Java's shape held by someone else keeps strata from
committing until it expires. Views (Java 2.0's ``paimon_views``) go both ways: Java's
``JdbcCatalog`` creates one that strata lists, shows and queries with ``strata sql``, and strata's
``view create/alter/rename/drop`` are what Java reads back.
"""
from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from interop_support.java_oracle import JavaOracle, JavaOracleError
from interop_support.strata_cli import Strata, StrataError

PK_SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT NOT NULL"},
               {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
               {"id": 2, "name": "amount", "type": "BIGINT"}],
    "partitionKeys": ["dt"], "primaryKeys": ["id", "dt"], "options": {"bucket": "2"},
}
IDS_SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "BIGINT"}],
    "partitionKeys": [], "primaryKeys": [],
    "options": {"bucket": "-1", "commit.max-retries": "200", "commit.timeout": "600 s"},
}


# -- PostgreSQL ---------------------------------------------------------------------------------
def _pg_bin() -> Path:
    env = os.environ.get("STRATA_PG_BIN")
    if env:
        return Path(env)
    root = Path("/usr/lib/postgresql")
    versions = sorted((int(p.name), p / "bin") for p in root.iterdir()
                      if p.name.isdigit() and (p / "bin" / "initdb").is_file()) if root.is_dir() else []
    if not versions:
        pytest.fail("PostgreSQL server binaries (initdb, pg_ctl) not found under "
                    "/usr/lib/postgresql/*/bin and STRATA_PG_BIN is not set: install postgresql",
                    pytrace=False)
    return versions[-1][1]


class Postgres:
    """A throw-away server; superuser ``postgres``, trust authentication."""

    def __init__(self):
        self.bin = _pg_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="strata-pg-"))
        self.run_as: Optional[str] = None
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                pytest.fail("running as root, PostgreSQL refuses root, and there is no `postgres` "
                            "user (made by the postgresql packages)", pytrace=False)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.run_as = "postgres"
        self.data = self.dir / "data"
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-sync")
        for attempt in range(5):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                self.port = s.getsockname()[1]
            p = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "log"), "-w", "-t",
                          "60", "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                                      f"-c fsync=off", "start", check=attempt == 4)
            if p.returncode == 0:
                break

    def _cmd(self, program: str, *args: str) -> List[str]:
        exe = [str(self.bin / program), *args]
        return ["runuser", "-u", self.run_as, "--", *exe] if self.run_as else exe

    def _run(self, program: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        p = subprocess.run(self._cmd(program, *args), capture_output=True, text=True, timeout=120)
        if check and p.returncode != 0:
            log = (self.dir / "log").read_text() if (self.dir / "log").exists() else ""
            raise AssertionError(f"{program} failed ({p.returncode}): {p.stdout}\n{p.stderr}\n{log}")
        return p

    def create_database(self, name: str) -> str:
        self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d",
                  "postgres", "-v", "ON_ERROR_STOP=1", "-c", f"CREATE DATABASE {name}")
        return name

    def uri(self, db: str) -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{db}"

    def close(self):
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres():
    pg = Postgres()
    yield pg
    pg.close()


@pytest.fixture(scope="module")
def java():
    try:
        oracle = JavaOracle("2.0.0")
    except JavaOracleError as e:
        pytest.fail(str(e), pytrace=False)
    yield oracle
    oracle.close()


_DB_COUNTER = iter(range(1, 1_000_000))


@pytest.fixture(params=["sqlite", "postgresql"])
def catalog(request, tmp_path, postgres) -> Dict[str, str]:
    """The options of a fresh JDBC catalog on each database kind (a new warehouse and a new
    SQLite file / PostgreSQL database per test)."""
    opts = {"metastore": "jdbc", "warehouse": str(tmp_path / "wh"), "catalog-key": "interop"}
    if request.param == "sqlite":
        opts["uri"] = f"jdbc:sqlite:{tmp_path / 'catalog.db'}"
    else:
        db = postgres.create_database(f"cat{next(_DB_COUNTER)}_{os.getpid()}")
        opts["uri"] = postgres.uri(db)
        opts["jdbc.user"] = "postgres"
    return opts


class JdbcStrata(Strata):
    """strata's CLI opening the catalog through ``--catalog-option`` flags."""

    def __init__(self, binary: str, options: Dict[str, str], scratch: Path):
        super().__init__(binary, str(scratch / "unused-warehouse"), scratch)
        self.options = options

    def run(self, *args, check=True, warehouse=True, cwd=None, env=None):
        extra: List[str] = []
        if warehouse:
            for k, v in self.options.items():
                extra += ["--catalog-option", f"{k}={v}"]
        return super().run(*extra, *args, check=check, warehouse=False, cwd=cwd, env=env)


def jsonl(path: Path, rows: List[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def canon(rows: List[dict]) -> List[str]:
    return sorted(json.dumps(r, separators=(",", ":")) for r in rows)


def query(java: JavaOracle, opts: Dict[str, str], sql: str) -> List[List[str]]:
    return sorted(java.call("Paimon2Jdbc.query", catalogOptions=opts, sql=sql))


def test_java_creates_strata_lists_reads_and_writes(java, catalog, strata_bin, tmp_path):
    rows = [{"id": 1, "dt": "d1", "amount": 10}, {"id": 2, "dt": "d2", "amount": 20}]
    java.call("createTable", catalogOptions=catalog, table="jdb.t", schema=PK_SCHEMA)
    java.call("write", catalogOptions=catalog, table="jdb.t", rows=rows)
    s = JdbcStrata(strata_bin, catalog, tmp_path / "scratch")
    assert "jdb" in {r.get("database") or r.get("name") for r in s.list()}
    assert [r.get("table") or r.get("name") for r in s.list("jdb")] == ["t"]
    assert s.read_lines("jdb.t") == canon(rows)

    more = [{"id": 2, "dt": "d2", "amount": 21}, {"id": 3, "dt": "d1", "amount": 30}]
    s.write("jdb.t", [jsonl(tmp_path / "more.jsonl", more)])
    expected = canon([rows[0]] + more)
    assert sorted(java.call("read", catalogOptions=catalog, table="jdb.t")["rows"]) == expected
    assert s.read_lines("jdb.t") == expected
    # Java's rows, untouched by strata's commit.
    assert query(java, catalog, "SELECT catalog_key, database_name, table_name FROM paimon_tables") \
        == [["interop", "jdb", "t"]]


def test_strata_creates_java_lists_reads_and_writes(java, catalog, strata_bin, tmp_path):
    s = JdbcStrata(strata_bin, catalog, tmp_path / "scratch")
    s.create_table("sdb.t", PK_SCHEMA)
    rows = [{"id": 1, "dt": "d1", "amount": 1}, {"id": 4, "dt": "d2", "amount": 4}]
    s.write("sdb.t", [jsonl(tmp_path / "rows.jsonl", rows)])

    assert "sdb" in java.call("Paimon2Jdbc.listDatabases", catalogOptions=catalog)
    assert java.call("Paimon2Jdbc.listTables", catalogOptions=catalog, database="sdb") == ["t"]
    assert sorted(java.call("read", catalogOptions=catalog, table="sdb.t")["rows"]) == canon(rows)
    # The database and table rows strata wrote are Java's: the `exists` row, the location, the
    # table's row and its properties (sync-all-properties).
    props = query(java, catalog, "SELECT property_key, property_value FROM "
                                 "paimon_database_properties WHERE database_name = 'sdb'")
    assert props == [["exists", "true"], ["location", f"{catalog['warehouse']}/sdb.db"]]
    tprops = dict(tuple(r) for r in query(java, catalog, "SELECT property_key, property_value "
                                                         "FROM paimon_table_properties WHERE "
                                                         "table_name = 't'"))
    assert tprops["primary-key"] == "id,dt" and tprops["partition"] == "dt", tprops
    assert Path(catalog["warehouse"], "sdb.db", "t", "schema", "schema-0").is_file()

    java.call("write", catalogOptions=catalog, table="sdb.t", rows=[{"id": 5, "dt": "d1", "amount": 5}])
    assert s.read_lines("sdb.t") == canon(rows + [{"id": 5, "dt": "d1", "amount": 5}])
    # strata drops it; Java no longer sees it.
    s.run("sql", "-e", "DROP TABLE sdb.t")
    assert java.call("Paimon2Jdbc.listTables", catalogOptions=catalog, database="sdb") == []


def sql_rows(s: Strata, q: str) -> List[dict]:
    out = s.run("sql", "-e", q, "--format", "jsonl").stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_java_creates_a_view_strata_lists_reads_and_queries(java, catalog, strata_bin, tmp_path):
    """Java 2.0's ``JdbcCatalog.createView`` writes the ``paimon_views`` row; strata lists it,
    reads its schema and queries it with ``strata sql`` (rows equal Java's read of the table,
    filtered as the view's query does)."""
    rows = [{"id": i, "dt": "d1" if i % 2 else "d2", "amount": i * 10} for i in range(1, 7)]
    java.call("createTable", catalogOptions=catalog, table="jv.t", schema=PK_SCHEMA)
    java.call("write", catalogOptions=catalog, table="jv.t", rows=rows)
    q = "SELECT id, amount FROM jv.t WHERE amount > 25"
    schema = {"fields": [{"id": 0, "name": "id", "type": "INT NOT NULL"},
                         {"id": 1, "name": "amount", "type": "BIGINT"}],
              "query": q, "dialects": {"flink": q}, "comment": "big ones",
              "options": {"owner": "lake"}}
    java.call("Paimon2RestViews.createView", catalogOptions=catalog, view="jv.big", schema=schema)
    stored = query(java, catalog, "SELECT catalog_key, database_name, view_name FROM paimon_views")
    assert stored == [["interop", "jv", "big"]]

    s = JdbcStrata(strata_bin, catalog, tmp_path / "scratch")
    assert [r["view"] for r in s.json_lines("view", "list", "jv")] == ["big"]
    shown = s.json_lines("view", "show", "jv.big")[0]["schema"]
    assert shown["query"] == q and shown["dialects"] == {"flink": q}
    assert shown["comment"] == "big ones" and shown["options"] == {"owner": "lake"}
    assert [(f["name"], f["type"]) for f in shown["fields"]] == [("id", "INT NOT NULL"),
                                                                ("amount", "BIGINT")]
    java_rows = [json.loads(r) for r in java.call("read", catalogOptions=catalog, table="jv.t")["rows"]]
    expected = sorted(({"id": r["id"], "amount": r["amount"]} for r in java_rows if r["amount"] > 25),
                      key=lambda r: r["id"])
    assert len(expected) == 4
    assert sql_rows(s, "SELECT * FROM jv.big ORDER BY id") == expected
    # A view's name is not a table's: strata's create of a table of that name is refused.
    e = s.run("view", "create", "jv.t", "--query", "SELECT 1", check=False)
    assert e.returncode != 0 and "already exists" in e.stderr, e.stderr


def test_strata_creates_alters_renames_and_drops_views_java_sees(java, catalog, strata_bin, tmp_path):
    """``strata view create/alter/rename/drop`` on the JDBC catalog: Java 2.0's ``JdbcCatalog``
    reads each state back (``getView``, ``listViews``), and strata reads Java's alteration."""
    s = JdbcStrata(strata_bin, catalog, tmp_path / "scratch")
    s.create_table("sv.t", PK_SCHEMA)
    s.write("sv.t", [jsonl(tmp_path / "rows.jsonl", [{"id": 1, "dt": "d1", "amount": 5},
                                                     {"id": 2, "dt": "d1", "amount": 50}])])
    q = "SELECT id, amount FROM sv.t WHERE amount > 10"
    s.run("view", "create", "sv.v", "--query", q, "--comment", "c1", "--option", "a=1",
          "--dialect", "spark=SELECT id, amount FROM sv.t WHERE amount > 10")
    j = java.call("Paimon2RestViews.getView", catalogOptions=catalog, view="sv.v")
    assert j["query"] == q and j["comment"] == "c1" and j["options"] == {"a": "1"}
    assert j["dialects"] == {"datafusion": q, "spark": "SELECT id, amount FROM sv.t WHERE amount > 10"}
    assert [f["name"] for f in j["fields"]] == ["id", "amount"]
    assert java.call("Paimon2RestViews.views", catalogOptions=catalog, database="sv") == ["v"]
    e = s.run("view", "create", "sv.v", "--query", q, check=False)
    assert e.returncode != 0 and "already exists" in e.stderr, e.stderr

    s.run("view", "alter", "sv.v", "--set-option", "b=2", "--remove-option", "a",
          "--comment", "c2", "--add-dialect", "flink=SELECT 1", "--drop-dialect", "spark")
    j = java.call("Paimon2RestViews.getView", catalogOptions=catalog, view="sv.v")
    assert j["options"] == {"b": "2"} and j["comment"] == "c2"
    assert j["dialects"] == {"datafusion": q, "flink": "SELECT 1"}
    e = s.run("view", "alter", "sv.v", "--drop-dialect", "hive", check=False)
    assert e.returncode != 0 and "dialect hive does not exist in view sv.v" in e.stderr, e.stderr
    # Java alters; strata reads it.
    java.call("Paimon2RestViews.alterView", catalogOptions=catalog, view="sv.v",
              changes=[{"action": "setOption", "key": "by", "value": "java"}])
    assert s.json_lines("view", "show", "sv.v")[0]["schema"]["options"] == {"b": "2", "by": "java"}
    assert sql_rows(s, "SELECT * FROM sv.v") == [{"id": 2, "amount": 50}]

    s.run("view", "rename", "sv.v", "sv.w")
    assert java.call("Paimon2RestViews.views", catalogOptions=catalog, database="sv") == ["w"]
    s.run("view", "drop", "sv.w")
    assert java.call("Paimon2RestViews.views", catalogOptions=catalog, database="sv") == []
    assert query(java, catalog, "SELECT view_name FROM paimon_views") == []
    e = s.run("view", "drop", "sv.w", check=False)
    assert e.returncode != 0 and "view sv.w does not exist" in e.stderr, e.stderr
    # Java's dropDatabase(cascade) removes the database's views; strata sees none.
    java.call("Paimon2RestViews.createView", catalogOptions=catalog, view="sv.x",
              schema={"fields": [], "query": "SELECT 1", "dialects": {}, "options": {}})
    assert [r["view"] for r in s.json_lines("view", "list", "sv")] == ["x"]
    java.call("Paimon2Jdbc.dropDatabase", catalogOptions=catalog, database="sv")
    assert query(java, catalog, "SELECT view_name FROM paimon_views") == []
    e = s.run("view", "list", "sv", check=False)
    assert e.returncode != 0 and "sv" in e.stderr, e.stderr


def test_concurrent_commits_through_the_lock(java, catalog, strata_bin, tmp_path):
    opts = dict(catalog, **{"lock.enabled": "true", "lock-check-max-sleep": "200 ms"})
    java.call("createTable", catalogOptions=opts, table="ldb.ids", schema=IDS_SCHEMA)
    assert query(java, opts, "SELECT lock_id FROM paimon_distributed_locks") == []

    writers, commits = 2, 5
    errors: List[BaseException] = []

    def strata_writer(n: int):
        try:
            s = JdbcStrata(strata_bin, opts, tmp_path / f"scratch{n}")
            for i in range(commits):
                s.write("ldb.ids", [jsonl(tmp_path / f"w{n}-{i}.jsonl", [{"id": 50_000 + n * 1000 + i}])])
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=strata_writer, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    # Java's writers (two threads in its JVM) commit meanwhile.
    n = java.call("Paimon2Jdbc.concurrentCommits", catalogOptions=opts, table="ldb.ids",
                  threads=writers, commits=commits, base=0)
    for t in threads:
        t.join()
    assert not errors, errors
    assert n == writers * commits

    want = sorted([t * 1000 + i for t in range(writers) for i in range(commits)]
                  + [50_000 + t * 1000 + i for t in range(writers) for i in range(commits)])
    java_ids = sorted(json.loads(r)["id"] for r in java.call("read", catalogOptions=opts, table="ldb.ids")["rows"])
    assert java_ids == want
    s = JdbcStrata(strata_bin, opts, tmp_path / "scratch")
    assert sorted(json.loads(r)["id"] for r in s.read_lines("ldb.ids")) == want
    assert len(s.snapshots("ldb.ids")) == 2 * writers * commits
    assert query(java, opts, "SELECT lock_id FROM paimon_distributed_locks") == []


def test_a_held_lock_row_stops_strata(java, strata_bin, tmp_path):
    """A lock row in Java's shape (lock_id = catalog-key.db.table) held by another writer: strata
    waits and gives up after lock-acquire-timeout, publishing nothing; once the row expires
    (acquired_at older than expire_time_seconds) strata clears it and commits."""
    # On SQLite (the row written with Python's sqlite3); PostgreSQL's dialect is covered by the
    # Rust tests (catalog::jdbc::tests::postgres_lock_excludes_and_expires).
    catalog = {"metastore": "jdbc", "warehouse": str(tmp_path / "wh"), "catalog-key": "interop",
               "uri": f"jdbc:sqlite:{tmp_path / 'catalog.db'}"}
    opts = dict(catalog, **{"lock.enabled": "true", "lock-acquire-timeout": "2 s",
                            "lock-check-max-sleep": "100 ms"})
    java.call("createTable", catalogOptions=opts, table="hdb.ids",
              schema=dict(IDS_SCHEMA, options={"bucket": "-1", "commit.max-retries": "1"}))
    path = catalog["uri"][len("jdbc:sqlite:"):]
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) "
                   "VALUES ('interop.hdb.ids', 3600)")
    s = JdbcStrata(strata_bin, opts, tmp_path / "scratch")
    p = s.write("hdb.ids", [jsonl(tmp_path / "a.jsonl", [{"id": 1}])], check=False)
    assert p.returncode != 0 and "Acquire lock failed" in p.stderr, p.stderr
    assert s.snapshots("hdb.ids") == []
    with sqlite3.connect(path) as db:
        db.execute("UPDATE paimon_distributed_locks SET acquired_at = '2000-01-01 00:00:00'")
    s.write("hdb.ids", [jsonl(tmp_path / "b.jsonl", [{"id": 2}])])
    assert [json.loads(r)["id"] for r in java.call("read", catalogOptions=opts, table="hdb.ids")["rows"]] == [2]
