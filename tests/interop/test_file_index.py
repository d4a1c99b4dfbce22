"""File indexes (issue 31 item 7) between strata and Java Paimon 2.0.0.

* Java writes append tables with ``file-index.bloom-filter.columns``,
  ``file-index.bitmap.columns`` and ``file-index.bsi.columns`` (small indexes embedded in the manifest, large ones as
  ``<data-file>.index`` extra files); strata's filtered reads return the model's rows and skip
  exactly the files Java's ``FileIndexPredicate`` skips (``filesSkippedByIndex`` in the read
  metrics). Every file's value range spans the filter values (rows ``a``/``zzz`` in each file), so
  min/max statistics cannot prune them: only the indexes can.
* strata writes the same tables: Java reads the rows, and Java's index evaluation skips the same
  files strata's does (the bloom-filter bytes are compared with Java's for the same data).
"""
from __future__ import annotations

import base64
import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from interop_support.canonical import canonical_lines
from interop_support.datagen import paimon_schema_json
from interop_support.java_flows import assert_both_read, write
from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("cat", pa.string()),
                    ("v", pa.int64())])

# (SQL filter for strata, the same filter for the Java oracle, the model's row mask)
FILTERS = [
    ("name = 'n2_5'", {"column": "name", "op": "equal", "values": ["n2_5"]},
     lambda t: pc.equal(t["name"], "n2_5")),
    ("name IN ('n1_3', 'n3_7')", {"column": "name", "op": "in", "values": ["n1_3", "n3_7"]},
     lambda t: pc.is_in(t["name"], pa.array(["n1_3", "n3_7"]))),
    ("cat = 'c1'", {"column": "cat", "op": "equal", "values": ["c1"]},
     lambda t: pc.equal(t["cat"], "c1")),
    ("cat IN ('c0', 'c3')", {"column": "cat", "op": "in", "values": ["c0", "c3"]},
     lambda t: pc.is_in(t["cat"], pa.array(["c0", "c3"]))),
    ("v = 2005", {"column": "v", "op": "equal", "values": [2005]},
     lambda t: pc.equal(t["v"], 2005)),
    ("cat IS NULL", {"column": "cat", "op": "isNull"},
     lambda t: pc.is_null(t["cat"])),
    ("v BETWEEN 2003 AND 2005", {"column": "v", "op": "between", "values": [2003, 2005]},
     lambda t: pc.and_(pc.greater_equal(t["v"], 2003), pc.less_equal(t["v"], 2005))),
    ("v > 3004 AND v < 3007", {"column": "v", "op": "open", "values": [3004, 3007]},
     lambda t: pc.and_(pc.greater(t["v"], 3004), pc.less(t["v"], 3007))),
]


def _commit(k: int) -> pa.Table:
    """Commit ``k``: names ``n{k}_i``, category ``c{k}`` (NULL in commit 2), values
    ``1000 k + i``, plus rows ``a`` and ``zzz`` spanning every file's statistics."""
    n = 10
    ids = list(range(100 * k, 100 * k + n)) + [100 * k + 50, 100 * k + 51]
    names = [f"n{k}_{i}" for i in range(n)] + ["a", "zzz"]
    cats = [None if k == 2 else f"c{k}" for _ in range(n)] + ["a", "zzz"]
    vs = [1000 * k + i for i in range(n)] + [0, 99999]
    return pa.table({"id": pa.array(ids, pa.int32()), "name": names, "cat": cats,
                     "v": pa.array(vs, pa.int64())}, schema=SCHEMA)


def _options(separate: bool) -> dict:
    opts = {"bucket": "-1",
            "file-index.bloom-filter.columns": "name,v",
            "file-index.bitmap.columns": "cat",
            "file-index.bsi.columns": "v"}
    if not separate:
        # Small filters stay under the threshold: embedded in the manifest.
        opts["file-index.bloom-filter.name.items"] = "20"
        opts["file-index.bloom-filter.v.items"] = "20"
        opts["file-index.in-manifest-threshold"] = "2 kb"
    return opts


def _build(writer, strata, java, inputs, ident, separate):
    schema = paimon_schema_json(SCHEMA, options=_options(separate))
    if writer == "strata":
        strata.create_table(ident, schema)
    else:
        java.create_table(strata.warehouse, ident, schema)
    commits = [_commit(k) for k in range(4)]
    for c in commits:
        write(writer, strata, java, ident, c, inputs)
    return pa.concat_tables(commits)


