"""BLOB columns (issue 31 item 9) written by Java Paimon 2.0.0, read by strata.

A data-evolution append table (``row-tracking.enabled``, ``data-evolution.enabled``) with a
``BLOB`` column: Java's writer puts the BLOB values in ``.blob`` files (``BlobFormatWriter``,
rolled at ``blob.target-file-size``, ``writeCols`` = the BLOB column) beside the Parquet file of
the other columns (oracle ``Paimon2Blob.write``); a later Java column update
(``Paimon2RowTracking.updateColumns``) adds a Parquet file of one column for the same row ids.
strata reads the rows Java reads (``Paimon2Blob.read``) and an independent model holds — whole
rows, projections with and without the BLOB column, filters, ``_ROW_ID``, SQL — and sees the
same files (``firstRowId``, ``writeCols``, row counts) as Java.

strata writes such tables as Java's ``DedicatedFormatRollingFileWriter`` does (CLI JSON lines
and Parquet, SQL ``INSERT``): Java reads its rows, its ``.blob`` files are byte for byte the
ones Java writes for the same rows, and every file's metadata (``firstRowId``, ``writeCols``,
sequence numbers, statistics layout, sizes of the ``.blob`` files) equals Java's.
``blob-as-descriptor`` and the other descriptor/view options stay refused by name.
"""
from __future__ import annotations

import json

import pytest

from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

IDENT = "db.blobs"
UPDATED = "db.blobs_updated"


def _schema(target_size: str = "200 b") -> dict:
    return {
        "fields": [{"id": 0, "name": "id", "type": "INT"},
                   {"id": 1, "name": "name", "type": "STRING"},
                   {"id": 2, "name": "payload", "type": "BLOB"}],
        "partitionKeys": [], "primaryKeys": [],
        "options": {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
                    # "200 b": several .blob files per Parquet file
                    "blob.target-file-size": target_size},
    }


def _payload(i: int):
    """Row i's BLOB: NULL every fourth row, an empty value every seventh, else i-dependent bytes
    of growing length (some over the target size, so one value is a file of its own)."""
    if i % 4 == 3:
        return None
    if i % 7 == 5:
        return b""
    return bytes((i * 31 + k) % 256 for k in range(i * 13))


def _java_row(i: int) -> dict:
    p = _payload(i)
    return {"id": i, "name": f"n{i}", "payload": None if p is None else p.hex()}


def _canon(rows, columns=("id", "name", "payload")):
    return sorted(json.dumps({c: r[c] for c in columns}, sort_keys=True) for r in rows)


def _strata_rows(strata, ident=IDENT, **kw):
    out = []
    for line in strata.read_text(ident, "jsonl", **kw).splitlines():
        r = json.loads(line)
        if r.get("payload") is not None:
            assert r["payload"].startswith("0x") or r["payload"] == "", r
            r["payload"] = r["payload"][2:] if r["payload"].startswith("0x") else ""
        out.append(r)
    return out


def _java_files(java, wh, ident=IDENT):
    res = java.call("Paimon2Blob.files", warehouse=_abs(wh), table=ident)
    return sorted((f["fileName"], f["rowCount"], f["firstRowId"], f["writeCols"])
                  for f in res["files"])


def _strata_files(strata, ident=IDENT):
    out = []
    for f in strata.json_lines("sql", "--format", "jsonl", "-e",
                               f"SELECT file_path, record_count, first_row_id, write_cols "
                               f"FROM {ident}$files"):
        out.append((f["file_path"].rsplit("/", 1)[1], f["record_count"], f["first_row_id"],
                    f["write_cols"]))
    return sorted(out)


