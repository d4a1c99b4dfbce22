"""strata and Flink 2.0 (pyflink 2.0.2 with paimon-flink-2.0 2.0.0) on the same tables.

* Flink creates a primary-key table, writes it in batch mode (``INSERT INTO``, two commits with
  overlapping keys) and compacts it (``CALL sys.compact``): strata reads the model after each step
  and lists the same files (``$files``: bucket, level, name, rows); strata keeps writing, Flink reads;
* Flink compacts a strata table, strata reads it and keeps writing;
* a postpone-bucket table (``bucket = -2``) Flink writes and compacts: strata reads what Flink's
  batch read returns before and after the postpone compaction;
* Flink streams a table strata keeps committing to (append and primary-key tables): after every
  strata commit, the rows Flink's continuous read has emitted (row kinds applied) equal the model;
* Flink streams the changelog strata writes (``changelog-producer = input``): the ``-U``/``+U``/
  ``-D`` records of strata's commits reach Flink's stream as they were written.

Expected rows always come from the test's model.
"""
from __future__ import annotations

from collections import Counter
import json
import time
from typing import List

import pyarrow as pa
import pytest

from interop_support.canonical import assert_same_rows
from interop_support.datagen import paimon_schema_json
from interop_support.flink import flink  # noqa: F401  (fixture)
from interop_support.sql_flows import (Model, create_strata, model_value_lines, rows, strata_write,
                                       value_lines, values_sql)

pytestmark = pytest.mark.flink


def flink_read(flink, strata, ident: str) -> List[str]:
    return value_lines(flink.rows(f"SELECT k, dt, v, n, x FROM {flink.table(strata.warehouse, ident)}"))


def strata_value_lines(strata, ident: str) -> List[str]:
    t = strata.read_arrow(ident, columns=["k", "dt", "v", "n", "x"])
    return value_lines([list(r.values()) for r in t.to_pylist()])


def assert_same_files(flink, strata, ident: str) -> List[dict]:
    keys = ("bucket", "level", "fileName", "rowCount")
    ours = sorted(({k: f[k] for k in keys} for f in strata.files(ident)), key=lambda r: r["fileName"])
    got = flink.rows(f"SELECT bucket, level, file_path, record_count FROM "
                     f"{flink.table(strata.warehouse, ident, 'files')}")
    theirs = sorted(({"bucket": b, "level": lv, "fileName": p.rsplit('/', 1)[-1], "rowCount": n}
                     for b, lv, p, n in got), key=lambda r: r["fileName"])
    assert ours == theirs, f"strata files and Flink $files of {ident} differ:\n{ours}\n{theirs}"
    return ours


def test_flink_batch_writes_and_compacts(flink, strata):
    ident = "db.t"
    cat = flink.catalog(strata.warehouse)
    t = flink.table(strata.warehouse, ident)
    flink.sql(f"CREATE DATABASE IF NOT EXISTS `{cat}`.`db`",
              f"CREATE TABLE {t} (k INT NOT NULL, dt STRING NOT NULL, v STRING, n BIGINT, x DOUBLE, "
              f"PRIMARY KEY (k, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')")
    model = Model(["k", "dt"])
    for i, keys in enumerate([range(0, 40), range(25, 60)]):
        data = rows(keys, f"f{i}")
        flink.sql(f"INSERT INTO {t} VALUES {values_sql(data)}")
        model.commit(data)
        assert_same_rows(strata_value_lines(strata, ident), model_value_lines(model),
                         f"strata read after Flink commit {i + 1}")
        assert_same_files(flink, strata, ident)
    flink.sql(f"CALL `{cat}`.sys.compact(`table` => '{ident}')")
    files = assert_same_files(flink, strata, ident)
    assert {f["level"] for f in files} == {5}, files
    assert strata.snapshots(ident)[-1]["commitKind"] == "COMPACT"
    assert_same_rows(strata_value_lines(strata, ident), model_value_lines(model),
                     "strata read after Flink's compaction")
    data = rows(range(50, 70), "strata")
    strata_write(strata, ident, data)
    model.commit(data)
    assert_same_rows(flink_read(flink, strata, ident), model_value_lines(model), "Flink read after strata's write")
    assert_same_files(flink, strata, ident)


