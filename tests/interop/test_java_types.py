"""Every column type strata supports, between strata and Java Paimon 1.4.2 / 2.0.0, both ways.

BOOLEAN, TINYINT..BIGINT (extremes), FLOAT / DOUBLE (NaN, +-Infinity, -0.0, subnormals, extremes),
DECIMAL stored compact in INT32 / INT64 (precision <= 9 / <= 18) and non-compact in bytes (19, 38),
CHAR / VARCHAR / STRING (non-ASCII, control characters), BINARY(n) / VARBINARY(n) / BYTES, DATE,
TIME / TIME(3), TIMESTAMP(0/3/6/9), TIMESTAMP_LTZ(3/6/9), and ARRAY / MAP / ROW nested in each
other (ARRAY<ARRAY>, ARRAY<ROW>, MAP<INT, ARRAY>, MAP<STRING, ROW>, ROW<ROW<ARRAY<MAP>>>), with
NULLs at every level (whole rows of NULLs, NULL elements, NULL map values, NULL nested fields,
empty arrays and maps).  Append tables (one and two commits) and a primary-key table partitioned
by DATE with a STRING/INT key whose rows are updated across commits.  Expected rows: the
canonical lines of the input (the model), never one engine's output.
"""
from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest

from interop_support.all_types import rows_table, schema_doc
from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.java_flows import assert_same_files, create, write
from interop_support.java_oracle import java  # noqa: F401  (fixture)

pytestmark = pytest.mark.java
D = decimal.Decimal
UTC = dt.timezone.utc

COMMITS = [rows_table(range(0, 16), 1), rows_table(range(16, 24), 2)]


@pytest.mark.parametrize("writer", ["strata", "java"])
def test_append_all_types(java, strata, inputs, writer):
    create(writer, strata, java, "db.t", schema_doc())
    for data in COMMITS:
        write(writer, strata, java, "db.t", data, inputs)
    expected = canonical_lines(pa.concat_tables(COMMITS))
    assert_same_rows(java.read(strata.warehouse, "db.t"), expected, f"Java {java.version} read ({writer} wrote)")
    assert_same_rows(strata.read_lines("db.t"), expected, f"strata read ({writer} wrote)")
    assert_same_rows(java.read(strata.warehouse, "db.t", snapshot=1), canonical_lines(COMMITS[0]), "Java at 1")
    assert_same_rows(strata.read_lines("db.t", snapshot=1), canonical_lines(COMMITS[0]), "strata at 1")
    cols = ["m_row", "ts9", "id", "dec38", "r"]
    proj = canonical_lines(pa.concat_tables(COMMITS).select(cols))
    assert_same_rows(java.read(strata.warehouse, "db.t", columns=cols), proj, "Java projection")
    assert_same_rows(strata.read_lines("db.t", columns=cols), proj, "strata projection")
    assert_same_files(strata, java, "db.t")


def test_append_alternating_writers(java, strata, inputs):
    """strata's and Java's commits of every type side by side in one table."""
    create("java", strata, java, "db.t", schema_doc(options={"bucket": "2", "bucket-key": "id"}))
    write("strata", strata, java, "db.t", COMMITS[0], inputs)
    write("java", strata, java, "db.t", COMMITS[1], inputs)
    write("strata", strata, java, "db.t", COMMITS[1], inputs)
    expected = canonical_lines(pa.concat_tables(COMMITS + [COMMITS[1]]))
    assert_same_rows(java.read(strata.warehouse, "db.t"), expected, f"Java {java.version} read")
    assert_same_rows(strata.read_lines("db.t"), expected, "strata read")
    assert_same_files(strata, java, "db.t")


def _pk_commits():
    """Three commits over keys (dt, s_key, id): commit 2 updates half the keys of commit 1 with
    generation-2 values, commit 3 updates some again and adds new ones."""
    def keyed(ids, gen):
        t = rows_table(ids, gen)
        t = t.append_column(pa.field("dkey", pa.date32(), nullable=False),
                            pa.array([dt.date(2024, 1, 1 + i % 3) for i in ids], pa.date32()))
        return t.append_column(pa.field("skey", pa.string(), nullable=False),
                               pa.array(["k-%d" % (i % 4) if i % 2 else "é%d" % i for i in ids]))
    return [keyed(range(0, 12), 1), keyed(range(6, 18), 2), keyed(list(range(0, 20, 3)), 3)]


def _pk_model(commits):
    last = {}
    for t in commits:
        for r in t.to_pylist():
            last[(r["dkey"], r["skey"], r["id"])] = r
    return canonical_lines(pa.Table.from_pylist(list(last.values()), schema=commits[0].schema))


@pytest.mark.parametrize("bucket", ["2", "-1"])
@pytest.mark.parametrize("writers", [("strata",) * 3, ("java",) * 3, ("strata", "java", "strata")])
def test_pk_all_types(java, strata, inputs, writers, bucket):
    """A primary-key table (DATE partition, STRING + INT key) with every type as value columns."""
    doc = schema_doc(primary_keys=("dkey", "skey", "id"), partition_keys=("dkey",), options={"bucket": bucket})
    doc["fields"] += [{"name": "dkey", "type": "DATE NOT NULL"}, {"name": "skey", "type": "STRING NOT NULL"}]
    commits = _pk_commits()
    create(writers[0], strata, java, "db.t", doc)
    for n, (writer, data) in enumerate(zip(writers, commits), start=1):
        write(writer, strata, java, "db.t", data, inputs)
        expected = _pk_model(commits[:n])
        assert_same_rows(java.read(strata.warehouse, "db.t"), expected,
                         f"Java {java.version} read after commit {n} by {writer}")
        assert_same_rows(strata.read_lines("db.t"), expected, f"strata read after commit {n} by {writer}")
    assert_same_files(strata, java, "db.t")
