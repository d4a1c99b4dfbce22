"""MERGE INTO and DELETE on data-evolution tables (issue 31 item 2) between strata and Java Paimon 2.0.0.

A ``data-evolution.enabled`` + ``row-tracking.enabled`` + ``deletion-vectors.enabled`` append table
is changed in turns by strata's SQL (``MERGE INTO`` with matched ``UPDATE`` / ``DELETE`` and not
matched ``INSERT``; ``DELETE FROM``) and by Java (its partial-column writer, oracle
``Paimon2RowTracking.updateColumns``; its data-evolution delete as Spark's
``DeleteFromPaimonTableCommand`` writes it through ``AppendDeleteFileMaintainer``, oracle
``Paimon2DataEvolutionDml.delete``; plain inserts), with compactions by both engines in between
(``strata compact``; Java's ``DataEvolutionCompactCoordinator`` with the vectors moved, oracle
``Paimon2AppendCompact.compactEvolution``).  After every step: Java's read, strata's read and
an independent model agree; every surviving row keeps its ``_ROW_ID``; the files' ``firstRowId`` /
``writeCols`` / sequence numbers and the snapshots' ``nextRowId`` agree as both see them; and the
deletion vectors Java's scan attaches (``Paimon2DataEvolutionDml.vectors``) sit on each range's anchor
file (Java's ``DataEvolutionUtils.retrieveAnchorFile``) at ``_ROW_ID - firstRowId`` of exactly the
deleted rows.  Without deletion vectors, deletes are refused as Java refuses them.
"""
from __future__ import annotations

import json

import pytest

from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

COLUMNS = ["id", "dt", "a", "b"]
TRACKED = COLUMNS + ["_ROW_ID", "_SEQUENCE_NUMBER"]


