"""Incremental reads (``table.copy({"incremental-between": ...})``) and streaming reads
(``table.new_stream_read_builder()``) from Python: real tables with several commits, every row
with its kind in a first ``rowkind`` column."""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time

import pyarrow as pa
import pytest

import strata
from conftest import PEOPLE_SCHEMA, people, rows


def kinds(table):
    """``(rowkind, id, name)`` of every row of a pyarrow table or batch, in order."""
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    return list(
        zip(
            table.column("rowkind").to_pylist(),
            table.column("id").to_pylist(),
            table.column("name").to_pylist(),
        )
    )


def write_kinds(table, data, row_kinds):
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data, row_kinds=row_kinds)
    return wb.new_commit().commit(w.prepare_commit())


def commit_three(table):
    """Snapshot 1: ids 1, 2, 3; 2: an upsert of 2; 3: a delete of 1 and an update of 3.
    Returns the three snapshot ids."""
    s1 = table.write(people([1, 2, 3]))
    time.sleep(0.01)
    s2 = table.write(people([2], tag="v2"))
    time.sleep(0.01)
    s3 = write_kinds(table, people([1, 3], tag="v3"), ["-D", "+U"])
    return s1, s2, s3


@pytest.fixture
def changelog_table(catalog):
    """A primary-key table with changelog-producer = input."""
    return catalog.create_table(
        "db.cl",
        PEOPLE_SCHEMA,
        primary_keys=["id"],
        options={"bucket": "2", "changelog-producer": "input"},
    )


def collect(stream, limit=100):
    """``(snapshot_id, rowkind, id, name)`` of every row of a (bounded) stream."""
    out = []
    for cb in stream:
        assert isinstance(cb, strata.ChangeBatch)
        out.extend((cb.snapshot_id, *k) for k in kinds(cb.batch))
        assert len(out) <= limit
    return out


def by_snapshot(items):
    """Rows sorted within each snapshot (buckets come in any order)."""
    return sorted(items, key=lambda r: (r[0], r[2], r[1]))


# ---------------------------------------------------------------------------------------------
# Incremental reads
# ---------------------------------------------------------------------------------------------


def test_incremental_between_delta(pk_table):
    s1, s2, s3 = commit_three(pk_table)
    t = pk_table.copy({"incremental-between": f"{s1},{s3}"})
    out = t.read()
    assert out.column_names == ["rowkind", "id", "name", "score", "dt"]
    assert sorted(kinds(out), key=lambda r: r[1]) == [
        ("-D", 1, "n1v3"),
        ("+I", 2, "n2v2"),
        ("+U", 3, "n3v3"),
    ]
    # The pypaimon-shaped path: plan, splits, read.
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    assert splits and all(s.is_incremental for s in splits)
    assert rows(rb.new_read().to_arrow(splits), "id") == rows(out, "id")
    assert rb.read_schema().names == ["rowkind", "id", "name", "score", "dt"]
    # START = END is empty, with the same columns.
    empty = pk_table.copy({"incremental-between": f"{s2},{s2}"}).read()
    assert empty.num_rows == 0 and empty.column_names[0] == "rowkind"


def test_incremental_modes_and_outputs(pk_table):
    s1, s2, s3 = commit_three(pk_table)
    diff = pk_table.copy(
        {"incremental-between": f"{s1},{s3}", "incremental-between-scan-mode": "diff"}
    )
    got = {r[1]: r for r in kinds(diff.read())}
    assert got[1][0] == "-D"  # a deleted key (END's delete record, deletes kept)
    assert got[2][2] == "n2v2" and got[3] == ("+U", 3, "n3v3")
    # Projection, filter (on a column not projected) and limit.
    rb = (
        pk_table.copy({"incremental-between": f"{s1},{s3}"})
        .new_read_builder()
        .with_projection(["name"])
        .with_filter("id >= 2")
    )
    splits = rb.new_scan().plan().splits()
    out = rb.new_read().to_arrow(splits)
    assert out.column_names == ["rowkind", "name"]
    assert sorted(out.to_pylist(), key=lambda r: r["name"]) == [
        {"rowkind": "+I", "name": "n2v2"},
        {"rowkind": "+U", "name": "n3v3"},
    ]
    assert rb.with_limit(1).new_read().to_arrow(splits).num_rows == 1
    rb.with_limit(None)  # with_* set the builder itself, as pypaimon's do
    # pandas, Polars and the PyCapsule stream.
    df = rb.new_read().to_pandas(splits)
    assert sorted(df["rowkind"]) == ["+I", "+U"]
    pl = pytest.importorskip("polars")
    assert sorted(rb.new_read().to_polars(splits)["name"].to_list()) == ["n2v2", "n3v3"]
    assert pa.table(rb.new_read().to_arrow_stream(splits)).num_rows == 2
    assert isinstance(rb.new_read().to_polars(splits), pl.DataFrame)