def test_java_blob_table_read_by_strata(java, strata, wh, tmp_path):
    java.create_table(_abs(wh), IDENT, _schema())
    model = {}
    for ids in (range(0, 12), range(12, 20)):
        rows = [_java_row(i) for i in ids]
        java.call("Paimon2Blob.write", warehouse=_abs(wh), table=IDENT, rows=rows)
        model.update({r["id"]: r for r in rows})

    files = _java_files(java, wh)
    blobs = [f for f in files if f[0].endswith(".blob")]
    assert len(blobs) > 2 and all(f[3] == ["payload"] for f in blobs), files
    assert any(f[0].endswith(".parquet") and f[3] == ["id", "name"] for f in files), files
    assert _strata_files(strata) == files

    def check(what):
        want = _canon(model.values())
        java_rows = java.call("Paimon2Blob.read", warehouse=_abs(wh), table=IDENT)["rows"]
        assert _canon(java_rows) == want, f"{what}: Java"
        assert _canon(_strata_rows(strata)) == want, f"{what}: strata"
        # projections: the BLOB column alone, without it, with _ROW_ID
        assert _canon(_strata_rows(strata, columns=["id", "payload"]), ("id", "payload")) == \
            _canon(model.values(), ("id", "payload")), what
        assert _canon(_strata_rows(strata, columns=["name", "id"]), ("id", "name")) == \
            _canon(model.values(), ("id", "name")), what
        by_row_id = {r["_ROW_ID"]: r for r in _strata_rows(strata, columns=["_ROW_ID", "id", "payload"])}
        assert sorted(by_row_id) == list(range(20)), what
        assert all(by_row_id[i]["id"] == i for i in range(20)), what
        # filters on the other columns and on the BLOB itself
        got = _strata_rows(strata, where="id >= 9 AND payload IS NOT NULL")
        assert _canon(got) == _canon(r for r in model.values()
                                     if r["id"] >= 9 and r["payload"] is not None), what
        sql = strata.json_lines("sql", "--format", "jsonl", "-e",
                                f"SELECT id, payload FROM {IDENT} "
                                f"WHERE payload IS NOT NULL AND id < 12 ORDER BY id")
        assert [(r["id"], r["payload"]) for r in sql] == \
            [(i, "0x" + _payload(i).hex()) for i in sorted(model)
             if i < 12 and _payload(i) is not None], what

    check("two Java writes")

    # strata writes on top of Java's files (JSON lines: a BLOB is a hex string), Java writes
    # after it; both read every row, the row ids stay contiguous
    f = tmp_path / "more.jsonl"
    more = [_java_row(i) for i in range(20, 26)]
    f.write_text("".join(json.dumps(r) + "\n" for r in more))
    strata.write(IDENT, [str(f)])
    model.update({r["id"]: r for r in more})
    rows = [_java_row(i) for i in range(26, 30)]
    java.call("Paimon2Blob.write", warehouse=_abs(wh), table=IDENT, rows=rows)
    model.update({r["id"]: r for r in rows})
    want = _canon(model.values())
    assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table=IDENT)["rows"]) == want
    assert _canon(_strata_rows(strata)) == want
    by_row_id = {r["_ROW_ID"]: r["id"] for r in _strata_rows(strata, columns=["_ROW_ID", "id"])}
    assert by_row_id == {i: i for i in range(30)}
    assert _strata_files(strata) == _java_files(java, wh)
    # blob-as-descriptor: both read each value as the serialized BlobDescriptor of its payload
    # in its .blob file (Java's BlobRef), the same bytes
    java.alter_table(_abs(wh), IDENT, [{"op": "setOption", "key": "blob-as-descriptor",
                                        "value": "true"}])
    java_desc = java.call("Paimon2Blob.read", warehouse=_abs(wh), table=IDENT,
                          descriptor=True)["rows"]
    assert sum(r["payload"] is not None for r in java_desc) > 10
    assert _canon(_strata_rows(strata)) == _canon(java_desc)


