"""Writing and reading: the shortcuts, the pypaimon-shaped builders, overwrite, upserts,
time travel, MAP-key projections and filters, every output format, threads."""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

import strata
from conftest import PEOPLE_SCHEMA, people, rows


def read_all(table, **kw):
    """Reads through new_read_builder → plan → splits → to_arrow."""
    rb = table.new_read_builder()
    if "filter" in kw:
        rb = rb.with_filter(kw["filter"])
    if "projection" in kw:
        rb = rb.with_projection(kw["projection"])
    if "limit" in kw:
        rb = rb.with_limit(kw["limit"])
    splits = rb.new_scan().plan().splits()
    return rb.new_read().to_arrow(splits)


# --------------------------------------------------------------------------------------------
# writing


def test_write_shortcut_and_read(append_table):
    assert append_table.write(people([1, 2, 3])) == 1
    assert append_table.write(people([4])) == 2
    assert append_table.latest_snapshot_id() == 2
    expected = rows(people([1, 2, 3, 4]), "id")
    assert rows(append_table.read(), "id") == expected
    assert rows(read_all(append_table), "id") == expected


def test_batch_write_builder_all_inputs(append_table):
    import pandas as pd

    wb = append_table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(people([1, 2]))
    w.write_arrow_batch(people([3]).to_batches()[0])
    w.write_pandas(people([4, 5]).to_pandas())
    w.write_arrow(pa.RecordBatchReader.from_batches(PEOPLE_SCHEMA, people([6]).to_batches()))
    w.write_arrow(pd.DataFrame(people([7]).to_pydict()))
    w.write_arrow(people([8, 9]).to_batches() + [people([10])])  # a list of batches and tables
    msgs = w.prepare_commit()
    assert msgs and all(isinstance(m, strata.CommitMessage) for m in msgs)
    assert sum(m.row_count for m in msgs) == 10
    assert all(m.file_names and not m.is_empty() for m in msgs)
    assert append_table.latest_snapshot_id() is None  # nothing visible before the commit
    sid = wb.new_commit().commit(msgs)
    assert sid == 1
    assert rows(append_table.read(), "id") == rows(people(range(1, 11)), "id")


def test_commit_once_and_writer_closed(append_table):
    wb = append_table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(people([1]))
    msgs = w.prepare_commit()
    with pytest.raises(strata.InvalidInputError):
        w.write_arrow(people([2]))
    c = wb.new_commit()
    c.commit(msgs)
    with pytest.raises(strata.InvalidInputError):
        c.commit(msgs)
    assert append_table.read().num_rows == 1


def test_context_managers_and_abort(append_table):
    wb = append_table.new_batch_write_builder()
    with wb.new_write() as w:
        w.write_arrow(people([1, 2]))
        msgs = w.prepare_commit()
    with wb.new_commit() as c:
        c.abort(msgs)
    assert append_table.latest_snapshot_id() is None
    assert append_table.read().num_rows == 0
    # the aborted files are gone from the table directory.
    import os

    names = {n for m in msgs for n in m.file_names}
    on_disk = {f for _, _, fs in os.walk(append_table.location) for f in fs}
    assert names and not (names & on_disk)


def test_abort_after_a_commit_that_landed_deletes_nothing(append_table):
    """``abort`` after a commit that landed (or whose outcome is unknown) would delete files a
    snapshot references: it is refused and the table keeps its rows."""
    wb = append_table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(people([1, 2]))
    msgs = w.prepare_commit()
    c = wb.new_commit()
    c.commit(msgs)
    with pytest.raises(strata.InvalidInputError, match="may have landed"):
        c.abort(msgs)
    assert append_table.read().num_rows == 2


def test_empty_commit(append_table):
    wb = append_table.new_batch_write_builder()
    w = wb.new_write()
    msgs = w.prepare_commit()
    assert wb.new_commit().commit(msgs) is None
    assert append_table.latest_snapshot_id() is None


def test_columns_matched_by_name_and_cast(append_table):
    data = pa.table(
        {
            "dt": ["2024-01-01"],
            "score": pa.array([2.0], pa.float32()),
            "name": ["x"],
            "id": pa.array([7], pa.int32()),
        }
    )
    append_table.write(data)
    assert append_table.read().to_pylist() == [
        {"id": 7, "name": "x", "score": 2.0, "dt": "2024-01-01"}
    ]


# --------------------------------------------------------------------------------------------
# overwrite


