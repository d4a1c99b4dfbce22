"""Branches (issue 31 item 3) between strata and Java Paimon 2.0.0.

* Java creates a branch from a tag and an empty branch and writes on them; strata lists the
  branches and reads ``db.t$branch_NAME`` (rows from the test's model), writes on the branch, and
  Java reads strata's commits on it; strata fast-forwards main to the branch and Java reads main
  (then writes on it, and strata reads that).
* strata creates branches (from a tag, empty) and writes on them; Java lists, reads and writes
  them; the branch directory holds the same files Java's ``createBranch`` makes; strata deletes a
  branch and Java no longer lists it; strata's fast-forward lands what Java's reads.
* Flink 2.0 creates a branch of a strata table (``CALL sys.create_branch``) and writes it; strata
  reads it and writes on it; Flink reads strata's commits on the branch.
* ``scan.fallback-branch`` set by Java and by strata, ``scan.primary-branch`` set by strata:
  both engines read the same whole partitions from each branch (Java's
  ``FallbackReadFileStoreTable``), and writes stay on the table's own branch.
* Orphan cleanup by strata after branch writes and compactions (files only a branch references)
  deletes only a real orphan: Java's reads of main and of the branch stay intact.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pyarrow as pa
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import paimon_schema_json
from interop_support.java_flows import write
from interop_support.flink import flink  # noqa: F401  (fixture)
from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

SCHEMA = pa.schema([pa.field("id", pa.int32(), nullable=False),
                    pa.field("dt", pa.string(), nullable=False), ("v", pa.string())])
IDENT = "db.t"


def _schema() -> dict:
    doc = paimon_schema_json(SCHEMA, partition_keys=["dt"], options={"bucket": "1"})
    doc["primaryKeys"] = ["dt", "id"]
    return doc


def _rows(rows) -> pa.Table:
    return pa.Table.from_pylist([{"id": i, "dt": d, "v": v} for i, d, v in rows], schema=SCHEMA)


class Model:
    """The rows of one branch: (dt, id) -> v, upserts as the primary key merges them."""

    def __init__(self, rows=None):
        self.rows = dict(rows or {})

    def apply(self, rows) -> pa.Table:
        for i, d, v in rows:
            self.rows[(d, i)] = v
        return _rows(rows)

    def copy(self) -> "Model":
        return Model(self.rows)

    def lines(self):
        return canonical_lines(_rows([(i, d, v) for (d, i), v in sorted(self.rows.items())]))


def _both_read(strata, java, ident, model, what):
    assert_same_rows(strata.read_lines(ident), model.lines(), f"strata read of {ident} {what}")
    assert_same_rows(java.read(strata.warehouse, ident), model.lines(),
                     f"Java read of {ident} {what}")


def _branch_files(wh: str, name: str) -> set:
    root = Path(wh) / "db.db" / "t" / "branch" / f"branch-{name}"
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def _strata_branches(strata) -> list:
    return [b["branchName"] for b in strata.json_lines("branches", IDENT)]


def test_java_branches_strata_reads_writes_and_fast_forwards(java, strata, inputs):
    wh = _abs(strata.warehouse)
    java.create_table(wh, IDENT, _schema())
    main = Model()
    java.write(wh, IDENT, _rows_json(main.apply([(1, "d1", "a"), (2, "d2", "b")])))
    java.write(wh, IDENT, _rows_json(main.apply([(1, "d1", "a2"), (3, "d1", "c")])))
    java.create_tag(wh, IDENT, "t2", snapshot=2)
    java.call("Branches.create", warehouse=wh, table=IDENT, branch="dev", tag="t2")
    java.call("Branches.create", warehouse=wh, table=IDENT, branch="empty")
    dev = main.copy()
    java.write(wh, IDENT, _rows_json(main.apply([(4, "d2", "main-only")])))
    java.write(wh, f"{IDENT}$branch_dev", _rows_json(dev.apply([(2, "d2", "b-dev"), (5, "d3", "e")])))

    assert _strata_branches(strata) == ["dev", "empty"]
    _both_read(strata, java, IDENT, main, "(main, Java-written)")
    _both_read(strata, java, f"{IDENT}$branch_dev", dev, "(Java's branch)")
    assert strata.read_lines(f"{IDENT}$branch_empty") == []
    snaps = strata.snapshots(f"{IDENT}$branch_dev")
    assert [s["id"] for s in snaps] == [2, 3]

    # strata writes on Java's branch (the branch's snapshot 4), and on the empty one.
    write("strata", strata, java, f"{IDENT}$branch_dev", dev.apply([(1, "d1", "a-dev")]), inputs)
    empty = Model()
    write("strata", strata, java, f"{IDENT}$branch_empty", empty.apply([(9, "d9", "z")]), inputs)
    _both_read(strata, java, f"{IDENT}$branch_dev", dev, "(strata wrote on Java's branch)")
    _both_read(strata, java, f"{IDENT}$branch_empty", empty, "(strata wrote on an empty branch)")
    _both_read(strata, java, IDENT, main, "(main untouched by branch writes)")

    # strata fast-forwards main to dev: Java reads dev's rows on main and writes on from there.
    strata.run("fast-forward", IDENT, "dev")
    main = dev.copy()
    _both_read(strata, java, IDENT, main, "(after strata's fast-forward)")
    java.write(wh, IDENT, _rows_json(main.apply([(6, "d1", "after-ff")])))
    _both_read(strata, java, IDENT, main, "(Java wrote after the fast-forward)")
    assert [s["id"] for s in strata.snapshots(IDENT)][-1] == 5


def test_strata_branches_java_reads_and_writes(java, strata, inputs):
    wh = _abs(strata.warehouse)
    strata.create_table(IDENT, _schema())
    main = Model()
    write("strata", strata, java, IDENT, main.apply([(1, "d1", "a"), (2, "d2", "b")]), inputs)
    strata.run("create-tag", IDENT, "t1")
    strata.run("create-branch", IDENT, "dev", "--tag", "t1")
    strata.run("create-branch", IDENT, "empty")
    strata.run("create-branch", IDENT, "gone")
    # The layout Java's createBranch makes: the schemas, the tag and its snapshot.
    assert _branch_files(wh, "dev") == {"schema/schema-0", "snapshot/snapshot-1", "tag/tag-t1"}
    assert _branch_files(wh, "empty") == {"schema/schema-0"}
    assert java.call("Branches.list", warehouse=wh, table=IDENT) == ["dev", "empty", "gone"]

    dev = main.copy()
    write("strata", strata, java, f"{IDENT}$branch_dev", dev.apply([(2, "d2", "b-dev"), (3, "d3", "c")]), inputs)
    write("strata", strata, java, IDENT, main.apply([(4, "d1", "main-only")]), inputs)
    _both_read(strata, java, f"{IDENT}$branch_dev", dev, "(strata's branch)")
    _both_read(strata, java, IDENT, main, "(main)")
    # Java writes on strata's branches.
    java.write(wh, f"{IDENT}$branch_dev", _rows_json(dev.apply([(1, "d1", "a-java")])))
    empty = Model()
    java.write(wh, f"{IDENT}$branch_empty", _rows_json(empty.apply([(7, "d7", "x")])))
    _both_read(strata, java, f"{IDENT}$branch_dev", dev, "(Java wrote on strata's branch)")
    _both_read(strata, java, f"{IDENT}$branch_empty", empty, "(Java wrote on strata's empty branch)")

    # The same branch made by Java on the same table has the same files.
    java.call("Branches.create", warehouse=wh, table=IDENT, branch="jdev", tag="t1")
    assert _branch_files(wh, "jdev") == {"schema/schema-0", "snapshot/snapshot-1", "tag/tag-t1"}
    java.call("Branches.delete", warehouse=wh, table=IDENT, branch="jdev")

    strata.run("delete-branch", IDENT, "gone")
    assert java.call("Branches.list", warehouse=wh, table=IDENT) == ["dev", "empty"]
    p = strata.run("create-branch", IDENT, "123", check=False)
    assert p.returncode != 0 and "pure numeric" in p.stderr

    # Java fast-forwards main to strata's branch; strata reads it; strata's SQL sees it too.
    java.call("Branches.fastForward", warehouse=wh, table=IDENT, branch="dev")
    main = dev.copy()
    _both_read(strata, java, IDENT, main, "(after Java's fast-forward)")
    write("strata", strata, java, IDENT, main.apply([(8, "d8", "strata-after-ff")]), inputs)
    _both_read(strata, java, IDENT, main, "(strata wrote after Java's fast-forward)")


def test_strata_orphan_cleanup_keeps_branch_files(java, strata, inputs):
    wh = _abs(strata.warehouse)
    java.create_table(wh, IDENT, _schema())
    main = Model()
    java.write(wh, IDENT, _rows_json(main.apply([(1, "d1", "a"), (2, "d2", "b")])))
    java.create_tag(wh, IDENT, "t1", snapshot=1)
    java.call("Branches.create", warehouse=wh, table=IDENT, branch="dev", tag="t1")
    dev = main.copy()
    branch = f"{IDENT}$branch_dev"
    java.write(wh, branch, _rows_json(dev.apply([(1, "d1", "a-dev"), (3, "d1", "c")])))
    write("strata", strata, java, branch, dev.apply([(4, "d2", "d")]), inputs)
    java.compact(wh, branch)
    write("strata", strata, java, IDENT, main.apply([(5, "d1", "main")]), inputs)
    strata.run("compact", IDENT)

    orphan = Path(wh) / "db.db" / "t" / "dt=d1" / "bucket-0" / "data-orphan-0.parquet"
    orphan.write_bytes(b"not referenced")
    time.sleep(1.2)
    before = {p for p in (Path(wh) / "db.db" / "t").rglob("*") if p.is_file()}
    out = strata.run("remove-orphan-files", IDENT, "--older-than", "1s")
    after = {p for p in (Path(wh) / "db.db" / "t").rglob("*") if p.is_file()}
    assert before - after == {orphan}, (sorted(map(str, before - after)), out.stderr)
    _both_read(strata, java, IDENT, main, "(main after strata's orphan cleanup)")
    _both_read(strata, java, branch, dev, "(branch after strata's orphan cleanup)")


@pytest.mark.flink
def test_flink_branches_of_a_strata_table(flink, strata, inputs):
    """Flink 2.0 (paimon-flink-2.0 2.0.0) creates a branch of a strata table with
    ``CALL sys.create_branch``, writes ``t$branch_fb`` and reads strata's writes on it."""
    strata.create_table(IDENT, _schema())
    main = Model()
    write("strata", strata, None, IDENT, main.apply([(1, "d1", "a"), (2, "d2", "b")]), inputs)
    strata.run("create-tag", IDENT, "t1")
    cat = flink.catalog(strata.warehouse)
    flink.sql(f"CALL `{cat}`.sys.create_branch('db.t', 'fb', 't1')")
    assert _strata_branches(strata) == ["fb"]
    fb = main.copy()
    branch = f"`{cat}`.`db`.`t$branch_fb`"
    fb.apply([(2, "d2", "b-flink"), (3, "d3", "c")])
    flink.sql(f"INSERT INTO {branch} VALUES (2, 'd2', 'b-flink'), (3, 'd3', 'c')")
    assert_same_rows(strata.read_lines(f"{IDENT}$branch_fb"), fb.lines(), "strata read of Flink's branch")
    write("strata", strata, None, f"{IDENT}$branch_fb", fb.apply([(4, "d1", "strata")]), inputs)
    got = flink.rows(f"SELECT id, dt, v FROM {branch}")
    assert sorted(got) == sorted([[i, d, v] for (d, i), v in fb.rows.items()])
    assert_same_rows(strata.read_lines(IDENT), main.lines(), "main untouched")


