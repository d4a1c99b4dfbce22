"""Row tracking (issue 31 item 1) between strata and Java Paimon 2.0.0.

A ``row-tracking.enabled`` table (append, ``bucket = -1``) gets its row ids at commit: each new
file's ``firstRowId`` from the snapshot's ``nextRowId`` (Java's ``RowTrackingCommitUtils``, files
grouped by partition in ``HashMap`` order), new files' sequence numbers stamped with the snapshot
id; ``_ROW_ID`` / ``_SEQUENCE_NUMBER`` are read through Java's ``t$row_tracking``
(``RowTrackingTable``, oracle ``Paimon2RowTracking.rows``) and strata's reads of the two columns
(``strata read --columns ...,_ROW_ID,_SEQUENCE_NUMBER`` and SQL ``t$row_tracking``).  Writers
alternate on one table (strata, Java, Java's compaction as Flink's ``AppendTableCompactor`` runs
it, which stores the row ids in the compacted files, strata overwrite, strata compaction); after every step
both read the same rows with the same ids, ids stay what they were when first assigned, and the
files' ``firstRowId`` / sequence numbers and the snapshots' ``nextRowId`` agree.  Plain append
tables (unaware and fixed bucket) compacted by strata are read, written and compacted on by Java.
"""
from __future__ import annotations

import json

import pytest

from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

COLUMNS = ["id", "dt", "v", "_ROW_ID", "_SEQUENCE_NUMBER"]


def _schema() -> dict:
    return {
        "fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
                   {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
                   {"id": 2, "name": "v", "type": "INT"}],
        "partitionKeys": ["dt"], "primaryKeys": [],
        "options": {"bucket": "-1", "row-tracking.enabled": "true"},
    }


def _rows(ids, dt, v):
    return [{"id": i, "dt": dt, "v": v} for i in ids]


def _strata_write(strata, tmp_path, ident, rows, overwrite=False, n=[0]):
    n[0] += 1
    f = tmp_path / f"rows-{n[0]}.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    strata.write(ident, [str(f)], overwrite=overwrite, partition={"dt": rows[0]["dt"]} if overwrite else None)


def _java_rows(java, wh, ident, columns=COLUMNS):
    res = java.call("Paimon2RowTracking.rows", warehouse=_abs(wh), table=ident)
    assert res["columns"] == columns, res["columns"]
    return sorted(res["rows"])


def _tracked(lines):
    """id -> (_ROW_ID, _SEQUENCE_NUMBER) of canonical lines."""
    out = {}
    for line in lines:
        r = json.loads(line)
        out[r["id"]] = (r["_ROW_ID"], r["_SEQUENCE_NUMBER"])
    return out


def _strata_meta(strata, ident):
    files = {}
    for f in strata.json_lines("sql", "--format", "jsonl", "-e",
                               f"SELECT file_path, record_count, first_row_id, write_cols, "
                               f"min_sequence_number, max_sequence_number FROM {ident}$files"):
        name = f["file_path"].rsplit("/", 1)[1]
        files[name] = (f["record_count"], f["first_row_id"], f["write_cols"],
                       f["min_sequence_number"], f["max_sequence_number"])
    snaps = {s["snapshot_id"]: s["next_row_id"] for s in strata.json_lines(
        "sql", "--format", "jsonl", "-e", f"SELECT snapshot_id, next_row_id FROM {ident}$snapshots")}
    return files, snaps


def _java_meta(java, wh, ident):
    res = java.call("Paimon2RowTracking.meta", warehouse=_abs(wh), table=ident)
    files = {f["fileName"]: (f["rowCount"], f["firstRowId"], f["writeCols"], f["minSequenceNumber"],
                             f["maxSequenceNumber"]) for f in res["files"]}
    snaps = {s["id"]: s["nextRowId"] for s in res["snapshots"]}
    return files, snaps


