"""``scan.fallback-branch`` / ``scan.primary-branch`` (Java's ``FallbackReadFileStoreTable``):
``Table.read()`` takes whole partitions from the other branch; writes stay on the table's own
branch; time travel of such a table is refused by name."""

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
    with pytest.raises(strata.StrataError, match="time travel"):
        t.read(snapshot_id=1)
    t.write(_data([4], "d2", "main"))
    assert rows(catalog.get_table("db.f").read(), "id") == [
        {"id": 1, "dt": "d1", "v": "main"}, {"id": 4, "dt": "d2", "v": "main"}]
    strata.sql("ALTER TABLE db.f SET ('scan.fallback-branch' = '', "
               "'scan.primary-branch' = 'fb')", catalog)
    assert rows(catalog.get_table("db.f").read(), "id") == [
        {"id": 1, "dt": "d1", "v": "fb"}, {"id": 2, "dt": "d1", "v": "fb"},
        {"id": 3, "dt": "d2", "v": "fb"}]
