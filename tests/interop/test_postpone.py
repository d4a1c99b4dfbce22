"""Postpone buckets and bucket rescale (issue 31 items 4 and 5) between strata and Java Paimon 2.0.

Postpone-bucket tables (``bucket = -2``): both engines write rows into ``bucket-postpone``
(unsorted, sequence number -1, ``totalBuckets = -2``), batch reads skip them until a postpone
compaction moves them into real buckets.  Java's compaction is Flink's ``CompactAction``
(``buildForPostponeBucketCompaction``) run operator by operator on the core API by the oracle's
``Paimon2Postpone.compact``; strata's is ``strata compact``.  Each engine compacts what the other
wrote; rows are compared with a Python model, file metadata between the engines, and the two
compactions of the same input with each other (same buckets, same rows per bucket).

Rescale: ``ALTER TABLE ... SET ('bucket' = '4')`` then ``strata rescale`` / ``CALL sys.rescale``
rewrite chosen partitions (OVERWRITE), Java reads them and writes on; Java's rescale of a
partition (INSERT OVERWRITE with the new count) is read and written on by strata.
"""
from __future__ import annotations

import json
import shutil
from collections import defaultdict

import pytest

from interop_support.java_flows import assert_same_files
from interop_support.java_oracle import JavaOracleError, _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

