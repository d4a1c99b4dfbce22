"""PIP-43 shared-shredding MAP columns across engines (issue 6).

* strata writes a shredded table; pypaimon-rust 0.4.0 and pypaimon 2.1.0 read the same rows, in the
  same key order as strata (column order, then overflow), and the file carries the footer
  metadata where Java puts it (field metadata inside ``ARROW:schema``).
* pypaimon-rust writes a shredded table; strata reads it.
* A table switched from the default layout to shared-shredding (``ALTER TABLE SET``) holds files of
  both layouts; every engine reads all rows.
"""
import glob
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pypaimon.schema.schema_change import SchemaChange

from interop_support import engines
from interop_support.canonical import assert_same_rows, canonical_lines

pytestmark = pytest.mark.cli_write

MAP_T = pa.map_(pa.field("key", pa.string(), nullable=False), pa.float64())
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("m", MAP_T)])
SHREDDED = {
    "fields.m.map.storage-layout": "shared-shredding",
    "fields.m.map.shared-shredding.max-columns": "3",
}


def rows(lo: int, hi: int) -> pa.Table:
    """Rows with NULL maps, empty maps, NULL values and more keys than K (overflow)."""
    maps = []
    for i in range(lo, hi):
        if i % 11 == 0:
            maps.append(None)
        elif i % 13 == 0:
            maps.append([])
        else:
            n = i % 6
            maps.append([(f"k{(i * 7 + j) % 9}", None if (i + j) % 5 == 0 else float(i * 10 + j))
                         for j in range(n)])
    return pa.table({"id": pa.array(range(lo, hi), pa.int64()), "m": pa.array(maps, MAP_T)},
                    schema=SCHEMA)


def schema_json(options):
    return {"fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
                       {"id": 1, "name": "m", "type": "MAP<STRING NOT NULL, DOUBLE>"}],
            "partitionKeys": [], "primaryKeys": [], "options": options}


def write_input(tmp_path, data: pa.Table, name: str) -> str:
    path = os.path.join(str(tmp_path), name)
    pq.write_table(data, path)
    return path


def ordered(table: pa.Table):
    """id → list of (key, value) in the order the engine returned them."""
    return {r["id"]: r["m"] for r in table.sort_by("id").to_pylist()}


def footers(wh: str, ident: str):
    db, name = ident.split(".")
    out = []
    for f in sorted(glob.glob(os.path.join(wh, f"{db}.db", name, "**", "*.parquet"), recursive=True)):
        field = pq.read_schema(f).field("m")
        out.append({k.decode("latin-1"): v for k, v in (field.metadata or {}).items()})
    return out


def test_strata_writes_shredded_others_read(wh, strata, tmp_path):
    strata.create_table("db.s", schema_json(SHREDDED))
    data = rows(0, 400)
    strata.write("db.s", [write_input(tmp_path, data, "in.parquet")])
    expected = canonical_lines(data)
    for reader in engines.READERS:
        assert_same_rows(canonical_lines(engines.read(reader, wh, "db.s")), expected, f"{reader} read")
    got = strata.read_arrow("db.s")
    assert_same_rows(canonical_lines(got), expected, "strata read")
    # Same key order as pypaimon-rust's reconstruction (column order, then overflow).
    assert ordered(got) == ordered(engines.read("pypaimon-rust", wh, "db.s"))
    meta = footers(wh, "db.s")
    assert meta and all(m.get("paimon.map.storage-layout") == b"shared-shredding" for m in meta)
    assert all(m["paimon.map.shared-shredding.num-columns"] == b"3" for m in meta)
    assert all(m["paimon.map.shared-shredding.version"] == b"1" for m in meta)
    assert all(m["paimon.map.shared-shredding.field-dict-compression"] == b"zstd" for m in meta)
    f = glob.glob(os.path.join(wh, "db.db", "s", "**", "*.parquet"), recursive=True)[0]
    struct = pq.read_schema(f).field("m").type
    assert [struct.field(i).name for i in range(struct.num_fields)] == [
        "__field_mapping", "__col_0", "__col_1", "__col_2", "__overflow"]


@pytest.mark.parametrize("policy", ["plain", "sequential", "lru"])
def test_strata_reads_pypaimon_rust_shredded(wh, strata, policy):
    engines.create_table(wh, "db.r", SCHEMA, options={
        **SHREDDED, "fields.m.map.shared-shredding.column-placement-policy": policy})
    data = rows(0, 300)
    engines.write_rust(wh, "db.r", data.slice(0, 150))
    engines.write_rust(wh, "db.r", data.slice(150))
    expected = canonical_lines(data)
    assert_same_rows(canonical_lines(engines.read_rust(wh, "db.r")), expected, "pypaimon-rust read")
    got = strata.read_arrow("db.r")
    assert_same_rows(canonical_lines(got), expected, "strata read")
    assert ordered(got) == ordered(engines.read_rust(wh, "db.r"))


