"""Compaction of data-evolution append tables and of append tables with deletion vectors
(issue 31) between strata and Java Paimon 2.0.0.

Data evolution (``data-evolution.enabled``): Java writes rows and some columns of existing rows
(``Paimon2RowTracking.updateColumns``, as Flink's partial writer); the table directory is copied,
strata compacts one copy (``strata compact`` and SQL ``CALL sys.compact``) and Java compacts the
other (``DataEvolutionCompactCoordinator`` + ``DataEvolutionNormalCompactTask``): both produce the
same files (row counts, ``firstRowId``, ``writeCols``, sequence numbers, level, file source) and
Java reads the same rows with the same ``_ROW_ID`` / ``_SEQUENCE_NUMBER`` from both.  The other
way, strata writes rows and columns, Java compacts, strata reads.

Deletion vectors (``deletion-vectors.enabled``, ``bucket = -1``): Java deletes rows (deletion
vectors committed as Spark's DELETE does, ``Paimon2AppendCompact.deleteRows``); strata compacts
(Java's ``AppendCompactCoordinator`` in deletion-vector mode): the rewritten files hold only the
live rows, the index files holding their vectors are replaced in the same COMPACT snapshot by ones
holding only the vectors of files not rewritten; Java reads the rows and deletes and compacts on.
Row-tracking tables with deletion vectors: strata and Java compact copies into the same files,
the live rows keep their ``_ROW_ID``s (stored in the files) and ``nextRowId`` stays.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

TRACKED = ["id", "dt", "a", "b", "_ROW_ID", "_SEQUENCE_NUMBER"]


def _evolution_schema() -> dict:
    return {
        "fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
                   {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
                   {"id": 2, "name": "a", "type": "STRING"},
                   {"id": 3, "name": "b", "type": "INT"}],
        "partitionKeys": ["dt"], "primaryKeys": [],
        "options": {"bucket": "-1", "row-tracking.enabled": "true",
                    "data-evolution.enabled": "true", "compaction.min.file-num": "2"},
    }


def _java_tracked(java, wh, ident):
    res = java.call("Paimon2RowTracking.rows", warehouse=_abs(wh), table=ident)
    assert res["columns"] == TRACKED, res["columns"]
    return sorted(res["rows"])


def _files(java, wh, ident):
    """The live files' metadata without names, as a sorted list."""
    meta = {f["fileName"]: f for f in
            java.call("Paimon2RowTracking.meta", warehouse=_abs(wh), table=ident)["files"]}
    out = []
    for f in java.files(wh, ident):
        m = meta[f["fileName"]]
        out.append((json.dumps(f["partition"], sort_keys=True), f["level"], f["rowCount"],
                    m["firstRowId"], tuple(m["writeCols"] or ()), f["minSequenceNumber"],
                    f["maxSequenceNumber"], f["fileSource"], f["schemaId"]))
    return sorted(out)


def _copy_table(wh, ident, new_name):
    db, name = ident.split(".")
    src = Path(wh) / f"{db}.db" / name
    shutil.copytree(src, Path(wh) / f"{db}.db" / new_name)
    return f"{db}.{new_name}"


def _last_kind(java, wh, ident):
    return java.snapshots(wh, ident)[-1]["commitKind"]