def test_flink_postpone_bucket_table(flink, strata):
    """A ``bucket = -2`` table (Paimon 1.1+ postpone bucket mode): rows a streaming-style write
    leaves in ``bucket-postpone`` are invisible to batch reads until Flink's postpone compaction
    moves them into real buckets (each partition with its own bucket count); a batch INSERT
    writes real buckets directly (``postpone.batch-write-fixed-bucket``). strata reads exactly
    what Flink's batch read returns at each step -- and never fails on the postpone directory.
    Then each engine's postpone compaction takes the other's postponed rows."""
    ident = "db.pp"
    cat = flink.catalog(strata.warehouse)
    t = flink.table(strata.warehouse, ident)
    flink.sql(f"CREATE DATABASE IF NOT EXISTS `{cat}`.`db`",
              f"CREATE TABLE {t} (k INT NOT NULL, dt STRING NOT NULL, v STRING, n BIGINT, x DOUBLE, "
              f"PRIMARY KEY (k, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '-2')")
    model = Model(["k", "dt"])
    data = rows(range(0, 30), "batch")
    flink.sql(f"INSERT INTO {t} VALUES {values_sql(data)}")
    model.commit(data)
    assert {f["bucket"] for f in strata.files(ident)} != {-2}
    assert_same_rows(strata_value_lines(strata, ident), model_value_lines(model),
                     "strata read of Flink's batch write into real buckets")
    assert_same_rows(flink_read(flink, strata, ident), model_value_lines(model), "Flink batch read")
    # Rows left in the postpone bucket: Flink's batch read does not see them yet.
    later = rows(range(20, 45), "postponed")
    flink.sql(f"INSERT INTO {t} /*+ OPTIONS('postpone.batch-write-fixed-bucket' = 'false') */ "
              f"VALUES {values_sql(later)}")
    assert -2 in {f["bucket"] for f in strata.files(ident)}
    theirs = flink_read(flink, strata, ident)
    assert_same_rows(theirs, model_value_lines(model), "Flink batch read with rows still postponed")
    assert_same_rows(strata_value_lines(strata, ident), theirs,
                     "strata read with rows still in bucket-postpone")
    flink.sql(f"CALL `{cat}`.sys.compact(`table` => '{ident}')")
    model.commit(later)
    assert_same_rows(flink_read(flink, strata, ident), model_value_lines(model),
                     "Flink read after the postpone compaction")
    assert_same_rows(strata_value_lines(strata, ident), model_value_lines(model),
                     "strata read after the postpone compaction")
    for k in (0, 21, 44):
        got = strata.read_arrow(ident, columns=["k"], where=f"k = {k}").column("k").to_pylist()
        assert got == [k], (k, got)
    # strata's postpone writes (bucket-postpone, as Java's PostponeBucketWriter) are compacted by
    # Flink's postpone compaction; Flink's postponed rows by strata's (issue 31 item 4).
    mine = rows(range(40, 60), "strata-postponed")
    strata_write(strata, ident, mine)
    assert -2 in {f["bucket"] for f in strata.files(ident)}
    assert_same_rows(flink_read(flink, strata, ident), model_value_lines(model),
                     "Flink batch read with strata's rows still postponed")
    flink.sql(f"CALL `{cat}`.sys.compact(`table` => '{ident}')")
    model.commit(mine)
    assert -2 not in {f["bucket"] for f in strata.files(ident)}
    assert_same_rows(flink_read(flink, strata, ident), model_value_lines(model),
                     "Flink read after compacting strata's postponed rows")
    theirs = rows(range(55, 70), "flink-postponed")
    flink.sql(f"INSERT INTO {t} /*+ OPTIONS('postpone.batch-write-fixed-bucket' = 'false') */ "
              f"VALUES {values_sql(theirs)}")
    strata.run("compact", ident)
    model.commit(theirs)
    assert -2 not in {f["bucket"] for f in strata.files(ident)}
    assert_same_rows(flink_read(flink, strata, ident), model_value_lines(model),
                     "Flink read after strata compacted Flink's postponed rows")
    assert_same_rows(strata_value_lines(strata, ident), model_value_lines(model),
                     "strata read after its postpone compaction")