def test_incremental_splits_pickle(pk_table):
    s1, _, s3 = commit_three(pk_table)
    for mode in ("delta", "diff"):
        t = pk_table.copy(
            {"incremental-between": f"{s1},{s3}", "incremental-between-scan-mode": mode}
        )
        rb = t.new_read_builder()
        splits = rb.new_scan().plan().splits()
        copies = [pickle.loads(pickle.dumps(s)) for s in splits]
        assert [repr(s) for s in copies] == [repr(s) for s in splits]
        assert rows(rb.new_read().to_arrow(copies), "id") == rows(
            rb.new_read().to_arrow(splits), "id"
        )
        # A pickled table keeps its incremental options.
        assert rows(pickle.loads(pickle.dumps(t)).read(), "id") == rows(t.read(), "id")


def test_incremental_changelog_and_tags(changelog_table):
    s1, s2, s3 = commit_three(changelog_table)
    out = changelog_table.copy({"incremental-between": f"{s1},{s3}"}).read()
    assert sorted(kinds(out), key=lambda r: (r[1], r[0])) == [
        ("-D", 1, "n1v3"),
        ("+I", 2, "n2v2"),
        ("+U", 3, "n3v3"),
    ]
    changelog_table.create_tag("a", snapshot_id=s1)
    changelog_table.create_tag("b", snapshot_id=s3)
    tags = changelog_table.copy({"incremental-between": "a,b"}).read()  # two tags: a diff
    assert {r[1] for r in kinds(tags)} == {1, 2, 3}


def test_incremental_between_timestamp(append_table):
    ids = []
    for i in range(3):
        ids.append(append_table.write(people([10 * i, 10 * i + 1])))
        time.sleep(0.02)
    times = {
        r["snapshot_id"]: int(r["commit_time"].timestamp() * 1000)
        for r in append_table.snapshots().to_pylist()
    }
    t = append_table.copy({"incremental-between-timestamp": f"{times[ids[0]]},{times[ids[2]]}"})
    out = t.read()
    assert sorted(kinds(out)) == [("+I", 10, "n10"), ("+I", 11, "n11"), ("+I", 20, "n20"),
                                  ("+I", 21, "n21")]


def test_incremental_errors(pk_table):
    s1, _, s3 = commit_three(pk_table)
    with pytest.raises(strata.InvalidInputError, match="incremental-between.*START,END"):
        pk_table.copy({"incremental-between": "5"})
    with pytest.raises(strata.InvalidInputError, match="incremental-between-scan-mode"):
        pk_table.copy({"incremental-between": "1,2", "incremental-between-scan-mode": "merge"})
    with pytest.raises(strata.InvalidInputError, match="changelog-producer = none"):
        pk_table.copy(
            {"incremental-between": f"{s1},{s3}", "incremental-between-scan-mode": "changelog"}
        ).read()
    with pytest.raises(strata.StrataError, match="3.*2|START|start"):
        pk_table.copy({"incremental-between": f"{s3},{s1}"}).read()
    t = pk_table.copy({"incremental-between": f"{s1},{s3}"})
    with pytest.raises(strata.InvalidInputError, match="time travel"):
        t.read(snapshot_id=s1)
    with pytest.raises(strata.NotFoundError):
        t.read(columns=["nope"])
    # Splits of the two kinds do not mix.
    inc = t.new_read_builder().new_scan().plan().splits()
    plain = pk_table.new_read_builder().new_scan().plan().splits()
    with pytest.raises(strata.InvalidInputError, match="cannot be read together"):
        t.new_read_builder().new_read().to_arrow(inc + plain)


# ---------------------------------------------------------------------------------------------
# Streaming reads
# ---------------------------------------------------------------------------------------------


