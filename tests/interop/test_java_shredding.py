"""PIP-43 shared-shredding MAP columns between strata and Java Paimon 2.0.0 (the first Java
release with them; 1.x has no such layout, so this module runs against 2.0.0 only).

* Java writes shredded append and primary-key tables (``lru``, ``plain`` and ``sequential``
  placement, fewer columns than keys so entries overflow, NULL and empty maps, NULL values);
  strata reads the rows and single keys (``m['k']`` in projections and filters), and finds the
  layout Java wrote in the footers;
* strata writes a shredded table; Java reads the rows;
* both write one primary-key table in turn, Java compacts it fully, strata reads and writes on.

Expected rows come from the input (a model), never from one engine's output.
"""
from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Dict

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import write_input
from interop_support.java_oracle import JavaOracle, JavaOracleError, rows_json

pytestmark = pytest.mark.java

MAP_T = pa.map_(pa.field("key", pa.string(), nullable=False), pa.float64())
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("m", MAP_T)])
SHREDDED = {"fields.m.map.storage-layout": "shared-shredding",
            "fields.m.map.shared-shredding.max-columns": "3"}


@pytest.fixture(scope="module")
def java():
    try:
        oracle = JavaOracle("2.0.0")
    except JavaOracleError as e:
        pytest.fail(str(e), pytrace=False)
    yield oracle
    oracle.close()


def rows(lo: int, hi: int, gen: int = 0) -> pa.Table:
    """Maps of up to 5 of 9 keys (more than the 3 columns: overflow), NULL maps, empty maps and
    NULL values."""
    maps = []
    for i in range(lo, hi):
        if i % 11 == 0:
            maps.append(None)
        elif i % 13 == 0:
            maps.append([])
        else:
            maps.append([(f"k{(i * 7 + j) % 9}", None if (i + j) % 5 == 0 else float(i * 10 + j + gen))
                         for j in range(i % 6)])
    return pa.table({"id": pa.array(range(lo, hi), pa.int64()), "m": pa.array(maps, MAP_T)}, schema=SCHEMA)


def schema_doc(options: Dict[str, str], pk: bool = False) -> dict:
    return {"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "m", "type": "MAP<STRING NOT NULL, DOUBLE>"}],
            "partitionKeys": [], "primaryKeys": ["id"] if pk else [], "options": options}


def footers(wh: str, ident: str):
    db, name = ident.split(".")
    out = []
    for f in sorted(glob.glob(os.path.join(wh, f"{db}.db", name, "**", "data-*.parquet"), recursive=True)):
        field = pq.read_schema(f).field("m")
        out.append({k.decode("latin-1"): v for k, v in (field.metadata or {}).items()})
    return out


def key_values(data: pa.Table, key: str):
    """``id, m[key]`` of every row, as strata's ``--columns id,m['key']`` returns them."""
    out = []
    for r in data.to_pylist():
        m = dict(r["m"]) if r["m"] is not None else None
        out.append({"id": r["id"], "v": None if m is None else m.get(key)})
    return out


@pytest.mark.parametrize("policy", ["lru", "plain", "sequential"])
def test_java_writes_shredded_strata_reads(java, strata, policy):
    ident = "db.t"
    options = {**SHREDDED, "fields.m.map.shared-shredding.column-placement-policy": policy}
    java.create_table(strata.warehouse, ident, schema_doc(options))
    commits = [rows(0, 150), rows(150, 300)]
    for data in commits:
        java.write(strata.warehouse, ident, rows_json(data))
    meta = footers(strata.warehouse, ident)
    assert len(meta) == 2 and all(m.get("paimon.map.storage-layout") == b"shared-shredding" for m in meta), meta
    everything = pa.concat_tables(commits)
    expected = canonical_lines(everything)
    assert_same_rows(java.read(strata.warehouse, ident), expected, f"Java read ({policy})")
    assert_same_rows(strata.read_lines(ident), expected, f"strata read of Java's shredded files ({policy})")
    # Single keys: a projection and a filter on one key read only what they need.
    got = strata.read_arrow(ident, columns=["id", "m['k3']"]).rename_columns(["id", "v"])
    assert sorted(got.to_pylist(), key=lambda r: r["id"]) == key_values(everything, "k3")
    want = [r["id"] for r in key_values(everything, "k5") if r["v"] is not None and r["v"] > 1500]
    got = strata.read_arrow(ident, columns=["id"], where="m['k5'] > 1500")
    assert sorted(got.column("id").to_pylist()) == want


def test_strata_writes_shredded_java_reads(java, strata):
    ident = "db.t"
    strata.create_table(ident, schema_doc(SHREDDED))
    data = rows(0, 400)
    strata.write(ident, [write_input(data, "parquet", Path(strata.scratch) / "in.parquet")])
    meta = footers(strata.warehouse, ident)
    assert meta and all(m.get("paimon.map.shared-shredding.num-columns") == b"3" for m in meta), meta
    expected = canonical_lines(data)
    assert_same_rows(java.read(strata.warehouse, ident), expected, "Java 2.0 read of strata's shredded files")
    assert_same_rows(java.read(strata.warehouse, ident, columns=["m"]), canonical_lines(data.select(["m"])),
                     "Java 2.0 projection of the shredded column")


def test_alternating_writers_on_a_shredded_primary_key_table(java, strata):
    ident = "db.t"
    strata.create_table(ident, schema_doc({**SHREDDED, "bucket": "1"}, pk=True))
    model: Dict[int, dict] = {}

    def commit(writer: str, data: pa.Table) -> None:
        if writer == "strata":
            strata.write(ident, [write_input(data, "parquet", Path(strata.scratch) / f"c{len(model)}.parquet")])
        else:
            java.write(strata.warehouse, ident, rows_json(data))
        for r in data.to_pylist():
            model[r["id"]] = r

    def expected():
        return canonical_lines(pa.Table.from_pylist(list(model.values()), schema=SCHEMA))

    commit("strata", rows(0, 120))
    commit("java", rows(60, 200, gen=1))
    assert_same_rows(strata.read_lines(ident), expected(), "strata read after Java's commit")
    assert_same_rows(java.read(strata.warehouse, ident), expected(), "Java read after both commits")
    java.compact(strata.warehouse, ident, full=True)
    assert_same_rows(strata.read_lines(ident), expected(), "strata read after Java's full compaction")
    commit("strata", rows(150, 260, gen=2))
    strata.run("compact", ident, "--full")
    assert all(m.get("paimon.map.storage-layout") == b"shared-shredding" for m in footers(strata.warehouse, ident))
    assert_same_rows(java.read(strata.warehouse, ident), expected(), "Java read after strata's compaction")
    assert_same_rows(strata.read_lines(ident), expected(), "strata read at the end")