def test_layout_switch_mixes_files(wh, strata, tmp_path):
    engines.create_table(wh, "db.x", SCHEMA)
    first = rows(0, 100)
    engines.write_pypaimon(wh, "db.x", first)
    engines.alter_table(wh, "db.x", [SchemaChange.set_option(k, v) for k, v in SHREDDED.items()])
    second = rows(100, 250)
    strata.write("db.x", [write_input(tmp_path, second, "second.parquet")])
    third = rows(250, 300)
    engines.write_rust(wh, "db.x", third)
    layouts = [m.get("paimon.map.storage-layout") for m in footers(wh, "db.x")]
    assert None in layouts and b"shared-shredding" in layouts, layouts
    expected = canonical_lines(pa.concat_tables([first, second, third]))
    for reader in engines.READERS:
        assert_same_rows(canonical_lines(engines.read(reader, wh, "db.x")), expected, f"{reader} read")
    assert_same_rows(canonical_lines(strata.read_arrow("db.x")), expected, "strata read")


def test_strata_key_access_on_foreign_shredded_table(wh, strata):
    """``m['k']`` columns and filters on pypaimon-rust's shredded files (selected-key decoding and
    key-predicate pruning) equal the values computed from the written rows."""
    engines.create_table(wh, "db.q", SCHEMA, options=SHREDDED)
    data = rows(0, 300)
    engines.write_rust(wh, "db.q", data.slice(0, 120))
    engines.write_rust(wh, "db.q", data.slice(120))
    want = {}
    for r in data.to_pylist():
        m = dict(r["m"]) if r["m"] is not None else {}
        want[r["id"]] = (m.get("k1"), m.get("k4"))
    got = strata.read_arrow("db.q", columns=["id", "m['k1']", "m['k4']"])
    assert got.column_names == ["id", "m['k1']", "m['k4']"]
    assert {r["id"]: (r["m['k1']"], r["m['k4']"]) for r in got.to_pylist()} == want
    got = strata.read_arrow("db.q", columns=["id"], where="m['k1'] > 1000 OR m['k4'] IS NULL")
    expected = sorted(i for i, (a, b) in want.items() if (a is not None and a > 1000) or b is None)
    assert sorted(got.column("id").to_pylist()) == expected


def skewed_rows(lo: int, hi: int) -> pa.Table:
    """``cpu`` in every row, ``usage`` in half (some present with NULL), and one to three keys of
    a 300-key tail: strata gives cpu and usage dedicated columns and overflows the tail."""
    maps = []
    for i in range(lo, hi):
        m = [("cpu", float(i % 100))]
        if (i * 2654435761) % 7 < 4:
            m.append(("usage", None if i % 97 == 0 else i / 10))
        for j in range(1 + i % 3):
            k = f"t{(i * 131 + j * 17) % 300}"
            if all(k != e[0] for e in m):
                m.append((k, float(j)))
        maps.append(m)
    return pa.table({"id": pa.array(range(lo, hi), pa.int64()), "m": pa.array(maps, MAP_T)},
                    schema=SCHEMA)


def test_dedicated_columns_read_by_all_engines(wh, strata, tmp_path):
    """strata's dedicated columns (frequent keys alone in their column, the tail in
    ``__overflow``) are plain shared-shredding files to the other engines: pypaimon-rust and
    pypaimon read every row, and accept the table with strata's extra option; pypaimon-rust's
    own files (Java placement) in the same table read back in strata, keys included."""
    options = {"fields.m.map.storage-layout": "shared-shredding",
               "fields.m.map.shared-shredding.max-dedicated-columns": "16"}
    strata.create_table("db.d", schema_json(options))
    first = skewed_rows(0, 3000)
    strata.write("db.d", [write_input(tmp_path, first, "in.parquet")])
    [meta] = footers(wh, "db.d")
    assert meta["paimon.map.shared-shredding.num-columns"] == b"2"
    import json
    columns = json.loads(meta["paimon.map.shared-shredding.field-columns"])
    assert sorted(columns.values()) == [[0], [1]], columns
    assert len(json.loads(meta["paimon.map.shared-shredding.overflow-set"])) == 300
    expected = canonical_lines(first)
    for reader in engines.READERS:
        assert_same_rows(canonical_lines(engines.read(reader, wh, "db.d")), expected, f"{reader} read")
    assert ordered(strata.read_arrow("db.d")) == ordered(engines.read("pypaimon-rust", wh, "db.d"))

    second = skewed_rows(3000, 3600)
    engines.write_rust(wh, "db.d", second)
    both = pa.concat_tables([first, second])
    expected = canonical_lines(both)
    assert_same_rows(canonical_lines(strata.read_arrow("db.d")), expected, "strata read")
    for reader in engines.READERS:
        assert_same_rows(canonical_lines(engines.read(reader, wh, "db.d")), expected, f"{reader} read")
    want = {}
    for r in both.to_pylist():
        m = dict(r["m"])
        want[r["id"]] = (m.get("usage"), m.get("t7"))
    got = strata.read_arrow("db.d", columns=["id", "m['usage']", "m['t7']"])
    assert {r["id"]: (r["m['usage']"], r["m['t7']"]) for r in got.to_pylist()} == want
    got = strata.read_arrow("db.d", columns=["id"], where="m['usage'] > 250")
    assert sorted(got.column("id").to_pylist()) == sorted(
        i for i, (u, _) in want.items() if u is not None and u > 250)
