"""The ``operation`` of snapshots (Java Paimon 2.0 ``Snapshot.Operation``) written from Python:
``Table.write`` is Spark's ``df.write`` (WRITE, or OVERWRITE with ``overwrite=True``), the
pypaimon-style builder commit leaves it null as pypaimon and Java's core API do."""
from __future__ import annotations

from conftest import people, rows


def _operations(table):
    return [(s["commit_kind"], s["operation"]) for s in table.snapshots().to_pylist()]


def test_write_and_overwrite_set_the_operation_builder_commits_none(append_table):
    append_table.write(people([1, 2]))
    append_table.write(people([3]), overwrite=True)
    wb = append_table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(people([4]))
    wb.new_commit().commit(w.prepare_commit())
    assert _operations(append_table) == [
        ("APPEND", "WRITE"), ("OVERWRITE", "OVERWRITE"), ("APPEND", None)]
    assert rows(append_table.read(), "id") == rows(people([3, 4]), "id")
