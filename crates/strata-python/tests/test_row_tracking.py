"""Row tracking and data evolution from Python: ``_ROW_ID`` / ``_SEQUENCE_NUMBER`` read by name
on a ``row-tracking.enabled`` table, and ``Table.update_columns`` writing some columns of
existing rows by row id on a ``data-evolution.enabled`` table (one file of those columns per
row-id range, as Java's partial-column writes; reads stitch them)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import strata
from conftest import rows

TRACKED = ["id", "v", "_ROW_ID", "_SEQUENCE_NUMBER"]


def _data(ids, v):
    return pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array([v] * len(ids), pa.int32())})


def test_row_ids_and_column_updates(catalog):
    t = catalog.create_table(
        "db.t", [("id", "BIGINT NOT NULL"), ("v", "INT")],
        options={"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true"})
    t.write(_data([1, 2, 3], 0))
    t.write(_data([4, 5], 0))
    assert rows(t.read(columns=TRACKED), "id") == [
        {"id": 1, "v": 0, "_ROW_ID": 0, "_SEQUENCE_NUMBER": 1},
        {"id": 2, "v": 0, "_ROW_ID": 1, "_SEQUENCE_NUMBER": 1},
        {"id": 3, "v": 0, "_ROW_ID": 2, "_SEQUENCE_NUMBER": 1},
        {"id": 4, "v": 0, "_ROW_ID": 3, "_SEQUENCE_NUMBER": 2},
        {"id": 5, "v": 0, "_ROW_ID": 4, "_SEQUENCE_NUMBER": 2},
    ]
    snapshot = t.update_columns(pa.table({"_ROW_ID": pa.array([1, 4], pa.int64()),
                                          "v": pa.array([20, 50], pa.int32())}))
    assert snapshot == 3
    assert rows(t.read(columns=["id", "v"]), "id") == [
        {"id": 1, "v": 0}, {"id": 2, "v": 20}, {"id": 3, "v": 0}, {"id": 4, "v": 0},
        {"id": 5, "v": 50}]
    # Updated rows keep their ids; their sequence number is the updating snapshot's.
    got = {r["id"]: (r["_ROW_ID"], r["_SEQUENCE_NUMBER"]) for r in t.read(columns=TRACKED).to_pylist()}
    assert got[2] == (1, 3) and got[5] == (4, 3)
    assert t.read(where="v > 10").num_rows == 2
    with pytest.raises(strata.StrataError, match="_ROW_ID 99"):
        t.update_columns(pa.table({"_ROW_ID": pa.array([99], pa.int64()),
                                   "v": pa.array([1], pa.int32())}))


def test_data_evolution_compaction(catalog):
    """``Table.compact`` on a data-evolution table (Java's ``DataEvolutionCompactCoordinator``):
    the contiguous row-id ranges and their column files become one file of every column with the
    first range's ``firstRowId``; rows and row ids stay."""
    t = catalog.create_table(
        "db.de", [("id", "BIGINT NOT NULL"), ("v", "INT")],
        options={"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true",
                 "compaction.min.file-num": "2"})
    t.write(_data([1, 2, 3], 0))
    t.write(_data([4, 5], 0))
    t.update_columns(pa.table({"_ROW_ID": pa.array([0, 3], pa.int64()),
                               "v": pa.array([10, 40], pa.int32())}))
    before = rows(t.read(columns=["id", "v", "_ROW_ID"]), "id")
    report = t.compact()
    assert report["snapshot_id"] == 4
    assert rows(t.read(columns=["id", "v", "_ROW_ID"]), "id") == before
    assert [r["v"] for r in before] == [10, 0, 0, 40, 0]
    files = catalog.sql("SELECT record_count, first_row_id, write_cols FROM db.de$files").to_pylist()
    assert files == [{"record_count": 5, "first_row_id": 0, "write_cols": None}], files
