"""Schema evolution: pypaimon alters the table (catalog.alter_table), data is written before and
after, and strata must map every data file to the current schema by field id: renamed columns keep
their values, dropped columns vanish, added columns read NULL in older files, a dropped-then-re-added
name (new field id) never shows the old values.

Timeline of the main scenario (partitioned by dt):
  schema 0: dt STRING, id BIGINT, name STRING, amount DOUBLE          -> commit 1
  schema 1: + extra INT; name renamed to full_name                    -> commit 2
  schema 2: amount (DOUBLE, id 3) dropped; amount STRING added (id 5) -> commit 3
"""
import json

import pyarrow as pa
import pytest

from pypaimon.schema.data_types import AtomicType
from pypaimon.schema.schema_change import SchemaChange

from interop_support import engines, warehouse
from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import write_input
from interop_support.flows import assert_all_read, assert_oracles_read

S0 = pa.schema([("dt", pa.string()), ("id", pa.int64()), ("name", pa.string()), ("amount", pa.float64())])
S1 = pa.schema([("dt", pa.string()), ("id", pa.int64()), ("full_name", pa.string()), ("amount", pa.float64()),
                ("extra", pa.int32())])
S2 = pa.schema([("dt", pa.string()), ("id", pa.int64()), ("full_name", pa.string()), ("extra", pa.int32()),
                ("amount", pa.string())])

C1 = pa.table({"dt": ["a", "b", "a"], "id": [1, 2, 3], "name": ["n1", None, "n3"], "amount": [1.5, 2.5, None]},
              schema=S0)
C2 = pa.table({"dt": ["b", "c"], "id": [4, 5], "full_name": ["n4", "n5"], "amount": [4.5, 5.5],
               "extra": [40, None]}, schema=S1)
C3 = pa.table({"dt": ["a", None], "id": [6, 7], "full_name": ["n6", "n7"], "extra": [60, 70],
               "amount": ["six", None]}, schema=S2)


def _rows(table: pa.Table, schema: pa.Schema, renames=None, dropped=()):
    """``table``'s rows seen through ``schema``: renamed columns carried over, others NULL."""
    renames = renames or {}
    cols = {}
    for f in schema:
        src = renames.get(f.name, f.name)
        if src in table.column_names and f.name not in dropped:
            cols[f.name] = table[src]
        else:
            cols[f.name] = pa.nulls(table.num_rows, f.type)
    return pa.table(cols, schema=schema)


def expected_final(c3=C3):
    return canonical_lines(pa.concat_tables([
        _rows(C1, S2, {"full_name": "name"}, dropped=("amount",)),
        _rows(C2, S2, dropped=("amount",)),
        c3,
    ]))


def expected_at(sid):
    if sid == 1:
        return canonical_lines(C1)
    if sid == 2:
        return canonical_lines(pa.concat_tables([_rows(C1, S1, {"full_name": "name"}), C2]))
    return expected_final()


def alter_1(wh):
    engines.alter_table(wh, "db.ev", [SchemaChange.add_column("extra", AtomicType("INT")),
                                      SchemaChange.rename_column("name", "full_name")])


def alter_2(wh):
    engines.alter_table(wh, "db.ev", [SchemaChange.drop_column("amount")])
    engines.alter_table(wh, "db.ev", [SchemaChange.add_column("amount", AtomicType("STRING"))])


def build(wh, writer):
    engines.create_table(wh, "db.ev", S0, ["dt"], {"metadata.stats-mode": "full"})
    engines.write(writer, wh, "db.ev", C1)
    alter_1(wh)
    engines.write(writer, wh, "db.ev", C2)
    alter_2(wh)
    engines.write(writer, wh, "db.ev", C3)


@pytest.mark.cli_read
@pytest.mark.parametrize("writer", engines.WRITERS)
def test_strata_reads_evolved_table(writer, wh, strata):
    build(wh, writer)
    assert warehouse.schema_ids(wh, "db.ev") == [0, 1, 2, 3]
    assert_all_read(strata, "db.ev", expected_final())
    t = strata.read_arrow("db.ev")
    assert t.column_names == S2.names
    assert str(t.schema.field("amount").type) in ("string", "large_string", "string_view")


