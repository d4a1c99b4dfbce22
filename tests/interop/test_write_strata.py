"""Direction (b): tables written by ``strata create-table`` + ``strata write`` (input files in
.parquet, .jsonl and .csv generated here) are read by pypaimon and pypaimon-rust with the expected
rows; strata reads its own tables back the same way."""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interop_support import engines, warehouse
from interop_support.canonical import canonical_lines
from interop_support.datagen import SHAPES, shape_schema_json, write_input
from interop_support.flows import assert_all_read, assert_oracles_read, build_strata

pytestmark = pytest.mark.cli_write

CASES = [(name, fmt) for name in sorted(SHAPES) for fmt in SHAPES[name].formats]


@pytest.mark.parametrize("shape_name,fmt", CASES)
def test_oracles_read_strata_table(shape_name, fmt, strata, inputs):
    shape = SHAPES[shape_name]
    ident = f"db.{shape_name}"
    build_strata(strata, ident, shape, fmt, inputs)
    assert warehouse.snapshot_ids(strata.warehouse, ident) == list(range(1, len(shape.commits) + 1)), \
        "one snapshot per strata write call"
    assert_all_read(strata, ident, shape.expected_lines())


@pytest.mark.parametrize("shape_name", ["types", "part_two_keys", "bucket_fixed_part"])
def test_schema_with_explicit_field_ids(shape_name, strata, inputs):
    """--schema documents that carry field ids (like a copied schema-N file) are accepted."""
    shape = SHAPES[shape_name]
    build_strata(strata, "db.t", shape, "parquet", inputs, with_ids=True)
    assert_all_read(strata, "db.t", shape.expected_lines())


def test_schema_file_copied_from_pypaimon_table(wh, strata, inputs, tmp_path):
    """A schema-0 file written by pypaimon, used verbatim as --schema, creates an equivalent table."""
    shape = SHAPES["types"]
    engines.create_table(str(tmp_path / "other"), "db.src", shape.table_schema, shape.partition_keys,
                         shape.options)
    doc = warehouse.schema_json(str(tmp_path / "other"), "db.src", 0)
    strata.create_table("db.copy", doc)
    for n, data in enumerate(shape.commits):
        strata.write("db.copy", [write_input(data, "parquet", inputs / f"c{n}.parquet")])
    assert_all_read(strata, "db.copy", shape.expected_lines())


def test_strata_schema_file_is_well_formed(strata):
    """strata's schema-0 declares the requested fields with unique ids and a correct highestFieldId."""
    shape = SHAPES["types"]
    strata.create_table("db.t", shape_schema_json(shape))
    doc = warehouse.schema_json(strata.warehouse, "db.t", 0)
    assert doc["id"] == 0
    assert [f["name"] for f in doc["fields"]] == shape.table_schema.names
    ids = []

    def walk(fields):
        for f in fields:
            ids.append(f["id"])
            t = f["type"]
            while isinstance(t, dict):
                if t["type"].startswith("ROW"):
                    walk(t["fields"])
                    break
                t = t.get("element") or t.get("value")
    walk(doc["fields"])
    assert len(ids) == len(set(ids)), f"duplicate field ids {ids}"
    assert doc["highestFieldId"] == max(ids)
    assert doc["partitionKeys"] == [] and doc["primaryKeys"] == []
    assert doc["options"].get("metadata.stats-mode") == "full"


def test_one_commit_for_many_files_of_mixed_formats(strata, inputs):
    """`strata write T a.parquet b.jsonl c.csv` is a single commit with all rows."""
    shape = SHAPES["part_string"]
    strata.create_table("db.t", shape_schema_json(shape))
    files = [write_input(data, fmt, inputs / f"in{n}.{fmt}")
             for n, (data, fmt) in enumerate(zip(shape.commits, ("parquet", "jsonl", "csv")))]
    strata.write("db.t", files)
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == [1]
    assert_all_read(strata, "db.t", shape.expected_lines())


