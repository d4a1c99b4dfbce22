"""The ``operation`` of snapshots (Java Paimon 2.0 ``Snapshot.Operation``) between strata and Java
Paimon 2.0.0.

strata writes it where Java's engines do: ``strata write`` as Spark's INSERT INTO / INSERT
OVERWRITE (WRITE / OVERWRITE, ``PaimonBatchWriteBase``), SQL ``UPDATE`` / ``DELETE`` as Spark's
``UpdatePaimonTableCommand`` / ``DeleteFromPaimonTableCommand``; Java's core batch commit leaves it
null and its ``truncateTable`` / ``truncatePartitions`` write TRUNCATE (``TableCommitImpl``).
Java 2.0 parses strata's values (oracle ``Paimon2SnapshotOperation.operations``), strata's
``$snapshots`` shows Java's, and both read the same rows after the truncations.
"""
from __future__ import annotations

import pyarrow as pa
import pytest

from interop_support.datagen import write_input
from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT"},
               {"id": 1, "name": "v", "type": "STRING"},
               {"id": 2, "name": "dt", "type": "STRING"}],
    "partitionKeys": ["dt"], "primaryKeys": [], "options": {"bucket": "-1"},
}


def _data(rows):
    return pa.table({"id": pa.array([r[0] for r in rows], pa.int32()),
                     "v": pa.array([r[1] for r in rows], pa.string()),
                     "dt": pa.array([r[2] for r in rows], pa.string())})


def test_operations_both_ways(java, strata, wh, inputs):
    ident = "db.ops"
    strata.create_table(ident, SCHEMA)
    f1 = write_input(_data([(1, "a", "d1"), (2, "b", "d2"), (3, "c", "d3")]), "parquet",
                     inputs / "1.parquet")
    f2 = write_input(_data([(4, "d", "d1")]), "parquet", inputs / "2.parquet")
    strata.write(ident, [f1])                                  # 1 WRITE
    strata.write(ident, [f2], overwrite=True)                  # 2 OVERWRITE (dynamic: d1)
    sql = lambda s: strata.json_lines("sql", "--format", "jsonl", "-e", s)  # noqa: E731
    sql(f"UPDATE {ident} SET v = 'x' WHERE id = 2")            # 3 UPDATE
    sql(f"DELETE FROM {ident} WHERE id = 4")                   # 4 DELETE
    java.write(wh, ident, [{"id": 5, "v": "e", "dt": "d1"}])   # 5 Java core commit: null
    java.call("Paimon2SnapshotOperation.truncate", warehouse=_abs(wh), table=ident,
              partitions=[{"dt": "d2"}])                       # 6 TRUNCATE (partition)

    expected = [(1, "APPEND", "WRITE"), (2, "OVERWRITE", "OVERWRITE"), (3, "APPEND", "UPDATE"),
                (4, "APPEND", "DELETE"), (5, "APPEND", None), (6, "OVERWRITE", "TRUNCATE")]
    seen_by_java = [(s["id"], s["commitKind"], s["operation"]) for s in
                    java.call("Paimon2SnapshotOperation.operations", warehouse=_abs(wh), table=ident)]
    assert seen_by_java == expected
    seen_by_strata = [(s["snapshot_id"], s["commit_kind"], s["operation"]) for s in
                      sql(f'SELECT snapshot_id, commit_kind, operation FROM {ident}$snapshots '
                          f'ORDER BY snapshot_id')]
    assert seen_by_strata == expected

    # Both read the same rows after Java's partition truncation.
    assert strata.read_lines(ident) == java.read(wh, ident)
    assert sorted(r["id"] for r in sql(f"SELECT id FROM {ident}")) == [3, 5]

    # strata writes after Java's TRUNCATE of the whole table: the new snapshot is strata's WRITE.
    java.call("Paimon2SnapshotOperation.truncate", warehouse=_abs(wh), table=ident)
    strata.write(ident, [f2])
    tail = java.call("Paimon2SnapshotOperation.operations", warehouse=_abs(wh), table=ident)[-2:]
    assert [(s["commitKind"], s["operation"]) for s in tail] == [("OVERWRITE", "TRUNCATE"),
                                                                ("APPEND", "WRITE")]
    assert sql(f"SELECT id, v, dt FROM {ident}") == [{"id": 4, "v": "d", "dt": "d1"}]
    assert strata.read_lines(ident) == java.read(wh, ident)
