"""BLOB columns (issue 31 item 9) written by Java Paimon 2.0.0, read by strata.

A data-evolution append table (``row-tracking.enabled``, ``data-evolution.enabled``) with a
``BLOB`` column: Java's writer puts the BLOB values in ``.blob`` files (``BlobFormatWriter``,
rolled at ``blob.target-file-size``, ``writeCols`` = the BLOB column) beside the Parquet file of
the other columns (oracle ``Paimon2Blob.write``); a later Java column update
(``Paimon2RowTracking.updateColumns``) adds a Parquet file of one column for the same row ids.
strata reads the rows Java reads (``Paimon2Blob.read``) and an independent model holds — whole
rows, projections with and without the BLOB column, filters, ``_ROW_ID``, SQL — and sees the
same files (``firstRowId``, ``writeCols``, row counts) as Java. strata's writes of such a table
stay refused by name; ``blob-as-descriptor`` reads are refused by name.
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

    # strata does not write BLOB storage: refused by name, the table unchanged
    f = tmp_path / "more.jsonl"
    f.write_text(json.dumps({"id": 99, "name": "x", "payload": None}) + "\n")
    p = strata.write(IDENT, [str(f)], check=False)
    assert p.returncode != 0 and "payload" in p.stderr and ".blob" in p.stderr, p.stderr
    p = strata.run("sql", "-e", f"INSERT INTO {IDENT} VALUES (99, 'x', NULL)", check=False)
    assert p.returncode != 0 and "payload" in p.stderr, p.stderr
    check("after refused writes")
    # Java's descriptor reads (a serialized BlobDescriptor per value) are not strata's: a table
    # Java set `blob-as-descriptor` on is refused naming the option
    java.alter_table(_abs(wh), IDENT, [{"op": "setOption", "key": "blob-as-descriptor",
                                        "value": "true"}])
    r = strata.run("read", IDENT, check=False)
    assert r.returncode != 0 and "blob-as-descriptor" in r.stderr, r.stderr


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
