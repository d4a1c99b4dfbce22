"""Cross-partition upsert (issue 31 item 6) between strata and Java Paimon 2.0.0.

A ``bucket = -1`` table whose primary key (``id``) lacks the partition key (``dt``) is Paimon's
``KEY_DYNAMIC`` bucket mode: a global key index (Java's ``GlobalIndexAssigner``, bootstrapped from
the table by ``IndexBootstrap``) keeps every key in one partition.  The Java side writes through
the oracle's ``Paimon2CrossPartition.write`` (the assigner, as Flink's ``GlobalDynamicBucketSink``
uses it); strata through ``strata write``.  Writers alternate on one table, each bootstrapping
from what the other wrote; both compact; after every step Java and strata read exactly one row
per key, equal to a Python model of the merge engine's rule for a key that changes partition
(deduplicate: it moves; partial-update: the old partition keeps it and takes the new values).
INSERT OVERWRITE (strata's ``write --overwrite``, Java's ``Paimon2CrossOverwrite.write``) routes
through the same index: a moved key's retraction makes its old partition one the dynamic overwrite
replaces, as Java's does.
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


def _java_overwrite(java, wh, ident, rows, partition=None, options=None):
    return java.call("Paimon2CrossOverwrite.write", warehouse=_abs(wh), table=ident, rows=rows,
                     partition=partition, options=options)["snapshotId"]


def _overwrite(model: Model, rows, partition=None):
    """Java's INSERT OVERWRITE of a deduplicate cross-partition table: the assigner, bootstrapped
    from the table, retracts a key that lives in another partition there, so a dynamic overwrite
    replaces the new rows' partitions and the moved keys' old ones (whose other rows go); a static
    overwrite replaces its partition and refuses a retraction outside it."""
    old = {r["id"]: model.rows[r["id"]][0] for r in rows if r["id"] in model.rows}
    moved_from = {dt for i, dt in old.items() if dt != next(r["dt"] for r in rows if r["id"] == i)}
    if partition is not None:
        if moved_from - {partition["dt"]}:
            return False
        replaced = {partition["dt"]}
    else:
        replaced = {r["dt"] for r in rows} | moved_from
    model.rows = {k: v for k, v in model.rows.items() if v[0] not in replaced}
    model.apply(rows)
    return True


def _copy(model: Model) -> Model:
    m = Model(model.engine)
    m.rows = dict(model.rows)
    return m


def test_overwrite_routes_keys_through_the_index_both_ways(java, strata, wh, tmp_path):
    """INSERT OVERWRITE of a cross-partition-upsert table, strata's ``write --overwrite`` and
    Java's ``withOverwrite`` through its ``GlobalIndexAssigner`` alternating: keys moving between
    partitions retract their old partition, which the dynamic overwrite then replaces; a static
    overwrite with a retraction outside its partition is refused by both; rows read equal to the
    model by both engines."""
    ident = "db.ow"
    java.create_table(wh, ident, _schema("deduplicate"))
    model = Model("deduplicate")
    first = _rows(range(0, 4), "a", 1) + _rows([4, 5], "b", 1) + _rows([6], "c", 1)
    _java_write(java, wh, ident, first)
    model.apply(first)
    _check(java, strata, wh, ident, model, "Java's first write")

    # strata, dynamic: 0 moves a -> b; a (its retraction) and b are replaced, c stays.
    rows = _rows([0, 7], "b", 2)
    f = tmp_path / "ow-1.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    strata.write(ident, [str(f)], overwrite=True)
    assert _overwrite(model, rows)
    assert sorted(model.rows) == [0, 6, 7]
    _check(java, strata, wh, ident, model, "strata's dynamic overwrite")
    assert java.snapshots(wh, ident)[-1]["commitKind"] == "OVERWRITE"

    # Java, dynamic, bootstrapping from strata's overwrite: 6 moves c -> a.
    rows = _rows([6, 8], "a", 3)
    _java_overwrite(java, wh, ident, rows)
    assert _overwrite(model, rows)
    _check(java, strata, wh, ident, model, "Java's dynamic overwrite")

    # strata, static dt = b: 0 stays in b, 9 is new.
    rows = _rows([0, 9], "b", 4)
    f = tmp_path / "ow-2.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    strata.write(ident, [str(f)], overwrite=True, partition={"dt": "b"})
    assert _overwrite(model, rows, {"dt": "b"})
    _check(java, strata, wh, ident, model, "strata's static overwrite")

    # Static dt = a with key 9 (living in b): both refuse the retraction outside the partition
    # (Java's static overwrite needs dynamic-partition-overwrite = false: with the default its
    # partition spec is overwritten dynamically, FileStoreCommitImpl.overwritePartition).
    rows = _rows([9], "a", 5)
    assert not _overwrite(_copy(model), rows, {"dt": "a"})
    with pytest.raises(Exception, match="does not belong to this partition"):
        _java_overwrite(java, wh, ident, rows, {"dt": "a"},
                        options={"dynamic-partition-overwrite": "false"})
    f = tmp_path / "ow-3.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = strata.write(ident, [str(f)], overwrite=True, partition={"dt": "a"}, check=False)
    assert p.returncode != 0 and "outside the overwritten partition" in p.stderr, p.stderr
    _check(java, strata, wh, ident, model, "after the refused static overwrites")

    # Plain writes after the overwrites bootstrap from them: 9 moves b -> c.
    _strata_write(strata, tmp_path, ident, _rows([9], "c", 6))
    model.apply(_rows([9], "c", 6))
    _check(java, strata, wh, ident, model, "strata's write after the overwrites")