@pytest.mark.cli_snapshot
@pytest.mark.parametrize("writer", engines.WRITERS)
def test_strata_time_travel_across_schema_changes(writer, wh, strata):
    """Snapshot N is read with the schema it was committed with (like both reference readers)."""
    build(wh, writer)
    for sid in (1, 2, 3):
        expected = expected_at(sid)
        assert_oracles_read(wh, "db.ev", expected, snapshot=sid)
        assert_same_rows(strata.read_lines("db.ev", snapshot=sid), expected, f"strata --snapshot {sid}")


@pytest.mark.cli_query
@pytest.mark.parametrize("writer", engines.WRITERS)
def test_strata_projects_and_filters_renamed_columns(writer, wh, strata):
    build(wh, writer)
    got = strata.read_lines("db.ev", columns=["full_name", "id"], where="id <= 4")
    rows = [r for r in map(json.loads, expected_final()) if r["id"] <= 4]
    want = sorted(json.dumps({"full_name": r["full_name"], "id": r["id"]}, separators=(",", ":"))
                  for r in rows)
    assert_same_rows(got, want, "strata --columns full_name,id --where 'id <= 4'")


@pytest.mark.cli_write
def test_strata_writes_into_evolved_table(wh, strata, inputs):
    """pypaimon evolves the schema, then strata appends with the latest schema; all engines read
    every file, and strata's new file records the latest schema id."""
    engines.create_table(wh, "db.ev", S0, ["dt"], {"metadata.stats-mode": "full"})
    engines.write("pypaimon", wh, "db.ev", C1)
    alter_1(wh)
    engines.write("pypaimon-rust", wh, "db.ev", C2)
    alter_2(wh)
    strata.write("db.ev", [write_input(C3, "parquet", inputs / "c3.parquet")])
    assert_all_read(strata, "db.ev", expected_final())
    latest = warehouse.schema_ids(wh, "db.ev")[-1]
    files = engines.planned_files(wh, "db.ev")
    new_files = [f for f in files if f["schemaId"] == latest]
    assert sum(f["rowCount"] for f in new_files) == C3.num_rows, files


@pytest.mark.cli_read
@pytest.mark.parametrize("writer", engines.WRITERS)
def test_strata_reads_type_promotion_and_nested_add(writer, wh, strata):
    """INT -> BIGINT and FLOAT -> DOUBLE column type changes, and a field added inside a ROW:
    old files are read with the new types (values converted) and NULL for the new nested field."""
    s = pa.schema([("id", pa.int32()), ("f", pa.float32()), ("r", pa.struct([("x", pa.int32())]))])
    engines.create_table(wh, "db.tp", s)
    engines.write(writer, wh, "db.tp", pa.table({"id": [1, 2], "f": [1.5, None], "r": [{"x": 1}, None]}, schema=s))
    engines.alter_table(wh, "db.tp", [SchemaChange.update_column_type("id", AtomicType("BIGINT"))])
    engines.alter_table(wh, "db.tp", [SchemaChange.update_column_type("f", AtomicType("DOUBLE"))])
    engines.alter_table(wh, "db.tp", [SchemaChange.add_column(["r", "w"], AtomicType("STRING"))])
    s2 = engines.table_arrow_schema(wh, "db.tp")
    engines.write(writer, wh, "db.tp", pa.table({"id": [3], "f": [2.5], "r": [{"x": 3, "w": "w3"}]}, schema=s2))
    expected = ['{"id":1,"f":1.5,"r":{"x":1,"w":null}}', '{"id":2,"f":null,"r":null}',
                '{"id":3,"f":2.5,"r":{"x":3,"w":"w3"}}']
    assert_all_read(strata, "db.tp", expected)
    t = strata.read_arrow("db.tp")
    assert str(t.schema.field("id").type) == "int64" and str(t.schema.field("f").type) == "double"
