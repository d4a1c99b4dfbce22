"""INSERT OVERWRITE, both directions.

strata: ``write --overwrite`` replaces the whole table when unpartitioned; on a partitioned table
with the default ``dynamic-partition-overwrite=true`` only the partitions present in the input;
``--overwrite --partition k=v`` replaces that partition; with ``dynamic-partition-overwrite=false``
``--overwrite`` alone replaces the whole table and ``--partition`` a (possibly partial) spec.
The reference writers' overwrites (``overwrite({...})`` / ``with_overwrite({...})``) are read by strata.
"""
import datetime as dt

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from interop_support import engines, warehouse
from interop_support.canonical import canonical_lines
from interop_support.datagen import (PART_DATE_SCHEMA, PART_INT_SCHEMA, PART_TWO_SCHEMA, SHAPES,
                                     part_string_rows, shape_schema_json, write_input)
from interop_support.flows import assert_all_read

pytestmark = pytest.mark.cli_overwrite


def _keep_not_in(table: pa.Table, col: str, values) -> pa.Table:
    """Rows whose ``col`` is not one of ``values`` (None in ``values`` matches NULL)."""
    mask = pc.is_in(table[col], value_set=pa.array([v for v in values if v is not None],
                                                   type=table.schema.field(col).type))
    mask = pc.fill_null(mask, False)
    if None in values:
        mask = pc.or_(mask, pc.is_null(table[col]))
    return table.filter(pc.invert(mask))


def _setup(strata, inputs, shape, options=None):
    schema = shape_schema_json(shape)
    schema["options"].update(options or {})
    strata.create_table("db.t", schema)
    for n, data in enumerate(shape.commits):
        strata.write("db.t", [write_input(data, "parquet", inputs / f"base{n}.parquet")])
    return pa.concat_tables(shape.commits)


def _last_kind(wh):
    sid = warehouse.snapshot_ids(wh, "db.t")[-1]
    return warehouse.snapshot_json(wh, "db.t", sid)["commitKind"]


@pytest.mark.parametrize("fmt", ["parquet", "jsonl", "csv"])
def test_overwrite_unpartitioned(fmt, strata, inputs):
    shape = SHAPES["multi_commit"]
    before = _setup(strata, inputs, shape)
    new = shape.commits[1].slice(0, 2)
    strata.write("db.t", [write_input(new, fmt, inputs / f"new.{fmt}")], overwrite=True)
    n = len(shape.commits)
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == list(range(1, n + 2))
    assert _last_kind(strata.warehouse) == "OVERWRITE"
    assert_all_read(strata, "db.t", canonical_lines(new))
    assert_all_read(strata, "db.t", canonical_lines(before), snapshot=n)


def test_overwrite_dynamic_partitions(strata, inputs):
    shape = SHAPES["part_string"]
    before = _setup(strata, inputs, shape)
    new = part_string_rows(["2024-01-02", "2024-01-02", None], [100, 101, 102], "new")
    strata.write("db.t", [write_input(new, "parquet", inputs / "new.parquet")], overwrite=True)
    assert _last_kind(strata.warehouse) == "OVERWRITE"
    expected = pa.concat_tables([_keep_not_in(before, "dt", ["2024-01-02", None]), new])
    assert_all_read(strata, "db.t", canonical_lines(expected))


def test_overwrite_static_partition(strata, inputs):
    shape = SHAPES["part_string"]
    before = _setup(strata, inputs, shape)
    new = part_string_rows(["2024-01-01"] * 2, [200, 201], "new")
    strata.write("db.t", [write_input(new, "csv", inputs / "new.csv")], overwrite=True,
                 partition={"dt": "2024-01-01"})
    expected = pa.concat_tables([_keep_not_in(before, "dt", ["2024-01-01"]), new])
    assert_all_read(strata, "db.t", canonical_lines(expected))


def test_overwrite_non_dynamic_replaces_whole_table(strata, inputs):
    shape = SHAPES["part_string"]
    _setup(strata, inputs, shape, {"dynamic-partition-overwrite": "false"})
    new = part_string_rows(["2024-01-02"], [300], "new")
    strata.write("db.t", [write_input(new, "parquet", inputs / "new.parquet")], overwrite=True)
    assert_all_read(strata, "db.t", canonical_lines(new))


