"""VARIANT columns (issue 31 item 9) between strata and Java Paimon 2.0.0.

Paimon stores a VARIANT as the Parquet variant binary encoding: a group of ``value`` and
``metadata`` binaries. strata exposes it in Arrow as ``Struct{value, metadata}`` (binaries), the
same bytes. Java encodes JSON with its own ``GenericVariant.fromJson`` (oracle
``Paimon2Variant``); strata reads exactly Java's bytes, and a strata write of those bytes is read
by Java back to the same JSON. From a file Java shreds (a table setting
``variant.inferShreddingSchema``) strata rebuilds the unshredded variants as Java's
``ShreddingUtils.rebuild`` does, byte for byte the binaries Java's reader returns (and, written
back unshredded, read by Java as the JSON Java reads from its shredded file).

Shredded writes (``variant.shreddingSchema``): strata's data files have the Parquet schema Java
writes for the same schema and the same shredded columns (``typed_value`` and residual
``value``), compared through pyarrow; Java reads strata's files (appends, primary-key merges and
compactions of both engines) as the rows it wrote. Inference (``variant.inferShreddingSchema``,
per file from its first rows) gives the schema Java infers for the same rows; the adaptive
inference mode is refused by name.
"""
from __future__ import annotations

import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT NOT NULL"},
               {"id": 1, "name": "v", "type": "VARIANT"}],
    "partitionKeys": [], "primaryKeys": [], "options": {"bucket": "-1"},
}

DOCS = [
    '{"user":{"id":1001,"tags":["a","b"]},"city":"Hangzhou","active":true}',
    '{"score":9.5,"n":-12345678901,"d":1.25e10,"s":"' + "x" * 70 + '"}',
    '[1,2,{"k":null},[],{}]',
    '"plain string"',
    "42",
    "null",
    '{"unicode":"é✓ 日本 😀","nested":{"a":{"b":{"c":[true,false]}}}}',
]


def _java_rows(java, wh, ident):
    return java.call("Paimon2Variant.read", warehouse=_abs(wh), table=ident)


def _strata_rows(strata, ident):
    t = strata.read_arrow(ident).sort_by("id")
    out = []
    for r in t.to_pylist():
        v = r["v"]
        out.append((r["id"], None if v is None else (v["value"].hex(), v["metadata"].hex())))
    return out


def test_java_variants_read_and_written_back_by_strata(java, strata, wh, tmp_path):
    src = "db.var_java"
    java.create_table(wh, src, SCHEMA)
    rows = [{"id": i, "json": d} for i, d in enumerate(DOCS)] + [{"id": len(DOCS)}]
    java.call("Paimon2Variant.write", warehouse=_abs(wh), table=src, rows=rows)
    theirs = _java_rows(java, wh, src)
    assert [r["id"] for r in theirs] == list(range(len(DOCS) + 1))
    assert theirs[-1]["json"] is None
    # strata reads Java's variant binaries byte for byte.
    want = [(r["id"], None if r["json"] is None else (r["value"], r["metadata"])) for r in theirs]
    assert _strata_rows(strata, src) == want

    # strata writes the same binaries (Arrow Struct{value, metadata}); Java decodes its JSON.
    dst = "db.var_strata"
    strata.create_table(dst, SCHEMA)
    vtype = pa.struct([pa.field("value", pa.binary(), nullable=False),
                       pa.field("metadata", pa.binary(), nullable=False)])
    values = [None if r["json"] is None else
              {"value": bytes.fromhex(r["value"]), "metadata": bytes.fromhex(r["metadata"])}
              for r in theirs]
    f = tmp_path / "variants.parquet"
    pq.write_table(pa.table({"id": pa.array([r["id"] for r in theirs], pa.int32()),
                             "v": pa.array(values, vtype)}), f)
    strata.write(dst, [str(f)])
    back = _java_rows(java, wh, dst)
    assert [(r["id"], r["json"]) for r in back] == [(r["id"], r["json"]) for r in theirs]
    assert _strata_rows(strata, dst) == want


