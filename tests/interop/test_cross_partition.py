"""Cross-partition upsert (issue 31 item 6) between strata and Java Paimon 2.0.0.

A ``bucket = -1`` table whose primary key (``id``) lacks the partition key (``dt``) is Paimon's
``KEY_DYNAMIC`` bucket mode: a global key index (Java's ``GlobalIndexAssigner``, bootstrapped from
the table by ``IndexBootstrap``) keeps every key in one partition.  The Java side writes through
the oracle's ``Paimon2CrossPartition.write`` (the assigner, as Flink's ``GlobalDynamicBucketSink``
uses it); strata through ``strata write``.  Writers alternate on one table, each bootstrapping
from what the other wrote; both compact; after every step Java and strata read exactly one row
per key, equal to a Python model of the merge engine's rule for a key that changes partition
(deduplicate: it moves; partial-update: the old partition keeps it and takes the new values).
"""
from __future__ import annotations

import json

import pytest

from interop_support.java_flows import assert_same_files
from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))


def _schema(engine: str) -> dict:
    return {
        "fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
                   {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
                   {"id": 2, "name": "v", "type": "INT"}],
        "partitionKeys": ["dt"], "primaryKeys": ["id"],
        "options": {"bucket": "-1", "merge-engine": engine, "dynamic-bucket.target-row-num": "3"},
    }


class Model:
    """id -> (dt, v) under the engine's cross-partition rule."""

    def __init__(self, engine: str):
        self.engine = engine
        self.rows: dict = {}

    def apply(self, rows):
        for r in rows:
            old = self.rows.get(r["id"])
            if old is None or self.engine == "deduplicate":
                self.rows[r["id"]] = (r["dt"], r["v"])
            else:  # partial-update: the old partition, non-null values win
                self.rows[r["id"]] = (old[0], r["v"] if r["v"] is not None else old[1])

    def lines(self):
        return sorted(json.dumps({"id": k, "dt": dt, "v": v}, separators=(",", ":"))
                      for k, (dt, v) in self.rows.items())


def _strata_write(strata, tmp_path, ident, rows, n=[0]):
    n[0] += 1
    f = tmp_path / f"rows-{n[0]}.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    strata.write(ident, [str(f)])


def _java_write(java, wh, ident, rows):
    return java.call("Paimon2CrossPartition.write", warehouse=_abs(wh), table=ident,
                     rows=rows)["snapshotId"]


def _check(java, strata, wh, ident, model, what):
    want = model.lines()
    got_java = java.read(wh, ident)
    assert got_java == want, f"{what}: Java reads\n{got_java}\nwant\n{want}"
    got_strata = sorted(strata.read_lines(ident))
    assert got_strata == want, f"{what}: strata reads\n{got_strata}\nwant\n{want}"
    return assert_same_files(strata, java, ident)


def _rows(ids, dt, v):
    return [{"id": i, "dt": dt, "v": v} for i in ids]


def test_deduplicate_keys_move_across_partitions_both_ways(java, strata, wh, tmp_path):
    ident = "db.cp"
    java.create_table(wh, ident, _schema("deduplicate"))
    model = Model("deduplicate")
    steps = [
        ("java", _rows(range(0, 8), "a", 1) + _rows(range(8, 12), "b", 1)),
        # strata moves 0..3 to b and 8, 9 to c, adds 20..23 in c, updates 4 in place
        ("strata", _rows(range(0, 4), "b", 2) + _rows([8, 9], "c", 2) + _rows(range(20, 24), "c", 2)
         + _rows([4], "a", 2)),
        # Java (bootstrapping from strata's files) moves 0, 1 back to a and 20 to b
        ("java", _rows([0, 1], "a", 3) + _rows([20], "b", 3)),
        ("strata", _rows([20, 21], "a", 4) + _rows([0], "c", 4)),
    ]
    for i, (who, rows) in enumerate(steps):
        if who == "java":
            _java_write(java, wh, ident, rows)
        else:
            _strata_write(strata, tmp_path, ident, rows)
        model.apply(rows)
        files = _check(java, strata, wh, ident, model, f"step {i} ({who})")
        if i == 1:
            # strata's retractions of 0..3 (from partition a) and 8, 9 (from b) are delete
            # records in its new files there, as Java's DeleteExistingProcessor writes them.
            assert sum(f["deleteRowCount"] for f in files) == 6, files
    # Retractions are delete records in the old partitions' files until a full compaction.
    java.compact(wh, ident)
    _check(java, strata, wh, ident, model, "after Java's full compaction")
    _strata_write(strata, tmp_path, ident, _rows([1, 2], "c", 5))
    model.apply(_rows([1, 2], "c", 5))
    strata.run("compact", ident, "--full")
    _check(java, strata, wh, ident, model, "after strata's full compaction")
    files = java.files(wh, ident)
    assert {f["bucket"] for f in files} <= {0, 1, 2, 3}, files
    # Java bootstraps once more from strata's compacted files.
    _java_write(java, wh, ident, _rows([2], "a", 6))
    model.apply(_rows([2], "a", 6))
    _check(java, strata, wh, ident, model, "Java after strata's compaction")


def test_partial_update_keeps_the_old_partition_both_ways(java, strata, wh, tmp_path):
    ident = "db.pu"
    strata.create_table(ident, _schema("partial-update"))
    model = Model("partial-update")
    steps = [
        ("strata", _rows(range(0, 5), "a", 1)),
        ("java", [{"id": 0, "dt": "b", "v": 10}, {"id": 1, "dt": "b", "v": None},
                  {"id": 7, "dt": "b", "v": 7}]),
        ("strata", [{"id": 2, "dt": "c", "v": 20}, {"id": 7, "dt": "a", "v": 70}]),
    ]
    for i, (who, rows) in enumerate(steps):
        if who == "java":
            _java_write(java, wh, ident, rows)
        else:
            _strata_write(strata, tmp_path, ident, rows)
        model.apply(rows)
        _check(java, strata, wh, ident, model, f"step {i} ({who})")
    strata.run("compact", ident, "--full")
    _check(java, strata, wh, ident, model, "after strata's full compaction")