def _strata_filtered(strata, ident, where):
    """strata's filtered read: its rows and its read metrics."""
    out = strata._tmp(".parquet")
    p = strata.run("read", ident, "--where", where, "--metrics", "--format", "parquet",
                   "--output", str(out))
    metrics = [json.loads(line) for line in p.stderr.splitlines() if line.startswith("{")][-1]
    import pyarrow.parquet as pq
    return canonical_lines(pq.ParquetFile(out).read()), metrics


def _java_skipped(java, strata, ident, jfilter):
    return java.call("FileIndexes.skipped", warehouse=_abs(strata.warehouse), table=ident,
                     filter=jfilter)


def _check_filters(strata, java, ident, model):
    for where, jfilter, mask in FILTERS:
        rows, metrics = _strata_filtered(strata, ident, where)
        assert rows == canonical_lines(model.filter(mask(model))), where
        skipped = _java_skipped(java, strata, ident, jfilter)
        assert skipped["files"] == 4
        # The filter values lie in one file (or two for IN): at least two of four files skipped.
        assert len(skipped["skipped"]) >= 2, (where, skipped)
        # IS NULL is also answered by null counts at planning (scanSkippedFiles); the rest only
        # by the indexes.
        by_stats = metrics.get("scanSkippedFiles", 0) if jfilter["op"] == "isNull" else 0
        assert metrics["filesSkippedByIndex"] + by_stats == len(skipped["skipped"]), \
            (where, metrics, skipped)
        assert metrics["filesRead"] == 4 - len(skipped["skipped"]), (where, metrics)


@pytest.mark.parametrize("separate", [False, True], ids=["embedded", "index-file"])
def test_java_written_indexes_skip_files(java, strata, inputs, separate):
    """Java writes the indexes; strata's filtered reads skip what Java's evaluation skips."""
    ident = "db.t"
    model = _build("java", strata, java, inputs, ident, separate)
    files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
    assert len(files) == 4
    for f in files:
        if separate:
            assert f["embeddedIndex"] is None
            assert f["extraFiles"] == [f["fileName"] + ".index"]
        else:
            assert f["embeddedIndex"] is not None and f["extraFiles"] == []
    _check_filters(strata, java, ident, model)
    # With file-index.read.enabled = false strata opens every file (and still returns the rows).
    java.alter_table(strata.warehouse, ident,
                     [{"op": "setOption", "key": "file-index.read.enabled", "value": "false"}])
    rows, metrics = _strata_filtered(strata, ident, "cat = 'c1'")
    assert rows == canonical_lines(model.filter(pc.equal(model["cat"], "c1")))
    assert metrics["filesSkippedByIndex"] == 0


@pytest.mark.parametrize("separate", [False, True], ids=["embedded", "index-file"])
def test_strata_written_indexes_skip_files(java, strata, inputs, separate):
    """strata writes the indexes; Java reads the rows and its index evaluation skips what
    strata's does."""
    ident = "db.s"
    model = _build("strata", strata, java, inputs, ident, separate)
    assert_both_read(strata, java, ident, canonical_lines(model))
    files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
    assert len(files) == 4
    for f in files:
        if separate:
            assert f["embeddedIndex"] is None
            assert f["extraFiles"] == [f["fileName"] + ".index"]
        else:
            assert f["embeddedIndex"] is not None and f["extraFiles"] == []
    _check_filters(strata, java, ident, model)


@pytest.mark.parametrize("kinds", ["bloom", "bitmap-bsi"])
def test_index_bytes_match_java(java, strata, inputs, kinds):
    """The same rows indexed the same way: strata's container bytes equal Java's (bloom
    filters; bitmaps of versions 1 and 2, whose bitmaps Java lays out in its HashMap's order;
    bsi)."""
    if kinds == "bloom":
        opts = {"file-index.bloom-filter.columns": "name,v,id",
                "file-index.bloom-filter.name.items": "30", "file-index.bloom-filter.v.fpp": "0.2",
                "file-index.bloom-filter.v.items": "15", "file-index.bloom-filter.id.items": "25"}
    else:
        opts = {"file-index.bitmap.columns": "cat,name,id", "file-index.bitmap.id.version": "1",
                "file-index.bitmap.name.index-block-size": "64b", "file-index.bsi.columns": "v,id"}
    opts.update({"bucket": "-1", "file-index.in-manifest-threshold": "4 kb"})
    blobs = {}
    for writer in ("java", "strata"):
        ident = f"db.{writer}_{kinds.replace('-', '_')}"
        schema = paimon_schema_json(SCHEMA, options=opts)
        if writer == "strata":
            strata.create_table(ident, schema)
        else:
            java.create_table(strata.warehouse, ident, schema)
        for k in range(2):
            write(writer, strata, java, ident, _commit(k), inputs)
        files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
        blobs[writer] = sorted(_embedded(files).values())
        assert len(blobs[writer]) == 2
    assert blobs["strata"] == blobs["java"]


