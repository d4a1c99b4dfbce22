"""``strata snapshots``, ``files``, ``schema`` and ``list``: one JSON object per line, camelCase keys.

snapshots: compared field by field with the snapshot-N JSON files on disk, for tables written by
  pypaimon, pypaimon-rust and strata; strata's own snapshots must also agree with pypaimon-rust's.
files: compared with the files pypaimon plans for the same table and snapshot (fileName, rowCount,
  fileSize, bucket, level, schemaId, sequence numbers, partition as {column: canonical value}),
  and with the files on disk (the file exists in its bucket-N directory with that size and row count).
schema: the latest schema-N on disk.  list: the databases, and the tables of a database.
"""
import os
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interop_support import engines, warehouse
from interop_support.datagen import SHAPES, shape_schema_json, write_input
from interop_support.flows import build_foreign

pytestmark = pytest.mark.cli_metadata

SNAPSHOT_KEYS = ["id", "schemaId", "commitKind", "commitUser", "commitIdentifier", "timeMillis",
                 "totalRecordCount", "deltaRecordCount"]
FILE_KEYS = ["partition", "bucket", "level", "fileName", "fileSize", "rowCount", "minKey", "maxKey",
             "minSequenceNumber", "maxSequenceNumber", "deleteRowCount", "schemaId", "fileSource"]
COMPARED_FILE_KEYS = ["partition", "bucket", "level", "fileSize", "rowCount", "schemaId",
                      "minSequenceNumber", "maxSequenceNumber"]
WRITERS = engines.WRITERS + ("strata",)
OVERWRITE = pa.table({"dt": ["2024-01-01"], "id": [100], "name": ["over"], "amount": [1.0]},
                     schema=SHAPES["oracle_append"].schema)


def _build(writer, wh, strata, inputs, shape_name="oracle_append", overwrite=True):
    """The shape's commits, then (for oracle_append) an overwrite of dt=2024-01-01."""
    shape = SHAPES[shape_name]
    if writer == "strata":
        strata.create_table("db.t", shape_schema_json(shape))
        for n, data in enumerate(shape.commits):
            strata.write("db.t", [write_input(data, "parquet", inputs / f"c{n}.parquet")])
        if overwrite:
            strata.write("db.t", [write_input(OVERWRITE, "parquet", inputs / "ow.parquet")], overwrite=True,
                         partition={"dt": "2024-01-01"})
    else:
        build_foreign(writer, wh, "db.t", shape)
        if overwrite:
            engines.write(writer, wh, "db.t", OVERWRITE, overwrite={"dt": "2024-01-01"})


@pytest.mark.parametrize("writer", WRITERS)
def test_snapshots_match_disk(writer, wh, strata, inputs):
    _build(writer, wh, strata, inputs)
    got = strata.snapshots("db.t")
    ids = warehouse.snapshot_ids(wh, "db.t")
    assert [s.get("id") for s in got] == ids, f"snapshot ids {[s.get('id') for s in got]} != on disk {ids}"
    for s in got:
        missing = [k for k in SNAPSHOT_KEYS if k not in s]
        assert not missing, f"snapshot {s.get('id')} lacks {missing}: {s}"
        disk = warehouse.snapshot_json(wh, "db.t", s["id"])
        diff = {k: (s[k], disk.get(k)) for k in SNAPSHOT_KEYS if s[k] != disk.get(k)}
        assert not diff, f"snapshot {s['id']}: (strata output, on disk) differ: {diff}"


@pytest.mark.parametrize("writer", WRITERS)
def test_snapshot_counts_match_reference(writer, wh, strata, inputs):
    """Commit kinds and record counts agree with what pypaimon-rust reports, and with the history."""
    _build(writer, wh, strata, inputs)
    got = [{k: s[k] for k in ("id", "commitKind", "totalRecordCount", "deltaRecordCount")}
           for s in strata.snapshots("db.t")]
    ref = [{k: s[k] for k in ("id", "commitKind", "totalRecordCount", "deltaRecordCount")}
           for s in engines.rust_snapshots(wh, "db.t")]
    assert got == ref
    assert [s["commitKind"] for s in got] == ["APPEND", "APPEND", "APPEND", "OVERWRITE"]
    assert [s["totalRecordCount"] for s in got] == [5, 7, 10, 7]
    assert [s["deltaRecordCount"] for s in got] == [5, 2, 3, -3]