def _schema(dv: bool = True) -> dict:
    options = {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    if dv:
        options["deletion-vectors.enabled"] = "true"
    return {
        "fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
                   {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
                   {"id": 2, "name": "a", "type": "STRING"},
                   {"id": 3, "name": "b", "type": "INT"}],
        "partitionKeys": ["dt"], "primaryKeys": [],
        "options": options,
    }


def _java_meta(java, wh, ident):
    res = java.call("Paimon2RowTracking.meta", warehouse=_abs(wh), table=ident)
    files = {f["fileName"]: (f["rowCount"], f["firstRowId"], f["writeCols"], f["minSequenceNumber"],
                             f["maxSequenceNumber"]) for f in res["files"]}
    snaps = {s["id"]: s["nextRowId"] for s in res["snapshots"]}
    return files, snaps


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


def _anchor(files, rid):
    """Java's ``retrieveAnchorFile`` for the range holding ``rid``: (file name, firstRowId)."""
    group = [(mx, name, first) for name, (rows, first, _cols, _mn, mx) in files.items()
             if first is not None and first <= rid < first + rows]
    assert group, (rid, files)
    _mx, name, first = min(group)
    return name, first


class Table:
    """One table, its model (id -> row) and the row ids rows got when first written."""

    def __init__(self, java, strata, wh, ident):
        self.java, self.strata, self.wh, self.ident = java, strata, wh, ident
        self.model: dict = {}
        self.rid: dict = {}
        self.deleted_rids: set = set()

    def sql(self, statement: str):
        return self.strata.json_lines("sql", "--format", "jsonl", "-e", statement)

    def java_write(self, rows):
        self.java.write(self.wh, self.ident, rows)
        self.model.update({r["id"]: dict(r) for r in rows})

    def mark_deleted(self, ids):
        for i in ids:
            self.deleted_rids.add(self.rid[i])
            del self.model[i]

    def check(self, what):
        want = sorted(json.dumps({k: self.model[i][k] for k in COLUMNS}, separators=(",", ":"))
                      for i in self.model)
        assert self.java.read(self.wh, self.ident) == want, f"{what}: Java reads"
        assert sorted(self.strata.read_lines(self.ident)) == want, f"{what}: strata reads"
        res = self.java.call("Paimon2RowTracking.rows", warehouse=_abs(self.wh), table=self.ident)
        assert res["columns"] == TRACKED, res["columns"]
        java_tracked = sorted(res["rows"])
        strata_tracked = sorted(self.strata.read_lines(self.ident, columns=TRACKED))
        assert strata_tracked == java_tracked, \
            f"{what}: strata reads\n{strata_tracked}\nJava reads\n{java_tracked}"
        for line in java_tracked:
            r = json.loads(line)
            if r["id"] in self.rid:
                assert r["_ROW_ID"] == self.rid[r["id"]], f"{what}: row {r['id']} moved"
            self.rid[r["id"]] = r["_ROW_ID"]
        ours, theirs = _strata_meta(self.strata, self.ident), _java_meta(self.java, self.wh, self.ident)
        assert ours == theirs, f"{what}: strata metadata\n{ours}\nJava metadata\n{theirs}"
        vectors = self.java.call("Paimon2DataEvolutionDml.vectors", warehouse=_abs(self.wh),
                                 table=self.ident)["vectors"]
        got = {name: set(p) for name, p in vectors.items() if p}
        # Each deleted row in the vector of its range's anchor file, at _ROW_ID - firstRowId.
        want: dict = {}
        for rid in self.deleted_rids:
            name, first = _anchor(theirs[0], rid)
            want.setdefault(name, set()).add(rid - first)
        assert got == want, f"{what}: Java sees deletion vectors {got}, want {want}"


def test_merge_and_delete_both_ways(java, strata, wh):
    t = Table(java, strata, wh, "db.dml")
    java.create_table(wh, t.ident, _schema())
    t.java_write([{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(0, 6)]
                 + [{"id": i, "dt": "q", "a": f"a{i}", "b": i} for i in range(10, 13)])
    t.check("java insert")

    # strata MERGE: update b of 1 and 11, delete 2 (matched with b < 0), insert 20 and 21.
    source = ("SELECT 1 AS id, 'p' AS dt, 100 AS b UNION ALL SELECT 11, 'q', 111 "
              "UNION ALL SELECT 2, 'p', -1 UNION ALL SELECT 20, 'p', 20 UNION ALL SELECT 21, 'r', 21")
    out = t.sql(f"MERGE INTO {t.ident} USING ({source}) s ON {t.ident}.id = s.id "
                f"WHEN MATCHED AND s.b < 0 THEN DELETE "
                f"WHEN MATCHED THEN UPDATE SET b = s.b "
                f"WHEN NOT MATCHED THEN INSERT (id, dt, a, b) VALUES (s.id, s.dt, 'new', s.b)")
    assert out == [{"count": 5}], out
    t.mark_deleted([2])
    t.model[1]["b"], t.model[11]["b"] = 100, 111
    t.model[20] = {"id": 20, "dt": "p", "a": "new", "b": 20}
    t.model[21] = {"id": 21, "dt": "r", "a": "new", "b": 21}
    t.check("strata merge")
    # Only `b` was written for the matched ranges: one file per range, writeCols [b].
    files, _ = _java_meta(java, wh, t.ident)
    partial = sorted((v[1], v[0], v[2]) for v in files.values() if v[2] is not None)
    ranges = sorted({(v[1], v[0]) for v in files.values() if v[2] is None and v[0] > 1})
    assert partial == [(f, n, ["b"]) for f, n in ranges], files

    # Java: a column update of `a`, then its data-evolution delete (merging with strata's vector).
    java.call("Paimon2RowTracking.updateColumns", warehouse=_abs(wh), table=t.ident,
              columns=["a"], rows=[{"_ROW_ID": t.rid[3], "a": "java3"}])
    t.model[3]["a"] = "java3"
    java.call("Paimon2DataEvolutionDml.delete", warehouse=_abs(wh), table=t.ident,
              rowIds=[t.rid[4], t.rid[12]])
    t.mark_deleted([4, 12])
    t.check("java update and delete")

    # strata DELETE FROM over both partitions, reading Java's vectors and extending them.
    out = t.sql(f"DELETE FROM {t.ident} WHERE b = 5 OR id = 10")
    assert out == [{"count": 2}], out
    t.mark_deleted([5, 10])
    t.check("strata delete")

    # Compactions by both engines keep the rows, their ids and the deletions (vectors moved to
    # the compacted files), with Java's and strata's writes in between.
    strata.run("compact", t.ident)
    t.check("strata compact")
    t.java_write([{"id": 40, "dt": "p", "a": "a40", "b": 40}])
    java.call("Paimon2DataEvolutionDml.delete", warehouse=_abs(wh), table=t.ident,
              rowIds=[t.rid[0]])
    t.mark_deleted([0])
    t.check("java delete after strata compact")
    t.sql(f"UPDATE {t.ident} SET b = 41 WHERE id = 40")
    t.model[40]["b"] = 41
    t.check("strata update")
    res = java.call("Paimon2AppendCompact.compactEvolution", warehouse=_abs(wh), table=t.ident)
    assert res["tasks"] >= 1, res
    t.check("java compact")

    # strata UPDATE still writes only the column, and the deleted rows stay deleted.
    t.sql(f"UPDATE {t.ident} SET a = 'u' WHERE id IN (1, 3)")
    t.model[1]["a"] = t.model[3]["a"] = "u"
    t.check("strata update")

    # Java inserts more; strata MERGE deletes what the source does not hold (NOT MATCHED BY SOURCE).
    t.java_write([{"id": 30, "dt": "q", "a": "a30", "b": 30}])
    t.check("java insert again")
    keep = "SELECT 0 AS id UNION ALL SELECT 1 UNION ALL SELECT 30"
    out = t.sql(f"MERGE INTO {t.ident} USING ({keep}) s ON {t.ident}.id = s.id "
                f"WHEN NOT MATCHED BY SOURCE THEN DELETE")
    gone = sorted(i for i in t.model if i not in (0, 1, 30))
    assert out == [{"count": len(gone)}], out
    t.mark_deleted(gone)
    t.check("strata merge not matched by source")


def test_deletes_refused_without_deletion_vectors_as_in_java(java, strata, wh):
    ident = "db.nodv"
    java.create_table(wh, ident, _schema(dv=False))
    java.write(wh, ident, [{"id": 1, "dt": "p", "a": "x", "b": 1}])
    for statement, message in [
        (f"DELETE FROM {ident} WHERE id = 1",
         "Can only perform deletion operation on data evolution tables with DeletionVector enabled"),
        (f"MERGE INTO {ident} USING (SELECT 1 AS id) s ON {ident}.id = s.id WHEN MATCHED THEN DELETE",
         "MERGE INTO DELETE on DataEvolution table requires deletion-vectors.enabled=true"),
    ]:
        r = strata.run("sql", "-e", statement, check=False)
        assert r.returncode != 0 and message in r.stderr, r.stderr
    # MERGE's update and insert need no deletion vectors; Java reads them.
    strata.run("sql", "-e", f"MERGE INTO {ident} USING (SELECT 1 AS id, 7 AS b UNION ALL SELECT 2, 8) s "
                            f"ON {ident}.id = s.id WHEN MATCHED THEN UPDATE SET b = s.b "
                            f"WHEN NOT MATCHED THEN INSERT (id, dt, b) VALUES (s.id, 'p', s.b)")
    assert java.read(wh, ident) == sorted([
        json.dumps({"id": 1, "dt": "p", "a": "x", "b": 7}, separators=(",", ":")),
        json.dumps({"id": 2, "dt": "p", "a": None, "b": 8}, separators=(",", ":")),
    ])


def test_row_id_keyed_merge_read_by_java(java, strata, wh):
    """Spark's backfill form, ``MERGE ... ON t._ROW_ID = s._ROW_ID`` with the source selecting
    ``_ROW_ID`` from the table itself: Java reads the new values, every row keeps its row id and
    the commit adds one file, of the changed column only (``writeCols = [b]``) over the range."""
    t = Table(java, strata, wh, "db.backfill")
    java.create_table(wh, t.ident, _schema())
    t.java_write([{"id": i, "dt": "p", "a": f"a{i}", "b": i} for i in range(0, 5)])
    t.check("java insert")
    before = _java_meta(java, wh, t.ident)[0]
    out = t.sql(f"MERGE INTO {t.ident} t USING (SELECT _ROW_ID, b * 10 AS b FROM {t.ident} WHERE id >= 2) s "
                f"ON t._ROW_ID = s._ROW_ID WHEN MATCHED THEN UPDATE SET t.b = s.b")
    assert out == [{"count": 3}], out
    for i in range(2, 5):
        t.model[i]["b"] = i * 10
    t.check("strata merge by _ROW_ID")
    after = _java_meta(java, wh, t.ident)[0]
    assert set(before) <= set(after), (before, after)
    added = [after[name] for name in set(after) - set(before)]
    assert [(rows, first, cols) for rows, first, cols, _mn, _mx in added] == [(5, 0, ["b"])], added
