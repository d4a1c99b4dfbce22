"""Self-checks that need no strata binary: the reference engines agree with each other and with the
suite's expected rows, the canonical encoding reproduces the oracle's golden files, and the schema
JSON this suite hands to ``strata create-table`` describes the same types pypaimon declares.

If one of these fails, the suite itself (or the oracle environment) is broken, not strata.
"""
import copy
import json
from pathlib import Path

import pytest

from interop_support import engines, warehouse
from interop_support.canonical import assert_same_rows
from interop_support.datagen import SHAPES, shape_oracle_append, shape_schema_json, shape_types
from interop_support.flows import assert_oracles_read, build_foreign

GOLDEN = Path(__file__).parent / "golden"
pytestmark = pytest.mark.oracle


def _golden(name):
    return (GOLDEN / name).read_text(encoding="utf-8").splitlines()


def test_types_rows_match_oracle_golden():
    assert_same_rows(shape_types().expected_lines(), _golden("types_t.jsonl"), "types shape rows")


def test_append_rows_match_oracle_golden():
    assert_same_rows(shape_oracle_append().expected_lines(), _golden("append_t.jsonl"), "oracle_append rows")


@pytest.mark.parametrize("writer", engines.WRITERS)
@pytest.mark.parametrize("shape_name", sorted(SHAPES))
def test_reference_engines_round_trip(writer, shape_name, wh):
    """Each shape written by each reference writer reads back identically in both readers."""
    shape = SHAPES[shape_name]
    ident = f"db.{shape_name}"
    build_foreign(writer, wh, ident, shape)
    assert_oracles_read(wh, ident, shape.expected_lines())
    assert warehouse.snapshot_ids(wh, ident) == list(range(1, len(shape.commits) + 1))


def _strip(obj):
    """Drop field ids and pypaimon's explicit ``nullable: true``; normalize type-string spacing."""
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k != "id" and not (k == "nullable" and v is True)}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    if isinstance(obj, str):
        return obj.replace(", ", ",")
    return obj


@pytest.mark.parametrize("shape_name", sorted(SHAPES))
def test_schema_json_matches_pypaimon(shape_name, wh):
    """The --schema document we give strata declares the same fields pypaimon writes to schema-0."""
    shape = SHAPES[shape_name]
    engines.create_table(wh, "db.t", shape.table_schema, shape.partition_keys, shape.options)
    disk = warehouse.schema_json(wh, "db.t", 0)
    ours = shape_schema_json(shape)
    assert _strip(ours["fields"]) == _strip(disk["fields"])
    assert ours["partitionKeys"] == disk["partitionKeys"]
    assert ours["options"] == {k: v for k, v in disk["options"].items() if k in ours["options"]}


def test_schema_json_ids_are_unique():
    doc = shape_schema_json(shape_types(), with_ids=True)
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
    assert sorted(ids) == list(range(len(ids)))
    assert [f["id"] for f in doc["fields"]] == list(range(len(doc["fields"])))
    json.dumps(copy.deepcopy(doc))
