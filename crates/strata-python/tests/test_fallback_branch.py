"""``scan.fallback-branch`` / ``scan.primary-branch`` (Java's ``FallbackReadFileStoreTable``):
``Table.read()`` takes whole partitions from the other branch; writes stay on the table's own
branch; time travel of such a table travels the other branch as Java's ``rewriteOtherOptions``
(a snapshot id by its time)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import strata
from conftest import rows


def _data(ids, dt, v):
    return pa.table({"id": pa.array(ids, pa.int64()), "dt": [dt] * len(ids), "v": [v] * len(ids)})


def test_fallback_and_primary_branch_reads(catalog, warehouse):
    t = catalog.create_table("db.f", [("id", "BIGINT NOT NULL"), ("dt", "STRING NOT NULL"),
                                      ("v", "STRING")], partition_keys=["dt"],
                             options={"bucket": "-1"})
    t.write(_data([1], "d1", "main"))
    t.create_branch("fb")
    fb = catalog.get_table("db.f$branch_fb")
    fb.write(_data([1, 2], "d1", "fb"))
    fb.write(_data([3], "d2", "fb"))
    strata.sql("ALTER TABLE db.f SET ('scan.fallback-branch' = 'fb')", catalog)
    t = catalog.get_table("db.f")
    assert rows(t.read(), "id") == [{"id": 1, "dt": "d1", "v": "main"},
                                    {"id": 3, "dt": "d2", "v": "fb"}]
    # Snapshot 1 of main predates fb's commits: fb is read at its snapshot 1 (d1, hidden).
    assert rows(t.read(snapshot_id=1), "id") == [{"id": 1, "dt": "d1", "v": "main"}]
    t.write(_data([4], "d2", "main"))
    # Snapshot 1 of main still maps to fb's first snapshot, snapshot 2 to fb's latest.
    t = catalog.get_table("db.f")
    assert rows(t.read(snapshot_id=2), "id") == [{"id": 1, "dt": "d1", "v": "main"},
                                                 {"id": 4, "dt": "d2", "v": "main"}]
    assert rows(catalog.get_table("db.f").read(), "id") == [
        {"id": 1, "dt": "d1", "v": "main"}, {"id": 4, "dt": "d2", "v": "main"}]
    strata.sql("ALTER TABLE db.f SET ('scan.fallback-branch' = '', "
               "'scan.primary-branch' = 'fb')", catalog)
    assert rows(catalog.get_table("db.f").read(), "id") == [
        {"id": 1, "dt": "d1", "v": "fb"}, {"id": 2, "dt": "d1", "v": "fb"},
        {"id": 3, "dt": "d2", "v": "fb"}]
