"""File indexes beyond bloom-filter/bitmap/bsi (issue 31 item 7) between strata and Java Paimon
2.0.0: the ``range-bitmap`` index (Java's ``RangeBitmapFileIndex``).

* Java writes append tables with ``file-index.range-bitmap.columns``; strata's filtered reads
  (=, IN, IS NULL, ranges) return the model's rows and skip exactly the files Java's
  ``FileIndexPredicate`` skips. Every file's value range spans the filter values (rows
  ``a``/``zzz`` and 0/99999 in each file), so min/max statistics cannot prune them.
* strata writes the same tables: Java reads the rows and its index evaluation skips what
  strata's does.
* The same rows indexed by either engine: the index containers are byte-identical, for every
  type Java's ``KeyFactory`` keys (strings with small and default chunk sizes, numbers,
  booleans, dates, decimals, timestamps).
"""
from __future__ import annotations

import base64
import datetime
import decimal
import json

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from interop_support.canonical import canonical_lines
from interop_support.datagen import paimon_schema_json
from interop_support.java_flows import assert_both_read, write
from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("v", pa.int64())])

# (SQL filter for strata, the same filter for the Java oracle, the model's row mask)
FILTERS = [
    ("name = 'n2_5'", {"column": "name", "op": "equal", "values": ["n2_5"]},
     lambda t: pc.equal(t["name"], "n2_5")),
    ("name IN ('n1_3', 'n3_7')", {"column": "name", "op": "in", "values": ["n1_3", "n3_7"]},
     lambda t: pc.is_in(t["name"], pa.array(["n1_3", "n3_7"]))),
    ("name IS NULL", {"column": "name", "op": "isNull"}, lambda t: pc.is_null(t["name"])),
    ("v = 2005", {"column": "v", "op": "equal", "values": [2005]},
     lambda t: pc.equal(t["v"], 2005)),
    ("v BETWEEN 2003 AND 2005", {"column": "v", "op": "between", "values": [2003, 2005]},
     lambda t: pc.and_(pc.greater_equal(t["v"], 2003), pc.less_equal(t["v"], 2005))),
    ("v > 3004 AND v < 3007", {"column": "v", "op": "open", "values": [3004, 3007]},
     lambda t: pc.and_(pc.greater(t["v"], 3004), pc.less(t["v"], 3007))),
    ("v BETWEEN 1500 AND 1600", {"column": "v", "op": "between", "values": [1500, 1600]},
     lambda t: pc.and_(pc.greater_equal(t["v"], 1500), pc.less_equal(t["v"], 1600))),
    ("name > 'n2_8' AND name < 'n3_1'",
     {"column": "name", "op": "open", "values": ["n2_8", "n3_1"]},
     lambda t: pc.and_(pc.greater(t["name"], "n2_8"), pc.less(t["name"], "n3_1"))),
]


def _commit(k: int) -> pa.Table:
    """Commit ``k``: names ``n{k}_i`` (NULL in commit 2), values ``1000 k + i``, plus rows
    ``a``/``zzz`` and 0/99999 spanning every file's statistics."""
    n = 10
    ids = list(range(100 * k, 100 * k + n)) + [100 * k + 50, 100 * k + 51]
    names = [None if (k == 2 and i == 3) else f"n{k}_{i}" for i in range(n)] + ["a", "zzz"]
    vs = [1000 * k + i for i in range(n)] + [0, 99999]
    return pa.table({"id": pa.array(ids, pa.int32()), "name": names,
                     "v": pa.array(vs, pa.int64())}, schema=SCHEMA)


def _build(writer, strata, java, inputs, ident, options, schema=SCHEMA, commits=None):
    doc = paimon_schema_json(schema, options={"bucket": "-1", **options})
    if writer == "strata":
        strata.create_table(ident, doc)
    else:
        java.create_table(strata.warehouse, ident, doc)
    commits = commits if commits is not None else [_commit(k) for k in range(4)]
    for c in commits:
        write(writer, strata, java, ident, c, inputs)
    return pa.concat_tables(commits)


def _strata_filtered(strata, ident, where):
    out = strata._tmp(".parquet")
    p = strata.run("read", ident, "--where", where, "--metrics", "--format", "parquet",
                   "--output", str(out))
    metrics = [json.loads(line) for line in p.stderr.splitlines() if line.startswith("{")][-1]
    return canonical_lines(pq.ParquetFile(out).read()), metrics