def test_strata_compacts_data_evolution_table_as_java(java, strata, wh, tmp_path):
    """A data-evolution table Java wrote (rows and column updates over several row-id ranges in
    two partitions): strata's compaction produces the files Java's produces on a copy, and Java
    reads the same rows and row ids from both."""
    ident = "db.de"
    java.create_table(wh, ident, _evolution_schema())
    for rows in ([{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(0, 4)]
                 + [{"id": 50, "dt": "q", "a": "a50", "b": 50}],
                 [{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(4, 7)],
                 [{"id": i, "dt": "q", "a": f"a{i}", "b": i} for i in range(51, 53)]):
        java.write(wh, ident, rows)
    rid = {json.loads(line)["id"]: json.loads(line)["_ROW_ID"]
           for line in _java_tracked(java, wh, ident)}

    def update(table, columns, changes):
        java.call("Paimon2RowTracking.updateColumns", warehouse=_abs(wh), table=table,
                  columns=columns, rows=[dict(c, _ROW_ID=rid[c["id"]]) for c in changes])

    update(ident, ["b"], [{"id": 1, "b": 100}, {"id": 5, "b": 500}, {"id": 50, "b": None}])
    update(ident, ["a"], [{"id": 2, "a": "x2"}])
    before = _java_tracked(java, wh, ident)
    plain_before = java.read(wh, ident)
    files_before = _files(java, wh, ident)
    theirs = _copy_table(wh, ident, "de_java")

    strata.run("compact", ident)
    assert _last_kind(java, wh, ident) == "COMPACT"
    res = java.call("Paimon2RowTracking.compactEvolution", warehouse=_abs(wh), table=theirs)
    assert res["tasks"] >= 2, res
    ours_files, theirs_files = _files(java, wh, ident), _files(java, wh, theirs)
    assert ours_files == theirs_files, f"strata\n{ours_files}\nJava\n{theirs_files}"
    assert len(ours_files) < len(files_before), (files_before, ours_files)
    # Every live file now holds all columns of its range.
    assert all(f[4] == () for f in ours_files), ours_files
    got = _java_tracked(java, wh, ident)
    assert got == _java_tracked(java, wh, theirs), "row ids / sequence numbers differ from Java's"
    assert sorted(strata.read_lines(ident, columns=TRACKED)) == got
    # Rows and row ids are those before the compaction (sequence numbers may move, as Java's).
    strip = lambda lines: sorted(json.dumps({k: v for k, v in json.loads(x).items()  # noqa: E731
                                             if k != "_SEQUENCE_NUMBER"}) for x in lines)
    assert strip(got) == strip(before)
    assert java.read(wh, ident) == plain_before

    # Nothing left to compact: a second run commits nothing.
    snaps = len(java.snapshots(wh, ident))
    strata.run("compact", ident)
    assert len(java.snapshots(wh, ident)) == snaps
    # Java updates a column of the compacted range; SQL CALL sys.compact merges it back.
    update(ident, ["b"], [{"id": 3, "b": 333}])
    strata.run("sql", "-e", f"CALL sys.compact(table => '{ident}')")
    assert _last_kind(java, wh, ident) == "COMPACT"
    update(theirs, ["b"], [{"id": 3, "b": 333}])
    java.call("Paimon2RowTracking.compactEvolution", warehouse=_abs(wh), table=theirs)
    assert _files(java, wh, ident) == _files(java, wh, theirs)
    assert _java_tracked(java, wh, ident) == _java_tracked(java, wh, theirs)
    assert '"b":333' in "".join(java.read(wh, ident))


def test_java_compacts_strata_written_data_evolution_table(java, strata, wh, tmp_path):
    """strata writes rows and columns of a data-evolution table, Java compacts it, strata reads
    the same rows with the same row ids; strata compacts after more writes, Java reads."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ident = "db.dew"
    java.create_table(wh, ident, _evolution_schema())
    for n, rows in enumerate(([{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(0, 3)],
                              [{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(3, 6)])):
        f = tmp_path / f"rows-{n}.jsonl"
        f.write_text("".join(json.dumps(r) + "\n" for r in rows))
        strata.write(ident, [str(f)])
    rid = {json.loads(x)["id"]: json.loads(x)["_ROW_ID"] for x in _java_tracked(java, wh, ident)}

    def strata_update(changes, n=[0]):
        n[0] += 1
        table = {"_ROW_ID": pa.array([rid[c["id"]] for c in changes], pa.int64()),
                 "b": pa.array([c["b"] for c in changes], pa.int32())}
        f = tmp_path / f"update-{n[0]}.parquet"
        pq.write_table(pa.table(table), f)
        strata.run("update-columns", ident, str(f))

    strata_update([{"id": 1, "b": 10}, {"id": 4, "b": 40}])
    before = _java_tracked(java, wh, ident)
    res = java.call("Paimon2RowTracking.compactEvolution", warehouse=_abs(wh), table=ident)
    assert res["tasks"] == 1, res
    after = _java_tracked(java, wh, ident)
    assert sorted(strata.read_lines(ident, columns=TRACKED)) == after
    assert [json.loads(x)["_ROW_ID"] for x in after] == [json.loads(x)["_ROW_ID"] for x in before]
    files = _files(java, wh, ident)
    assert [(f[2], f[3], f[4]) for f in files] == [(6, 0, ())], files
    # strata appends, updates and compacts; Java reads the result.
    f = tmp_path / "more.jsonl"
    f.write_text(json.dumps({"id": 6, "dt": "p", "a": "a6", "b": 6}) + "\n")
    strata.write(ident, [str(f)])
    rid[6] = 6
    strata_update([{"id": 6, "b": 66}, {"id": 0, "b": 0}])
    strata.run("compact", ident)
    assert _last_kind(java, wh, ident) == "COMPACT"
    files = _files(java, wh, ident)
    assert [(f[2], f[3], f[4], f[7]) for f in files] == [(7, 0, (), "APPEND")], files
    got = _java_tracked(java, wh, ident)
    assert sorted(strata.read_lines(ident, columns=TRACKED)) == got
    assert {json.loads(x)["id"]: (json.loads(x)["b"], json.loads(x)["_ROW_ID"]) for x in got} == \
        {0: (0, 0), 1: (10, 1), 2: (2, 2), 3: (3, 3), 4: (40, 4), 5: (5, 5), 6: (66, 6)}


def _dv_schema() -> dict:
    return {
        "fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
                   {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
                   {"id": 2, "name": "v", "type": "INT"}],
        "partitionKeys": ["dt"], "primaryKeys": [],
        "options": {"bucket": "-1", "deletion-vectors.enabled": "true",
                    "compaction.min.file-num": "2"},
    }


def _dv_index(java, wh, ident):
    return java.call("Paimon2AppendCompact.dvIndex", warehouse=_abs(wh), table=ident)["indexFiles"]


def test_strata_compacts_append_table_with_deletion_vectors(java, strata, wh, tmp_path):
    """Java deletes rows of an append table with deletion vectors; strata compacts: the live
    rows are rewritten, the vectors of the rewritten files leave the index in the same commit;
    Java reads the rows, deletes more and compacts; strata reads what Java did."""
    ident = "db.dv"
    java.create_table(wh, ident, _dv_schema())
    model = {}
    for n in range(3):
        rows = ([{"id": n * 10 + i, "dt": "a", "v": n} for i in range(5)]
                + [{"id": 500 + n, "dt": "b", "v": n}])
        java.write(wh, ident, rows)
        model.update({r["id"]: r for r in rows})

    def want():
        return sorted(json.dumps(model[i], separators=(",", ":")) for i in model)

    res = java.call("Paimon2AppendCompact.deleteRows", warehouse=_abs(wh), table=ident,
                    ids=[1, 12, 13, 501])
    assert res["deleted"] == 4, res
    for i in (1, 12, 13, 501):
        del model[i]
    assert java.read(wh, ident) == want()
    assert sorted(strata.read_lines(ident)) == want()
    index = _dv_index(java, wh, ident)
    assert sorted(len(f["vectors"]) for f in index) == [1, 2], index
    files_before = {f["fileName"] for f in java.files(wh, ident)}
    theirs = _copy_table(wh, ident, "dv_java")

    strata.run("compact", ident)
    assert _last_kind(java, wh, ident) == "COMPACT"
    assert java.read(wh, ident) == want()
    assert sorted(strata.read_lines(ident)) == want()
    # Java's coordinator on the copy picks and rewrites the same: the files holding vectors are
    # compacted whatever their number (the one file of 501 rewritten to nothing), the other
    # small files when there are two or more.
    assert java.call("Paimon2RowTracking.compact", warehouse=_abs(wh), table=theirs)["tasks"] == 3

    def shape(table):
        return sorted((f["partition"]["dt"], f["rowCount"], f["level"], f["fileSource"],
                       f["minSequenceNumber"], f["maxSequenceNumber"])
                      for f in java.files(wh, table))

    assert shape(ident) == shape(theirs), (shape(ident), shape(theirs))
    assert [(f[0], f[1], f[3]) for f in shape(ident)] == \
        [("a", 5, "APPEND"), ("a", 7, "COMPACT"), ("b", 2, "COMPACT")], shape(ident)
    files = java.files(wh, ident)
    assert len(files_before & {f["fileName"] for f in files}) == 1
    assert _dv_index(java, wh, ident) == [] == _dv_index(java, wh, theirs), \
        "vectors of rewritten files must leave the index"
    assert java.read(wh, theirs) == want()

    # Java deletes again (a vector of the new file), writes, and compacts with its coordinator.
    java.call("Paimon2AppendCompact.deleteRows", warehouse=_abs(wh), table=ident, ids=[0, 502])
    del model[0], model[502]
    java.write(wh, ident, [{"id": 900, "dt": "a", "v": 9}])
    model[900] = {"id": 900, "dt": "a", "v": 9}
    assert sorted(strata.read_lines(ident)) == want() == java.read(wh, ident)
    res = java.call("Paimon2RowTracking.compact", warehouse=_abs(wh), table=ident)
    assert res["tasks"] >= 1, res
    assert sorted(strata.read_lines(ident)) == want() == java.read(wh, ident)
    # strata deletes nothing but compacts a file whose vector deletes most of it: a partition
    # with one file left (b) is rewritten because of its delete ratio.
    java.call("Paimon2AppendCompact.deleteRows", warehouse=_abs(wh), table=ident, ids=[500])
    del model[500]
    index = _dv_index(java, wh, ident)
    assert any(f["vectors"] for f in index), index
    strata.run("compact", ident)
    assert _last_kind(java, wh, ident) == "COMPACT"
    assert sorted(strata.read_lines(ident)) == want() == java.read(wh, ident)
    left = {n for f in _dv_index(java, wh, ident) for n in f["vectors"]}
    live = {f["fileName"] for f in java.files(wh, ident)}
    assert left <= live, (left, live)


def _blob_schema() -> dict:
    return {
        "fields": [{"id": 0, "name": "id", "type": "INT"},
                   {"id": 1, "name": "name", "type": "STRING"},
                   {"id": 2, "name": "payload", "type": "BLOB"}],
        "partitionKeys": [], "primaryKeys": [],
        "options": {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
                    "blob.target-file-size": "200 b", "compaction.min.file-num": "2"},
    }


def test_strata_compacts_data_evolution_table_with_blob_columns_as_java(java, strata, wh):
    """A data-evolution table with a BLOB column (Java writes it: Parquet files of the other
    columns, ``.blob`` files of the BLOBs): strata's compaction merges the Parquet files of
    contiguous ranges into one of ``id, name`` (``writeCols``) and leaves the ``.blob`` files,
    as Java's ``DataEvolutionNormalCompactTask`` without ``blob-compaction.enabled`` does on a
    copy; Java reads the same rows, BLOBs included."""
    ident = "db.de_blob"
    java.create_table(wh, ident, _blob_schema())
    for ids in (range(0, 4), range(4, 9)):
        rows = [{"id": i, "name": f"n{i}",
                 "payload": None if i % 4 == 3 else bytes((i * 31 + k) % 256
                                                         for k in range(i * 29)).hex()}
                for i in ids]
        java.call("Paimon2Blob.write", warehouse=_abs(wh), table=ident, rows=rows)

    def rows(table):
        return sorted(json.dumps(r, sort_keys=True) for r in
                      java.call("Paimon2Blob.read", warehouse=_abs(wh), table=table)["rows"])

    def files(table):
        return sorted((f["fileName"].endswith(".blob"), f["rowCount"], f["firstRowId"],
                       tuple(f["writeCols"] or ()), f["minSequenceNumber"],
                       f["maxSequenceNumber"], f["level"], f["fileSource"])
                      for f in java.call("Paimon2Blob.files", warehouse=_abs(wh),
                                         table=table)["files"])

    want = rows(ident)
    blobs_before = sorted(f["fileName"] for f in java.call(
        "Paimon2Blob.files", warehouse=_abs(wh), table=ident)["files"]
        if f["fileName"].endswith(".blob"))
    assert len(blobs_before) >= 2, blobs_before
    theirs = _copy_table(wh, ident, "de_blob_java")
    strata.run("compact", ident)
    assert _last_kind(java, wh, ident) == "COMPACT"
    assert java.call("Paimon2RowTracking.compactEvolution", warehouse=_abs(wh),
                     table=theirs)["tasks"] == 1
    assert files(ident) == files(theirs), f"strata\n{files(ident)}\nJava\n{files(theirs)}"
    data = [f for f in files(ident) if not f[0]]
    assert [(f[1], f[2], f[3]) for f in data] == [(9, 0, ("id", "name"))], data
    assert sorted(f["fileName"] for f in java.call(
        "Paimon2Blob.files", warehouse=_abs(wh), table=ident)["files"]
        if f["fileName"].endswith(".blob")) == blobs_before
    assert rows(ident) == want == rows(theirs)


def test_strata_compacts_data_evolution_table_with_deletion_vectors_as_java(java, strata, wh):
    """A data-evolution table with deletion vectors (Java deletes rows: vectors on the ranges'
    anchor files): strata compacts without applying them (rows and row ids stay) and moves each
    anchor's vector to the new file, shifted to its range, as Java's
    ``DataEvolutionCompactDeletionVectorRewriter`` does on a copy: the same files, the same
    index shape, the same rows and ``_ROW_ID``s read by Java."""
    ident = "db.de_dv"
    schema = _evolution_schema()
    schema["options"]["deletion-vectors.enabled"] = "true"
    java.create_table(wh, ident, schema)
    for rows in ([{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(0, 4)],
                 [{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(4, 7)],
                 [{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(7, 9)]):
        java.write(wh, ident, rows)
    rid = {json.loads(x)["id"]: json.loads(x)["_ROW_ID"] for x in _java_tracked(java, wh, ident)}
    java.call("Paimon2RowTracking.updateColumns", warehouse=_abs(wh), table=ident,
              columns=["b"], rows=[{"id": 5, "b": 500, "_ROW_ID": rid[5]}])
    res = java.call("Paimon2AppendCompact.deleteRows", warehouse=_abs(wh), table=ident,
                    ids=[1, 5, 6, 8])
    assert res["deleted"] == 4, res
    want = java.read(wh, ident)
    assert sorted(json.loads(x)["id"] for x in want) == [0, 2, 3, 4, 7]
    theirs = _copy_table(wh, ident, "de_dv_java")

    strata.run("compact", ident)
    assert _last_kind(java, wh, ident) == "COMPACT"
    assert java.call("Paimon2AppendCompact.compactEvolution", warehouse=_abs(wh),
                     table=theirs)["tasks"] == 1
    assert _files(java, wh, ident) == _files(java, wh, theirs)
    assert [(f[2], f[3]) for f in _files(java, wh, ident)] == [(9, 0)]

    def index(table):
        return sorted(sorted(f["vectors"].values()) for f in _dv_index(java, wh, table))

    assert index(ident) == index(theirs) == [[4]], (index(ident), index(theirs))
    live = {f["fileName"] for f in java.files(wh, ident)}
    assert {n for f in _dv_index(java, wh, ident) for n in f["vectors"]} <= live
    assert java.read(wh, ident) == want == java.read(wh, theirs)
    assert _java_tracked(java, wh, ident) == _java_tracked(java, wh, theirs)


def test_strata_compacts_fixed_bucket_append_table_with_deletion_vectors_as_java(java, strata, wh):
    """A fixed-bucket append table with deletion vectors (Java deletes rows: one index file per
    bucket, ``BucketedAppendDeleteFileMaintainer``): ``strata compact --full`` rewrites each
    bucket as Java's ``BucketedAppendCompactManager`` with a ``BucketedDvMaintainer`` does on a
    copy (files after the leading big ones without a vector), the deleted rows dropped and
    each bucket's index file rewritten without the compacted files' vectors."""
    ident = "db.dv_fixed"
    schema = _dv_schema()
    schema["options"] = {"bucket": "2", "bucket-key": "id", "deletion-vectors.enabled": "true",
                         "write-only": "true"}
    java.create_table(wh, ident, schema)
    for n in range(3):
        java.write(wh, ident, [{"id": n * 10 + i, "dt": "a", "v": n} for i in range(6)])
    java.call("Paimon2AppendCompact.deleteRows", warehouse=_abs(wh), table=ident,
              ids=[0, 1, 12, 13, 14, 25])
    want = java.read(wh, ident)
    assert len(want) == 12
    theirs = _copy_table(wh, ident, "dv_fixed_java")
    strata.run("compact", ident, "--full")
    assert _last_kind(java, wh, ident) == "COMPACT"
    java.compact(wh, theirs, options={"write-only": "false"})

    def shape(table):
        return sorted((f["bucket"], f["rowCount"], f["level"], f["fileSource"],
                       f["minSequenceNumber"], f["maxSequenceNumber"])
                      for f in java.files(wh, table))

    def index(table):
        return sorted((f["bucket"], sorted(f["vectors"].values())) for f in _dv_index(java, wh, table))

    assert shape(ident) == shape(theirs), (shape(ident), shape(theirs))
    assert index(ident) == index(theirs), (index(ident), index(theirs))
    assert java.read(wh, ident) == want == java.read(wh, theirs)
    assert sorted(strata.read_lines(ident)) == want


def test_strata_compacts_row_tracking_table_with_deletion_vectors_as_java(java, strata, wh):
    """A row-tracking table (no data evolution) with deletion vectors: Java writes and deletes
    rows; strata compacts one copy, Java's ``AppendCompactCoordinator`` + ``compactRewrite``
    (read type ``rowTypeWithRowTracking``, vectors applied) the other: the same files
    (``firstRowId`` null, ``_ROW_ID`` / ``_SEQUENCE_NUMBER`` stored, ``writeCols``, rows, level,
    sequence numbers), no vector left, the same snapshot ``nextRowId``, and the same live rows
    with the same ``_ROW_ID``s read by Java and strata; Java then writes and compacts on."""
    ident = "db.rt_dv"
    schema = _evolution_schema()
    del schema["options"]["data-evolution.enabled"]
    schema["options"]["deletion-vectors.enabled"] = "true"
    java.create_table(wh, ident, schema)
    for n in range(3):
        java.write(wh, ident, [{"id": n * 10 + i, "dt": "p", "a": f"a{n}", "b": i}
                               for i in range(4)] + [{"id": 500 + n, "dt": "q", "a": "q", "b": n}])
    before = _java_tracked(java, wh, ident)
    res = java.call("Paimon2AppendCompact.deleteRows", warehouse=_abs(wh), table=ident,
                    ids=[1, 12, 13, 501])
    assert res["deleted"] == 4, res
    want = [x for x in before if json.loads(x)["id"] not in (1, 12, 13, 501)]
    assert _java_tracked(java, wh, ident) == want
    assert sorted(strata.read_lines(ident, columns=TRACKED)) == want
    theirs = _copy_table(wh, ident, "rt_dv_java")

    def next_row_id(table):
        snaps = java.call("Paimon2RowTracking.meta", warehouse=_abs(wh), table=table)["snapshots"]
        return snaps[-1]["nextRowId"], snaps[-1]["commitKind"]

    assert next_row_id(ident)[0] == 15
    strata.run("compact", ident)
    assert java.call("Paimon2RowTracking.compact", warehouse=_abs(wh), table=theirs)["tasks"] >= 1
    assert next_row_id(ident) == next_row_id(theirs) == (15, "COMPACT")
    assert _files(java, wh, ident) == _files(java, wh, theirs)
    compacted = [f for f in _files(java, wh, ident) if f[7] == "COMPACT"]
    assert compacted and all(f[3] is None and f[4] == tuple(TRACKED) for f in compacted), compacted
    assert _dv_index(java, wh, ident) == [] == _dv_index(java, wh, theirs)
    assert _java_tracked(java, wh, ident) == want == _java_tracked(java, wh, theirs)
    assert sorted(strata.read_lines(ident, columns=TRACKED)) == want
    # Java deletes a row of the compacted file (ids stored in it), writes, compacts on.
    java.call("Paimon2AppendCompact.deleteRows", warehouse=_abs(wh), table=ident, ids=[0])
    java.write(wh, ident, [{"id": 900, "dt": "p", "a": "z", "b": 9}])
    java.call("Paimon2RowTracking.compact", warehouse=_abs(wh), table=ident)
    got = _java_tracked(java, wh, ident)
    assert [x for x in got if json.loads(x)["id"] != 900] == \
        [x for x in want if json.loads(x)["id"] != 0]
    assert [json.loads(x)["_ROW_ID"] for x in got if json.loads(x)["id"] == 900] == [15]
    assert sorted(strata.read_lines(ident, columns=TRACKED)) == got