def test_stream_from_earliest_bounded(pk_table):
    s1, s2, s3 = commit_three(pk_table)
    builder = pk_table.new_stream_read_builder().with_starting_position("earliest").with_bounded()
    assert builder.read_schema().names == ["rowkind", "id", "name", "score", "dt"]
    stream = builder.changes()
    got = by_snapshot(collect(stream))
    assert got == [
        (s1, "+I", 1, "n1"), (s1, "+I", 2, "n2"), (s1, "+I", 3, "n3"),
        (s2, "+I", 2, "n2v2"),
        (s3, "-D", 1, "n1v3"), (s3, "+U", 3, "n3v3"),
    ]
    assert stream.closed
    with pytest.raises(StopIteration):
        next(stream)


@pytest.mark.parametrize(
    "position, expected",
    [
        ("latest-full", [(3, "+I", 2, "n2v2"), (3, "+U", 3, "n3v3")]),
        (("from-snapshot", 2), [(2, "+I", 2, "n2v2"), (3, "-D", 1, "n1v3"), (3, "+U", 3, "n3v3")]),
        (("from-snapshot-full", 2), [(2, "+I", 1, "n1"), (2, "+I", 2, "n2v2"),
                                     (2, "+I", 3, "n3"), (3, "-D", 1, "n1v3"),
                                     (3, "+U", 3, "n3v3")]),
    ],
)
def test_stream_starting_positions(pk_table, position, expected):
    commit_three(pk_table)
    b = pk_table.new_stream_read_builder().with_until_snapshot(3)
    if isinstance(position, tuple):
        b.with_starting_position(position[0], snapshot_id=position[1])  # mutates, as pypaimon's
    else:
        b.with_starting_position(position)
    assert by_snapshot(collect(b.changes())) == expected


def test_table_scan_options_start_streams_and_batch_reads(catalog):
    """``scan.*`` options stored in the table are where its reads start, as in Java: a batch
    read returns snapshot 2, a stream starts with the changes of snapshot 2; an explicit
    starting position wins."""
    t = catalog.create_table(
        "db.opts",
        PEOPLE_SCHEMA,
        primary_keys=["id"],
        options={"bucket": "1", "scan.snapshot-id": "2"},
    )
    commit_three(t)
    rb = t.new_read_builder()
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert sorted(zip(rows.column("id").to_pylist(), rows.column("name").to_pylist())) == [
        (1, "n1"), (2, "n2v2"), (3, "n3")
    ]
    stream = t.new_stream_read_builder().with_until_snapshot(3).changes()
    assert by_snapshot(collect(stream)) == [
        (2, "+I", 2, "n2v2"), (3, "-D", 1, "n1v3"), (3, "+U", 3, "n3v3")
    ]
    full = t.new_stream_read_builder().with_starting_position("latest-full").with_until_snapshot(3)
    assert {r[0] for r in collect(full.changes())} == {3}


def test_stream_from_timestamp(pk_table):
    s1, s2, s3 = commit_three(pk_table)
    t1 = next(
        r["commit_time"] for r in pk_table.snapshots().to_pylist() if r["snapshot_id"] == s1
    )
    stream = (
        pk_table.new_stream_read_builder()
        .with_starting_position("from-timestamp", timestamp=t1)  # a datetime
        .with_until_snapshot(s3)
        .changes()
    )
    assert {r[0] for r in collect(stream)} == {s2, s3}


def test_stream_latest_follows_commits(pk_table):
    commit_three(pk_table)
    stream = (
        pk_table.new_stream_read_builder()
        .with_starting_position("latest")
        .with_poll_interval_ms(20)
        .changes()
    )
    assert stream.poll(0.2) is None  # caught up: nothing committed since the start
    s4 = pk_table.write(people([7]))
    cb = next(stream)
    assert cb.snapshot_id == s4 and kinds(cb.batch) == [("+I", 7, "n7")]
    # A writer in another thread while this one waits (the GIL is released while waiting).
    def writer():
        for i in (8, 9):
            time.sleep(0.05)
            pk_table.write(people([i]))

    th = threading.Thread(target=writer)
    th.start()
    seen = []
    for cb in stream:
        seen.extend(r[1] for r in kinds(cb.batch))
        if len(seen) == 2:
            break
    th.join()
    assert seen == [8, 9]
    stream.close()
    assert stream.closed