def _read_through(own: "Model", other: "Model") -> "Model":
    """Java's ``FallbackReadScan``: every partition ``own`` has, from ``own``; the partitions
    only ``other`` has, from ``other`` (whole partitions)."""
    have = {d for (d, _) in own.rows}
    rows = dict(own.rows)
    rows.update({k: v for k, v in other.rows.items() if k[0] not in have})
    return Model(rows)


def test_java_sets_fallback_branch_both_read_through_it(java, strata, inputs):
    wh = _abs(strata.warehouse)
    java.create_table(wh, IDENT, _schema())
    main, fb = Model(), Model()
    java.write(wh, IDENT, _rows_json(main.apply([(1, "d1", "main")])))
    java.call("Branches.create", warehouse=wh, table=IDENT, branch="fb")
    java.write(wh, f"{IDENT}$branch_fb", _rows_json(fb.apply([(1, "d1", "fb"), (2, "d2", "fb")])))
    java.alter_table(wh, IDENT, [{"op": "setOption", "key": "scan.fallback-branch", "value": "fb"}])
    _both_read(strata, java, IDENT, _read_through(main, fb), "(Java set scan.fallback-branch)")
    # strata writes on the table: its own branch, so partition d2 now comes from main.
    write("strata", strata, None, IDENT, main.apply([(3, "d2", "strata")]), inputs)
    _both_read(strata, java, IDENT, _read_through(main, fb), "(strata wrote d2 on main)")
    _both_read(strata, java, f"{IDENT}$branch_fb", fb, "(the fallback branch itself)")
    p = strata.run("delete-branch", IDENT, "fb", check=False)
    assert p.returncode != 0 and "scan.fallback-branch" in p.stderr