def test_overwrite_whole_table(append_table):
    append_table.write(people([1, 2]))
    append_table.write(people([3]), overwrite=True)
    assert rows(append_table.read(), "id") == rows(people([3]), "id")
    wb = append_table.new_batch_write_builder().overwrite()
    w = wb.new_write()
    w.write_arrow(people([9]))
    wb.new_commit().commit(w.prepare_commit())
    assert rows(append_table.read(), "id") == rows(people([9]), "id")
    snaps = append_table.snapshots().to_pylist()
    assert [s["commit_kind"] for s in snaps] == ["APPEND", "OVERWRITE", "OVERWRITE"]


def test_overwrite_static_partition(partitioned_append_table):
    t = partitioned_append_table
    t.write(pa.concat_tables([people([1, 2], "2024-01-01"), people([3], "2024-01-02")]))
    t.write(people([10], "2024-01-01"), overwrite=True, partition={"dt": "2024-01-01"})
    assert rows(t.read(), "id") == rows(
        pa.concat_tables([people([3], "2024-01-02"), people([10], "2024-01-01")]), "id"
    )
    wb = t.new_batch_write_builder().overwrite({"dt": "2024-01-02"})
    w = wb.new_write()
    w.write_arrow(people([20], "2024-01-02"))
    wb.new_commit().commit(w.prepare_commit())
    assert rows(t.read(), "id") == rows(
        pa.concat_tables([people([10], "2024-01-01"), people([20], "2024-01-02")]), "id"
    )
    with pytest.raises(strata.InvalidInputError):
        t.write(people([1]), partition={"dt": "2024-01-01"})  # partition needs overwrite=True
    with pytest.raises(strata.InvalidInputError, match="nope"):
        t.write(people([1]), overwrite=True, partition={"nope": "x"})


# --------------------------------------------------------------------------------------------
# primary keys


def test_upsert_later_write_wins(pk_table):
    model = {}
    batches = [
        (range(0, 50), "a"),
        (range(25, 75), "b"),
        (range(10, 20), "c"),
        (range(70, 100), "d"),
    ]
    for ids, tag in batches:
        data = people(ids, tag=tag)
        pk_table.write(data)
        for r in data.to_pylist():
            model[r["id"]] = r
    expected = [model[k] for k in sorted(model)]
    assert rows(pk_table.read(), "id") == expected
    assert rows(read_all(pk_table), "id") == expected
    # two writes of the same key within one commit: the later one wins too.
    wb = pk_table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(people([5], tag="x"))
    w.write_arrow(people([5], tag="y"))
    wb.new_commit().commit(w.prepare_commit())
    assert pk_table.read(where="id = 5").to_pylist()[0]["name"] == "n5y"


def test_row_kinds(pk_table, append_table):
    pk_table.write(people([1, 2, 3]))
    wb = pk_table.new_batch_write_builder()
    w = wb.new_write()
    # -D deletes key 2; +U replaces key 3; +I adds key 4.
    w.write_arrow(people([2, 3, 4], tag="new"), row_kinds=["-D", "+U", "+I"])
    wb.new_commit().commit(w.prepare_commit())
    got = {r["id"]: r["name"] for r in pk_table.read().to_pylist()}
    assert got == {1: "n1", 3: "n3new", 4: "n4new"}
    w = pk_table.new_batch_write_builder().new_write()
    with pytest.raises(strata.InvalidInputError, match="row_kinds"):
        w.write_arrow(people([1]), row_kinds=["+X"])
    with pytest.raises(strata.InvalidInputError, match="row_kinds"):
        w.write_arrow(people([1, 2]), row_kinds=["+I"])
    w.close()
    # An append table stores rows, not changes: +I and +U rows are taken, a -U or -D row is
    # refused (Java's AppendOnlyFileStoreTable; ignore-delete would drop it instead).
    aw = append_table.new_batch_write_builder().new_write()
    with pytest.raises(strata.InvalidInputError, match="kind -D"):
        aw.write_arrow(people([1]), row_kinds=["-D"])
    aw.close()
    awb = append_table.new_batch_write_builder()
    aw = awb.new_write()
    aw.write_arrow(people([1, 2]), row_kinds=["+I", "+U"])
    awb.new_commit().commit(aw.prepare_commit())
    assert sorted(r["id"] for r in append_table.read().to_pylist()) == [1, 2]


def test_partitioned_pk(partitioned_pk_table):
    t = partitioned_pk_table
    t.write(pa.concat_tables([people([1, 2], "2024-01-01"), people([1], "2024-01-02")]))
    t.write(people([2], "2024-01-01", tag="new"))
    got = rows(t.read(), "dt", "id")
    assert [(r["dt"], r["id"], r["name"]) for r in got] == [
        ("2024-01-01", 1, "n1"),
        ("2024-01-01", 2, "n2new"),
        ("2024-01-02", 1, "n1"),
    ]
    assert rows(t.read(where="dt = '2024-01-02'")) == rows(people([1], "2024-01-02"))