def test_java_column_update_of_a_blob_table(java, strata, wh):
    """A Java column update (Flink's ``DataEvolutionPartialWriteOperator``, oracle
    ``Paimon2RowTracking.updateColumns``) adds a Parquet file of ``name`` for the row ids of the
    first one; strata stitches the newest ``name``, the old ``id`` and the ``.blob`` file's
    ``payload`` by row id, as Java does. (One ``.blob`` file per write here: the oracle's update
    reads the files of one ``firstRowId``.)"""
    java.create_table(_abs(wh), UPDATED, _schema("128 mb"))
    rows = [_java_row(i) for i in range(10)]
    java.call("Paimon2Blob.write", warehouse=_abs(wh), table=UPDATED, rows=rows)
    model = {r["id"]: r for r in rows}
    rid = {r["id"]: r["_ROW_ID"] for r in _strata_rows(strata, UPDATED, columns=["id", "_ROW_ID"])}
    changes = [{"id": i, "name": f"renamed{i}"} for i in (1, 4, 7)]
    java.call("Paimon2RowTracking.updateColumns", warehouse=_abs(wh), table=UPDATED,
              columns=["name"], rows=[{"_ROW_ID": rid[c["id"]], "name": c["name"]} for c in changes])
    for c in changes:
        model[c["id"]]["name"] = c["name"]
    files = _java_files(java, wh, UPDATED)
    assert sorted(f[3] for f in files) == [["id", "name"], ["name"], ["payload"]], files
    assert _strata_files(strata, UPDATED) == files
    want = _canon(model.values())
    assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table=UPDATED)["rows"]) == want
    assert _canon(_strata_rows(strata, UPDATED)) == want
    assert _canon(_strata_rows(strata, UPDATED, columns=["payload", "name", "id"])) == want


def _files_detail(java, wh, ident):
    """Java's view of the live files, in commit order (first row id, then data before BLOB)."""
    res = java.call("Paimon2Blob.files", warehouse=_abs(wh), table=ident)["files"]
    return sorted(res, key=lambda f: (f["firstRowId"], f["fileName"].endswith(".blob"),
                                      f["writeCols"], f["fileName"]))


def _bucket_dir(wh, ident):
    db, name = ident.split(".")
    return f"{_abs(wh)}/{db}.db/{name}/bucket-0"


def test_strata_blob_files_equal_javas(java, strata, wh, tmp_path):
    """The same rows written once by Java and once by strata (``strata write``, one Parquet
    input file): the same files in the same order, each ``.blob`` file byte for byte Java's,
    every file's metadata equal (file names and the Parquet files' bytes aside)."""
    schema = _schema("300 b")
    java.create_table(_abs(wh), "db.j", schema)
    java.create_table(_abs(wh), "db.s", schema)
    rows = [_java_row(i) for i in range(40)]
    java.call("Paimon2Blob.write", warehouse=_abs(wh), table="db.j", rows=rows)
    import pyarrow as pa
    import pyarrow.parquet as pq
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({
        "id": pa.array([i for i in range(40)], pa.int32()),
        "name": pa.array([f"n{i}" for i in range(40)]),
        "payload": pa.array([_payload(i) for i in range(40)], pa.binary()),
    }), src)
    strata.write("db.s", [str(src)])

    jf, sf = _files_detail(java, wh, "db.j"), _files_detail(java, wh, "db.s")
    assert len([f for f in jf if f["fileName"].endswith(".blob")]) > 3, jf
    assert len(jf) == len(sf), (jf, sf)
    for j, s in zip(jf, sf):
        assert j["fileName"].rsplit(".", 1)[1] == s["fileName"].rsplit(".", 1)[1], (j, s)
        skip = {"fileName"} | ({"fileSize"} if j["fileName"].endswith(".parquet") else set())
        assert {k: v for k, v in j.items() if k not in skip} == \
            {k: v for k, v in s.items() if k not in skip}, (j, s)
        if j["fileName"].endswith(".blob"):
            with open(f"{_bucket_dir(wh, 'db.j')}/{j['fileName']}", "rb") as a, \
                    open(f"{_bucket_dir(wh, 'db.s')}/{s['fileName']}", "rb") as b:
                assert a.read() == b.read(), (j, s)
    want = _canon(_java_row(i) for i in range(40))
    assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.s")["rows"]) == want
    assert _canon(_strata_rows(strata, "db.s")) == want