def test_stream_changelog_table(changelog_table):
    s1, s2, s3 = commit_three(changelog_table)
    stream = (
        changelog_table.new_stream_read_builder()
        .with_starting_position("from-snapshot", snapshot_id=s2)
        .with_bounded()
        .changes()
    )
    assert by_snapshot(collect(stream)) == [
        (s2, "+I", 2, "n2v2"), (s3, "-D", 1, "n1v3"), (s3, "+U", 3, "n3v3")
    ]


def test_stream_projection_filter_row_kind(pk_table):
    commit_three(pk_table)
    b = (
        pk_table.new_stream_read_builder()
        .with_starting_position("earliest")
        .with_bounded()
        .with_projection(["name"])
        .with_filter("id > 1")
    )
    assert b.read_schema().names == ["rowkind", "name"]
    got = sorted((cb.snapshot_id, r["rowkind"], r["name"]) for cb in b.changes()
                 for r in cb.to_pylist())
    assert got == [(1, "+I", "n2"), (1, "+I", "n3"), (2, "+I", "n2v2"), (3, "+U", "n3v3")]
    b.with_include_row_kind(False)
    assert b.read_schema().names == ["name"]
    batches = list(b.changes())
    assert all(cb.batch.schema.names == ["name"] for cb in batches)
    pred = b.new_predicate_builder().equal("id", 3)
    b.with_filter(pred).with_projection(None).with_include_row_kind(True)
    got = [(cb.snapshot_id, r["rowkind"], r["name"]) for cb in b.changes() for r in cb.to_pylist()]
    assert sorted(got) == [(1, "+I", "n3"), (3, "+U", "n3v3")]


def test_stream_batch_outputs(pk_table):
    commit_three(pk_table)
    batches = list(pk_table.new_stream_read_builder().with_bounded().changes())
    assert {cb.snapshot_id for cb in batches} == {3}
    assert sum(len(cb) for cb in batches) == 2  # one batch per bucket
    cb = batches[0]
    assert len(cb) == cb.num_rows > 0
    assert isinstance(cb.batch, pa.RecordBatch)
    assert pa.record_batch(cb).num_rows == cb.num_rows  # __arrow_c_array__
    assert pa.table(cb).num_rows == cb.num_rows  # __arrow_c_stream__
    assert list(cb.to_pandas()["id"]) == cb.batch.column("id").to_pylist()
    pl = pytest.importorskip("polars")
    df = cb.to_polars()
    assert isinstance(df, pl.DataFrame) and df.columns[0] == "rowkind"
    assert "snapshot_id=3" in repr(cb)


def test_consumer_id_resumes(pk_table):
    s1, s2, s3 = commit_three(pk_table)

    def builder():
        return (
            pk_table.new_stream_read_builder()
            .with_starting_position("earliest")
            .with_consumer_id("billing")
            .with_bounded()
        )

    first = collect(builder().with_until_snapshot(s2).changes())
    assert {r[0] for r in first} == {s1, s2}
    assert os.path.exists(os.path.join(pk_table.location, "consumer", "consumer-billing"))
    # Restarted with the same id: resumes after the last snapshot read, whatever the start.
    assert by_snapshot(collect(builder().changes())) == [
        (s3, "-D", 1, "n1v3"), (s3, "+U", 3, "n3v3")
    ]
    s4 = pk_table.write(people([4]))
    assert collect(builder().changes()) == [(s4, "+I", 4, "n4")]
    # Nothing new: a bounded stream ends at once.
    assert collect(builder().changes()) == []


def test_stream_break_and_keyboard_interrupt(pk_table):
    commit_three(pk_table)
    stream = pk_table.new_stream_read_builder().changes()  # unbounded, latest-full
    for cb in stream:
        break  # stops; nothing hangs
    assert cb.snapshot_id == 3
    # Waiting for a commit that never comes: Ctrl-C (here a signal handler raising
    # KeyboardInterrupt) interrupts the wait.
    old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            for _ in stream:
                pass
        assert time.monotonic() - started < 5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    # The stream is still usable after the interrupt.
    s4 = pk_table.write(people([4]))
    assert next(stream).snapshot_id == s4
    with stream:
        pass
    assert stream.closed