# --------------------------------------------------------------------------------------------
# reading


def test_read_columns_where_limit(append_table):
    append_table.write(people(range(10)))
    got = append_table.read(columns=["name", "id"], where="id >= 7")
    assert got.column_names == ["name", "id"]
    assert rows(got, "id") == [{"name": f"n{i}", "id": i} for i in (7, 8, 9)]
    assert append_table.read(limit=3).num_rows == 3
    p = strata.PredicateBuilder().is_in("id", [1, 3])
    assert rows(append_table.read(where=p), "id") == rows(people([1, 3]), "id")


def test_read_builder_filter_projection_limit(append_table):
    append_table.write(people(range(20)))
    rb = append_table.new_read_builder()
    pb = rb.new_predicate_builder()
    assert isinstance(pb, strata.PredicateBuilder)
    rb2 = rb.with_filter(pb.between("id", 5, 8)).with_projection(["id", "score"])
    assert rb2 is rb  # pypaimon's builders change themselves and return themselves
    assert rb2.read_schema().names == ["id", "score"]
    plan = rb2.new_scan().plan()
    assert plan.snapshot_id == 1
    assert isinstance(plan.skipped_files, int)
    got = rb2.new_read().to_arrow(plan.splits())
    assert rows(got, "id") == [{"id": i, "score": i * 1.5} for i in range(5, 9)]
    # None clears.
    rb.with_filter(None).with_projection(None)
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows == 20


def test_read_builder_mutates_like_pypaimon(append_table, warehouse):
    """pypaimon's ReadBuilder.with_filter/with_projection/with_limit set the builder and return
    it, so pypaimon-style code calls them without using the result. strata's returned a new
    builder and left the first one unchanged: such code read every row of every column."""
    append_table.write(people(range(20)))
    rb = append_table.new_read_builder()
    rb.with_filter("id >= 15")
    rb.with_projection(["name", "id"])
    scan = rb.new_scan()
    read = rb.new_read()
    got = read.to_arrow(scan.plan().splits())
    assert got.column_names == ["name", "id"]
    assert rows(got, "id") == [{"name": f"n{i}", "id": i} for i in range(15, 20)]
    rb.with_limit(2)
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows == 2
    # A scan or read keeps what the builder held when it was made (as pypaimon's do).
    assert read.to_arrow(scan.plan().splits()).num_rows == 5
    # The same code on pypaimon, over the same table, reads the same rows.
    from pypaimon import CatalogFactory

    pt = CatalogFactory.create({"warehouse": warehouse})
    prb = pt.get_table("db.append").new_read_builder()
    prb.with_filter(prb.new_predicate_builder().greater_or_equal("id", 15))
    prb.with_projection(["name", "id"])
    want = prb.new_read().to_arrow(prb.new_scan().plan().splits())
    assert rows(want, "id") == rows(got, "id")
    # Time travel too.
    append_table.write(people([100]))
    rb = append_table.new_read_builder()
    rb.with_travel(snapshot_id=1)
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows == 20
    rb.with_travel()
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows == 21


def test_split_properties(partitioned_append_table):
    t = partitioned_append_table
    t.write(pa.concat_tables([people([1, 2], "2024-01-01"), people([3], "2024-01-02")]))
    splits = t.new_read_builder().new_scan().plan().splits()
    assert sum(s.row_count for s in splits) == 3
    for s in splits:
        assert s.snapshot_id == 1
        assert s.bucket == 0
        assert s.file_names and s.file_size > 0
        assert isinstance(s.raw_convertible, bool)
        assert "strata.Split" in repr(s)


def test_empty_table_reads(append_table):
    got = append_table.read()
    assert got.num_rows == 0
    assert got.schema.names == PEOPLE_SCHEMA.names
    plan = append_table.new_read_builder().new_scan().plan()
    assert plan.snapshot_id is None
    assert plan.splits() == []


def test_output_formats(append_table):
    import duckdb
    import polars as pl

    append_table.write(people(range(6)))
    rb = append_table.new_read_builder().with_filter("id < 4")
    splits = rb.new_scan().plan().splits()
    read = rb.new_read()
    expected = rows(people(range(4)), "id")

    assert rows(read.to_arrow(splits), "id") == expected
    reader = read.to_arrow_batch_reader(splits)
    assert isinstance(reader, pa.RecordBatchReader)
    assert rows(reader.read_all(), "id") == expected
    assert rows(pa.table(read.to_arrow_stream(splits)), "id") == expected
    assert rows(pl.DataFrame(read.to_arrow_stream(splits)).to_arrow(), "id") == expected
    df = read.to_pandas(splits)
    assert sorted(df["id"].tolist()) == [0, 1, 2, 3]
    assert rows(pa.Table.from_pandas(df, preserve_index=False), "id") == expected
    pdf = read.to_polars(splits)
    assert isinstance(pdf, pl.DataFrame)
    assert rows(pdf.to_arrow(), "id") == expected
    con = read.to_duckdb(splits, "people")
    assert con.execute("select count(*), sum(id) from people").fetchall() == [(4, 6)]
    con2 = duckdb.connect()
    assert read.to_duckdb(splits, "p2", connection=con2) is con2
    assert con2.execute("select max(id) from p2").fetchall() == [(3,)]