def test_strata_created_blob_table_written_by_sql_and_cli(java, strata, wh, tmp_path):
    """A table strata creates and writes (SQL ``INSERT`` with ``X'..'`` literals, CLI JSON
    lines) alternating with Java's writes: Java and strata read the model, the row ids are
    contiguous, each data file's rows are covered by its ``.blob`` files."""
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(_schema("100 b")))
    strata.run("create-table", "--schema", str(schema_file), "db.mixed")
    model = {}
    values = ", ".join(
        f"({i}, 'n{i}', {'NULL' if _payload(i) is None else chr(88) + repr(_payload(i).hex())})"
        for i in range(8))
    strata.run("sql", "-e", f"INSERT INTO db.mixed VALUES {values}")
    model.update({i: _java_row(i) for i in range(8)})
    rows = [_java_row(i) for i in range(8, 14)]
    java.call("Paimon2Blob.write", warehouse=_abs(wh), table="db.mixed", rows=rows)
    model.update({r["id"]: r for r in rows})
    f = tmp_path / "more.jsonl"
    f.write_text("".join(json.dumps(_java_row(i)) + "\n" for i in range(14, 24)))
    strata.write("db.mixed", [str(f)])
    model.update({i: _java_row(i) for i in range(14, 24)})

    want = _canon(model.values())
    assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.mixed")["rows"]) == want
    assert _canon(_strata_rows(strata, "db.mixed")) == want
    files = _files_detail(java, wh, "db.mixed")
    data = [f for f in files if not f["fileName"].endswith(".blob")]
    assert [(f["firstRowId"], f["rowCount"]) for f in data] == [(0, 8), (8, 6), (14, 10)], data
    for d in data:
        blobs = [f for f in files if f["fileName"].endswith(".blob")
                 and d["firstRowId"] <= f["firstRowId"] < d["firstRowId"] + d["rowCount"]]
        assert all(b["writeCols"] == ["payload"] for b in blobs)
        assert sum(b["rowCount"] for b in blobs) == d["rowCount"], (d, blobs)
        assert d["writeCols"] == ["id", "name"]
    assert _strata_files(strata, "db.mixed") == _java_files(java, wh, "db.mixed")


def test_unwritable_blob_tables_refused_by_name(java, strata, wh, tmp_path):
    """What strata does not write stays refused, naming the option or column: descriptor
    storage (``blob-descriptor-field``) and BLOBs nested in an ARRAY."""
    f = tmp_path / "row.jsonl"
    f.write_text(json.dumps({"id": 1, "name": "x", "payload": None}) + "\n")
    schema = _schema()
    schema["options"]["blob-descriptor-field"] = "payload"
    java.create_table(_abs(wh), "db.desc", schema)
    p = strata.write("db.desc", [str(f)], check=False)
    assert p.returncode != 0 and "blob-descriptor-field" in p.stderr, p.stderr
    nested = _schema()
    nested["fields"][2] = {"id": 2, "name": "payload", "type": {"type": "ARRAY", "element": "BLOB"}}
    java.create_table(_abs(wh), "db.nested", nested)
    p = strata.write("db.nested", [str(f)], check=False)
    assert p.returncode != 0 and "payload" in p.stderr and "ARRAY" in p.stderr, p.stderr


def _descriptor(uri: str, offset: int, length: int) -> bytes:
    """Java's ``BlobDescriptor.serialize`` (version 2)."""
    import struct
    u = uri.encode()
    return struct.pack("<bqi", 2, 0x424C4F4244455343, len(u)) + u + struct.pack("<qq", offset, length)


