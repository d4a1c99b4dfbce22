"""Direction (a): tables written by pypaimon and by pypaimon-rust, read by ``strata read``.

strata's rows (via ``--format parquet``) must equal the shape's expected rows, which both reference
readers are checked to return first (so a failure here with the oracle assertion passing is strata's).
"""
import pytest

from interop_support import engines
from interop_support.canonical import assert_same_rows
from interop_support.datagen import SHAPES
from interop_support.flows import assert_oracles_read, build_foreign

pytestmark = pytest.mark.cli_read


@pytest.mark.parametrize("writer", engines.WRITERS)
@pytest.mark.parametrize("shape_name", sorted(SHAPES))
def test_strata_reads_foreign_table(writer, shape_name, wh, strata):
    shape = SHAPES[shape_name]
    ident = f"db.{shape_name}"
    build_foreign(writer, wh, ident, shape)
    expected = shape.expected_lines()
    assert_oracles_read(wh, ident, expected)
    assert_same_rows(strata.read_lines(ident), expected, f"strata read of {ident} written by {writer}")


@pytest.mark.parametrize("writer", engines.WRITERS)
def test_strata_reads_column_types_like_oracle(writer, wh, strata):
    """The Parquet strata emits carries the Arrow types the reference readers use, up to the
    representation choices that do not change values (binary width, list item name, field metadata)."""
    shape = SHAPES["types"]
    build_foreign(writer, wh, "db.types", shape)
    got = strata.read_arrow("db.types").schema
    want = engines.read_pypaimon(wh, "db.types").schema
    assert got.names == want.names
    for name in want.names:
        g, w = got.field(name).type, want.field(name).type
        if str(w) in ("binary",):
            assert str(g) in ("binary", "large_binary", "binary_view") or str(g).startswith("fixed_size_binary"), name
        elif str(w).startswith("timestamp"):
            assert (g.unit, g.tz is not None) == (w.unit, w.tz is not None), f"{name}: {g} vs {w}"
        else:
            assert _shape_of(g) == _shape_of(w), f"column {name}: strata {g} vs pypaimon {w}"


def _shape_of(t):
    """Type description ignoring list item names, nullability flags and string/binary views."""
    import pyarrow as pa
    if pa.types.is_map(t):
        return ("map", _shape_of(t.key_type), _shape_of(t.item_type))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return ("list", _shape_of(t.value_type))
    if pa.types.is_struct(t):
        return ("struct", tuple((t.field(i).name, _shape_of(t.field(i).type)) for i in range(t.num_fields)))
    if pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view":
        return "string"
    return str(t)


def test_strata_reads_mixed_writer_history(wh, strata):
    """One table, commits by pypaimon, pypaimon-rust, pypaimon: strata reads them all."""
    shape = SHAPES["part_string"]
    engines.create_table(wh, "db.mixed", shape.schema, shape.partition_keys, shape.options)
    for writer, data in zip(("pypaimon", "pypaimon-rust", "pypaimon"), shape.commits):
        engines.write(writer, wh, "db.mixed", data)
    expected = shape.expected_lines()
    assert_oracles_read(wh, "db.mixed", expected)
    assert_same_rows(strata.read_lines("db.mixed"), expected, "strata read of mixed-writer table")


@pytest.mark.parametrize("writer", engines.WRITERS)
def test_strata_reads_empty_table(writer, wh, strata):
    """A created table without snapshots reads as zero rows with the table's columns."""
    shape = SHAPES["flat_types"]
    engines.create_table(wh, "db.empty", shape.schema, shape.partition_keys, shape.options)
    t = strata.read_arrow("db.empty")
    assert t.num_rows == 0
    assert t.column_names == shape.schema.names