def _shredded_docs():
    docs = []
    for i in range(60):
        d = {"a": i, "b": "s%d" % i, "c": {"x": i * 3, "y": [i, i + 1], "z": "long " * 20},
             "arr": [{"k": i}, {"k": i + 1, "extra": "e"}], "dec": "%d.25" % (i + 10)}
        if i % 20 == 0:
            d["rare"] = True
        if i == 7:
            d["a"] = "not a number"
        docs.append(json.dumps(d, separators=(",", ":")).replace('"dec":"%d.25"' % (i + 10), '"dec":%d.25' % (i + 10)))
    docs += ['{"only":"residual"}']
    return docs


def test_shredded_java_files_are_rebuilt(java, strata, wh, tmp_path):
    """Java shreds the file (the table sets ``variant.inferShreddingSchema``);
    strata rebuilds each variant from ``typed_value`` and the residual ``value``: written back
    unshredded by strata, Java reads the same JSON as from its own shredded file."""
    ident = "db.var_shredded"
    shredding = {"variant.inferShreddingSchema": "true", "variant.shredding.maxInferBufferRow": "64"}
    java.create_table(wh, ident, {**SCHEMA, "options": {**SCHEMA["options"], **shredding}})
    docs = _shredded_docs()
    rows = [{"id": i, "json": d} for i, d in enumerate(docs)] + [{"id": len(docs)}]
    java.call("Paimon2Variant.write", warehouse=_abs(wh), table=ident, rows=rows)
    theirs = _java_rows(java, wh, ident)
    assert len(theirs) == len(rows)
    # The file is shredded: its variant group has a typed_value.
    files = list(pathlib.Path(wh).glob("db.db/var_shredded/bucket-0/*.parquet"))
    assert files and all("typed_value" in str(pq.ParquetFile(f).schema) for f in files), \
        [str(pq.ParquetFile(f).schema) for f in files]
    # Byte for byte Java's rebuild (its new key dictionary, fields in schema order).
    assert _strata_rows(strata, ident) == [
        (r["id"], None if r["json"] is None else (r["value"], r["metadata"])) for r in theirs]
    got = strata.read_arrow(ident).sort_by("id")
    dst = "db.var_rebuilt"
    strata.create_table(dst, SCHEMA)
    f = tmp_path / "rebuilt.parquet"
    pq.write_table(got.select(["id", "v"]), f)
    strata.write(dst, [str(f)])
    back = _java_rows(java, wh, dst)
    assert [(r["id"], r["json"]) for r in back] == [(r["id"], r["json"]) for r in theirs]


def test_json_lines_into_variant_columns_read_by_java(java, strata, wh, tmp_path):
    """``strata write`` of JSON lines: a VARIANT column takes any JSON value, encoded as the
    variant binary (``strata::arrow::variant_from_json``); Java decodes the same documents."""
    ident = "db.var_jsonl"
    strata.create_table(ident, SCHEMA)
    f = tmp_path / "docs.jsonl"
    f.write_text("".join(json.dumps({"id": i, "v": json.loads(d)}) + "\n" for i, d in enumerate(DOCS))
                 + json.dumps({"id": len(DOCS), "v": None}) + "\n")
    strata.write(ident, [str(f)])
    back = _java_rows(java, wh, ident)
    assert [r["id"] for r in back] == list(range(len(DOCS) + 1))
    assert back[-1]["json"] is None
    for r in back[:-1]:
        if DOCS[r["id"]] == "null":
            # A JSON null in a line is SQL NULL, not a variant holding null.
            assert r["json"] is None, r
            continue
        assert json.loads(r["json"]) == json.loads(DOCS[r["id"]]), (r, DOCS[r["id"]])