def test_input_columns_matched_by_name(strata, inputs):
    """Input files whose columns come in another order than the table's are matched by name."""
    shape = SHAPES["flat_types"]
    strata.create_table("db.t", shape_schema_json(shape))
    data = shape.commits[0]
    reordered = data.select(list(reversed(data.column_names)))
    files = [write_input(reordered, fmt, inputs / f"rev.{fmt}") for fmt in ("parquet", "jsonl", "csv")]
    for f in files:
        strata.write("db.t", [f])
    assert_all_read(strata, "db.t", sorted(canonical_lines(data) * 3))


def test_fixed_bucket_assignment_matches_reference(strata, inputs, tmp_path):
    """strata puts every row in the bucket pypaimon and pypaimon-rust choose for it (same hash of
    the bucket-key BinaryRow), for an INT key and a two-column (INT, STRING) key."""
    for shape_name in ("bucket_fixed", "bucket_fixed_part"):
        shape = SHAPES[shape_name]
        ident = f"db.{shape_name}"
        build_strata(strata, ident, shape, "parquet", inputs)
        placements = {"strata": _placement(strata.warehouse, ident)}
        for writer in engines.WRITERS:
            other = str(tmp_path / f"wh-{writer}-{shape_name}")
            engines.create_table(other, ident, shape.table_schema, shape.partition_keys, shape.options)
            for data in shape.commits:
                engines.write(writer, other, ident, data)
            placements[writer] = _placement(other, ident)
        assert placements["pypaimon"] == placements["pypaimon-rust"], "reference writers disagree"
        diff = sorted(set(placements["strata"]) ^ set(placements["pypaimon"]))
        assert not diff, f"{shape_name}: (partition dir, bucket, id) differing from pypaimon: {diff[:20]}"


def _placement(wh, ident):
    out = []
    for f in warehouse.data_files_on_disk(wh, ident):
        rel = f.relative_to(warehouse.table_dir(wh, ident))
        part = "/".join(rel.parts[:-2])
        bucket = rel.parts[-2]
        # ParquetFile, not read_table: read_table would add hive-style columns from the path
        for i in pq.ParquetFile(f).read(columns=["id"])["id"].to_pylist():
            out.append((part, bucket, i))
    return sorted(out)


def test_strata_appends_to_foreign_table(wh, strata, inputs):
    """strata commits on top of a history written by pypaimon and pypaimon-rust."""
    shape = SHAPES["part_string"]
    engines.create_table(wh, "db.t", shape.schema, shape.partition_keys, shape.options)
    engines.write("pypaimon", wh, "db.t", shape.commits[0])
    engines.write("pypaimon-rust", wh, "db.t", shape.commits[1])
    strata.write("db.t", [write_input(shape.commits[2], "parquet", inputs / "c2.parquet")])
    assert warehouse.snapshot_ids(wh, "db.t") == [1, 2, 3]
    assert_all_read(strata, "db.t", shape.expected_lines())
    for sid in (1, 2, 3):
        assert_oracles_read(wh, "db.t", shape.expected_after(sid), snapshot=sid)


def test_empty_strata_table_reads_empty(strata):
    shape = SHAPES["part_date"]
    strata.create_table("db.t", shape_schema_json(shape))
    assert_oracles_read(strata.warehouse, "db.t", [])
    assert strata.read_arrow("db.t").num_rows == 0


def test_wide_input_to_narrow_table_is_rejected_or_projected(strata, inputs):
    """An input file with an extra column not in the table: strata either rejects it (non-zero exit)
    or ignores the extra column; it must never commit garbage."""
    shape = SHAPES["plain"]
    strata.create_table("db.t", shape_schema_json(shape))
    data = shape.commits[0].append_column("extra", pa.array(["x"] * shape.commits[0].num_rows))
    p = strata.write("db.t", [write_input(data, "parquet", inputs / "wide.parquet")], check=False)
    if p.returncode == 0:
        assert_all_read(strata, "db.t", shape.expected_lines())
    else:
        assert warehouse.snapshot_ids(strata.warehouse, "db.t") == []
        assert p.stderr.strip(), "a rejected write must say why on stderr"