def _check(java, strata, wh, ident, want_ids, what):
    """Both read the same rows; row ids are unique, below nextRowId and those of ``want_ids``
    (id -> _ROW_ID of rows seen before); the metadata agrees.  Returns id -> (_ROW_ID, seq)."""
    got_java = _java_rows(java, wh, ident)
    got_strata = sorted(strata.read_lines(ident, columns=COLUMNS))
    assert got_strata == got_java, f"{what}: strata reads\n{got_strata}\nJava reads\n{got_java}"
    tracked = _tracked(got_java)
    row_ids = [r for r, _ in tracked.values()]
    assert len(set(row_ids)) == len(row_ids), f"{what}: duplicate row ids {sorted(row_ids)}"
    for i, rid in want_ids.items():
        if i in tracked:
            assert tracked[i][0] == rid, f"{what}: row {i} had _ROW_ID {rid}, now {tracked[i][0]}"
    ours, theirs = _strata_meta(strata, ident), _java_meta(java, wh, ident)
    assert ours == theirs, f"{what}: strata metadata\n{ours}\nJava metadata\n{theirs}"
    files, snaps = theirs
    next_row_id = snaps[max(snaps)]
    assert all(r < next_row_id for r in row_ids), (what, row_ids, next_row_id)
    for name, (rows, first, write_cols, lo, hi) in files.items():
        assert (first is None) == (write_cols is not None), (what, name, first, write_cols)
        if write_cols is not None:  # a compacted file stores the row ids
            assert write_cols[-2:] == ["_ROW_ID", "_SEQUENCE_NUMBER"], (what, name, write_cols)
    return tracked


def test_row_ids_both_ways_through_writes_and_compactions(java, strata, wh, tmp_path):
    ident = "db.rt"
    java.create_table(wh, ident, _schema())
    ids: dict = {}
    steps = [
        ("java", _rows(range(0, 3), "a", 1) + _rows(range(3, 5), "b", 1) + _rows([5], "c", 1)),
        ("strata", _rows(range(10, 12), "b", 2) + _rows(range(12, 15), "c", 2)
         + _rows([15], "a", 2) + _rows([16], "d", 2)),
        ("java", _rows([20, 21], "d", 3)),
        ("java-compact", None),
        ("strata", _rows([30, 31], "a", 4)),
        ("java", _rows([40], "b", 5)),
        ("java-compact", None),
        ("strata-overwrite", _rows([50, 51], "c", 6)),
        ("java", _rows([60], "c", 7)),
    ]
    for i, (who, rows) in enumerate(steps):
        what = f"step {i} ({who})"
        if who == "java":
            java.write(wh, ident, rows)
        elif who == "strata":
            _strata_write(strata, tmp_path, ident, rows)
        elif who == "strata-overwrite":
            _strata_write(strata, tmp_path, ident, rows, overwrite=True)
        else:
            res = java.call("Paimon2RowTracking.compact", warehouse=_abs(wh), table=ident)
            assert res["tasks"] >= 1, res
        tracked = _check(java, strata, wh, ident, ids, what)
        if who == "java-compact":
            # Compaction keeps every row's id and sequence number.
            assert tracked == before, f"{what}: ids changed by compaction"
        before = tracked
        ids.update({k: rid for k, (rid, _) in tracked.items()})
    # After the overwrite of partition c, its old rows are gone and the new ones got new ids.
    assert 12 not in before and {50, 51} <= set(before)
    assert before[50][0] > ids[21]
    # SQL's t$row_tracking reads the same rows.
    sql = strata.json_lines("sql", "--format", "jsonl", "-e",
                            f'SELECT id, "_ROW_ID", "_SEQUENCE_NUMBER" FROM {ident}$row_tracking')
    assert {r["id"]: (r["_ROW_ID"], r["_SEQUENCE_NUMBER"]) for r in sql} == before


