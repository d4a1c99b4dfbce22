"""strata's SQL does what a statement says on tables Java Paimon and Spark also write, or fails
before committing anything (issue 29).

* ``INSERT OVERWRITE`` follows ``dynamic-partition-overwrite`` (the table option, or a
  ``/*+ OPTIONS(...) */`` hint on the target) exactly as Java's ``BatchWriteBuilder.withOverwrite``
  does on a twin table written by the Java oracle; ``PARTITION (k = v)`` replaces that partition.
* Row-level statements on primary-key tables whose records the merge engine would not take as the
  statement says (partial-update and NULL, an aggregate function in a sequence group,
  ``sequence.field``) are refused, and the table stays as Java reads it.  For each, Java writes the
  record the statement would have written to a twin table, and Java's own read shows the row the
  refusal names -- not the statement's row.
* ``CALL sys.compact(table => ...)`` without ``compact_strategy`` is a full compaction, as Spark's
  ``CALL sys.compact`` on a twin table: three level-0 runs become one file at the top level.
"""
from __future__ import annotations

import json
import subprocess

import pyarrow as pa
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.java_oracle import java, rows_json  # noqa: F401  (fixture)
from interop_support.spark import spark  # noqa: F401  (fixture)

pytestmark = pytest.mark.cli_write


def sql(strata_bin: str, wh: str, text: str, ok: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run([strata_bin, "--warehouse", wh, "sql", "--format", "jsonl", "-e", text],
                       capture_output=True, text=True, timeout=300)
    if ok:
        assert r.returncode == 0, f"strata sql failed:\n{text}\n{r.stderr}"
    return r


def refused(strata_bin: str, wh: str, text: str, *needles: str) -> None:
    """The statement fails, with every needle in its message."""
    r = sql(strata_bin, wh, text, ok=False)
    assert r.returncode != 0, f"strata sql succeeded but must refuse:\n{text}\n{r.stdout}"
    for n in needles:
        assert n in r.stderr, f"{n!r} is not in the error of\n{text}\n{r.stderr}"


def strata_lines(strata_bin: str, wh: str, ident: str, schema: pa.Schema) -> list:
    out = sql(strata_bin, wh, f"SELECT * FROM {ident}").stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return canonical_lines(pa.Table.from_pylist(rows, schema=schema))


def lines(rows: list, schema: pa.Schema) -> list:
    return canonical_lines(pa.Table.from_pylist(rows, schema=schema))


# ---- INSERT OVERWRITE and dynamic-partition-overwrite ---------------------------------------------

PART = pa.schema([pa.field("id", pa.int32()), pa.field("dt", pa.string())])

# (table options, hint on the INSERT target, static partition, Java's write options, new rows,
#  expected rows after the overwrite of (1, 'a'), (2, 'b'))
OVERWRITE_CASES = {
    "option_false_whole_table": ("'dynamic-partition-overwrite' = 'false'", "", None, None,
                                 [{"id": 3, "dt": "a"}], [{"id": 3, "dt": "a"}]),
    "hint_false_whole_table": ("'bucket' = '-1'", "'dynamic-partition-overwrite' = 'false'", None,
                               {"dynamic-partition-overwrite": "false"},
                               [{"id": 3, "dt": "a"}], [{"id": 3, "dt": "a"}]),
    "default_dynamic": ("'bucket' = '-1'", "", None, None,
                        [{"id": 3, "dt": "a"}], [{"id": 2, "dt": "b"}, {"id": 3, "dt": "a"}]),
    "hint_true_dynamic": ("'dynamic-partition-overwrite' = 'false'",
                          "'dynamic-partition-overwrite' = 'true'", None,
                          {"dynamic-partition-overwrite": "true"},
                          [{"id": 3, "dt": "a"}], [{"id": 2, "dt": "b"}, {"id": 3, "dt": "a"}]),
    "option_false_static_partition": ("'dynamic-partition-overwrite' = 'false'", "", "b", None,
                                      [{"id": 4, "dt": "b"}],
                                      [{"id": 1, "dt": "a"}, {"id": 4, "dt": "b"}]),
}


@pytest.mark.parametrize("case", sorted(OVERWRITE_CASES))
def test_sql_insert_overwrite_as_java(java, strata_bin, wh, case):
    options, hint, static, java_options, new, expected = OVERWRITE_CASES[case]
    sql(strata_bin, wh, f"""
        CREATE TABLE db.s (id INT, dt STRING) PARTITIONED BY (dt) WITH ({options});
        CREATE TABLE db.j (id INT, dt STRING) PARTITIONED BY (dt) WITH ({options});
        INSERT INTO db.s VALUES (1, 'a'), (2, 'b');
    """)
    first = pa.Table.from_pylist([{"id": 1, "dt": "a"}, {"id": 2, "dt": "b"}], schema=PART)
    java.write(wh, "db.j", rows_json(first))

    # strata's SQL overwrite, and Java's BatchWriteBuilder overwrite of the same rows.
    target = f"db.s /*+ OPTIONS({hint}) */" if hint else "db.s"
    if static is None:
        values = ", ".join(f"({r['id']}, '{r['dt']}')" for r in new)
        sql(strata_bin, wh, f"INSERT OVERWRITE {target} VALUES {values}")
        java.write(wh, "db.j", rows_json(pa.Table.from_pylist(new, schema=PART)), overwrite=True,
                   options=java_options)
    else:
        values = ", ".join(f"({r['id']})" for r in new)
        sql(strata_bin, wh, f"INSERT OVERWRITE {target} PARTITION (dt = '{static}') VALUES {values}")
        java.write(wh, "db.j", rows_json(pa.Table.from_pylist(new, schema=PART)),
                   overwrite={"dt": static}, options=java_options)

    exp = lines(expected, PART)
    assert_same_rows(java.read(wh, "db.j"), exp, f"Java {java.version} after its own overwrite ({case})")
    assert_same_rows(java.read(wh, "db.s"), exp, f"Java {java.version} after strata's SQL overwrite ({case})")
    assert_same_rows(strata_lines(strata_bin, wh, "db.s", PART), exp, f"strata after its overwrite ({case})")


# ---- row-level statements the merge engine would not take -----------------------------------------

# (columns DDL, table options, Arrow schema, first rows, the refused statement, what its error
#  names, the record the statement would write (+U), the row Java reads after that record)
PU = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("a", pa.string()),
                pa.field("b", pa.int32())])