def test_overwrite_non_dynamic_partial_partition_spec(strata, inputs):
    """dynamic-partition-overwrite=false, --partition region=eu on a (region, h) table: every
    region=eu partition is replaced, whatever its h."""
    shape = SHAPES["part_two_keys"]
    before = _setup(strata, inputs, shape, {"dynamic-partition-overwrite": "false"})
    new = pa.table({"region": ["eu"], "h": [5], "id": [400], "v": [4.0]}, schema=PART_TWO_SCHEMA)
    strata.write("db.t", [write_input(new, "parquet", inputs / "new.parquet")], overwrite=True,
                 partition={"region": "eu"})
    expected = pa.concat_tables([_keep_not_in(before, "region", ["eu"]), new])
    assert_all_read(strata, "db.t", canonical_lines(expected))


def test_overwrite_int_partition(strata, inputs):
    shape = SHAPES["part_int"]
    before = _setup(strata, inputs, shape)
    new = pa.table({"k": [2, 2], "id": [500, 501], "v": ["x", "y"]}, schema=PART_INT_SCHEMA)
    strata.write("db.t", [write_input(new, "jsonl", inputs / "new.jsonl")], overwrite=True,
                 partition={"k": "2"})
    expected = pa.concat_tables([_keep_not_in(before, "k", [2]), new])
    assert_all_read(strata, "db.t", canonical_lines(expected))


def test_overwrite_date_partition(strata, inputs):
    shape = SHAPES["part_date"]
    before = _setup(strata, inputs, shape)
    new = pa.table({"d": [dt.date(2024, 1, 1)], "id": [600], "v": ["z"]}, schema=PART_DATE_SCHEMA)
    strata.write("db.t", [write_input(new, "parquet", inputs / "new.parquet")], overwrite=True,
                 partition={"d": "2024-01-01"})
    expected = pa.concat_tables([_keep_not_in(before, "d", [dt.date(2024, 1, 1)]), new])
    assert_all_read(strata, "db.t", canonical_lines(expected))


def test_overwrite_fixed_bucket_table(strata, inputs):
    shape = SHAPES["bucket_fixed"]
    _setup(strata, inputs, shape)
    new = shape.commits[0].slice(3, 5)
    strata.write("db.t", [write_input(new, "parquet", inputs / "new.parquet")], overwrite=True)
    assert_all_read(strata, "db.t", canonical_lines(new))


# ---- overwrites written by the reference engines, read by strata ---------------------------------

@pytest.mark.parametrize("writer", engines.WRITERS)
@pytest.mark.parametrize("mode", ["unpartitioned", "dynamic", "static", "static_non_dynamic"])
def test_strata_reads_foreign_overwrite(writer, mode, wh, strata):
    if mode == "unpartitioned":
        shape = SHAPES["multi_commit"]
        options = dict(shape.options)
    else:
        shape = SHAPES["part_string"]
        options = dict(shape.options)
        if mode == "static_non_dynamic":
            options["dynamic-partition-overwrite"] = "false"
    engines.create_table(wh, "db.t", shape.schema, shape.partition_keys, options)
    for data in shape.commits:
        engines.write(writer, wh, "db.t", data)
    before = pa.concat_tables(shape.commits)
    if mode == "unpartitioned":
        new = shape.commits[0].slice(1, 2)
        engines.write(writer, wh, "db.t", new, overwrite={})
        expected = new
    elif mode == "dynamic":
        new = part_string_rows(["2024-01-03", None], [700, 701], "new")
        engines.write(writer, wh, "db.t", new, overwrite={})
        expected = pa.concat_tables([_keep_not_in(before, "dt", ["2024-01-03", None]), new])
    else:
        new = part_string_rows(["2024-01-01"], [800], "new")
        engines.write(writer, wh, "db.t", new, overwrite={"dt": "2024-01-01"})
        expected = pa.concat_tables([_keep_not_in(before, "dt", ["2024-01-01"]), new])
    n = len(shape.commits)
    assert_all_read(strata, "db.t", canonical_lines(expected))
    assert_all_read(strata, "db.t", canonical_lines(before), snapshot=n)