def test_commit_assigns_ids_as_java_for_the_same_commit(java, strata, wh, tmp_path):
    """The same multi-partition commit, by Java into one table and by strata into another: the
    files get the same ``firstRowId`` per partition (Java's partition grouping), the same
    sequence numbers, and the snapshots the same ``nextRowId``."""
    commits = [
        _rows(range(0, 2), "x", 1) + _rows(range(2, 5), "y", 1) + _rows([5], "z", 1)
        + _rows([6, 7], "w", 1) + _rows([8], "a", 1),
        _rows([9], "z", 2) + _rows([10, 11], "b", 2) + _rows([12], "x", 2),
    ]
    java.create_table(wh, "db.by_java", _schema())
    strata.create_table("db.by_strata", _schema())
    for rows in commits:
        java.write(wh, "db.by_java", rows)
        _strata_write(strata, tmp_path, "db.by_strata", rows)

    def by_partition(table):
        res = java.call("Paimon2RowTracking.meta", warehouse=_abs(wh), table=table)
        files = sorted((json.dumps(f["partition"]), f["rowCount"], f["firstRowId"],
                        f["minSequenceNumber"], f["maxSequenceNumber"]) for f in res["files"])
        return files, [(s["id"], s["nextRowId"]) for s in res["snapshots"]]

    assert by_partition("db.by_strata") == by_partition("db.by_java")
    # Row by row: the same ids for the same rows.
    assert _java_rows(java, wh, "db.by_strata") == _java_rows(java, wh, "db.by_java")
    assert sorted(strata.read_lines("db.by_java", columns=COLUMNS)) == \
        _java_rows(java, wh, "db.by_java")


def test_row_tracking_rules_match_java(java, strata, wh):
    """Java's ``SchemaValidation`` rules: strata refuses what Java refuses."""
    pk = dict(_schema(), primaryKeys=["id", "dt"])
    r = strata.create_table("db.pk", pk, check=False)
    assert r.returncode != 0 and "primary key" in r.stderr, r.stderr
    fixed = _schema()
    fixed["options"] = dict(fixed["options"], bucket="2", **{"bucket-key": "id"})
    r = strata.create_table("db.fixed", fixed, check=False)
    assert r.returncode != 0 and "bucket = -1" in r.stderr, r.stderr
    with pytest.raises(Exception, match="row tracking"):
        java.create_table(wh, "db.fixed", fixed)