@pytest.mark.parametrize("writer", ["java", "strata"])
def test_rewrite_file_index(java, strata, inputs, writer):
    """Files written without indexes get them from ``strata rewrite-file-index`` (then from SQL
    ``CALL sys.rewrite_file_index`` after the options change again): Java reads the rows and its
    index evaluation skips the files strata's does."""
    ident = "db.w"
    schema = paimon_schema_json(SCHEMA, options={"bucket": "-1"})
    if writer == "strata":
        strata.create_table(ident, schema)
    else:
        java.create_table(strata.warehouse, ident, schema)
    commits = [_commit(k) for k in range(4)]
    for c in commits:
        write(writer, strata, java, ident, c, inputs)
    model = pa.concat_tables(commits)
    java.alter_table(strata.warehouse, ident, [
        {"op": "setOption", "key": k, "value": v}
        for k, v in _options(separate=False).items() if k != "bucket"])
    out = strata.json_lines("rewrite-file-index", ident)
    assert out[0]["files"] == 4 and out[0]["indexFiles"] == 0, out
    assert_both_read(strata, java, ident, canonical_lines(model))
    _check_filters(strata, java, ident, model)
    # Large bloom filters now: separate .index files, replacing the embedded ones.
    java.alter_table(strata.warehouse, ident, [
        {"op": "removeOption", "key": "file-index.bloom-filter.name.items"},
        {"op": "removeOption", "key": "file-index.bloom-filter.v.items"}])
    strata.run("sql", "-e", "CALL sys.rewrite_file_index(table => 'db.w')")
    files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
    assert all(f["embeddedIndex"] is None and f["extraFiles"] == [f["fileName"] + ".index"]
               for f in files), files
    assert_both_read(strata, java, ident, canonical_lines(model))
    _check_filters(strata, java, ident, model)


@pytest.mark.parametrize("writer", ["java", "strata"])
def test_primary_key_tables(java, strata, inputs, writer):
    """Primary-key tables index the value columns of their data files (Java's
    ``KeyValueFileWriterFactory``), written and compacted by either engine: every data file
    carries an index, the other engine reads the rows, and with one file per bucket after a full
    compaction strata's filtered reads skip the files Java's evaluation skips."""
    ident = "db.pk"
    schema = paimon_schema_json(SCHEMA, options={
        "bucket": "4", "file-index.bloom-filter.columns": "name",
        "file-index.bloom-filter.name.items": "40", "file-index.bitmap.columns": "cat"})
    schema["primaryKeys"] = ["id"]
    schema["fields"][0]["type"] = "INT NOT NULL"
    if writer == "strata":
        strata.create_table(ident, schema)
    else:
        java.create_table(strata.warehouse, ident, schema)
    commits = [_commit(k) for k in range(3)]
    for c in commits:
        write(writer, strata, java, ident, c, inputs)
    model = pa.concat_tables(commits)
    if writer == "strata":
        strata.run("compact", ident, "--full")
    else:
        java.compact(strata.warehouse, ident)
    files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
    assert files and all(f["embeddedIndex"] or f["extraFiles"] for f in files), files
    assert_both_read(strata, java, ident, canonical_lines(model))
    for where, jfilter, mask in FILTERS[:4]:
        rows, metrics = _strata_filtered(strata, ident, where)
        assert rows == canonical_lines(model.filter(mask(model))), where
        skipped = _java_skipped(java, strata, ident, jfilter)
        assert metrics["filesSkippedByIndex"] + metrics.get("scanSkippedFiles", 0) >= \
            len(skipped["skipped"]), (where, metrics, skipped)
        assert metrics["filesSkippedByIndex"] >= 1 or not skipped["skipped"], (where, metrics)


def test_unwritten_index_types_are_refused(strata):
    """Index types Java 2.0 does not have are refused by name on write (range-bitmap and
    MAP-key indexes are written: test_file_index_more)."""
    for key in ("file-index.no-such-type.columns",):
        schema = paimon_schema_json(SCHEMA, options={key: "v"})
        p = strata.create_table(f"db.r{len(key)}", schema, check=False)
        if p.returncode == 0:
            p = strata.run("write", f"db.r{len(key)}", str(_input(strata, _commit(0))), check=False)
        assert p.returncode != 0 and key in p.stderr, p.stderr


def _input(strata, table):
    import pyarrow.parquet as pq
    f = strata._tmp(".parquet")
    pq.write_table(table, f)
    return f


def _embedded(files):
    return {f["fileName"]: base64.b64decode(f["embeddedIndex"]) for f in files if f["embeddedIndex"]}