def test_strata_writes_blob_descriptors(java, strata, wh, tmp_path):
    """``blob-as-descriptor = true``: strata takes serialized ``BlobDescriptor``s as input and
    copies the bytes they point at into its ``.blob`` files, as Java's writers copy a
    ``BlobRef``; Java reads the bytes (and, as descriptors, ranges of strata's files that hold
    them); strata's descriptor read equals Java's."""
    src = tmp_path / "source.bin"
    data = bytes(range(256)) * 8
    src.write_bytes(data)
    ranges = {0: (0, 100), 1: None, 2: (1000, 0), 3: (17, 999), 4: (2000, -1)}
    schema = _schema("500 b")
    schema["options"]["blob-as-descriptor"] = "true"
    java.create_table(_abs(wh), "db.desc_w", schema)
    f = tmp_path / "desc.jsonl"
    f.write_text("".join(json.dumps({
        "id": i, "name": f"n{i}",
        "payload": None if r is None else _descriptor(str(src), r[0], r[1]).hex()}) + "\n"
        for i, r in ranges.items()))
    strata.write("db.desc_w", [str(f)])

    def want_bytes(r):
        if r is None:
            return None
        off, n = r
        return data[off:] if n < 0 else data[off:off + n]

    java.alter_table(_abs(wh), "db.desc_w", [{"op": "setOption", "key": "blob-as-descriptor",
                                              "value": "false"}])
    want = _canon({"id": i, "name": f"n{i}", "payload": None if want_bytes(r) is None
                   else want_bytes(r).hex()} for i, r in ranges.items())
    assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.desc_w")["rows"]) == want
    assert _canon(_strata_rows(strata, "db.desc_w")) == want
    java.alter_table(_abs(wh), "db.desc_w", [{"op": "setOption", "key": "blob-as-descriptor",
                                              "value": "true"}])
    java_desc = java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.desc_w",
                          descriptor=True)["rows"]
    assert _canon(_strata_rows(strata, "db.desc_w")) == _canon(java_desc)
    assert all(".blob" in bytes.fromhex(r["payload"])[13:].decode("utf-8", "replace")
               for r in java_desc if r["payload"] is not None)


def test_java_column_update_of_a_strata_blob_table(java, strata, wh, tmp_path):
    """strata writes a BLOB table, Java updates a column of some rows (a Parquet file of
    ``name`` for strata's row ids): both stitch strata's ``.blob`` file and Java's update."""
    java.create_table(_abs(wh), "db.upd", _schema("128 mb"))
    f = tmp_path / "rows.jsonl"
    f.write_text("".join(json.dumps(_java_row(i)) + "\n" for i in range(10)))
    strata.write("db.upd", [str(f)])
    model = {i: _java_row(i) for i in range(10)}
    rid = {r["id"]: r["_ROW_ID"] for r in _strata_rows(strata, "db.upd", columns=["id", "_ROW_ID"])}
    java.call("Paimon2RowTracking.updateColumns", warehouse=_abs(wh), table="db.upd",
              columns=["name"], rows=[{"_ROW_ID": rid[i], "name": f"renamed{i}"} for i in (2, 5)])
    for i in (2, 5):
        model[i]["name"] = f"renamed{i}"
    want = _canon(model.values())
    assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.upd")["rows"]) == want
    assert _canon(_strata_rows(strata, "db.upd")) == want
    assert sorted(f[3] for f in _java_files(java, wh, "db.upd")) == [["id", "name"], ["name"], ["payload"]]


def _blob_update_files(java, wh, ident, snapshot):
    """(rowCount, firstRowId, writeCols, min/max sequence number, fileSize) of the files the
    snapshot ``snapshot`` added, by first row id, with their names."""
    res = java.call("Paimon2Blob.files", warehouse=_abs(wh), table=ident)["files"]
    return sorted((f["firstRowId"], f["rowCount"], f["writeCols"], f["minSequenceNumber"],
                   f["maxSequenceNumber"], f["fileSize"], f["fileName"])
                  for f in res if f["maxSequenceNumber"] == snapshot)