def _check_filters(strata, java, ident, model):
    for where, jfilter, mask in FILTERS:
        rows, metrics = _strata_filtered(strata, ident, where)
        assert rows == canonical_lines(model.filter(mask(model))), where
        skipped = java.call("FileIndexes.skipped", warehouse=_abs(strata.warehouse), table=ident,
                            filter=jfilter)
        assert skipped["files"] == 4
        assert len(skipped["skipped"]) >= 2, (where, skipped)
        # IS NULL is also answered by null counts at planning (scanSkippedFiles).
        by_stats = metrics.get("scanSkippedFiles", 0) if jfilter["op"] == "isNull" else 0
        assert metrics["filesSkippedByIndex"] + by_stats == len(skipped["skipped"]), \
            (where, metrics, skipped)
        assert metrics["filesRead"] == 4 - len(skipped["skipped"]), (where, metrics)


RANGE = {"file-index.range-bitmap.columns": "name,v", "file-index.in-manifest-threshold": "64 kb"}


@pytest.mark.parametrize("writer", ["java", "strata"])
def test_range_bitmap_skips_files(java, strata, inputs, writer):
    """One engine writes range-bitmap indexes; strata's filtered reads return the model's rows
    and skip the files Java's evaluation skips; Java reads every row."""
    ident = f"db.rb_{writer}"
    model = _build(writer, strata, java, inputs, ident, RANGE)
    files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
    assert len(files) == 4 and all(f["embeddedIndex"] for f in files), files
    assert_both_read(strata, java, ident, canonical_lines(model))
    _check_filters(strata, java, ident, model)
    if writer == "java":
        # strata compacts Java's files: the compacted file carries the range bitmaps again,
        # and both engines rule it out for a range no row holds.
        strata.run("compact", ident, "--full")
        files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
        assert len(files) == 1 and files[0]["embeddedIndex"], files
        assert_both_read(strata, java, ident, canonical_lines(model))
        skipped = java.call("FileIndexes.skipped", warehouse=_abs(strata.warehouse), table=ident,
                            filter={"column": "v", "op": "between", "values": [1500, 1600]})
        rows, metrics = _strata_filtered(strata, ident, "v BETWEEN 1500 AND 1600")
        assert rows == [] and len(skipped["skipped"]) == 1, skipped
        assert metrics["filesSkippedByIndex"] == 1, metrics
        rows, metrics = _strata_filtered(strata, ident, "name = 'n2_5'")
        assert len(rows) == 1 and metrics["filesSkippedByIndex"] == 0, metrics


TYPED = pa.schema([("i", pa.int32()), ("s", pa.string()), ("l", pa.int64()),
                   ("d", pa.float64()), ("b", pa.bool_()), ("sm", pa.int16()),
                   ("dt", pa.date32()), ("dec", pa.decimal128(10, 2)),
                   ("ts", pa.timestamp("us")), ("f", pa.float32())])


def _typed(k: int) -> pa.Table:
    n = 40
    rows = range(n)
    return pa.table({
        "i": pa.array([None if r % 7 == 3 else (r * 37 + k) % 23 - 11 for r in rows], pa.int32()),
        "s": pa.array([None if r % 11 == 5 else f"s{(r * 13 + k) % 17}é" for r in rows]),
        "l": pa.array([(r * 101 + k) % 29 * 1_000_000_007 - 9 for r in rows], pa.int64()),
        "d": pa.array([(r % 9) / 4.0 - 1.0 for r in rows], pa.float64()),
        "b": pa.array([None if r % 5 == 0 else r % 3 == 0 for r in rows], pa.bool_()),
        "sm": pa.array([(r * 7) % 13 - 6 for r in rows], pa.int16()),
        "dt": pa.array([datetime.date(2024, 1, 1) + datetime.timedelta(days=(r * 3) % 19)
                        for r in rows], pa.date32()),
        "dec": pa.array([decimal.Decimal(f"{(r * 17) % 31 - 15}.{r % 100:02d}") for r in rows],
                        pa.decimal128(10, 2)),
        "ts": pa.array([datetime.datetime(2024, 5, 1) + datetime.timedelta(microseconds=r * 7919 % 50)
                        for r in rows], pa.timestamp("us")),
        "f": pa.array([None if r % 4 == 1 else float(r % 6) - 2.5 for r in rows], pa.float32()),
    }, schema=TYPED)


@pytest.mark.parametrize("chunks", ["default", "small"])
def test_range_bitmap_bytes_match_java(java, strata, inputs, chunks):
    """The same rows: strata's range-bitmap containers equal Java's byte for byte, for every key
    type, with the default chunk sizes and with chunks small enough to split the dictionary."""
    opts = {"file-index.range-bitmap.columns": ",".join(f.name for f in TYPED),
            "file-index.in-manifest-threshold": "64 kb"}
    if chunks == "small":
        for c in ("i", "s", "l", "d", "dec", "ts", "sm"):
            opts[f"file-index.range-bitmap.{c}.chunk-size"] = "24b"
    blobs = {}
    for writer in ("java", "strata"):
        ident = f"db.rbb_{chunks}_{writer}"
        _build(writer, strata, java, inputs, ident, opts, schema=TYPED,
               commits=[_typed(k) for k in range(2)])
        files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
        blobs[writer] = sorted(base64.b64decode(f["embeddedIndex"]) for f in files)
        assert len(blobs[writer]) == 2
    assert blobs["strata"] == blobs["java"]