def test_flink_compacts_strata_table(flink, strata):
    ident = "db.t"
    create_strata(strata, ident, pk=True, options={"bucket": "2", "num-sorted-run.compaction-trigger": "10"})
    model = Model(["k", "dt"])
    for i in range(3):
        data = rows(range(i * 10, i * 10 + 25), f"w{i}")
        strata_write(strata, ident, data)
        model.commit(data)
    cat = flink.catalog(strata.warehouse)
    flink.sql(f"CALL `{cat}`.sys.compact(`table` => '{ident}')")
    files = assert_same_files(flink, strata, ident)
    # num-levels defaults to num-sorted-run.compaction-trigger + 1: the max level is 10
    assert {f["level"] for f in files} == {10}, files
    assert_same_rows(strata_value_lines(strata, ident), model_value_lines(model),
                     "strata read after Flink's compaction")
    data = rows(range(0, 50, 4), "again")
    strata_write(strata, ident, data)
    model.commit(data)
    strata.run("compact", ident, "--full")
    assert_same_rows(flink_read(flink, strata, ident), model_value_lines(model),
                     "Flink read after strata's write and compaction")


def materialize(changelog: List[dict]) -> List[str]:
    """The rows a changelog leaves: +I/+U add a row, -U/-D retract one."""
    state: Counter = Counter()
    for r in changelog:
        line = json.dumps(r["values"], ensure_ascii=False)
        if r["kind"] in ("+I", "+U"):
            state[line] += 1
        else:
            assert state[line] > 0, f"retraction of a row that is not there: {r}"
            state[line] -= 1
    return sorted(line for line, n in state.items() for _ in range(n))


@pytest.mark.parametrize("kind", ["append", "pk"])
def test_flink_streams_a_table_strata_keeps_committing_to(flink, strata, kind):
    ident = "db.t"
    pk = kind == "pk"
    create_strata(strata, ident, pk=pk, options={"bucket": "2"} if pk else {})
    model = Model(["k", "dt"] if pk else None)
    data = rows(range(0, 20), "s0")
    strata_write(strata, ident, data)
    model.commit(data)
    t = flink.table(strata.warehouse, ident)
    stream = flink.call("stream_start", query=(
        f"SELECT k, dt, v, n, x FROM {t} /*+ OPTIONS('continuous.discovery-interval' = '200ms') */"))
    try:
        for i in range(1, 5):
            if i > 1:
                data = rows(range(i * 7, i * 7 + 15), f"s{i}")
                strata_write(strata, ident, data)
                model.commit(data)
            want = model_value_lines(model)
            got: List[str] = []
            deadline = time.monotonic() + 90
            while True:
                changelog = flink.call("stream_poll", stream=stream, rows=0, timeout=0)
                got = materialize(changelog)
                if got == want or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert_same_rows(got, want, f"Flink's streaming read after strata commit {i}")
        if not pk:
            # an append table's stream is inserts only, each row once
            assert {r["kind"] for r in changelog} == {"+I"}
    finally:
        flink.call("stream_stop", stream=stream)


CHANGELOG_SCHEMA = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("v", pa.string()),
                              pa.field("op", pa.string())])