def _check_files(strata, wh, snapshot=None):
    got = strata.files("db.t", snapshot=snapshot)
    want = engines.planned_files(wh, "db.t", snapshot=snapshot)
    for f in got:
        missing = [k for k in FILE_KEYS if k not in f]
        assert not missing, f"files entry lacks {missing}: {f}"
    assert sorted(f["fileName"] for f in got) == sorted(f["fileName"] for f in want)
    by_name = {f["fileName"]: f for f in want}
    for f in got:
        ref = by_name[f["fileName"]]
        diff = {k: (f[k], ref[k]) for k in COMPARED_FILE_KEYS if f[k] != ref[k]}
        assert not diff, f"{f['fileName']}: (strata files, pypaimon plan) differ: {diff}"
        assert f["deleteRowCount"] in (0, None, ref["deleteRowCount"]), f
        assert f["fileSource"] in (0, "APPEND"), f"append-table file with fileSource {f['fileSource']!r}"
        paths = warehouse.find_data_file(wh, "db.t", f["fileName"])
        assert len(paths) == 1, f"{f['fileName']} found {len(paths)} times under the table: {paths}"
        assert paths[0].parent.name == f"bucket-{f['bucket']}", paths[0]
        assert os.path.samefile(paths[0], ref["filePath"])
        assert os.path.getsize(paths[0]) == f["fileSize"]
        assert pq.ParquetFile(paths[0]).metadata.num_rows == f["rowCount"]
    return got


@pytest.mark.parametrize("writer", WRITERS)
def test_files_match_plan_and_disk(writer, wh, strata, inputs):
    _build(writer, wh, strata, inputs)
    got = _check_files(strata, wh)
    assert sum(f["rowCount"] for f in got) == warehouse.snapshot_json(wh, "db.t", 4)["totalRecordCount"]
    for sid in (1, 3):
        _check_files(strata, wh, snapshot=sid)


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("shape_name", ["part_date", "part_two_keys", "bucket_fixed_part"])
def test_files_partition_and_bucket(writer, shape_name, wh, strata, inputs):
    """Partition values of DATE/INT/NULL keys and fixed buckets in `files` match the plan."""
    _build(writer, wh, strata, inputs, shape_name, overwrite=False)
    got = _check_files(strata, wh)
    assert sum(f["rowCount"] for f in got) == SHAPES[shape_name].all_rows().num_rows


@pytest.mark.parametrize("writer", WRITERS)
def test_schema_matches_disk(writer, wh, strata, inputs):
    _build(writer, wh, strata, inputs, "types", overwrite=False)
    got = strata.schema("db.t")
    assert len(got) == 1, f"`strata schema` printed {len(got)} objects"
    disk = warehouse.schema_json(wh, "db.t")
    s = got[0]
    assert _norm(s.get("fields")) == _norm(disk["fields"])
    assert s.get("partitionKeys", []) == disk["partitionKeys"]
    assert s.get("primaryKeys", []) == disk["primaryKeys"]
    for k, v in disk["options"].items():
        assert s.get("options", {}).get(k) == v, f"option {k}"


_TYPE_ALIASES = [
    # Paimon accepts several spellings of one type; Java writes the long forms.
    (re.compile(r"^TIMESTAMP_LTZ(\(\d+\))?"), lambda m: f"TIMESTAMP{m.group(1) or '(6)'} WITH LOCAL TIME ZONE"),
    (re.compile(r"^STRING\b"), lambda m: "VARCHAR(2147483647)"),
    (re.compile(r"^BYTES\b"), lambda m: "VARBINARY(2147483647)"),
]


def _norm_type(t: str) -> str:
    t = t.replace(", ", ",")
    for pattern, repl in _TYPE_ALIASES:
        t = pattern.sub(repl, t)
    return t


def _norm(obj, key=None):
    """Compare schema JSON modulo the optional ``nullable: true`` key, type-string spacing and
    type aliases (TIMESTAMP_LTZ(p) = TIMESTAMP(p) WITH LOCAL TIME ZONE, STRING, BYTES)."""
    if isinstance(obj, dict):
        return {k: _norm(v, k) for k, v in obj.items()
                if not (k == "nullable" and v is True) and k not in ("description",)}
    if isinstance(obj, list):
        return [_norm(v) for v in obj]
    if isinstance(obj, str) and key in ("type", "element", "key", "value"):
        return _norm_type(obj)
    return obj


def _strings(objs):
    out = set()

    def walk(v):
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(objs)
    return out


def test_list_databases_and_tables(wh, strata, inputs):
    strata.create_table("sales.orders", shape_schema_json(SHAPES["plain"]))
    strata.create_table("sales.items", shape_schema_json(SHAPES["part_int"]))
    engines.create_table(wh, "other.t", SHAPES["plain"].schema)
    dbs = strata.list()
    assert {"sales", "other"} <= _strings(dbs), dbs
    assert len(dbs) == 2, f"expected one line per database: {dbs}"
    tables = strata.list("sales")
    assert {"orders", "items"} <= {s.split(".")[-1] for s in _strings(tables)}, tables
    assert len(tables) == 2, f"expected one line per table: {tables}"
