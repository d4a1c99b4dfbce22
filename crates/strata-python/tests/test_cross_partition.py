"""Cross-partition upsert (``bucket = -1``, a primary key without the partition key: Java's
``KEY_DYNAMIC``): ``Table.write(..., overwrite=True)`` routes rows through the global key index
as Java's ``GlobalDynamicBucketSink`` does, so a key moving partition is retracted from its old
partition, which the dynamic overwrite then replaces too (as in Java)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import strata
from conftest import rows


def _data(rows_):
    return pa.table({"id": pa.array([r[0] for r in rows_], pa.int64()),
                     "dt": [r[1] for r in rows_],
                     "v": pa.array([r[2] for r in rows_], pa.int32())})


def test_overwrite_moves_keys_as_java(catalog):
    t = catalog.create_table("db.xp", [("id", "BIGINT NOT NULL"), ("dt", "STRING NOT NULL"),
                                       ("v", "INT")], partition_keys=["dt"], primary_keys=["id"],
                             options={"bucket": "-1"})
    t.write(_data([(1, "a", 1), (2, "a", 2), (3, "b", 3), (4, "c", 4)]))
    # 1 moves a -> b: a (its retraction) and b are replaced, c stays.
    t.write(_data([(1, "b", 10), (5, "b", 50)]), overwrite=True)
    assert rows(t.read(), "id") == [{"id": 1, "dt": "b", "v": 10},
                                    {"id": 4, "dt": "c", "v": 4},
                                    {"id": 5, "dt": "b", "v": 50}]
    # A static partition overwrite refuses a retraction outside its partition.
    with pytest.raises(strata.StrataError, match="outside the overwritten partition"):
        t.write(_data([(4, "b", 40)]), overwrite=True, partition={"dt": "b"})
    t.write(_data([(6, "b", 60)]), overwrite=True, partition={"dt": "b"})
    assert rows(t.read(), "id") == [{"id": 4, "dt": "c", "v": 4},
                                    {"id": 6, "dt": "b", "v": 60}]