def test_blob_column_updates_both_ways(java, strata, wh, tmp_path):
    """A BLOB column updated by row id, as Spark's ``DataEvolutionTableDataWrite`` writes it
    (oracle ``Paimon2BlobUpdate.update``: ``.blob`` files over each touched row-id range, new
    values and ``BlobPlaceholder`` rows, no Parquet file): strata reads Java's update (Java's
    ``BlobFallbackRecordReader``); strata's update of the same rows (CLI ``update-columns``,
    SQL ``UPDATE``) writes the same ``.blob`` bytes and metadata, and Java reads it."""
    upd = [{"_ROW_ID": 1, "payload": (b"\x01" * 300).hex()}, {"_ROW_ID": 4, "payload": None},
           {"_ROW_ID": 13, "payload": ""}]
    for ident in ("db.bu_java", "db.bu_strata"):
        java.create_table(_abs(wh), ident, _schema())
        for ids in (range(0, 12), range(12, 20)):
            java.call("Paimon2Blob.write", warehouse=_abs(wh), table=ident,
                      rows=[_java_row(i) for i in ids])
    model = {i: _java_row(i) for i in range(20)}
    for u in upd:
        model[u["_ROW_ID"]]["payload"] = u["payload"]
    s_java = java.call("Paimon2BlobUpdate.update", warehouse=_abs(wh), table="db.bu_java",
                       column="payload", rows=upd)["snapshotId"]
    import pyarrow as pa
    import pyarrow.parquet as pq
    f = tmp_path / "upd.parquet"
    pq.write_table(pa.table({
        "_ROW_ID": pa.array([u["_ROW_ID"] for u in upd], pa.int64()),
        "payload": pa.array([None if u["payload"] is None else bytes.fromhex(u["payload"])
                             for u in upd], pa.binary())}), str(f))
    strata.run("update-columns", "db.bu_strata", str(f))
    want = _canon(model.values())
    for ident in ("db.bu_java", "db.bu_strata"):
        assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table=ident)["rows"]) \
            == want, f"{ident}: Java"
        assert _canon(_strata_rows(strata, ident)) == want, f"{ident}: strata"
    java_want = want
    # the update's files: metadata and bytes equal (names aside)
    jf = _blob_update_files(java, wh, "db.bu_java", s_java)
    sf = _blob_update_files(java, wh, "db.bu_strata", s_java)
    assert [f[:6] for f in jf] == [f[:6] for f in sf] and len(jf) > 2, (jf, sf)
    assert all(f[6].endswith(".blob") and f[2] == ["payload"] for f in jf), jf
    jd, sd = _bucket_dir(wh, "db.bu_java"), _bucket_dir(wh, "db.bu_strata")
    for a, b in zip(jf, sf):
        assert open(f"{jd}/{a[6]}", "rb").read() == open(f"{sd}/{b[6]}", "rb").read(), (a, b)

    # a second update over the first, by SQL on strata's table: Java resolves three writes
    strata.run("sql", "-e", "UPDATE db.bu_strata SET payload = X'cafe' WHERE id IN (1, 2)")
    model[1]["payload"] = model[2]["payload"] = "cafe"
    want = _canon(model.values())
    assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.bu_strata")["rows"]) \
        == want
    assert _canon(_strata_rows(strata, "db.bu_strata")) == want
    # MERGE INTO a BLOB and a normal column: a Parquet file of `name` and `.blob` files
    strata.run("sql", "-e", "MERGE INTO db.bu_strata t USING (SELECT 5 AS id, 'five' AS n, "
               "X'0505' AS p) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.n, payload = s.p")
    model[5].update(name="five", payload="0505")
    want = _canon(model.values())
    assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.bu_strata")["rows"]) \
        == want
    assert _canon(_strata_rows(strata, "db.bu_strata")) == want

    # data-evolution compaction by each engine keeps the stacked `.blob` files and the rows
    strata.run("compact", "db.bu_strata", "--full")
    java.call("Paimon2RowTracking.compactEvolution", warehouse=_abs(wh), table="db.bu_java")
    for ident, w in (("db.bu_strata", want), ("db.bu_java", java_want)):
        assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table=ident)["rows"]) \
            == w, f"{ident} compacted: Java"
        assert _canon(_strata_rows(strata, ident)) == w, f"{ident} compacted: strata"
        assert sum(f[0].endswith(".parquet") for f in _java_files(java, wh, ident)) == 1, ident
    # blob-as-descriptor over stacked `.blob` files: each row's descriptor points into the file
    # its value resolves to, as Java's (the older file for placeholder rows)
    java.alter_table(_abs(wh), "db.bu_java", [{"op": "setOption", "key": "blob-as-descriptor",
                                               "value": "true"}])
    java_desc = java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.bu_java",
                          descriptor=True)["rows"]
    assert _canon(_strata_rows(strata, "db.bu_java")) == _canon(java_desc)
    assert len({bytes.fromhex(r["payload"])[13:].split(b".blob")[0] for r in java_desc
                if r["payload"]}) > 2, java_desc