def test_shredded_variants_of_a_primary_key_table(java, strata, wh, tmp_path):
    """The merge read of a primary-key table rebuilds shredded variants too (Java's updates of a
    key: the newest value wins)."""
    ident = "db.var_pk"
    java.create_table(wh, ident, {**SCHEMA, "primaryKeys": ["id"],
                                  "options": {"bucket": "1", "variant.inferShreddingSchema": "true"}})
    java.call("Paimon2Variant.write", warehouse=_abs(wh), table=ident,
              rows=[{"id": i, "json": '{"a":%d,"b":"x%d"}' % (i, i)} for i in range(20)])
    java.call("Paimon2Variant.write", warehouse=_abs(wh), table=ident,
              rows=[{"id": i, "json": '{"a":%d,"c":[%d]}' % (100 + i, i)} for i in range(0, 20, 2)])
    theirs = _java_rows(java, wh, ident)
    files = list(pathlib.Path(wh).glob("db.db/var_pk/bucket-0/*.parquet"))
    assert len(files) >= 2 and all("typed_value" in str(pq.ParquetFile(f).schema) for f in files)
    assert _strata_rows(strata, ident) == [(r["id"], (r["value"], r["metadata"])) for r in theirs]
    got = strata.read_arrow(ident).sort_by("id")
    assert got.num_rows == 20
    # Same JSON through Java: strata's rebuilt binaries decoded by Java's own reader.
    dst = "db.var_pk_back"
    strata.create_table(dst, SCHEMA)
    f = tmp_path / "pk.parquet"
    pq.write_table(got.select(["id", "v"]), f)
    strata.write(dst, [str(f)])
    back = _java_rows(java, wh, dst)
    assert [(r["id"], r["json"]) for r in back] == [(r["id"], r["json"]) for r in theirs]


SHREDDING = json.dumps({"type": "ROW", "fields": [{"name": "v", "type": {"type": "ROW", "fields": [
    {"name": "a", "type": "BIGINT"},
    {"name": "b", "type": "STRING"},
    {"name": "c", "type": {"type": "ROW", "fields": [{"name": "x", "type": "INT"},
                                                   {"name": "y", "type": {"type": "ARRAY", "element": "BIGINT"}},
                                                   {"name": "w", "type": "VARIANT"}]}},
    {"name": "arr", "type": {"type": "ARRAY", "element": {"type": "ROW", "fields": [{"name": "k", "type": "TINYINT"}]}}},
    {"name": "dec", "type": "DECIMAL(6, 3)"},
]}}]})


def _data_files(wh, table):
    return sorted(pathlib.Path(wh).glob(f"db.db/{table}/bucket-*/data-*.parquet"))


def _live_files(strata, wh, ident):
    names = {f["fileName"] for f in strata.files(ident)}
    table = ident.split(".")[1]
    return [f for f in _data_files(wh, table) if f.name in names]


def _physical(f):
    """The file's Parquet schema (names, repetition, types, field ids) and its rows by id."""
    pf = pq.ParquetFile(f)
    return str(pf.schema).split("\n", 1)[1], pf.read().sort_by("id").to_pylist()


def _footer_keys(f):
    return sorted((pq.ParquetFile(f).metadata.metadata or {}).keys())


def _variant_file(tmp_path, name, rows):
    vtype = pa.struct([pa.field("value", pa.binary(), nullable=False),
                       pa.field("metadata", pa.binary(), nullable=False)])
    values = [None if r.get("value") is None else
              {"value": bytes.fromhex(r["value"]), "metadata": bytes.fromhex(r["metadata"])}
              for r in rows]
    f = tmp_path / name
    pq.write_table(pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()),
                             "v": pa.array(values, vtype)}), f)
    return f