def test_stream_errors(pk_table):
    commit_three(pk_table)
    b = pk_table.new_stream_read_builder()
    with pytest.raises(strata.InvalidInputError, match='unknown starting position "nope".*latest'):
        b.with_starting_position("nope")
    with pytest.raises(strata.InvalidInputError, match="needs snapshot_id"):
        b.with_starting_position("from-snapshot")
    with pytest.raises(strata.InvalidInputError, match="takes no snapshot_id"):
        b.with_starting_position("latest", snapshot_id=3)
    with pytest.raises(strata.InvalidInputError, match="needs timestamp"):
        b.with_starting_position("from-timestamp")
    with pytest.raises(strata.InvalidInputError, match="consumer"):
        b.with_consumer_id("a/b")
    with pytest.raises(strata.InvalidInputError, match="poll_interval_ms"):
        b.with_poll_interval_ms(0)
    with pytest.raises(strata.InvalidInputError):
        b.with_filter("id >")
    with pytest.raises(strata.NotFoundError):
        pk_table.new_stream_read_builder().with_projection(["nope"]).changes()
    with pytest.raises(strata.InvalidInputError, match="timeout"):
        pk_table.new_stream_read_builder().changes().poll(-1)
    # A snapshot that expired before the stream reached it is an error, never a gap.
    pk_table.expire_snapshots(retain_max=1, retain_min=1, older_than="0s")
    stream = (
        pk_table.new_stream_read_builder().with_starting_position("from-snapshot", snapshot_id=1)
        .changes()
    )
    with pytest.raises(strata.InvalidInputError, match="expired"):
        next(stream)
    assert stream.closed


# ---------------------------------------------------------------------------------------------
# pypaimon 2.1 reads the same changes
# ---------------------------------------------------------------------------------------------


def _pypaimon_table(warehouse, name):
    pypaimon = pytest.importorskip("pypaimon")
    return pypaimon.CatalogFactory.create({"warehouse": warehouse}).get_table(name)


def _pypaimon_read(table):
    rb = table.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


@pytest.mark.parametrize("pk", [False, True])
def test_incremental_timestamp_matches_pypaimon(catalog, warehouse, pk):
    t = catalog.create_table(
        "db.t", PEOPLE_SCHEMA, primary_keys=["id"] if pk else None,
        options={"bucket": "2"} if pk else None,
    )
    for i in range(4):
        t.write(people([i, i + 10], tag=f"v{i}"))
        time.sleep(0.02)
    times = sorted(int(r["commit_time"].timestamp() * 1000) for r in t.snapshots().to_pylist())
    window = f"{times[0]},{times[2]}"
    ours = t.copy({"incremental-between-timestamp": window}).read()
    assert set(ours.column("rowkind").to_pylist()) == {"+I"}
    theirs = _pypaimon_read(
        _pypaimon_table(warehouse, "db.t").copy({"incremental-between-timestamp": window})
    )
    assert rows(ours.drop_columns(["rowkind"]), "id") == rows(theirs, "id")
    assert {r["id"] for r in rows(theirs)} == {1, 11, 2, 12}


def test_stream_matches_pypaimon_stream(pk_table, warehouse):
    commit_three(pk_table)
    theirs_table = _pypaimon_table(warehouse, "db.pk")
    srb = theirs_table.new_stream_read_builder().with_include_row_kind(True)
    scan, read = srb.new_streaming_scan(), srb.new_read()
    it = scan.stream_sync()
    first = read.to_arrow(next(it).splits())  # pypaimon starts latest-full
    ours = (
        pk_table.new_stream_read_builder().with_starting_position("latest-full").with_bounded()
    )
    mine = pa.Table.from_batches([cb.batch for cb in ours.changes()])
    # The same rows with the same kinds: each row keeps its merged record's kind (+U for a key
    # last updated with +U), as pypaimon and Java do.
    assert rows(mine.rename_columns(["_row_kind"] + mine.column_names[1:]), "id") == rows(
        first, "id"
    )
    assert "+U" in mine.column("rowkind").to_pylist()
    s4 = write_kinds(pk_table, people([2, 5], tag="v4"), ["-D", "+I"])
    theirs = read.to_arrow(next(it).splits())
    mine = collect(
        pk_table.new_stream_read_builder().with_starting_position("from-snapshot", snapshot_id=s4)
        .with_bounded().changes()
    )
    assert sorted((r[1], r[2], r[3]) for r in mine) == sorted(
        (r["_row_kind"], r["id"], r["name"]) for r in theirs.to_pylist()
    )