def test_strata_sets_fallback_and_primary_branch_java_reads(java, strata, inputs):
    wh = _abs(strata.warehouse)
    strata.create_table(IDENT, _schema())
    main, pb = Model(), Model()
    write("strata", strata, None, IDENT, main.apply([(1, "d1", "main"), (2, "d2", "main")]), inputs)
    strata.run("create-branch", IDENT, "pb")
    write("strata", strata, None, f"{IDENT}$branch_pb",
          pb.apply([(1, "d1", "pb"), (3, "d3", "pb")]), inputs)
    p = strata.run("sql", "-e", "ALTER TABLE db.t SET ('scan.fallback-branch' = 'nope')", check=False)
    assert p.returncode != 0 and "does not exist" in p.stderr
    strata.run("sql", "-e", "ALTER TABLE db.t SET ('scan.fallback-branch' = 'pb')")
    _both_read(strata, java, IDENT, _read_through(main, pb), "(strata set scan.fallback-branch)")
    strata.run("sql", "-e",
               "ALTER TABLE db.t SET ('scan.fallback-branch' = ' ', 'scan.primary-branch' = 'pb')")
    _both_read(strata, java, IDENT, _read_through(pb, main), "(strata set scan.primary-branch)")
    # Java writes on the table: its own branch (main), partition d2 stays main's.
    java.write(wh, IDENT, _rows_json(main.apply([(4, "d2", "java")])))
    _both_read(strata, java, IDENT, _read_through(pb, main), "(Java wrote on main)")