# --------------------------------------------------------------------------------------------
# time travel


def test_time_travel(append_table):
    append_table.write(people([1]))
    append_table.create_tag("first")
    time.sleep(0.05)
    between = int(time.time() * 1000)
    time.sleep(0.05)
    append_table.write(people([2]))
    assert rows(append_table.read(snapshot_id=1)) == rows(people([1]))
    assert rows(append_table.read(tag="first")) == rows(people([1]))
    assert rows(append_table.read(timestamp=between)) == rows(people([1]))
    assert rows(append_table.read(), "id") == rows(people([1, 2]), "id")
    rb = append_table.new_read_builder().with_travel(snapshot_id=1)
    assert rows(rb.new_read().to_arrow(rb.new_scan().plan().splits())) == rows(people([1]))
    rb = append_table.new_read_builder().with_travel(tag="first")
    assert rb.new_scan().plan().snapshot_id == 1
    with pytest.raises(strata.InvalidInputError):
        append_table.read(snapshot_id=1, tag="first")
    with pytest.raises(strata.NotFoundError):
        append_table.read(snapshot_id=99)
    with pytest.raises(strata.NotFoundError, match="nope"):
        append_table.read(tag="nope")


# --------------------------------------------------------------------------------------------
# MAP columns


@pytest.fixture
def map_table(catalog):
    t = catalog.create_table(
        "db.maps",
        [("id", "BIGINT NOT NULL"), ("m", "MAP<STRING, BIGINT>"), ("My Map", "MAP<STRING, STRING>")],
    )
    t.write(
        pa.table(
            {
                "id": pa.array([1, 2, 3, 4], pa.int64()),
                "m": pa.array(
                    [[("a", 1), ("b", 10)], [("a", 5)], [("b", 3)], None],
                    pa.map_(pa.string(), pa.int64()),
                ),
                "My Map": pa.array(
                    [[("it's", "x")], [], [("it's", "y")], [("k", "z")]],
                    pa.map_(pa.string(), pa.string()),
                ),
            }
        )
    )
    return t


def test_map_key_projection(map_table):
    got = map_table.read(columns=["id", "m['a']", "m['b']"])
    assert got.column_names == ["id", "m['a']", "m['b']"]
    assert rows(got, "id") == [
        {"id": 1, "m['a']": 1, "m['b']": 10},
        {"id": 2, "m['a']": 5, "m['b']": None},
        {"id": 3, "m['a']": None, "m['b']": 3},
        {"id": 4, "m['a']": None, "m['b']": None},
    ]
    quoted = map_table.read(columns=["id", "\"My Map\"['it''s']"])
    assert [r[quoted.column_names[1]] for r in rows(quoted, "id")] == ["x", None, "y", None]


def test_map_key_filter(map_table):
    assert sorted(map_table.read(where="m['a'] >= 1")["id"].to_pylist()) == [1, 2]
    assert sorted(map_table.read(where="m['b'] IS NULL")["id"].to_pylist()) == [2, 4]
    pb = strata.PredicateBuilder()
    assert sorted(map_table.read(where=pb.greater_than("m['b']", 5))["id"].to_pylist()) == [1]
    p = pb.equal("\"My Map\"['it''s']", "y")
    assert map_table.read(where=p)["id"].to_pylist() == [3]
    rb = map_table.new_read_builder().with_filter(pb.equal("m['a']", 5)).with_projection(["m['a']"])
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert got.to_pylist() == [{"m['a']": 5}]


# --------------------------------------------------------------------------------------------
# threads


def test_reads_in_two_threads(append_table):
    append_table.write(people(range(2000)))
    splits = append_table.new_read_builder().new_scan().plan().splits()
    results = {}
    errors = []

    barrier = threading.Barrier(2)

    def work(i):
        try:
            barrier.wait()
            for _ in range(5):
                results[i] = append_table.new_read_builder().new_read().to_arrow(splits).num_rows
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not errors
    assert results == {0: 2000, 1: 2000}
