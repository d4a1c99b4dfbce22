"""Interleaved writers of deletion-vector and first-row tables through the Python package.

Readers of these tables skip level 0 and do not merge levels: a write is visible once its
level-0 files are compacted up with lookups, and every key must then live in exactly one file
above level 0.  Two writers prepare their commits on the same snapshot (the lookup compaction
runs in ``prepare_commit``), then commit in either order: every key must be read exactly once
with its newest value, by strata and by pypaimon-rust, with no level-0 file left.  Before the
fix the second writer's compaction lost the conflict (its rows read their old values) or
replaced the first writer's deletion vectors (keys read twice).

Also ``compact()`` on a ``write-only`` table compacts with the table's strategy (the option
tells writers not to compact, so that a dedicated compactor does).
"""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])


def batch(ids, tag):
    ids = list(ids)
    return pa.table(
        {"id": pa.array(ids, pa.int64()), "v": pa.array([f"{tag}-{i}" for i in ids])},
        schema=SCHEMA,
    )


def prepare(table, ids, tag):
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(batch(ids, tag))
    return wb, w.prepare_commit()


def read_pairs(data):
    return sorted(zip(data.column("id").to_pylist(), data.column("v").to_pylist()))


def pypaimon_rust_pairs(warehouse, ident):
    from pypaimon_rust.datafusion import PaimonCatalog

    t = PaimonCatalog({"warehouse": os.path.abspath(warehouse)}).get_table(ident)
    rb = t.new_read_builder()
    batches = rb.new_read().read(rb.new_scan().plan().splits())
    return read_pairs(pa.Table.from_batches(batches)) if batches else []


CASES = {
    "dv": {"deletion-vectors.enabled": "true"},
    "first_row": {"merge-engine": "first-row"},
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("layout", ["interleaved", "blocks"])
@pytest.mark.parametrize("a_first", [True, False])
def test_interleaved_writers_every_key_once(catalog, warehouse, case, layout, a_first):
    first_row = case == "first_row"
    table = catalog.create_table(
        "db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1", **CASES[case]}
    )
    table.write(batch(range(200), "base"))
    model = {i: f"base-{i}" for i in range(200)}
    offset = 200 if first_row else 0  # first-row keeps first rows: new keys only
    if layout == "interleaved":
        a_ids = [offset + i for i in range(0, 40, 2)]
        b_ids = [offset + i for i in range(1, 40, 2)]
    else:
        a_ids = [offset + i for i in range(0, 20)]
        b_ids = [offset + i for i in range(100, 120)]
    a = prepare(table, a_ids, "a")
    b = prepare(table, b_ids, "b")
    order = [(a, a_ids, "a"), (b, b_ids, "b")]
    if not a_first:
        order.reverse()
    for (wb, messages), ids, tag in order:
        assert wb.new_commit().commit(messages) is not None
        for i in ids:
            if not (first_row and i in model):
                model[i] = f"{tag}-{i}"
    expected = sorted(model.items())
    got = read_pairs(table.read())
    assert len(got) == len({k for k, _ in got}), "a key is read twice"
    assert got == expected
    assert pypaimon_rust_pairs(warehouse, "db.t") == expected
    levels = table.levels().column("level").to_pylist()
    assert levels and all(level > 0 for level in levels), levels


def test_compact_on_a_write_only_table(catalog):
    table = catalog.create_table(
        "db.wo",
        SCHEMA,
        primary_keys=["id"],
        options={"bucket": "1", "write-only": "true", "num-sorted-run.compaction-trigger": "3"},
    )
    for i in range(6):
        table.write(batch(range(i * 10, i * 10 + 20), f"v{i}"))
    before = read_pairs(table.read())
    report = table.compact()
    assert report["snapshot_id"] is not None, report
    assert report["tasks"], report
    assert read_pairs(table.read()) == before
