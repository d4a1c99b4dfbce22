"""Append tables between strata and Java Paimon 1.4.2 / 2.0.0, both directions.

* strata writes a shape (unaware and fixed bucket, partitioned by STRING/INT/DATE/two keys, NULL
  partitions) -> Java reads every snapshot; Java writes it -> strata reads every snapshot; both
  list the same live files (partition, bucket, level, name, sizes, sequence numbers).
* INSERT OVERWRITE (whole table, dynamic partitions, static partition, whole table with
  ``dynamic-partition-overwrite=false``) by one engine over the other's table.
* Alternating writers on one table: appends and overwrites by strata and Java in turn, both
  reading the model after every commit.

Expected rows come from the shapes' input rows with overwrites applied (``apply_overwrite``).
"""
from __future__ import annotations

import pyarrow as pa
import pytest

from interop_support import warehouse
from interop_support.datagen import SHAPES, part_string_rows, shape_schema_json
from interop_support.java_flows import (apply_overwrite, assert_both_read, assert_same_files, create,
                                        lines_of, write)
from interop_support.java_oracle import java  # noqa: F401  (fixture)

pytestmark = pytest.mark.java

SHAPE_NAMES = ["plain", "multi_commit", "part_string", "part_int", "part_date", "part_two_keys",
               "bucket_fixed", "bucket_fixed_part", "bucket_unaware", "many_rows"]


def _build(writer, strata, java, inputs, shape, ident="db.t"):
    create(writer, strata, java, ident, shape_schema_json(shape))
    for data in shape.commits:
        write(writer, strata, java, ident, data, inputs)


@pytest.mark.parametrize("shape_name", SHAPE_NAMES)
@pytest.mark.parametrize("writer", ["strata", "java"])
def test_round_trip(java, strata, inputs, writer, shape_name):
    """One engine writes the shape commit by commit; both read every snapshot; same files."""
    shape = SHAPES[shape_name]
    _build(writer, strata, java, inputs, shape)
    n = len(shape.commits)
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == list(range(1, n + 1))
    assert_both_read(strata, java, "db.t", shape.expected_lines())
    if n > 1:
        for sid in range(1, n):
            assert_both_read(strata, java, "db.t", shape.expected_after(sid), snapshot=sid)
    files = assert_same_files(strata, java, "db.t")
    assert sum(f["rowCount"] for f in files) == shape.all_rows().num_rows
    assert {f["level"] for f in files} == {0}
    if "bucket" in shape.options and shape.options["bucket"] != "-1":
        assert {f["bucket"] for f in files} <= set(range(int(shape.options["bucket"])))
    else:
        assert {f["bucket"] for f in files} == {0}


# (shape, options, overwrite, new rows)
OVERWRITES = {
    "whole": ("multi_commit", {}, True, lambda s: s.commits[1].slice(0, 2)),
    "dynamic": ("part_string", {}, True,
                lambda s: part_string_rows(["2024-01-02", "2024-01-02", None], [100, 101, 102], "new")),
    "static": ("part_string", {}, {"dt": "2024-01-01"},
               lambda s: part_string_rows(["2024-01-01"] * 2, [200, 201], "new")),
    "non_dynamic_whole": ("part_string", {"dynamic-partition-overwrite": "false"}, True,
                          lambda s: part_string_rows(["2024-01-03"], [300], "new")),
    "fixed_bucket_dynamic": ("bucket_fixed_part", {}, True,
                             lambda s: s.commits[1].filter(pa.compute.equal(s.commits[1]["dt"], "p1"))),
}


@pytest.mark.parametrize("mode", sorted(OVERWRITES))
@pytest.mark.parametrize("base,over", [("strata", "java"), ("java", "strata")])
def test_overwrite(java, strata, inputs, base, over, mode):
    """``base`` builds the table, ``over`` overwrites it; both read the overwritten rows and, by
    time travel, the rows before."""
    shape_name, options, overwrite, new_rows = OVERWRITES[mode]
    shape = SHAPES[shape_name]
    doc = shape_schema_json(shape)
    doc["options"].update(options)
    create(base, strata, java, "db.t", doc)
    model = None
    for data in shape.commits:
        write(base, strata, java, "db.t", data, inputs)
        model = apply_overwrite(model, data, shape.partition_keys, None)
    before = lines_of(model)
    new = new_rows(shape)
    write(over, strata, java, "db.t", new, inputs, overwrite=overwrite)
    dynamic = options.get("dynamic-partition-overwrite", "true") == "true"
    model = apply_overwrite(model, new, shape.partition_keys, overwrite, dynamic=dynamic)
    n = len(shape.commits)
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == list(range(1, n + 2))
    assert warehouse.snapshot_json(strata.warehouse, "db.t", n + 1)["commitKind"] == "OVERWRITE"
    assert_both_read(strata, java, "db.t", lines_of(model))
    assert_both_read(strata, java, "db.t", before, snapshot=n)
    assert_same_files(strata, java, "db.t")


STEPS = [
    ("strata", 0, None),
    ("java", 1, None),
    ("strata", 2, True),                  # dynamic: the partitions of commit 2
    ("java", 0, "static"),                # a static partition
    ("java", 1, None),
    ("strata", 2, None),
    ("java", 2, True),
    ("strata", 1, "static"),
]


@pytest.mark.parametrize("shape_name", ["part_string", "bucket_fixed_part", "bucket_unaware"])
def test_alternating_writers(java, strata, inputs, shape_name):
    """strata and Java take turns appending and overwriting one table; after every commit both
    read the model, and at the end every earlier snapshot."""
    shape = SHAPES[shape_name]
    create("java" if shape_name == "bucket_unaware" else "strata", strata, java, "db.t", shape_schema_json(shape))
    model, history = None, []
    for n, (writer, commit, overwrite) in enumerate(STEPS):
        data = shape.commits[commit % len(shape.commits)]
        if overwrite == "static":
            # the partition of the commit's last non-NULL row, and only its rows
            key = shape.partition_keys[0]
            value = [v for v in data[key].to_pylist() if v is not None][-1]
            overwrite = {key: value}
            data = data.filter(pa.compute.equal(data[key], value))
        write(writer, strata, java, "db.t", data, inputs, overwrite=overwrite)
        model = apply_overwrite(model, data, shape.partition_keys, overwrite)
        history.append(lines_of(model))
        assert_both_read(strata, java, "db.t", history[-1], what=f" after step {n + 1} ({writer})")
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == list(range(1, len(STEPS) + 1))
    for sid, expected in enumerate(history, start=1):
        assert_both_read(strata, java, "db.t", expected, snapshot=sid)
    assert_same_files(strata, java, "db.t")
