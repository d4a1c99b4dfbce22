"""What a write stores, by strata and by Java Paimon 1.4.2 / 2.0.0 on the same table.

* Column default values (``defaultValue`` in the schema, Java ≥ 1.3's ``DefaultValueRow``): a row
  written without a column, or with NULL in it, stores the column's default, each type's text
  read as Java's cast from STRING reads it (VARCHAR cut, CHAR and BINARY padded, a DECIMAL that
  does not fit is NULL, ...).  Java writes, strata reads; strata writes (``strata write`` and
  ``strata sql`` INSERT with a column list), Java reads; a default Java refuses is refused by
  strata too.
* Row kinds on append tables (``rowkind.field``): ``+I`` / ``+U`` rows are stored, ``-U`` / ``-D``
  rows are refused (Java's ``AppendOnlyFileStoreTable``) unless ``ignore-delete`` /
  ``ignore-update-before`` drop them (``RowKindFilter``): both engines accept, refuse and store
  the same rows.

Expected rows are the test's model, never one engine's output.
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pyarrow as pa
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.java_oracle import JavaOracleError, java  # noqa: F401  (fixture)
from interop_support.strata_cli import StrataError

pytestmark = pytest.mark.java

# Each column's type, default text and the value Java's writers store for it.
DEFAULTS = [
    ("v", "INT", "7", pa.int32(), 7),
    ("s", "VARCHAR(3)", "'abcdef'", pa.string(), "abc"),
    ("n", "INT NOT NULL", "-1.9", pa.int32(), -1),
    ("d", "DECIMAL(5, 2)", "1234.5", pa.decimal128(5, 2), None),  # too many digits: NULL in Java
    ("c", "CHAR(4)", "ab", pa.string(), "ab  "),
    ("b", "BINARY(3)", "a", pa.binary(), b"a\x00\x00"),
    ("f", "DOUBLE", " 1.5d ", pa.float64(), 1.5),
    ("ts", "TIMESTAMP(3)", "1970-01-01 00:00:01.5", pa.timestamp("us"), dt.datetime(1970, 1, 1, 0, 0, 1, 500000)),
    ("dt", "DATE", "3", pa.date32(), dt.date(1970, 1, 4)),
    ("bo", "BOOLEAN", "YES", pa.bool_(), True),
]
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False)] +
                   [pa.field(n, t, nullable=not ty.endswith("NOT NULL")) for n, ty, _, t, _ in DEFAULTS])


def schema_doc(primary_keys=()):
    return {"fields": [{"name": "id", "type": "BIGINT NOT NULL"}] +
                      [{"name": n, "type": ty, "defaultValue": d} for n, ty, d, _, _ in DEFAULTS],
            "partitionKeys": [], "primaryKeys": list(primary_keys),
            "options": {"bucket": "1"} if primary_keys else {}}


def expected(rows):
    """``rows``: (id, {column: value}) -- every other column holds its default."""
    out = []
    for i, given in rows:
        r = {"id": i, **{n: v for n, _, _, _, v in DEFAULTS}}
        r.update(given)
        out.append(r)
    return canonical_lines(pa.Table.from_pylist(out, schema=SCHEMA))


# Rows as the engines receive them: only `id` and the NOT NULL `n` (Java checks NOT NULL before
# it applies defaults, so `n` is given), an explicit NULL in `v` and `s`, a value in `v`.
INPUT = [{"id": 1, "n": 5}, {"id": 2, "n": 5, "v": None, "s": None}, {"id": 3, "n": 5, "v": 3}]
MODEL = [(1, {"n": 5}), (2, {"n": 5}), (3, {"n": 5, "v": 3})]


@pytest.mark.parametrize("pk", [False, True], ids=["append", "pk"])
def test_java_writes_defaults_strata_reads(java, strata, pk):
    java.create_table(strata.warehouse, "db.t", schema_doc(("id",) if pk else ()))
    java.write(strata.warehouse, "db.t", INPUT)
    want = expected(MODEL)
    assert_same_rows(java.read(strata.warehouse, "db.t"), want, f"Java {java.version} read")
    assert_same_rows(strata.read_lines("db.t"), want, "strata read of Java's rows")


@pytest.mark.parametrize("pk", [False, True], ids=["append", "pk"])
def test_strata_writes_defaults_java_reads(java, strata, pk):
    """``strata write`` of JSON lines missing columns, then an SQL INSERT with a column list."""
    strata.create_table("db.t", schema_doc(("id",) if pk else ()))
    rows = Path(strata.scratch) / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in INPUT))
    strata.write("db.t", [rows])
    strata.run("sql", "-e", "INSERT INTO db.t (id, n) VALUES (4, 6); INSERT INTO db.t (id, n, v) VALUES (5, 6, NULL)")
    want = expected(MODEL + [(4, {"n": 6}), (5, {"n": 6})])
    assert_same_rows(java.read(strata.warehouse, "db.t"), want, f"Java {java.version} read of strata's rows")
    assert_same_rows(strata.read_lines("db.t"), want, "strata read")
    # Java, writing on, stores the same defaults.
    java.write(strata.warehouse, "db.t", [{"id": 6, "n": 7}])
    assert_same_rows(strata.read_lines("db.t"), expected(MODEL + [(4, {"n": 6}), (5, {"n": 6}), (6, {"n": 7})]),
                     "strata read after Java's write")


@pytest.mark.parametrize("ty,text", [("INT", "seven"), ("INT", " 7"), ("INT", "'"), ("DECIMAL(5, 2)", " 1"),
                                     ("BOOLEAN", "maybe"), ("DATE", "yesterday")])
def test_a_default_java_refuses_strata_refuses(java, strata, ty, text):
    doc = {"fields": [{"name": "id", "type": "INT"}, {"name": "v", "type": ty, "defaultValue": text}],
           "partitionKeys": [], "primaryKeys": [], "options": {}}
    with pytest.raises(JavaOracleError, match="Unsupported default value"):
        java.create_table(strata.warehouse, "db.j", doc)
    with pytest.raises(StrataError, match="`v`"):
        strata.create_table("db.s", doc)


APPEND_KINDS = {"id": [1, 2, 3, 4], "k": ["+I", "+U", "-U", "-D"]}


@pytest.mark.parametrize("options,stored", [
    ({}, None),                                    # -U and -D refused
    ({"ignore-update-before": "true"}, None),      # -U dropped, -D refused
    ({"ignore-delete": "true"}, [1, 2]),           # both dropped
])
def test_row_kinds_on_append_tables_as_java(java, strata, options, stored):
    doc = {"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "k", "type": "STRING"}],
           "partitionKeys": [], "primaryKeys": [], "options": {"rowkind.field": "k", **options}}
    java.create_table(strata.warehouse, "db.j", doc)
    strata.create_table("db.s", doc)
    rows = [{"id": i, "k": k} for i, k in zip(APPEND_KINDS["id"], APPEND_KINDS["k"])]
    src = Path(strata.scratch) / "kinds.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if stored is None:
        with pytest.raises(JavaOracleError, match="Append only writer can not accept row with RowKind"):
            java.write(strata.warehouse, "db.j", rows)
        with pytest.raises(StrataError, match="of kind -"):
            strata.write("db.s", [src])
        assert strata.snapshots("db.s") == []
        # Without the retractions both store every row.
        keep = [r for r in rows if r["k"] in ("+I", "+U")]
        java.write(strata.warehouse, "db.j", keep)
        src.write_text("".join(json.dumps(r) + "\n" for r in keep))
        stored = [r["id"] for r in keep]
        strata.write("db.s", [src])
    else:
        java.write(strata.warehouse, "db.j", rows)
        strata.write("db.s", [src])
    want = canonical_lines(pa.Table.from_pylist([r for r in rows if r["id"] in stored],
                                                schema=pa.schema([pa.field("id", pa.int64(), nullable=False),
                                                                  pa.field("k", pa.string())])))
    for ident in ("db.j", "db.s"):
        assert_same_rows(java.read(strata.warehouse, ident), want, f"Java read of {ident}")
        assert_same_rows(strata.read_lines(ident), want, f"strata read of {ident}")