FIELDS = [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
          {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
          {"id": 2, "name": "v", "type": "STRING"}]


def _schema(options: dict) -> dict:
    return {"fields": FIELDS, "partitionKeys": ["dt"], "primaryKeys": ["id", "dt"], "options": options}


def _rows(ids, dt, tag):
    return [{"id": i, "dt": dt, "v": f"{tag}-{i}"} for i in ids]


class Model:
    """(dt, id) -> v: the deduplicate engine, deletes remove."""

    def __init__(self):
        self.rows = {}

    def apply(self, rows):
        for r in rows:
            if r.get("_ROW_KIND") == "-D":
                self.rows.pop((r["dt"], r["id"]), None)
            else:
                self.rows[(r["dt"], r["id"])] = r["v"]

    def lines(self):
        return sorted(json.dumps({"id": i, "dt": dt, "v": v}, separators=(",", ":"))
                      for (dt, i), v in self.rows.items())


def _strata_write(strata, tmp_path, ident, rows, n=[0]):
    n[0] += 1
    f = tmp_path / f"rows-{n[0]}.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    strata.write(ident, [str(f)])


def _check(java, strata, wh, ident, want, what):
    got_java = java.read(wh, ident)
    assert got_java == want, f"{what}: Java reads\n{got_java}\nwant\n{want}"
    got_strata = sorted(strata.read_lines(ident))
    assert got_strata == want, f"{what}: strata reads\n{got_strata}\nwant\n{want}"
    return assert_same_files(strata, java, ident)


def _layout(java, wh, ident):
    """(dt, bucket) -> (totalBuckets, rows) of the real buckets, and the postpone file count."""
    out = defaultdict(lambda: [0, 0])
    postponed = 0
    for f in java.files(wh, ident):
        if f["bucket"] == -2:
            postponed += 1
            continue
        key = (f["partition"]["dt"], f["bucket"])
        out[key][0] = f["totalBuckets"]
        out[key][1] += f["rowCount"]
    return dict(out), postponed


def test_java_writes_postpone_strata_compacts(java, strata, wh):
    ident = "db.jp"
    java.create_table(wh, ident, _schema({"bucket": "-2", "postpone.default-bucket-num": "2"}))
    model = Model()
    first = _rows([5, 1, 5, 9, 3], "a", "j1") + _rows([7, 8], "b", "j1")
    second = _rows([1, 2], "a", "j2") + [{"id": 9, "dt": "a", "v": None, "_ROW_KIND": "-D"}]
    for rows in (first, second):
        java.write(wh, ident, rows)
        model.apply(rows)
    # Batch reads skip the postpone bucket, in both engines.
    files = _check(java, strata, wh, ident, [], "before compaction")
    assert {(f["bucket"], f["level"], f["minSequenceNumber"], f["maxSequenceNumber"]) for f in files} \
        == {(-2, 0, -1, -1)}, files
    strata.run("compact", ident)
    files = _check(java, strata, wh, ident, model.lines(), "after strata's postpone compaction")
    layout, postponed = _layout(java, wh, ident)
    assert postponed == 0 and {t for t, _ in layout.values()} == {2}, layout
    # The known partition keeps its bucket count; a new one takes postpone.default-bucket-num.
    java.alter_table(wh, ident, [{"op": "setOption", "key": "postpone.default-bucket-num", "value": "3"}])
    third = _rows([1, 4], "a", "j3") + _rows([1], "c", "j3")
    java.write(wh, ident, third)
    model.apply(third)
    strata.run("compact", ident)
    _check(java, strata, wh, ident, model.lines(), "after the second compaction")
    layout, _ = _layout(java, wh, ident)
    assert {dt: t for (dt, _), (t, _) in layout.items()} == {"a": 2, "b": 2, "c": 3}, layout


def test_strata_writes_postpone_java_compacts(java, strata, wh, tmp_path):
    ident = "db.sp"
    strata.create_table(ident, _schema({"bucket": "-2", "postpone.default-bucket-num": "3"}))
    model = Model()
    for rows in (_rows([4, 2, 4, 8, 6, 1], "a", "s1") + _rows([3], "b", "s1"),
                 _rows([2, 10], "a", "s2")):
        _strata_write(strata, tmp_path, ident, rows)
        model.apply(rows)
    files = _check(java, strata, wh, ident, [], "before compaction")
    for f in files:
        assert (f["bucket"], f["level"], f["minSequenceNumber"]) == (-2, 0, -1), f
        assert f["fileName"].startswith("data--u-") and "-s-" in f["fileName"] and "-w-" in f["fileName"]
    # Arrival order, not sorted: the first and last keys of the first file.
    a1 = [f for f in files if f["partition"]["dt"] == "a" and f["rowCount"] == 6]
    assert [(f["minKey"], f["maxKey"]) for f in a1] == [([4], [1])], files
    assert {f["totalBuckets"] for f in java.files(wh, ident)} == {-2}
    # strata's compaction of a copy: the same layout as Java's compaction of the original.
    copy = str(tmp_path / "copy-wh")
    shutil.copytree(wh, copy)
    java.call("Paimon2Postpone.compact", warehouse=_abs(wh), table=ident)
    _check(java, strata, wh, ident, model.lines(), "after Java's postpone compaction")
    strata.run("compact", ident, "--warehouse", copy, warehouse=False)
    assert _layout(java, wh, ident) == _layout(java, copy, ident)
    assert java.read(copy, ident) == model.lines()
    # strata writes on and compacts what Java laid out; Java compacts strata's compaction.
    more = _rows([1, 11], "a", "s3") + _rows([3, 12], "b", "s3")
    _strata_write(strata, tmp_path, ident, more)
    model.apply(more)
    strata.run("compact", ident)
    _check(java, strata, wh, ident, model.lines(), "after strata compacted onto Java's layout")
    assert {t for t, _ in _layout(java, wh, ident)[0].values()} == {3}


def test_rescale_both_ways(java, strata, wh, tmp_path):
    ident = "db.rs"
    strata.create_table(ident, _schema({"bucket": "2"}))
    model = Model()
    rows = _rows(range(0, 20), "1", "one") + _rows(range(0, 20), "2", "one")
    _strata_write(strata, tmp_path, ident, rows)
    model.apply(rows)
    strata.run("sql", "-e", "ALTER TABLE db.rs SET ('bucket' = '4')")
    # Writes into the old layout are refused by both until the partition is rescaled.
    again = tmp_path / "again.jsonl"
    again.write_text(json.dumps(_rows([1], "1", "x")[0]) + "\n")
    p = strata.run("write", ident, str(again), check=False)
    assert p.returncode != 0 and "new bucket num 4" in p.stderr, p.stderr
    strata.run("rescale", ident, "--partition", "dt=1")
    _check(java, strata, wh, ident, model.lines(), "after strata rescale dt=1")
    totals = {f["partition"]["dt"]: f["totalBuckets"] for f in java.files(wh, ident)}
    assert totals == {"1": 4, "2": 2}, totals
    java.write(wh, ident, _rows([3, 30], "1", "java"))
    model.apply(_rows([3, 30], "1", "java"))
    with pytest.raises(JavaOracleError, match="new bucket num 4"):
        java.write(wh, ident, _rows([3], "2", "java"))
    # SQL: CALL sys.rescale; then Java's rescale (INSERT OVERWRITE with the new count) of dt=2
    # after a second change.
    strata.run("sql", "-e", "CALL sys.rescale(table => 'db.rs', bucket_num => 4, partition => 'dt=2')")
    _check(java, strata, wh, ident, model.lines(), "after CALL sys.rescale dt=2")
    java.alter_table(wh, ident, [{"op": "setOption", "key": "bucket", "value": "3"}])
    java_rows = _rows(range(0, 10), "2", "jr")
    java.write(wh, ident, java_rows, overwrite={"dt": "2"})
    model.rows = {k: v for k, v in model.rows.items() if k[0] != "2"}
    model.apply(java_rows)
    _check(java, strata, wh, ident, model.lines(), "after Java's rescale of dt=2")
    totals = {f["partition"]["dt"]: f["totalBuckets"] for f in java.files(wh, ident)}
    assert totals == {"1": 4, "2": 3}, totals
    _strata_write(strata, tmp_path, ident, _rows([1, 50], "2", "s"))
    model.apply(_rows([1, 50], "2", "s"))
    # dt=1 still has 4 buckets after the change to 3: a compaction there is refused (as Java's).
    strata.run("compact", ident, "--full", "--partition", "dt=2")
    _check(java, strata, wh, ident, model.lines(), "strata writes and compacts rescaled dt=2")


def test_rescale_postpone_table(java, strata, wh, tmp_path):
    ident = "db.rp"
    strata.create_table(ident, _schema({"bucket": "-2"}))
    model = Model()
    rows = _rows(range(0, 12), "a", "one")
    _strata_write(strata, tmp_path, ident, rows)
    model.apply(rows)
    # Postponed rows would be dropped by the overwrite: refused until compacted.
    p = strata.run("rescale", ident, "--bucket-num", "3", check=False)
    assert p.returncode != 0 and "compact the table first" in p.stderr, p.stderr
    p = strata.run("rescale", ident, check=False)
    assert p.returncode != 0 and "must provide the resulting bucket number" in p.stderr, p.stderr
    strata.run("compact", ident)
    strata.run("rescale", ident, "--bucket-num", "3", "--partition", "dt=a")
    _check(java, strata, wh, ident, model.lines(), "after rescaling the postpone table")
    # Java's compaction keeps the partition's new count.
    more = _rows([1, 40], "a", "java")
    java.write(wh, ident, more)
    model.apply(more)
    java.call("Paimon2Postpone.compact", warehouse=_abs(wh), table=ident)
    _check(java, strata, wh, ident, model.lines(), "Java compacted the rescaled partition")
    assert {t for t, _ in _layout(java, wh, ident)[0].values()} == {3}
