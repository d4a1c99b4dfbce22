"""CLI conveniences and error behaviour: warehouse resolution (--warehouse, $STRATA_WAREHOUSE,
./warehouse), create-table --if-not-exists, failures that must exit non-zero without committing,
and ``strata demo``."""
import json
import re
from pathlib import Path

import pyarrow as pa
import pytest

from interop_support import warehouse
from interop_support.datagen import SHAPES, shape_schema_json, write_input
from interop_support.flows import assert_oracles_read
from interop_support.strata_cli import Strata

pytestmark = pytest.mark.cli_misc


def _no_panic(p):
    assert "panicked" not in p.stderr, f"strata panicked instead of reporting an error:\n{p.stderr}"


def test_warehouse_from_env_and_default(strata_bin, tmp_path, inputs):
    shape = SHAPES["plain"]
    schema_file = tmp_path / "s.json"
    schema_file.write_text(json.dumps(shape_schema_json(shape)))
    data = write_input(shape.commits[0], "parquet", inputs / "d.parquet")
    env_wh = tmp_path / "env-wh"
    s = Strata(strata_bin, str(env_wh), tmp_path / "scratch")
    env = {"STRATA_WAREHOUSE": str(env_wh)}
    s.run("create-table", "db.t", "--schema", str(schema_file), warehouse=False, env=env)
    s.run("write", "db.t", data, warehouse=False, env=env)
    assert warehouse.snapshot_ids(str(env_wh), "db.t") == [1]
    assert_oracles_read(str(env_wh), "db.t", shape.expected_lines())
    # no flag, no env: ./warehouse under the working directory
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    s.run("create-table", "db.t", "--schema", str(schema_file), warehouse=False, cwd=cwd)
    s.run("write", "db.t", data, warehouse=False, cwd=cwd)
    assert warehouse.snapshot_ids(str(cwd / "warehouse"), "db.t") == [1]
    assert_oracles_read(str(cwd / "warehouse"), "db.t", shape.expected_lines())


def test_create_table_twice(strata):
    schema = shape_schema_json(SHAPES["part_int"])
    strata.create_table("db.t", schema)
    assert (Path(strata.warehouse) / "db.db").is_dir(), "create-table must create the database"
    p = strata.create_table("db.t", schema, check=False)
    assert p.returncode != 0 and p.stderr.strip(), "creating an existing table must fail"
    _no_panic(p)
    strata.create_table("db.t", schema, if_not_exists=True)
    assert warehouse.schema_ids(strata.warehouse, "db.t") == [0]
    assert_oracles_read(strata.warehouse, "db.t", [])


def test_read_missing_table_fails(strata):
    p = strata.run("read", "db.nope", "--format", "jsonl", check=False)
    assert p.returncode != 0 and p.stderr.strip()
    _no_panic(p)


@pytest.mark.cli_write
def test_write_failures_commit_nothing(strata, inputs, tmp_path):
    shape = SHAPES["plain"]
    strata.create_table("db.t", shape_schema_json(shape))
    good = write_input(shape.commits[0], "parquet", inputs / "good.parquet")
    bad_ext = tmp_path / "data.txt"
    bad_ext.write_text("id\n1\n")
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("id,name,amount,flag\n1,a,1.0,true\nnot-a-number,b,2.0,false\n")
    cases = [
        ["write", "db.nope", good],             # table does not exist
        ["write", "db.t", str(bad_ext)],        # unknown input extension
        ["write", "db.t", str(bad_csv)],        # value that does not parse as BIGINT
        ["write", "db.t", good, str(bad_csv)],  # one bad file in the batch: nothing is committed
        ["write", "db.t", str(tmp_path / "missing.parquet")],
    ]
    for args in cases:
        p = strata.run(*args, check=False)
        assert p.returncode != 0, f"`strata {' '.join(map(str, args))}` must fail"
        assert p.stderr.strip(), f"`strata {' '.join(map(str, args))}` must say why"
        _no_panic(p)
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == []
    strata.write("db.t", [good])
    assert_oracles_read(strata.warehouse, "db.t", shape.expected_lines())


@pytest.mark.cli_write
def test_not_null_column_rejects_nulls(strata, inputs):
    shape = SHAPES["flat_types"]          # id INT NOT NULL
    strata.create_table("db.t", shape_schema_json(shape))
    data = shape.commits[0]
    nullable = pa.schema([f.with_nullable(True) for f in data.schema])
    bad = data.cast(nullable).set_column(0, pa.field("id", pa.int32()), pa.array([None] * data.num_rows, pa.int32()))
    p = strata.write("db.t", [write_input(bad, "parquet", inputs / "nulls.parquet")], check=False)
    assert p.returncode != 0 and p.stderr.strip(), "NULL in a NOT NULL column must be rejected"
    _no_panic(p)
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == []


def test_demo(strata):
    """`strata demo` builds a table over several commits and reads it back; the reference engines
    read every demo table exactly as strata does."""
    p = strata.run("demo")
    assert p.stdout.strip(), "demo should print what it did"
    out = p.stdout
    # What sets strata apart, each shown by the demo: an upgrade (same file, new level), a plan
    # served by the live manifest entry cache, a MAP-key filter skipping files.
    upgraded = re.search(r"(\d+) files upgraded in place \(same name", out)
    assert upgraded and int(upgraded.group(1)) > 0, out
    assert re.search(r"upgraded: data-\S+\.parquet \(level 0 -> \d+\)", out), out
    assert "0 manifests read, cache hit" in out, out
    skipped = re.search(r"(\d+) hold no gpu.temp and were skipped", out)
    assert skipped and int(skipped.group(1)) > 0, out
    tables = sorted(d for d in Path(strata.warehouse).glob("*.db/*") if (d / "schema").is_dir())
    assert tables, f"demo created no table under {strata.warehouse}"
    multi = False
    for d in tables:
        ident = f"{d.parent.name[:-3]}.{d.name}"
        multi |= len(warehouse.snapshot_ids(strata.warehouse, ident)) >= 2
        got = strata.read_lines(ident)
        assert got, f"demo table {ident} is empty"
        assert_oracles_read(strata.warehouse, ident, got)
    assert multi, "the demo should commit more than once"
