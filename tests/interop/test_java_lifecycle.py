"""Table lifecycle between strata and Java Paimon 1.4.2 / 2.0.0: manifests merged, snapshots
expired, tags created and deleted, rollbacks -- done by one engine, read by the other.

* strata commits often with small manifest-merge thresholds (its merges rewrite the base
  manifest lists), tags snapshots, expires the rest, rolls back to a tag, and writes on: Java
  reads the latest snapshot, each tag and each retained snapshot, and lists the same files;
* Java does the same to a strata table (``expireSnapshots``, ``createTag``/``deleteTag``,
  ``rollbackTo``): strata reads the latest snapshot and the tags, lists Java's tags, and keeps
  writing on the rolled-back table, read back by Java.

Expected rows: the model of the commits (rows per snapshot), never one engine's output.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import write_input
from interop_support.java_flows import assert_same_files
from interop_support.java_oracle import java, rows_json  # noqa: F401  (fixture)

pytestmark = pytest.mark.java

SCHEMA = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("v", pa.string()),
                    pa.field("p", pa.string(), nullable=False)])
OPTIONS = {"bucket": "2", "manifest.merge-min-count": "3", "manifest.target-file-size": "4kb"}


def schema_doc() -> dict:
    return {"fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"},
                       {"name": "p", "type": "STRING NOT NULL"}],
            "partitionKeys": ["p"], "primaryKeys": ["p", "k"], "options": dict(OPTIONS)}


def batch(keys, tag: str) -> pa.Table:
    keys = list(keys)
    return pa.table({"k": pa.array(keys, pa.int32()), "v": [f"{tag}-{k}" for k in keys],
                     "p": [f"p{k % 3}" for k in keys]}, schema=SCHEMA)


class Model:
    """Rows of the table after each commit, by snapshot id."""

    def __init__(self) -> None:
        self.rows: Dict[tuple, dict] = {}
        self.at: Dict[int, List[str]] = {}

    def commit(self, snapshot: int, data: pa.Table) -> None:
        for r in data.to_pylist():
            self.rows[(r["p"], r["k"])] = r
        self.at[snapshot] = self.lines()

    def lines(self) -> List[str]:
        return canonical_lines(pa.Table.from_pylist(list(self.rows.values()), schema=SCHEMA))

    def reset_to(self, snapshot: int) -> None:
        """The table rolled back to ``snapshot``: its rows, and no later snapshots."""
        self.rows = {}
        for line in self.at[snapshot]:
            r = json.loads(line)
            self.rows[(r["p"], r["k"])] = r
        self.at = {s: v for s, v in self.at.items() if s <= snapshot}


def strata_commit(strata, ident: str, model: Model, data: pa.Table) -> int:
    src = write_input(data, "parquet", Path(strata.scratch) / f"in-{len(model.at)}-{data.num_rows}.parquet")
    strata.write(ident, [src])
    snapshot = strata.snapshots(ident)[-1]
    model.commit(snapshot["id"], data)
    return snapshot["id"]


def strata_read_tag(strata, ident: str, tag: str) -> List[str]:
    out = Path(strata.scratch) / f"tag-{tag}.parquet"
    strata.run("read", ident, "--tag", tag, "--format", "parquet", "--output", str(out))
    return canonical_lines(pq.ParquetFile(out).read())


def test_strata_lifecycle_read_by_java(java, strata):
    ident = "db.t"
    strata.create_table(ident, schema_doc())
    model = Model()
    commits = [strata_commit(strata, ident, model, batch(range(i * 4, i * 4 + 10), f"c{i}")) for i in range(8)]
    # strata merged manifests along the way: the latest base list holds fewer manifests than
    # there were commits, and Java plans exactly the same live files from it.
    assert_same_files(strata, java, ident)
    assert_same_rows(java.read(strata.warehouse, ident), model.lines(), f"Java {java.version} read after 8 commits")
    for s in (commits[1], commits[4]):
        assert_same_rows(java.read(strata.warehouse, ident, snapshot=s), model.at[s], f"Java read at snapshot {s}")

    strata.run("create-tag", ident, "early", "--snapshot", str(commits[2]))
    strata.run("create-tag", ident, "late", "--snapshot", str(commits[6]))
    strata.run("expire-snapshots", ident, "--retain-max", "2", "--retain-min", "1")
    assert [s["id"] for s in java.snapshots(strata.warehouse, ident)] == [s["id"] for s in strata.snapshots(ident)]
    assert {t["name"] for t in java.tags(strata.warehouse, ident)} == {"early", "late"}
    for name, s in (("early", commits[2]), ("late", commits[6])):
        assert_same_rows(java.read(strata.warehouse, ident, tag=name), model.at[s], f"Java read of strata's tag {name}")
    assert_same_rows(java.read(strata.warehouse, ident), model.lines(), "Java read after strata's expiry")

    strata.run("rollback", ident, "--to-tag", "late")
    model.reset_to(commits[6])
    assert_same_rows(java.read(strata.warehouse, ident), model.lines(), "Java read after strata's rollback")
    strata_commit(strata, ident, model, batch(range(100, 110), "after"))
    assert_same_rows(java.read(strata.warehouse, ident), model.lines(), "Java read after strata's write on the rollback")
    assert_same_files(strata, java, ident)


def test_java_lifecycle_read_by_strata(java, strata):
    ident = "db.t"
    strata.create_table(ident, schema_doc())
    model = Model()
    snapshots = []
    for i in range(6):
        data = batch(range(i * 5, i * 5 + 9), f"j{i}")
        if i % 2:
            snapshots.append(strata_commit(strata, ident, model, data))
        else:
            s = java.write(strata.warehouse, ident, rows_json(data))
            model.commit(s, data)
            snapshots.append(s)
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read after alternating commits")
    java.create_tag(strata.warehouse, ident, "j-tag", snapshot=snapshots[1])
    java.create_tag(strata.warehouse, ident, "gone", snapshot=snapshots[2])
    java.delete_tag(strata.warehouse, ident, "gone")
    java.create_tag(strata.warehouse, ident, "j-late", snapshot=snapshots[4])
    expired = java.expire_snapshots(strata.warehouse, ident,
                                    {"snapshot.num-retained.max": "2", "snapshot.num-retained.min": "1"})
    assert expired > 0
    assert [s["id"] for s in strata.snapshots(ident)] == [s["id"] for s in java.snapshots(strata.warehouse, ident)]
    assert sorted(t["name"] for t in strata.json_lines("tags", ident)) == ["j-late", "j-tag"]
    assert_same_rows(strata_read_tag(strata, ident, "j-tag"), model.at[snapshots[1]], "strata read of Java's tag")
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read after Java's expiry")

    java.rollback_to(strata.warehouse, ident, tag="j-late")
    model.reset_to(snapshots[4])
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read after Java's rollback")
    strata_commit(strata, ident, model, batch(range(50, 60), "strata-after"))
    assert_same_rows(java.read(strata.warehouse, ident), model.lines(), "Java read of strata's write after the rollback")
    assert_same_rows(strata.read_lines(ident), model.lines(), "strata read at the end")
    assert_same_files(strata, java, ident)
