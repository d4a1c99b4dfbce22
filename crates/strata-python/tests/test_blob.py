"""BLOB columns from Python: a data-evolution append table's ``BLOB`` column takes a
``pa.binary()`` (or ``pa.large_binary()``) column; the values go to ``.blob`` files beside the
Parquet file of the other columns (Java 2.0's layout, checked against Java in
``tests/interop/test_blob.py``) and read back as binary, stitched by row id."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

import strata
from conftest import rows

OPTIONS = {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true",
           "blob.target-file-size": "100 b"}


def _payload(i):
    return None if i % 4 == 3 else bytes([i % 256]) * (i * 9)


def test_blob_column_written_and_read(catalog, warehouse):
    t = catalog.create_table("db.blobs", [("id", "INT"), ("pic", "BLOB")], options=OPTIONS)
    t.write(pa.table({"id": pa.array(range(12), pa.int32()),
                      "pic": pa.array([_payload(i) for i in range(12)], pa.binary())}))
    t.write(pa.table({"id": pa.array(range(12, 16), pa.int32()),
                      "pic": pa.array([_payload(i) for i in range(12, 16)], pa.large_binary())}))
    got = rows(t.read(columns=["id", "pic", "_ROW_ID"]), "id")
    assert got == [{"id": i, "pic": _payload(i), "_ROW_ID": i} for i in range(16)]
    assert t.read(where="pic IS NULL").num_rows == 4
    files = sorted(os.listdir(os.path.join(warehouse, "db.db", "blobs", "bucket-0")))
    assert sum(f.endswith(".parquet") for f in files) == 2
    assert sum(f.endswith(".blob") for f in files) > 2  # rolled at 100 bytes


def test_blob_descriptor_field_tables_refused(catalog):
    with pytest.raises(strata.StrataError, match="blob-descriptor-field"):
        catalog.create_table("db.desc", [("id", "INT"), ("pic", "BLOB")],
                             options={**OPTIONS, "blob-descriptor-field": "pic"})