@pytest.mark.parametrize("producer", ["input", "lookup", "full-compaction"])
def test_flink_streams_the_changelog_strata_writes(flink, strata, producer):
    """Flink's streaming source reads changelog files when the table has a changelog producer (no
    normalization of its own): what it emits is exactly the records strata's commits wrote
    (``input``), or derived in their compactions (``lookup``, ``full-compaction``; the commits
    are a proper changelog, so the derived one is the same)."""
    ident = f"db.cl_{producer.replace('-', '_')}"
    doc = paimon_schema_json(CHANGELOG_SCHEMA, [], {"bucket": "2", "changelog-producer": producer,
                                                    "rowkind.field": "op"})
    doc["primaryKeys"] = ["k"]
    strata.create_table(ident, doc)

    def commit(records):
        data = pa.table({"k": pa.array([r[1] for r in records], pa.int32()),
                         "v": [r[2] for r in records], "op": [r[0] for r in records]},
                        schema=CHANGELOG_SCHEMA)
        strata_write(strata, ident, data)

    commit([("+I", k, f"a{k}") for k in range(10)])
    t = flink.table(strata.warehouse, ident)
    # latest-full: snapshot 1 whole, then the changelog files of each later commit
    stream = flink.call("stream_start", query=(
        f"SELECT k, v FROM {t} /*+ OPTIONS('continuous.discovery-interval' = '200ms') */"))
    try:
        changes = [
            [("-U", 2, "a2"), ("+U", 2, "b2"), ("-U", 3, "a3"), ("+U", 3, "b3"), ("-D", 7, "a7")],
            [("+I", 20, "c20"), ("-U", 2, "b2"), ("+U", 2, "c2")],
        ]
        want_log = [("+I", k, f"a{k}") for k in range(10)]
        for records in changes:
            commit(records)
            want_log += records
            want = sorted(json.dumps([k, v]) for kind, k, v in want_log if kind in ("+I", "+U"))
            for kind, k, v in want_log:
                if kind in ("-U", "-D"):
                    want.remove(json.dumps([k, v]))
            deadline = time.monotonic() + 90
            while True:
                log = flink.call("stream_poll", stream=stream, rows=0, timeout=0)
                got = materialize(log)
                if got == want or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert_same_rows(got, want, "Flink's stream of strata's changelog")
        # Flink emitted strata's records as written: the same multiset of (kind, row).
        emitted = sorted((r["kind"], r["values"][0], r["values"][1]) for r in log)
        assert emitted == sorted(want_log), f"Flink's stream differs from strata's changelog:\n{emitted}"
    finally:
        flink.call("stream_stop", stream=stream)


def test_flink_plans_batch_queries_while_streams_of_a_strata_table_run(flink, strata):
    """Two continuous reads of a strata table stay open while Flink plans batch queries of it
    and strata commits: planning must not depend on which py4j thread a statement lands on (the
    server's ``_Planning``; FLINK-23020 broke the second streaming query of a module before)."""
    ident = "db.t"
    create_strata(strata, ident, pk=True, options={"bucket": "1"})
    model = Model(["k", "dt"])
    data = rows(range(0, 10), "s0")
    strata_write(strata, ident, data)
    model.commit(data)
    t = flink.table(strata.warehouse, ident)
    query = f"SELECT k, dt, v, n, x FROM {t} /*+ OPTIONS('continuous.discovery-interval' = '200ms') */"
    streams = [flink.call("stream_start", query=query)]
    try:
        for i in range(1, 4):
            assert_same_rows(flink_read(flink, strata, ident), model_value_lines(model),
                             f"Flink batch read {i} while {len(streams)} streams run")
            streams.append(flink.call("stream_start", query=query))
            data = rows(range(i * 5, i * 5 + 8), f"s{i}")
            strata_write(strata, ident, data)
            model.commit(data)
        want = model_value_lines(model)
        for s in streams:
            deadline = time.monotonic() + 90
            while True:
                got = materialize(flink.call("stream_poll", stream=s, rows=0, timeout=0))
                if got == want or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert_same_rows(got, want, f"Flink stream {s} after strata's commits")
    finally:
        for s in streams:
            flink.call("stream_stop", stream=s)
