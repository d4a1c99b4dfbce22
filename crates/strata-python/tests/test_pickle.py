"""Pickling: Catalog, Table, Split, CommitMessage; splits read and messages committed in
other processes."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import pickle

import pyarrow as pa
import pytest

import strata
from conftest import people, rows


def test_pickle_catalog(catalog, warehouse):
    catalog.create_table("db.t", [("id", "INT")])
    c2 = pickle.loads(pickle.dumps(catalog))
    assert isinstance(c2, strata.Catalog)
    assert c2.warehouse == warehouse
    assert c2.list_tables("db") == ["t"]
    c3 = pickle.loads(pickle.dumps(strata.Catalog({"warehouse": warehouse})))
    assert c3.list_databases() == ["db"]


def test_pickle_table(pk_table):
    pk_table.write(people([1, 2]))
    t2 = pickle.loads(pickle.dumps(pk_table))
    assert isinstance(t2, strata.Table)
    assert t2.full_name == "db.pk"
    assert t2.primary_keys == ["id"]
    assert rows(t2.read(), "id") == rows(pk_table.read(), "id")
    t2.write(people([3]))
    assert rows(pk_table.read(), "id") == rows(people([1, 2, 3]), "id")


def test_pickle_table_keeps_dynamic_options(append_table):
    t = append_table.copy({"write-buffer-size": "32 mb"})
    t2 = pickle.loads(pickle.dumps(t))
    assert t2.options.get("write-buffer-size") == "32 mb"


def test_pickle_split(partitioned_append_table):
    t = partitioned_append_table
    t.write(pa.concat_tables([people([1, 2], "2024-01-01"), people([3], "2024-01-02")]))
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    copies = [pickle.loads(pickle.dumps(s)) for s in splits]
    assert [type(s) for s in copies] == [strata.Split] * len(splits)
    assert [s.file_names for s in copies] == [s.file_names for s in splits]
    assert [s.row_count for s in copies] == [s.row_count for s in splits]
    assert [s.to_bytes() for s in copies] == [s.to_bytes() for s in splits]
    assert rows(rb.new_read().to_arrow(copies), "id") == rows(rb.new_read().to_arrow(splits), "id")
    # a split can be read by another table object (unpickled too).
    t2 = pickle.loads(pickle.dumps(t))
    assert rows(t2.new_read_builder().new_read().to_arrow(copies), "id") == rows(t.read(), "id")


def test_pickle_commit_message(append_table):
    wb = append_table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(people([1, 2, 3]))
    msgs = w.prepare_commit()
    copies = pickle.loads(pickle.dumps(msgs))
    assert [m.file_names for m in copies] == [m.file_names for m in msgs]
    assert [m.row_count for m in copies] == [m.row_count for m in msgs]
    assert "strata.CommitMessage" in repr(copies[0])
    table2 = pickle.loads(pickle.dumps(append_table))
    table2.new_batch_write_builder().new_commit().commit(copies)
    assert rows(append_table.read(), "id") == rows(people([1, 2, 3]), "id")


# Worker functions run in child processes (module level so they pickle by reference).


def _write_in_worker(table, ids):
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(people(ids))
    return w.prepare_commit()


def _read_in_worker(table, split):
    return table.new_read_builder().new_read().to_arrow([split]).to_pylist()


@pytest.fixture(scope="module")
def spawn_pool():
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=ctx) as pool:
        yield pool


def test_commit_messages_from_worker_processes(pk_table, spawn_pool):
    futures = [
        spawn_pool.submit(_write_in_worker, pk_table, range(0, 10)),
        spawn_pool.submit(_write_in_worker, pk_table, range(10, 25)),
    ]
    messages = [m for f in futures for m in f.result(timeout=300)]
    assert all(isinstance(m, strata.CommitMessage) for m in messages)
    assert pk_table.latest_snapshot_id() is None
    sid = pk_table.new_batch_write_builder().new_commit().commit(messages)
    assert sid == 1
    assert rows(pk_table.read(), "id") == rows(people(range(25)), "id")


def test_splits_read_in_worker_processes(partitioned_append_table, spawn_pool):
    t = partitioned_append_table
    t.write(pa.concat_tables([people(range(5), "2024-01-01"), people(range(5, 8), "2024-01-02")]))
    splits = t.new_read_builder().new_scan().plan().splits()
    assert len(splits) >= 2
    got = [r for rs in spawn_pool.map(_read_in_worker, [t] * len(splits), splits) for r in rs]
    assert sorted(got, key=lambda r: r["id"]) == rows(t.read(), "id")
