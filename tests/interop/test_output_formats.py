"""``strata read`` text formats.

jsonl is strata's JSON canonical form and must need no type knowledge to compare: per row one JSON
object with the columns in order; DECIMAL as a string keeping its scale; TIMESTAMP as
"YYYY-MM-DDTHH:MM:SS.ffffff" (TIMESTAMP_LTZ in UTC with a trailing "Z"); DATE "YYYY-MM-DD"; BYTES and
BINARY as "0x" + lowercase hex; MAP as a list of [key, value] pairs; ROW as an object; NaN and
infinities as the strings "NaN", "Infinity", "-Infinity"; NULL as null.  Only row order, map-entry
order and the spelling of numbers may differ from the oracle's canonical lines.
csv and table are checked for shape only (header, row count, values of a plain column).
"""
import csv
import io

import pytest

from interop_support import engines
from interop_support.canonical import assert_same_rows, canonical_json_rows
from interop_support.datagen import SHAPES
from interop_support.flows import build_foreign

pytestmark = pytest.mark.cli_jsonl


@pytest.mark.parametrize("shape_name", ["types", "flat_types", "nested_types", "special_values", "part_date"])
def test_jsonl_is_canonical(shape_name, wh, strata):
    shape = SHAPES[shape_name]
    build_foreign("pypaimon", wh, "db.t", shape)
    schema = engines.read_pypaimon(wh, "db.t").schema
    out = strata.read_text("db.t", "jsonl")
    assert_same_rows(canonical_json_rows(out.splitlines(), schema), shape.expected_lines(),
                     f"strata read --format jsonl of {shape_name}")


def test_jsonl_to_output_file(wh, strata, tmp_path):
    shape = SHAPES["part_string"]
    build_foreign("pypaimon", wh, "db.t", shape)
    out = tmp_path / "out.jsonl"
    strata.run("read", "db.t", "--format", "jsonl", "--output", str(out))
    schema = engines.read_pypaimon(wh, "db.t").schema
    assert_same_rows(canonical_json_rows(out.read_text(encoding="utf-8").splitlines(), schema),
                     shape.expected_lines(), "strata read --format jsonl --output")


def test_csv_output(wh, strata):
    shape = SHAPES["plain"]
    build_foreign("pypaimon", wh, "db.t", shape)
    rows = list(csv.reader(io.StringIO(strata.read_text("db.t", "csv"))))
    assert rows[0] == shape.schema.names
    assert len(rows) == 1 + shape.all_rows().num_rows
    assert sorted(int(r[0]) for r in rows[1:]) == sorted(shape.all_rows()["id"].to_pylist())


def test_table_output(wh, strata):
    shape = SHAPES["plain"]
    build_foreign("pypaimon", wh, "db.t", shape)
    text = strata.read_text("db.t", "table")
    for name in shape.schema.names:
        assert name in text
    for name in shape.all_rows()["name"].to_pylist():
        if name is not None:
            assert name in text


def test_default_format_is_readable(wh, strata):
    """`strata read T` without --format succeeds and prints something for a non-empty table."""
    build_foreign("pypaimon", wh, "db.t", SHAPES["plain"])
    p = strata.run("read", "db.t")
    assert p.stdout.strip()


@pytest.mark.parametrize("fmt", ["csv", "table"])
def test_text_formats_accept_every_type(fmt, wh, strata):
    """csv and table output work on every column type (nested values need some text form)."""
    shape = SHAPES["types"]
    build_foreign("pypaimon", wh, "db.t", shape)
    text = strata.read_text("db.t", fmt)
    for name in shape.table_schema.names:
        assert name in text
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        assert rows[0] == shape.table_schema.names
        assert len(rows) == 1 + shape.all_rows().num_rows