def test_inferred_shredding_matches_java(java, strata, wh, tmp_path):
    """``variant.inferShreddingSchema``: strata infers each file's shredding schema from its first
    ``variant.shredding.maxInferBufferRow`` rows as Java does (rare fields, type conflicts, widths):
    the same Parquet schema and shredded columns as Java's file for the same rows; the adaptive
    mode as well, file by file over the files one writer rolls."""
    docs = _shredded_docs() + DOCS
    rows = [{"id": i, "json": d} for i, d in enumerate(docs)] + [{"id": len(docs)}]
    java.create_table(wh, "db.vi_plain", SCHEMA)
    java.call("Paimon2Variant.write", warehouse=_abs(wh), table="db.vi_plain", rows=rows)
    plain = _java_rows(java, wh, "db.vi_plain")
    f = _variant_file(tmp_path, "vi.parquet", plain)
    # The first 61 rows are objects (a later array or string makes the column VARIANT).
    for n, opts in enumerate(({"variant.shredding.maxInferBufferRow": "61"},
                              {"variant.shredding.maxInferBufferRow": "40",
                               "variant.shredding.maxSchemaWidth": "9",
                               "variant.shredding.minFieldCardinalityRatio": "0.5"})):
        opts = {"bucket": "-1", "variant.inferShreddingSchema": "true", **opts}
        java.create_table(wh, f"db.vi_java{n}", {**SCHEMA, "options": opts})
        java.call("Paimon2Variant.write", warehouse=_abs(wh), table=f"db.vi_java{n}", rows=rows)
        strata.create_table(f"db.vi_strata{n}", {**SCHEMA, "options": opts})
        strata.write(f"db.vi_strata{n}", [str(f)])
        (jf,), (sf,) = _data_files(wh, f"vi_java{n}"), _data_files(wh, f"vi_strata{n}")
        java_schema, java_cols = _physical(jf)
        strata_schema, strata_cols = _physical(sf)
        assert "typed_value" in java_schema, (n, java_schema)
        assert strata_schema == java_schema, n
        assert strata_cols == java_cols, n
        theirs = _java_rows(java, wh, f"db.vi_java{n}")
        assert _java_rows(java, wh, f"db.vi_strata{n}") == theirs
    _adaptive_inference_matches_java(java, strata, wh, tmp_path)


def _adaptive_doc(i):
    """Row ``i`` of four 1000-row files: a path leaving (legacy), one arriving (emerging), one
    changing type (stable) across the files."""
    k, j = divmod(i, 1000)
    if k == 0:
        return {"legacy": "v", "stable": j} if j < 500 else {"stable": j}
    if k == 1:
        return {"emerging": True, "stable": j} if j % 10 else {"stable": j}
    if k == 2:
        return {"stable": j, "n": {"x": j}} if j % 4 == 0 else {"stable": j}
    return {"stable": f"s{j}", "n": {"x": j}}