def test_java_blob_descriptor_field_read_by_strata(java, strata, wh, tmp_path):
    """``blob-descriptor-field``: Java stores the BLOB inline in the Parquet file as its
    serialized ``BlobDescriptor`` (``Blob.serializeBlob``, oracle ``Paimon2BlobDescriptor.write``)
    and no ``.blob`` file; strata reads the bytes each descriptor points at (and, with
    ``blob-as-descriptor``, the descriptors Java returns). strata's writes stay refused by name."""
    src = tmp_path / "src.bin"
    data = bytes(range(256)) * 4
    src.write_bytes(data)
    schema = _schema()
    schema["options"]["blob-descriptor-field"] = "payload"
    java.create_table(_abs(wh), "db.descf", schema)
    rows, model = [], []
    for i in range(7):
        p = None if i == 3 else {"uri": str(src), "offset": i * 10,
                                 "length": -1 if i == 5 else i * 5}
        rows.append({"id": i, "name": f"n{i}", "payload": p})
        want = None if p is None else (data[p["offset"]:] if p["length"] < 0 else
                                       data[p["offset"]:p["offset"] + p["length"]])
        model.append({"id": i, "name": f"n{i}", "payload": None if want is None else want.hex()})
    java.call("Paimon2BlobDescriptor.write", warehouse=_abs(wh), table="db.descf", rows=rows)
    files = _java_files(java, wh, "db.descf")
    assert [f[3] for f in files] == [["id", "name", "payload"]] or \
        [f[3] for f in files] == [None], files
    want = _canon(model)
    assert _canon(java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.descf")["rows"]) == want
    assert _canon(_strata_rows(strata, "db.descf")) == want
    assert _canon(_strata_rows(strata, "db.descf", columns=["id", "payload"]), ("id", "payload")) \
        == _canon(model, ("id", "payload"))
    java.alter_table(_abs(wh), "db.descf", [{"op": "setOption", "key": "blob-as-descriptor",
                                             "value": "true"}])
    java_desc = java.call("Paimon2Blob.read", warehouse=_abs(wh), table="db.descf",
                          descriptor=True)["rows"]
    assert _canon(_strata_rows(strata, "db.descf")) == _canon(java_desc)
    f = tmp_path / "more.jsonl"
    f.write_text(json.dumps(_java_row(9)) + "\n")
    r = strata.run("write", "db.descf", str(f), check=False)
    assert r.returncode != 0 and "blob-descriptor-field" in r.stderr, r.stderr
    java.call("Paimon2BlobDescriptor.write", warehouse=_abs(wh), table="db.descf", rows=rows[:2])
    for cmd in (["compact", "db.descf", "--full"],
                ["sql", "-e", "UPDATE db.descf SET name = 'x' WHERE id = 1"]):
        r = strata.run(*cmd, check=False)
        assert r.returncode != 0 and "blob-descriptor-field" in r.stderr, (cmd, r.stderr)
