"""Projection, filters and limits: ``strata read --columns/--where/--limit``.

Simple ``col OP literal`` filters are compared with the oracle's filtered read (pushed to the
engine and re-applied exactly).  The richer SQL predicates of the contract (AND/OR/NOT, IN, BETWEEN,
IS [NOT] NULL, LIKE 'p%') are compared with the same predicate evaluated in Python (SQL three-valued
logic: a comparison with NULL is never true) over the full canonical rows.
"""
import json

import pytest

from interop_support import engines
from interop_support.canonical import assert_same_rows, canonical_lines, dumps
from interop_support.datagen import SHAPES
from interop_support.flows import build_foreign, build_strata

pytestmark = pytest.mark.cli_query

SHAPE = SHAPES["part_string"]   # dt (partition, has NULL), id, name (has NULL), amount


def _nn(*vals):
    return all(v is not None for v in vals)


CASES = [
    ("id < 5", lambda r: r["id"] < 5),
    ("id >= 3 AND id <= 6", lambda r: 3 <= r["id"] <= 6),
    ("dt = '2024-01-02'", lambda r: r["dt"] == "2024-01-02"),
    ("dt = '2024-01-01' OR id = 9", lambda r: r["dt"] == "2024-01-01" or r["id"] == 9),
    ("NOT (id < 5)", lambda r: not r["id"] < 5),
    ("name IS NULL", lambda r: r["name"] is None),
    ("dt IS NULL", lambda r: r["dt"] is None),
    ("dt IS NOT NULL AND amount > 2", lambda r: r["dt"] is not None and r["amount"] > 2),
    ("id IN (1, 3, 10)", lambda r: r["id"] in (1, 3, 10)),
    ("id NOT IN (1, 3)", lambda r: r["id"] not in (1, 3)),
    ("id BETWEEN 2 AND 4", lambda r: 2 <= r["id"] <= 4),
    ("name LIKE 'b%'", lambda r: _nn(r["name"]) and r["name"].startswith("b")),
    ("amount >= 1.5 AND amount < 3.5", lambda r: 1.5 <= r["amount"] < 3.5),
    ("dt <> '2024-01-01'", lambda r: _nn(r["dt"]) and r["dt"] != "2024-01-01"),
    ("(dt = '2024-01-03' OR dt IS NULL) AND NOT name IS NULL",
     lambda r: (r["dt"] == "2024-01-03" or r["dt"] is None) and r["name"] is not None),
    ("id > 1000", lambda r: False),
]


@pytest.fixture(params=["pypaimon", "strata"])
def table(request, wh, strata, inputs):
    """part_string written by pypaimon, or by strata (jsonl input)."""
    if request.param == "pypaimon":
        build_foreign("pypaimon", wh, "db.q", SHAPE)
    else:
        build_strata(strata, "db.q", SHAPE, "jsonl", inputs)
    return "db.q"


def _all_rows():
    return [json.loads(x) for x in SHAPE.expected_lines()]


def _lines(rows, columns=None):
    return sorted(dumps({c: r[c] for c in (columns or r.keys())}) for r in rows)


@pytest.mark.parametrize("where,pred", CASES, ids=[c[0] for c in CASES])
def test_where(where, pred, table, strata):
    want = _lines([r for r in _all_rows() if pred(r)])
    assert_same_rows(strata.read_lines(table, where=where), want, f"strata --where {where!r}")


@pytest.mark.parametrize("reader", engines.READERS)
@pytest.mark.parametrize("col,op,value", [("id", "<", 5), ("dt", "=", "2024-01-03"), ("amount", ">=", 3.0)])
def test_simple_filter_matches_oracle(reader, col, op, value, table, strata, wh):
    columns = ["id", "name"]
    want = canonical_lines(engines.read_filtered(reader, wh, table, columns, col, op, value))
    literal = f"'{value}'" if isinstance(value, str) else str(value)
    got = strata.read_lines(table, columns=columns, where=f"{col} {op} {literal}")
    assert_same_rows(got, want, f"strata --columns id,name --where '{col} {op} {literal}' vs {reader}")


@pytest.mark.parametrize("columns", [["id"], ["name", "id"], ["dt"], ["amount", "dt", "name"]])
def test_projection_matches_oracle(columns, table, strata, wh):
    want = canonical_lines(engines.read_pypaimon(wh, table, columns))
    assert want == canonical_lines(engines.read_rust(wh, table, columns))
    t = strata.read_arrow(table, columns=columns)
    assert t.column_names == columns
    assert_same_rows(canonical_lines(t), want, f"strata --columns {','.join(columns)}")


@pytest.mark.parametrize("limit", [1, 3, 100])
def test_limit(limit, table, strata):
    full = SHAPE.expected_lines()
    got = strata.read_lines(table, limit=limit)
    assert len(got) == min(limit, len(full))
    assert set(got) <= set(full), sorted(set(got) - set(full))


def test_limit_with_where(table, strata):
    matching = _lines([r for r in _all_rows() if r["id"] >= 3])
    got = strata.read_lines(table, where="id >= 3", limit=2)
    assert len(got) == 2 and set(got) <= set(matching), got


def test_projection_and_filter_on_nested_types(wh, strata):
    """--columns over ROW/MAP/ARRAY columns with a filter on another column."""
    shape = SHAPES["types"]
    build_foreign("pypaimon", wh, "db.types", shape)
    columns = ["r", "m", "id", "arr_s"]
    want = canonical_lines(engines.read_filtered("pypaimon", wh, "db.types", columns, "id", ">=", 5))
    assert want == canonical_lines(engines.read_filtered("pypaimon-rust", wh, "db.types", columns, "id", ">=", 5))
    got = strata.read_lines("db.types", columns=columns, where="id >= 5")
    assert_same_rows(got, want, "strata --columns r,m,id,arr_s --where 'id >= 5' on types")


@pytest.mark.parametrize("where,pred", [
    ("dec > 0", lambda r: r["dec"] is not None and float(r["dec"]) > 0),
    ("d >= '2001-01-01'", lambda r: r["d"] is not None and r["d"] >= "2001-01-01"),
    ("b = true", lambda r: r["b"] is True),
    ("s LIKE 's1%'", lambda r: r["s"] is not None and r["s"].startswith("s1")),
], ids=["decimal", "date", "boolean", "like-unicode-column"])
def test_where_on_typed_columns(where, pred, wh, strata):
    shape = SHAPES["flat_types"]
    build_foreign("pypaimon", wh, "db.ft", shape)
    rows = [json.loads(x) for x in shape.expected_lines()]
    want = _lines([r for r in rows if pred(r)])
    assert_same_rows(strata.read_lines("db.ft", where=where), want, f"strata --where {where!r} on flat_types")


def test_bad_where_is_an_error(table, strata):
    p = strata.run("read", table, "--where", "id <<< 5", "--format", "jsonl", check=False)
    assert p.returncode != 0 and p.stderr.strip() and "panicked" not in p.stderr, p


def test_unknown_column_is_an_error(table, strata):
    for args in (["--columns", "nope"], ["--where", "nope = 1"]):
        p = strata.run("read", table, *args, "--format", "jsonl", check=False)
        assert p.returncode != 0 and p.stderr.strip() and "panicked" not in p.stderr, (args, p)