def _evolution_schema() -> dict:
    return {
        "fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
                   {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
                   {"id": 2, "name": "a", "type": "STRING"},
                   {"id": 3, "name": "b", "type": "INT"}],
        "partitionKeys": ["dt"], "primaryKeys": [],
        "options": {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true"},
    }


def test_data_evolution_java_writes_columns_strata_stitches(java, strata, wh, tmp_path):
    """Java writes some columns of existing rows (``withWriteType``, files with ``writeCols``
    and the range's ``firstRowId``, as Flink's ``DataEvolutionPartialWriteOperator``); strata's
    reads stitch them as Java's ``DataEvolutionSplitRead``: the newest file holding a column
    wins, rows equal a model and Java's own read, with and without ``_ROW_ID``."""
    ident = "db.de"
    java.create_table(wh, ident, _evolution_schema())
    model = {}
    for rows in ([{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(0, 4)]
                 + [{"id": 9, "dt": "q", "a": "a9", "b": 9}],
                 [{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(4, 7)]):
        java.write(wh, ident, rows)
        model.update({r["id"]: dict(r) for r in rows})
    tracked_columns = ["id", "dt", "a", "b", "_ROW_ID", "_SEQUENCE_NUMBER"]
    ids = _tracked(_java_rows(java, wh, ident, tracked_columns))
    rid = {i: ids[i][0] for i in ids}

    def update(columns, changes):
        res = java.call("Paimon2RowTracking.updateColumns", warehouse=_abs(wh), table=ident,
                        columns=columns, rows=[dict(c, _ROW_ID=rid[c["id"]]) for c in changes])
        for c in changes:
            model[c["id"]].update({k: c[k] for k in columns})
        return res

    def lines(cols=("id", "dt", "a", "b")):
        return sorted(json.dumps({k: model[i][k] for k in cols}, separators=(",", ":"))
                      for i in model)

    def check(what):
        want = lines()
        assert java.read(wh, ident) == want, f"{what}: Java reads"
        assert sorted(strata.read_lines(ident)) == want, f"{what}: strata reads"
        got = sorted(strata.read_lines(ident, columns=tracked_columns))
        assert got == _java_rows(java, wh, ident, tracked_columns), f"{what}: $row_tracking"

    check("before updates")
    res = update(["b"], [{"id": 1, "b": 100}, {"id": 5, "b": 500}, {"id": 9, "b": None}])
    assert len(res["files"]) == 3, res
    check("after a b update")
    update(["a", "b"], [{"id": 2, "a": "x2", "b": 200}])
    update(["a"], [{"id": 1, "a": "x1"}, {"id": 2, "a": "y2"}])
    check("after three updates")
    files = java.call("Paimon2RowTracking.meta", warehouse=_abs(wh), table=ident)["files"]
    assert sorted(tuple(f["writeCols"]) for f in files if f["writeCols"]) == \
        [("a",), ("a", "b"), ("b",), ("b",), ("b",)], files
    # Filters and projections apply to the stitched rows.
    got = strata.read_lines(ident, columns=["id", "a"], where="b >= 100")
    assert sorted(got) == sorted(json.dumps({"id": i, "a": model[i]["a"]}, separators=(",", ":"))
                                 for i in model if (model[i]["b"] or 0) >= 100), got
    sql = strata.json_lines("sql", "--format", "jsonl", "-e",
                            f"SELECT id, a, b FROM {ident} WHERE id IN (1, 2, 9)")
    assert sorted((r["id"], r["a"], r["b"]) for r in sql) == \
        [(1, "x1", 100), (2, "y2", 200), (9, "a9", None)], sql
    # Statistics must not count a range's rows once per file.
    n = strata.json_lines("sql", "--format", "jsonl", "-e", f"SELECT count(*) AS n FROM {ident}")
    assert n == [{"n": len(model)}], n
    # strata appends whole rows as Java does: new ids, the snapshot id as sequence number.
    more = [{"id": 20, "dt": "p", "a": "n20", "b": 1}, {"id": 21, "dt": "r", "a": "n21", "b": 2}]
    _strata_write(strata, tmp_path, ident, more)
    model.update({r["id"]: dict(r) for r in more})
    check("after strata's insert")
    meta = java.call("Paimon2RowTracking.meta", warehouse=_abs(wh), table=ident)
    last = meta["snapshots"][-1]["id"]
    new = [f for f in meta["files"] if f["minSequenceNumber"] == last]
    assert sorted((f["rowCount"], f["maxSequenceNumber"]) for f in new) == [(1, last), (1, last)], new
    assert meta["snapshots"][-1]["nextRowId"] == meta["snapshots"][-2]["nextRowId"] + 2


def test_data_evolution_strata_writes_columns_java_reads(java, strata, wh, tmp_path):
    """strata writes some columns of existing rows (``strata update-columns``, the library's
    ``Table::update_columns``): one file of those columns per row-id range touched, with the
    range's ``firstRowId`` and ``writeCols``, as Java's partial writer; Java reads the stitched
    rows (its ``DataEvolutionSplitRead``) equal to a model, alternating with Java's updates."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ident = "db.dew"
    java.create_table(wh, ident, _evolution_schema())
    model = {}
    for rows in ([{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(0, 5)],
                 [{"id": i, "dt": "q", "a": f"a{i}", "b": i} for i in range(5, 8)]):
        java.write(wh, ident, rows)
        model.update({r["id"]: dict(r) for r in rows})
    tracked_columns = ["id", "dt", "a", "b", "_ROW_ID", "_SEQUENCE_NUMBER"]
    rid = {i: v[0] for i, v in _tracked(_java_rows(java, wh, ident, tracked_columns)).items()}

    def strata_update(changes, n=[0]):
        n[0] += 1
        cols = [k for k in changes[0] if k != "id"]
        table = {"_ROW_ID": pa.array([rid[c["id"]] for c in changes], pa.int64())}
        for k in cols:
            table[k] = pa.array([c[k] for c in changes], pa.int32() if k == "b" else pa.string())
        f = tmp_path / f"update-{n[0]}.parquet"
        pq.write_table(pa.table(table), f)
        strata.run("update-columns", ident, str(f))
        for c in changes:
            model[c["id"]].update({k: c[k] for k in cols})

    def java_update(columns, changes):
        java.call("Paimon2RowTracking.updateColumns", warehouse=_abs(wh), table=ident,
                  columns=columns, rows=[dict(c, _ROW_ID=rid[c["id"]]) for c in changes])
        for c in changes:
            model[c["id"]].update({k: c[k] for k in columns})

    def check(what):
        want = sorted(json.dumps({k: model[i][k] for k in ("id", "dt", "a", "b")},
                                 separators=(",", ":")) for i in model)
        assert java.read(wh, ident) == want, f"{what}: Java reads"
        assert sorted(strata.read_lines(ident)) == want, f"{what}: strata reads"
        got = sorted(strata.read_lines(ident, columns=tracked_columns))
        assert got == _java_rows(java, wh, ident, tracked_columns), f"{what}: $row_tracking"

    strata_update([{"id": 1, "b": 10}, {"id": 3, "b": None}, {"id": 6, "b": 60}])
    check("strata updated b")
    java_update(["a"], [{"id": 1, "a": "j1"}, {"id": 7, "a": "j7"}])
    check("Java updated a")
    strata_update([{"id": 1, "a": "s1", "b": 11}, {"id": 2, "a": "s2", "b": 22}])
    check("strata updated a, b")
    # SQL UPDATE writes only the assigned column of the selected rows.
    strata.run("sql", "-e", f"UPDATE {ident} SET b = b + 1000 WHERE a LIKE 's%' OR id = 7")
    for i in (1, 2, 7):
        model[i]["b"] = model[i]["b"] + 1000
    check("SQL UPDATE")
    meta = java.call("Paimon2RowTracking.meta", warehouse=_abs(wh), table=ident)
    partial = [f for f in meta["files"] if f["writeCols"]]
    assert sorted(tuple(f["writeCols"]) for f in partial) == \
        [("a",), ("a",), ("a", "b"), ("b",), ("b",), ("b",), ("b",)], partial
    bases = {f["firstRowId"]: f["rowCount"] for f in meta["files"] if not f["writeCols"]}
    for f in partial:
        # Each covers a whole range, stamped with the snapshot that wrote it.
        assert bases[f["firstRowId"]] == f["rowCount"], f
        assert f["minSequenceNumber"] == f["maxSequenceNumber"] and f["fileSource"] == "APPEND", f
    # The snapshots' nextRowId never moves for column writes.
    assert {s["nextRowId"] for s in meta["snapshots"][1:]} == {8}, meta["snapshots"]
    # Java compacts the ranges (DataEvolutionCompactCoordinator): one file per range, the same
    # rows and ids; strata then writes a column again, and Java reads it.
    res = java.call("Paimon2RowTracking.compactEvolution", warehouse=_abs(wh), table=ident)
    assert res["tasks"] >= 1, res
    check("after Java's data-evolution compaction")
    strata_update([{"id": 4, "b": 44}])
    check("strata updated b after the compaction")
    # A row id no range holds is refused, nothing committed.
    f = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"_ROW_ID": pa.array([99], pa.int64()), "b": pa.array([1], pa.int32())}), f)
    r = strata.run("update-columns", ident, str(f), check=False)
    assert r.returncode != 0 and "_ROW_ID 99" in r.stderr, r.stderr
    check("after the refused update")


def _compactable_schema() -> dict:
    s = _schema()
    s["options"] = dict(s["options"], **{"compaction.min.file-num": "2"})
    return s


def _last_kind(java, wh, ident):
    return java.snapshots(wh, ident)[-1]["commitKind"]


def test_strata_compacts_java_written_row_tracking_table(java, strata, wh, tmp_path):
    """strata compacts a row-tracking table Java wrote (Java's ``AppendCompactCoordinator``
    picking, the row ids stored in the new files); Java then reads the same ``_ROW_ID`` and
    ``_SEQUENCE_NUMBER`` for every row, and writers and compactors alternate: strata write, Java
    compact, strata compact (over files holding stored ids), Java write."""
    ident = "db.rt_compact"
    java.create_table(wh, ident, _compactable_schema())
    ids: dict = {}
    for n in range(3):
        java.write(wh, ident, _rows(range(n * 3, n * 3 + 3), "a", n) + _rows([100 + n], "b", n))
    before = _check(java, strata, wh, ident, ids, "Java wrote")
    steps = [
        ("strata-compact", None),
        ("strata", _rows([20, 21], "a", 7) + _rows([22], "b", 7)),
        ("java-compact", None),
        ("strata", _rows([30], "a", 8)),
        ("strata", _rows([31], "a", 9)),
        ("strata-compact", None),
        ("java", _rows([40, 41], "a", 10)),
    ]
    for i, (who, rows) in enumerate(steps):
        what = f"step {i} ({who})"
        ids.update({k: rid for k, (rid, _) in before.items()})
        if who == "java":
            java.write(wh, ident, rows)
        elif who == "strata":
            _strata_write(strata, tmp_path, ident, rows)
        elif who == "java-compact":
            assert java.call("Paimon2RowTracking.compact", warehouse=_abs(wh), table=ident)["tasks"] >= 1
        else:
            strata.run("compact", ident)
            assert _last_kind(java, wh, ident) == "COMPACT", what
        tracked = _check(java, strata, wh, ident, ids, what)
        if who.endswith("compact"):
            assert tracked == before, f"{what}: ids changed by compaction"
        before = tracked
    assert {40, 41} <= set(before) and before[40][0] > max(ids.values())


def _append_schema(options: dict) -> dict:
    return {
        "fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
                   {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
                   {"id": 2, "name": "v", "type": "INT"}],
        "partitionKeys": ["dt"], "primaryKeys": [],
        "options": dict({"compaction.min.file-num": "3"}, **options),
    }


@pytest.mark.parametrize("options", [{"bucket": "-1", "file-index.bloom-filter.columns": "v"},
                                     {"bucket": "2", "bucket-key": "id", "write-only": "true"}],
                         ids=["unaware", "fixed"])
def test_strata_compacts_java_append_table(java, strata, wh, tmp_path, options):
    """strata compacts a plain append table Java wrote (unaware bucket: small files per
    partition, fixed bucket: ``BucketedAppendCompactManager``'s picking); Java reads the same rows,
    sees fewer files, writes and compacts on; strata reads what Java wrote after."""
    ident = "db.app_" + options["bucket"].replace("-", "m")
    java.create_table(wh, ident, _append_schema(options))
    model = []
    for n in range(4):
        rows = _rows(range(n * 10, n * 10 + 10), "a", n) + _rows([500 + n], "b", n)
        java.write(wh, ident, rows)
        model += rows
    files_before = len(java.files(wh, ident))
    strata.run("compact", ident)
    assert _last_kind(java, wh, ident) == "COMPACT"
    files_after = java.files(wh, ident)
    assert len(files_after) < files_before, (files_before, files_after)
    want = sorted(strata.read_lines(ident))
    assert len(want) == len(model)
    assert java.read(wh, ident) == want
    assert sorted(json.loads(line)["id"] for line in want) == sorted(r["id"] for r in model)
    # Java writes on and compacts, strata reads what Java wrote; strata compacts again.
    java.write(wh, ident, _rows([900, 901], "a", 9))
    if options["bucket"] == "-1":  # Java's unaware-bucket writers never compact: its coordinator
        assert java.call("Paimon2RowTracking.compact", warehouse=_abs(wh), table=ident)["tasks"] >= 1
    else:
        java.compact(wh, ident, options={"write-only": "false"})
    assert _last_kind(java, wh, ident) == "COMPACT"
    assert sorted(strata.read_lines(ident)) == java.read(wh, ident)
    _strata_write(strata, tmp_path, ident, _rows([902], "a", 9))
    strata.run("compact", ident, "--full")
    got = java.read(wh, ident)
    assert sorted(strata.read_lines(ident)) == got and len(got) == len(model) + 3
