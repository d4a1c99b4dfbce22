"""Branches: ``catalog.get_table("db.t$branch_NAME")`` reads and writes the branch's own
history; ``Table.create_branch`` (empty, from a tag, from a snapshot), ``delete_branch``,
``fast_forward``, ``branches`` and ``branch`` as Java's ``FileSystemBranchManager``."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

import strata
from conftest import rows


def _data(ids, v):
    return pa.table({"id": pa.array(ids, pa.int64()), "v": [v] * len(ids)})


def test_branch_reads_writes_and_fast_forward(catalog, warehouse):
    t = catalog.create_table("db.t", [("id", "BIGINT NOT NULL"), ("v", "STRING")],
                             primary_keys=["id"], options={"bucket": "1"})
    t.write(_data([1, 2], "a"))
    t.create_tag("t1")
    t.create_branch("dev", tag="t1")
    t.create_branch("empty")
    t.create_branch("snap", snapshot_id=1)
    assert t.branch == "main"
    assert t.branches() == ["dev", "empty", "snap"]
    assert os.path.isfile(os.path.join(warehouse, "db.db", "t", "branch", "branch-dev",
                                       "snapshot", "snapshot-1"))

    dev = catalog.get_table("db.t$branch_dev")
    assert dev.branch == "dev"
    dev.write(_data([2, 3], "dev"))
    t.write(_data([4], "main"))
    assert rows(dev.read(), "id") == [{"id": 1, "v": "a"}, {"id": 2, "v": "dev"},
                                      {"id": 3, "v": "dev"}]
    assert rows(catalog.get_table("db.t").read(), "id") == [
        {"id": 1, "v": "a"}, {"id": 2, "v": "a"}, {"id": 4, "v": "main"}]
    assert catalog.get_table("db.t$branch_empty").read().num_rows == 0

    with pytest.raises(strata.StrataError, match="pure numeric"):
        t.create_branch("42")
    with pytest.raises(strata.StrataError, match="already exists"):
        t.create_branch("dev")

    t.fast_forward("dev")
    assert rows(catalog.get_table("db.t").read(), "id") == rows(dev.read(), "id")
    t.delete_branch("empty")
    assert t.branches() == ["dev", "snap"]
    with pytest.raises(strata.StrataError):
        catalog.get_table("db.t$branch_empty")