# ---- MAP-key indexes (`m[k]` in `file-index.<type>.columns`) ---------------------------------

MAPS = pa.schema([("id", pa.int32()), ("m", pa.map_(pa.string(), pa.string())),
                  ("n", pa.map_(pa.string(), pa.int64()))])

MAP_OPTIONS = {"file-index.bitmap.columns": "m[color]",
               "file-index.bloom-filter.columns": "m[size],m[shape]",
               # MAP-level tuning for every key of m, one key's own winning.
               "file-index.bloom-filter.m.items": "40",
               "file-index.bloom-filter.m[shape].items": "25",
               "file-index.range-bitmap.columns": "n[score]",
               "file-index.in-manifest-threshold": "64 kb"}

# (SQL filter for strata, the filter for the Java oracle, the model's row predicate)
MAP_FILTERS = [
    ("m['color'] = 'c1'", {"column": "m[color]", "op": "equal", "values": ["c1"]},
     lambda r: (r["m"] or {}).get("color") == "c1"),
    ("m['color'] IN ('c0', 'c3')", {"column": "m[color]", "op": "in", "values": ["c0", "c3"]},
     lambda r: (r["m"] or {}).get("color") in ("c0", "c3")),
    ("m['size'] = 's2_4'", {"column": "m[size]", "op": "equal", "values": ["s2_4"]},
     lambda r: (r["m"] or {}).get("size") == "s2_4"),
    ("n['score'] BETWEEN 2003 AND 2005",
     {"column": "n[score]", "op": "between", "values": [2003, 2005]},
     lambda r: (r["n"] or {}).get("score") is not None and 2003 <= r["n"]["score"] <= 2005),
    ("n['score'] > 3004 AND n['score'] < 3007",
     {"column": "n[score]", "op": "open", "values": [3004, 3007]},
     lambda r: (r["n"] or {}).get("score") is not None and 3004 < r["n"]["score"] < 3007),
]


def _map_commit(k: int) -> pa.Table:
    """Commit ``k``: colors ``c{k}`` (absent in row 2), sizes ``s{k}_i``, shapes, a NULL map
    in row 5, scores ``1000 k + i`` plus 0 and 99999."""
    n = 10
    ms, ns = [], []
    for i in range(n):
        if i == 5:
            ms.append(None)
        else:
            m = [("size", f"s{k}_{i}"), ("shape", "round" if i % 2 else "square")]
            if i != 2:
                m.insert(0, ("color", f"c{k}"))
            ms.append(m)
        ns.append([("score", 1000 * k + i), ("other", i)])
    ns[0] = [("score", 0)]
    ns[1] = [("score", 99999), ("x", 1)]
    return pa.table({"id": pa.array([100 * k + i for i in range(n)], pa.int32()),
                     "m": pa.array(ms, MAPS.field("m").type),
                     "n": pa.array(ns, MAPS.field("n").type)}, schema=MAPS)


def _as_dicts(rows):
    return [{**r, "m": dict(r["m"]) if r["m"] is not None else None,
             "n": dict(r["n"]) if r["n"] is not None else None} for r in rows]


@pytest.mark.parametrize("writer", ["java", "strata"])
def test_map_key_indexes_skip_files(java, strata, inputs, writer):
    """One engine writes MAP-key indexes (bitmap, bloom filter, range bitmap of ``m[k]``);
    strata's filtered reads on ``m['k']`` return the model's rows and skip exactly the files
    Java's ``FileIndexPredicate`` skips for the predicate on ``m[k]``."""
    ident = f"db.mk_{writer}"
    model = _build(writer, strata, java, inputs, ident, MAP_OPTIONS, schema=MAPS,
                   commits=[_map_commit(k) for k in range(4)])
    files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
    assert len(files) == 4 and all(f["embeddedIndex"] for f in files), files
    assert_both_read(strata, java, ident, canonical_lines(model))
    rows = _as_dicts(model.to_pylist())
    for where, jfilter, keep in MAP_FILTERS:
        got, metrics = _strata_filtered(strata, ident, where)
        want = [r["id"] for r in rows if keep(r)]
        mask = pc.is_in(model["id"], pa.array(want, pa.int32()))
        assert got == canonical_lines(model.filter(mask)), where
        skipped = java.call("Paimon2FileIndexMore.mapKeySkipped",
                            warehouse=_abs(strata.warehouse), table=ident, filter=jfilter)
        assert skipped["files"] == 4 and len(skipped["skipped"]) >= 2, (where, skipped)
        assert metrics["filesSkippedByIndex"] == len(skipped["skipped"]), (where, metrics, skipped)
        assert metrics["filesRead"] == 4 - len(skipped["skipped"]), (where, metrics)