def _rows_json(t: pa.Table):
    from interop_support.java_oracle import rows_json
    return rows_json(t)


# ---- time travel through scan.fallback-branch / scan.primary-branch ------------------------------

def _sql_rows(strata, query: str) -> set:
    """``strata sql`` rows as (id, dt, v) tuples."""
    import json
    out = strata.run("sql", "-e", query, "--format", "jsonl").stdout
    return {(r["id"], r["dt"], r["v"]) for r in map(json.loads, filter(None, out.splitlines()))}


def _tuples(model: Model) -> set:
    return {(i, d, v) for (d, i), v in model.rows.items()}


def test_time_travel_through_the_other_branch_as_java(java, strata, inputs):
    """Java's ``FallbackReadFileStoreTable.copy`` / ``rewriteOtherOptions``: a snapshot id
    travels the other branch to its snapshot at or before the own snapshot's time (none: its
    snapshot 1); a tag to the main branch's tag of that name (Java's
    ``StaticFromTagStartingScanner``); a time to each branch's snapshot
    at or before it; ``scan.version`` is resolved by each branch (a number is the other branch's
    snapshot of that id).  Java (main written by Java, ``fb`` by strata) and strata read the same
    rows, equal to the model."""
    wh = _abs(strata.warehouse)
    java.create_table(wh, IDENT, _schema())
    main, fb = Model(), Model()
    mains, fbs = {}, {}

    def main_write(rows):
        time.sleep(0.05)
        sid = java.write(wh, IDENT, _rows_json(main.apply(rows)))
        mains[sid] = main.copy()

    def fb_write(rows):
        time.sleep(0.05)
        write("strata", strata, None, f"{IDENT}$branch_fb", fb.apply(rows), inputs)
        fbs[len(fbs) + 1] = fb.copy()

    main_write([(1, "d1", "m1")])
    java.call("Branches.create", warehouse=wh, table=IDENT, branch="fb")
    fb_write([(1, "d1", "f1"), (2, "d2", "f1")])
    main_write([(3, "d1", "m2")])
    fb_write([(4, "d3", "f2")])
    main_write([(5, "d2", "m3")])
    fb_write([(6, "d4", "f3")])
    assert sorted(mains) == [1, 2, 3] and [s["id"] for s in strata.snapshots(f"{IDENT}$branch_fb")] == [1, 2, 3]
    java.create_tag(wh, IDENT, "t1", snapshot=2)
    java.create_tag(wh, f"{IDENT}$branch_fb", "t1", snapshot=1)
    java.create_tag(wh, IDENT, "only_main", snapshot=3)
    java.alter_table(wh, IDENT, [{"op": "setOption", "key": "scan.fallback-branch", "value": "fb"}])

    def both(want: Model, what: str, java_kw: dict, strata_args=(), sql=None):
        assert_same_rows(java.read(wh, IDENT, **java_kw), want.lines(), f"Java read {what}")
        if strata_args is not None:
            p = strata.run("read", IDENT, *strata_args, "--format", "jsonl")
            import json
            got = {(r["id"], r["dt"], r["v"]) for r in map(json.loads, filter(None, p.stdout.splitlines()))}
            assert got == _tuples(want), f"strata read {what}: {got}"
        if sql is not None:
            assert _sql_rows(strata, sql) == _tuples(want), f"strata SQL {what}"

    both(_read_through(mains[3], fbs[3]), "latest", {}, ())
    # Snapshot 1: fb has no snapshot that early, Java reads its snapshot 1 (d2 from fb).
    both(_read_through(mains[1], fbs[1]), "snapshot 1", {"snapshot": 1}, ("--snapshot", "1"),
         "SELECT * FROM db.t VERSION AS OF 1")
    # Snapshot 2 maps to fb's snapshot 1 by time, snapshot 3 to fb's snapshot 2.
    both(_read_through(mains[2], fbs[1]), "snapshot 2", {"snapshot": 2}, ("--snapshot", "2"))
    both(_read_through(mains[3], fbs[2]), "snapshot 3", {"snapshot": 3}, ("--snapshot", "3"),
         "SELECT * FROM db.t /*+ OPTIONS('scan.snapshot-id' = '3') */")
    # A tag: Java's StaticFromTagStartingScanner reads the main branch's tag on fb too (its
    # TagManager is built from the table path alone): fb's own t1 is not read, fb adds nothing.
    both(mains[2], "tag t1", {"tag": "t1"}, ("--tag", "t1"),
         "SELECT * FROM db.t VERSION AS OF 't1'")
    both(mains[3], "tag only_main", {"tag": "only_main"}, ("--tag", "only_main"))
    # A time: fb's snapshot 2 time reads main's snapshot 2 and fb's snapshot 2.
    fb2 = [s for s in strata.snapshots(f"{IDENT}$branch_fb") if s["id"] == 2][0]["timeMillis"]
    both(_read_through(mains[2], fbs[2]), "timestamp", {"options": {"scan.timestamp-millis": str(fb2)}},
         ("--timestamp-millis", str(fb2)))
    # scan.version 2: main's snapshot 2 and fb's snapshot 2 (not mapped by time).
    both(_read_through(mains[2], fbs[2]), "scan.version", {"options": {"scan.version": "2"}}, None,
         "SELECT * FROM db.t /*+ OPTIONS('scan.version' = '2') */")
    # A tag only fb has: both refuse (main lacks it).
    java.create_tag(wh, f"{IDENT}$branch_fb", "only_fb", snapshot=2)
    with pytest.raises(Exception):
        java.read(wh, IDENT, tag="only_fb")
    p = strata.run("read", IDENT, "--tag", "only_fb", check=False)
    assert p.returncode != 0 and "only_fb" in p.stderr, p.stderr
    # scan.mode = compacted-full: each branch at its own latest COMPACT snapshot (main has none:
    # its latest); fb's compaction of its snapshot 3, not its later write.
    java.compact(wh, f"{IDENT}$branch_fb")
    compacted = fb.copy()
    fb_write([(7, "d5", "f5")])
    both(_read_through(mains[3], compacted), "compacted-full",
         {"options": {"scan.mode": "compacted-full"}}, None,
         "SELECT * FROM db.t /*+ OPTIONS('scan.mode' = 'compacted-full') */")
    # scan.file-creation-time-millis, handed to fb too: each branch's files created since, main
    # owning only the partitions with such a file (d2: main's snapshot 3), fb the rest (d3, d4,
    # d5; no file of d1 on either branch is that recent: the compaction kept fb's d1 file).
    since = [s for s in strata.snapshots(IDENT) if s["id"] == 2][0]["timeMillis"] + 1
    got_java = java.read(wh, IDENT, options={"scan.file-creation-time-millis": str(since)})
    got = _sql_rows(strata, "SELECT * FROM db.t /*+ OPTIONS("
                            f"'scan.file-creation-time-millis' = '{since}') */")
    import json
    assert got == {(r["id"], r["dt"], r["v"]) for r in map(json.loads, got_java)}, (got, got_java)
    assert got == {(5, "d2", "m3"), (4, "d3", "f2"), (6, "d4", "f3"), (7, "d5", "f5")}, got

    # scan.primary-branch, set by strata: fb's partitions at the mapped snapshot first.
    strata.run("sql", "-e",
               "ALTER TABLE db.t SET ('scan.fallback-branch' = ' ', 'scan.primary-branch' = 'fb')")
    both(_read_through(fbs[2], mains[3]), "primary, snapshot 3", {"snapshot": 3}, ("--snapshot", "3"),
         "SELECT * FROM db.t VERSION AS OF 3")
    both(mains[2], "primary, tag t1", {"tag": "t1"}, ("--tag", "t1"))