def _adaptive_inference_matches_java(java, strata, wh, tmp_path):
    """``variant.shredding.inferenceMode = adaptive``: one writer rolling four files (1000 rows
    each: ``target-file-size`` of 1 byte rolls at Java's 1000-record check and after each
    1000-row strata batch) keeps inference evidence across them; every file after the first
    samples ``adaptive.maxInferBufferRow`` rows. strata's files have Java's Parquet schemas and
    shredded columns, file by file."""
    rows = [{"id": i, "json": json.dumps(_adaptive_doc(i))} for i in range(4000)]
    java.create_table(wh, "db.va_plain", SCHEMA)
    java.call("Paimon2Variant.write", warehouse=_abs(wh), table="db.va_plain", rows=rows)
    plain = _java_rows(java, wh, "db.va_plain")
    inputs = [str(_variant_file(tmp_path, f"va{k}.parquet", plain[k * 1000:(k + 1) * 1000]))
              for k in range(4)]
    base = {"bucket": "-1", "target-file-size": "1 b", "variant.inferShreddingSchema": "true",
            "variant.shredding.maxInferBufferRow": "1000",
            "variant.shredding.minFieldCardinalityRatio": "0.4"}
    adaptive = {**base, "variant.shredding.inferenceMode": "adaptive",
                "variant.shredding.adaptive.maxInferBufferRow": "300",
                "variant.shredding.adaptive.retentionRatio": "0.2"}

    def by_first_id(files):
        return sorted(files, key=lambda f: _physical(f)[1][0]["id"])

    schemas = {}
    for name, opts in (("va_java", adaptive), ("va_per_file", base)):
        java.create_table(wh, f"db.{name}", {**SCHEMA, "options": opts})
        java.call("Paimon2Variant.write", warehouse=_abs(wh), table=f"db.{name}", rows=rows)
        schemas[name] = [_physical(f) for f in by_first_id(_data_files(wh, name))]
    strata.create_table("db.va_strata", {**SCHEMA, "options": adaptive})
    strata.write("db.va_strata", inputs)
    ours = [_physical(f) for f in by_first_id(_data_files(wh, "va_strata"))]
    theirs = schemas["va_java"]
    assert [len(c) for _, c in theirs] == [1000] * 4
    assert [len(c) for _, c in ours] == [1000] * 4
    for n, ((ss, sc), (js, jc)) in enumerate(zip(ours, theirs)):
        assert ss == js, (n, ss, js)
        assert sc == jc, n
    # Adaptive is not per-file here: legacy kept in file 1, emerging in file 2.
    assert [s for s, _ in theirs] != [s for s, _ in schemas["va_per_file"]]
    assert "legacy" in theirs[1][0] and "emerging" in theirs[2][0]
    assert _java_rows(java, wh, "db.va_strata") == _java_rows(java, wh, "db.va_java")
    # A primary-key table: the session of the flush's rolling writer (Java's
    # KeyValueFileWriterFactory), files rolled at the same 1000-record checks.
    pk = {**SCHEMA, "primaryKeys": ["id"], "options": {**adaptive, "bucket": "1"}}
    java.create_table(wh, "db.va_pk_java", pk)
    java.call("Paimon2Variant.write", warehouse=_abs(wh), table="db.va_pk_java", rows=rows)
    strata.create_table("db.va_pk_strata", pk)
    strata.write("db.va_pk_strata", inputs)
    ours = [_physical(f) for f in by_first_id(_data_files(wh, "va_pk_strata"))]
    theirs = [_physical(f) for f in by_first_id(_data_files(wh, "va_pk_java"))]
    assert [len(c) for _, c in theirs] == [1000] * 4
    assert len(ours) == len(theirs)
    for n, ((ss, sc), (js, jc)) in enumerate(zip(ours, theirs)):
        assert ss == js, (n, ss, js)
        assert sc == jc, n
    assert "legacy" in theirs[1][0] and "emerging" in theirs[2][0]
    assert _java_rows(java, wh, "db.va_pk_strata") == _java_rows(java, wh, "db.va_pk_java")


def _json_by_id(rows):
    return {r["id"]: None if r["json"] is None else json.loads(r["json"]) for r in rows}


def test_shredded_writes_match_java(java, strata, wh, tmp_path):
    """The same variants written by Java and by strata into tables with the same
    ``variant.shreddingSchema``: the data files have the same Parquet schema (field ids
    included) and the same shredded column values; Java reads strata's file as its own."""
    opts = {"bucket": "-1", "variant.shreddingSchema": SHREDDING}
    docs = _shredded_docs() + DOCS + ['{"c":{"x":1,"w":{"deep":[1]}},"arr":[{"k":300},{"k":-1}],"dec":1.5}']
    rows = [{"id": i, "json": d} for i, d in enumerate(docs)] + [{"id": len(docs)}]
    java.create_table(wh, "db.vs_java", {**SCHEMA, "options": opts})
    java.call("Paimon2Variant.write", warehouse=_abs(wh), table="db.vs_java", rows=rows)
    theirs = _java_rows(java, wh, "db.vs_java")
    assert len(theirs) == len(rows)
    # Java's unshredded binaries (as the oracle wrote them), written by strata into the shredded table.
    java.create_table(wh, "db.vs_plain", SCHEMA)
    java.call("Paimon2Variant.write", warehouse=_abs(wh), table="db.vs_plain", rows=rows)
    plain = _java_rows(java, wh, "db.vs_plain")
    strata.create_table("db.vs_strata", {**SCHEMA, "options": opts})
    strata.write("db.vs_strata", [str(_variant_file(tmp_path, "plain.parquet", plain))])

    (jf,), (sf,) = _data_files(wh, "vs_java"), _data_files(wh, "vs_strata")
    java_schema, java_cols = _physical(jf)
    strata_schema, strata_cols = _physical(sf)
    assert "typed_value" in java_schema
    assert strata_schema == java_schema
    assert strata_cols == java_cols
    # No ARROW:schema entry for shredded variants (Java writes one only for shredded MAPs).
    assert _footer_keys(sf) == _footer_keys(jf), (_footer_keys(sf), _footer_keys(jf))
    # The same file entries in the manifest. (Value statistics of VARIANT columns are not
    # compared: Java's Parquet stats extractor finds no leaf named like a nested column and, in
    # dense mode, drops it from valueStatsCols; strata keeps its null count, shredded or not.)
    meta = [java.call("Paimon2Blob.files", warehouse=_abs(wh), table=t)["files"]
            for t in ("db.vs_java", "db.vs_strata")]
    keys = ("rowCount", "level", "fileSource", "deleteRowCount", "extraFiles", "embeddedIndex")
    assert [{k: f[k] for k in keys} for f in meta[1]] == [{k: f[k] for k in keys} for f in meta[0]]
    # Java reads strata's shredded file as it reads its own.
    assert _java_rows(java, wh, "db.vs_strata") == theirs
    # strata's rebuild of either file gives Java's rebuilt bytes (ShreddingUtils.rebuild).
    want = [(r["id"], None if r["json"] is None else (r["value"], r["metadata"])) for r in theirs]
    assert _strata_rows(strata, "db.vs_java") == want
    assert _strata_rows(strata, "db.vs_strata") == want