PA = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("g", pa.int32()),
                pa.field("v", pa.int32()), pa.field("w", pa.string())])
SF = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("ts", pa.int32()),
                pa.field("v", pa.string())])
ROW_CASES = {
    "partial_update_null": (
        "k INT NOT NULL, a STRING, b INT", "'merge-engine' = 'partial-update'", PU,
        [{"k": 1, "a": "x", "b": 10}],
        "UPDATE db.{t} SET a = NULL WHERE k = 1",
        ["would read a = 'x' after the commit, not NULL", "never overwrites a value with NULL"],
        {"k": 1, "a": None, "b": 10}, {"k": 1, "a": "x", "b": 10}),
    "partial_update_sum": (
        "k INT NOT NULL, g INT, v INT, w STRING",
        "'merge-engine' = 'partial-update', 'fields.g.sequence-group' = 'v', "
        "'fields.v.aggregate-function' = 'sum'", PA,
        [{"k": 1, "g": 1, "v": 10, "w": "a"}],
        "UPDATE db.{t} SET v = 5 WHERE k = 1",
        ["would read v = 15 after the commit, not 5", "'fields.v.aggregate-function' = 'sum'"],
        {"k": 1, "g": 1, "v": 5, "w": "a"}, {"k": 1, "g": 1, "v": 15, "w": "a"}),
    "sequence_field_lower": (
        "k INT NOT NULL, ts INT, v STRING", "'sequence.field' = 'ts'", SF,
        [{"k": 1, "ts": 10, "v": "a"}],
        "UPDATE db.{t} SET ts = 5, v = 'b' WHERE k = 1",
        ["would read ts = 10 after the commit, not 5", "'sequence.field' = 'ts'"],
        {"k": 1, "ts": 5, "v": "b"}, {"k": 1, "ts": 10, "v": "a"}),
}


@pytest.mark.parametrize("case", sorted(ROW_CASES))
def test_sql_row_change_the_engine_would_not_take_is_refused(java, strata_bin, wh, case):
    columns, options, schema, first, statement, needles, record, java_row = ROW_CASES[case]
    sql(strata_bin, wh, f"""
        CREATE TABLE db.s ({columns}, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1', {options});
        CREATE TABLE db.j ({columns}, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1', {options});
    """)
    data = pa.Table.from_pylist(first, schema=schema)
    java.write(wh, "db.s", rows_json(data))
    java.write(wh, "db.j", rows_json(data))

    refused(strata_bin, wh, statement.format(t="s"), *needles)
    before = lines(first, schema)
    assert_same_rows(java.read(wh, "db.s"), before, f"Java {java.version} after the refused statement")
    assert [s["id"] for s in java.snapshots(wh, "db.s")] == [1], "a refused statement committed"

    # Java merges the record the statement would have written into the row the error names.
    java.write(wh, "db.j", rows_json(pa.Table.from_pylist([record], schema=schema), row_kinds=["+U"]))
    assert_same_rows(java.read(wh, "db.j"), lines([java_row], schema),
                     f"Java {java.version} after the statement's record ({case})")
    assert java_row != record


# ---- CALL sys.compact without compact_strategy ----------------------------------------------------

KV = pa.schema([pa.field("id", pa.int32(), nullable=False), pa.field("v", pa.string())])


def test_sql_compact_without_strategy_is_full_as_spark(java, spark, strata_bin, wh):
    sql(strata_bin, wh, """
        CREATE TABLE db.s (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)
            WITH ('bucket' = '1', 'write-only' = 'true');
        CREATE TABLE db.k (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)
            WITH ('bucket' = '1', 'write-only' = 'true');
    """)
    for ident in ("db.s", "db.k"):
        sql(strata_bin, wh, f"""
            INSERT INTO {ident} VALUES (1, 'a'), (2, 'b');
            INSERT INTO {ident} VALUES (2, 'c'), (3, 'd');
            INSERT INTO {ident} VALUES (1, 'e');
        """)
        assert sorted(f["level"] for f in java.files(wh, ident)) == [0, 0, 0]

    out = sql(strata_bin, wh, "CALL sys.compact(table => 'db.s')").stdout
    result = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert result == [{"result": True, "snapshot_id": 4, "buckets": 1, "compact_strategy": "full",
                       "input_files": 3, "output_files": 1}], result
    spark.call(wh, "compact", table="db.k")

    exp = lines([{"id": 1, "v": "e"}, {"id": 2, "v": "c"}, {"id": 3, "v": "d"}], KV)
    for ident, by in (("db.s", "strata's CALL sys.compact"), ("db.k", "Spark's CALL sys.compact")):
        files = java.files(wh, ident)
        assert [(f["level"], f["rowCount"]) for f in files] == [(5, 3)], f"{by} left {files}"
        assert_same_rows(java.read(wh, ident), exp, f"Java {java.version} after {by}")
        got = spark.arrow(f"SELECT * FROM {spark.table(wh, ident)}", KV)
        assert_same_rows(canonical_lines(got), exp, f"Spark after {by}")