def test_map_key_index_bytes_match_java(java, strata, inputs):
    """The same rows: strata's MAP-key index containers equal Java's byte for byte."""
    blobs = {}
    for writer in ("java", "strata"):
        ident = f"db.mkb_{writer}"
        _build(writer, strata, java, inputs, ident, MAP_OPTIONS, schema=MAPS,
               commits=[_map_commit(k) for k in range(2)])
        files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
        blobs[writer] = sorted(base64.b64decode(f["embeddedIndex"]) for f in files)
        assert len(blobs[writer]) == 2
    assert blobs["strata"] == blobs["java"]


# ---- rewrite_file_index on primary-key tables ----------------------------------------------

PK = pa.schema([pa.field("id", pa.int32(), nullable=False), ("name", pa.string()),
                ("cat", pa.string()), ("v", pa.int64())])


def _pk_commit(k: int) -> pa.Table:
    """Commit ``k``: ids ``10 k .. 10 k + 9`` plus ids 0..2 again (updated by every commit)."""
    ids = list(range(10 * k, 10 * k + 10)) + [0, 1, 2]
    return pa.table({"id": pa.array(ids, pa.int32()),
                     "name": [f"n{k}_{i}" for i in range(len(ids))],
                     "cat": [None if i == 4 else f"c{k}" for i in range(len(ids))],
                     "v": pa.array([1000 * k + i for i in range(len(ids))], pa.int64())},
                    schema=PK)


def _pk_model(commits):
    last = {}
    for c in commits:
        for r in c.to_pylist():
            last[r["id"]] = r
    return pa.Table.from_pylist(list(last.values()), schema=PK)


@pytest.mark.parametrize("writer", ["java", "strata"])
def test_rewrite_file_index_primary_key(java, strata, inputs, writer):
    """A primary-key table written (and compacted: files on several levels) without indexes
    gets them from ``strata rewrite-file-index`` after the options change: every live file is
    re-indexed, each container byte-identical to what Java's ``FileIndexProcessor`` builds for
    that file; both engines read the rows; filtered reads return the model's rows."""
    ident = f"db.pkr_{writer}"
    doc = paimon_schema_json(PK, options={"bucket": "2"})
    doc["primaryKeys"] = ["id"]
    if writer == "strata":
        strata.create_table(ident, doc)
    else:
        java.create_table(strata.warehouse, ident, doc)
    commits = [_pk_commit(k) for k in range(3)]
    write(writer, strata, java, ident, commits[0], inputs)
    write(writer, strata, java, ident, commits[1], inputs)
    if writer == "strata":
        strata.run("compact", ident, "--full")
    else:
        java.compact(strata.warehouse, ident)
    write(writer, strata, java, ident, commits[2], inputs)
    model = _pk_model(commits)
    java.alter_table(strata.warehouse, ident, [
        {"op": "setOption", "key": k, "value": v} for k, v in {
            "file-index.bloom-filter.columns": "name", "file-index.bloom-filter.name.items": "40",
            "file-index.bitmap.columns": "cat", "file-index.range-bitmap.columns": "v",
            "file-index.in-manifest-threshold": "64 kb"}.items()])
    expected = java.call("Paimon2FileIndexMore.processedIndexes",
                         warehouse=_abs(strata.warehouse), table=ident)
    assert {m["level"] for m in expected.values()} != {0}, expected
    out = strata.json_lines("rewrite-file-index", ident)
    assert out[0]["files"] == len(expected) and out[0]["indexFiles"] == 0, out
    files = java.call("FileIndexes.files", warehouse=_abs(strata.warehouse), table=ident)
    assert sorted(f["fileName"] for f in files) == sorted(expected)
    for f in files:
        assert f["embeddedIndex"] is not None, f
        assert f["embeddedIndex"] == expected[f["fileName"]]["embeddedIndex"], f["fileName"]
    assert_both_read(strata, java, ident, canonical_lines(model))
    for where, mask in [("cat = 'c1'", pc.equal(model["cat"], "c1")),
                        ("v BETWEEN 2003 AND 2005",
                         pc.and_(pc.greater_equal(model["v"], 2003), pc.less_equal(model["v"], 2005))),
                        ("name = 'n0_5'", pc.equal(model["name"], "n0_5"))]:
        rows, _ = _strata_filtered(strata, ident, where)
        assert rows == canonical_lines(model.filter(mask)), where