def test_shredded_tables_compacted_by_both_engines(java, strata, wh, tmp_path):
    """Primary-key and append tables with ``variant.shreddingSchema`` (and a primary-key table
    with ``variant.inferShreddingSchema``): strata's writes and full compactions re-shred (every live file keeps the shredded layout), Java's writes and
    compactions mix in, and both engines read the rows of an independent model."""
    opts = {"variant.shreddingSchema": SHREDDING}
    docs = _shredded_docs()
    for ident, extra in (("db.vs_pk", {"primaryKeys": ["id"], "options": {**opts, "bucket": "1"}}),
                         ("db.vs_append", {"options": {**opts, "bucket": "1", "bucket-key": "id"}}),
                         ("db.vi_pk", {"primaryKeys": ["id"],
                                       "options": {"bucket": "1", "variant.inferShreddingSchema": "true"}})):
        java.create_table(wh, ident, {**SCHEMA, **extra})
        model = {}
        # strata: three commits (updates of existing ids on the primary-key table).
        # Three files (Java's and strata's full append compaction wants at least three).
        commits = ((range(30), range(0, 30, 2), range(1, 30, 3)) if "primaryKeys" in extra
                   else (range(30), range(30, 45), range(45, 50)))
        for n, ids in enumerate(commits):
            batch = [{"id": i, "v": json.loads(docs[(i + 7 * n) % len(docs)])} for i in ids]
            f = tmp_path / f"{ident}-{n}.jsonl"
            f.write_text("".join(json.dumps(r) + "\n" for r in batch))
            strata.write(ident, [str(f)])
            model.update((r["id"], r["v"]) for r in batch)
        strata.run("compact", ident, "--full")
        assert strata.snapshots(ident)[-1]["commitKind"] == "COMPACT"
        live = _live_files(strata, wh, ident)
        # One rewritten file, shredded again (strata's rebuild on read, re-shred on write).
        assert len(live) == 1 and "typed_value" in _physical(live[0])[0], live
        assert _json_by_id(_java_rows(java, wh, ident)) == model
        # Java writes and compacts on top; both engines read the same rows.
        java.call("Paimon2Variant.write", warehouse=_abs(wh), table=ident,
                  rows=[{"id": 100 + i, "json": docs[i]} for i in range(5)])
        strata.run("compact", ident, "--full")
        java.compact(wh, ident)
        for i in range(5):
            model[100 + i] = json.loads(docs[i])
        theirs = _java_rows(java, wh, ident)
        assert _json_by_id(theirs) == model
        want = [(r["id"], None if r["json"] is None else (r["value"], r["metadata"])) for r in theirs]
        assert _strata_rows(strata, ident) == want
        live = _live_files(strata, wh, ident)
        assert live and all("typed_value" in _physical(f)[0] for f in live), live
