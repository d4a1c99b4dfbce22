"""``Table.rescale``: partitions rewritten into a new bucket count in one OVERWRITE commit, as
``strata rescale`` and Paimon's ``RescaleProcedure``."""

from __future__ import annotations

import pyarrow as pa
import pytest

import strata
from conftest import people, rows


def _buckets(table, dt):
    files = [f for f in table.files().to_pylist() if dt in str(f["partition"])]
    return sorted({f["bucket"] for f in files})


def test_rescale_one_partition(partitioned_pk_table):
    t = partitioned_pk_table
    ids = list(range(40))
    t.write(pa.concat_tables([people(ids, "2024-01-01"), people(ids, "2024-01-02")]))
    before = rows(t.read(), "dt", "id")
    assert _buckets(t, "2024-01-01") == [0, 1]

    report = t.rescale(4, {"dt": "2024-01-02"})
    assert report["bucket_num"] == 4
    assert report["rows"] == len(ids)
    assert report["snapshot_id"] == t.latest_snapshot_id() == 2
    assert t.snapshots().to_pylist()[-1]["commit_kind"] == "OVERWRITE"
    # only the chosen partition has the new bucket count; the rows did not change.
    assert _buckets(t, "2024-01-02") == [0, 1, 2, 3]
    assert _buckets(t, "2024-01-01") == [0, 1]
    assert rows(t.read(), "dt", "id") == before

    # every partition, with the table's own bucket count.
    report = t.rescale()
    assert report["bucket_num"] == 2
    assert report["rows"] == 2 * len(ids)
    assert _buckets(t, "2024-01-02") == [0, 1]
    assert rows(t.read(), "dt", "id") == before


def test_rescale_refusals(partitioned_pk_table):
    t = partitioned_pk_table
    with pytest.raises(strata.InvalidInputError, match="no snapshot"):
        t.rescale(4)
    t.write(people([1, 2], "2024-01-01"))
    with pytest.raises(strata.InvalidInputError, match="positive"):
        t.rescale(0)
    with pytest.raises(strata.InvalidInputError, match="does not have any data files"):
        t.rescale(4, {"dt": "1999-01-01"})
