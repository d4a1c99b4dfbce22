"""Incremental reads (``incremental-between``): tables Java Paimon writes -- plain primary-key
tables, ``changelog-producer`` = input / lookup / full-compaction, deletion vectors, append
tables -- with inserts, updates and deletes by row kind and Java's compactions in the range; then
``strata read --incremental A..B --incremental-mode M`` must return exactly the rows (and row
kinds) that Java's ``$audit_log`` returns with the same options, for several ranges (snapshot
ids, tags, times) in every mode.

Where strata deliberately differs it is an error, never other rows: ``changelog`` mode on a table
whose ``changelog-producer`` is ``none`` (Java returns no rows).

strata follows Paimon 2.0's incremental scans of deletion-vector tables, which read level 0 (the
delta and changelog files of the range are all level-0 files).  Paimon 1.4's batch scan skips
level 0 of such tables in incremental reads too (so it reads no delta of them); the oracle resets
that level filter, so both versions answer with 2.0's semantics.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Optional

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines, dumps
from interop_support.datagen import paimon_schema_json
from interop_support.java_oracle import JavaOracleError, java, rows_json  # noqa: F401  (fixture)
from interop_support.strata_cli import StrataError

pytestmark = pytest.mark.java

SCHEMA = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("v", pa.string()),
                    pa.field("n", pa.int64())])
CASES: Dict[str, Dict[str, str]] = {
    "plain": {},
    "input": {"changelog-producer": "input"},
    "lookup": {"changelog-producer": "lookup"},
    "full_compaction": {"changelog-producer": "full-compaction"},
    "dv": {"deletion-vectors.enabled": "true"},
    "dv_lookup": {"deletion-vectors.enabled": "true", "changelog-producer": "lookup"},
}
MODES = ("auto", "delta", "changelog", "diff")

# (keys, tag, row kind) per commit
COMMITS = [
    [(range(0, 30), "a", "+I")],
    [(range(10, 20), "b", "+U"), (range(25, 30), "a", "-D")],
    [(range(30, 40), "c", "+I"), (range(0, 5), "a", "-D"), (range(12, 14), "d", "+U")],
]
LAST = [(range(35, 45), "e", "+I"), (range(10, 12), "a", "-D"), (range(20, 22), "f", "+U")]


def batch(keys, tag: str) -> pa.Table:
    keys = list(keys)
    return pa.table({"k": pa.array(keys, pa.int32()), "v": [f"{tag}-{k}" for k in keys],
                     "n": pa.array([k * 10 + len(tag) for k in keys], pa.int64())}, schema=SCHEMA)


def java_commit(java, wh: str, ident: str, parts) -> int:
    data = pa.concat_tables([batch(keys, tag) for keys, tag, _ in parts])
    kinds = [kind for keys, _, kind in parts for _ in keys]
    return java.write(wh, ident, rows_json(data, row_kinds=kinds))


def strata_incremental(strata, ident: str, *args: str) -> List[str]:
    out = Path(strata.scratch) / f"inc-{abs(hash(args))}.parquet"
    strata.run("read", ident, *args, "--format", "parquet", "--output", str(out))
    return canonical_lines(pq.ParquetFile(out).read())


def java_incremental(java, wh: str, ident: str, options: Dict[str, str]) -> Optional[List[str]]:
    """Java's rows, or None when Java refuses the read."""
    try:
        return java.incremental_read(wh, ident, options)
    except JavaOracleError:
        return None


def compare(java, strata, ident: str, what: str, strata_args: List[str], options: Dict[str, str],
            changelog_refused: bool) -> int:
    """Asserts strata's rows equal Java's; returns how many there were."""
    expected = java_incremental(java, strata.warehouse, ident, options)
    try:
        got = strata_incremental(strata, ident, *strata_args)
    except StrataError as e:
        if changelog_refused:
            assert "changelog-producer = none" in str(e), f"{what}: {e}"
            assert not expected, f"{what}: strata refused, Java returned {expected}"
            return 0
        assert expected is None, f"{what}: strata failed but Java read {len(expected)} rows: {e}"
        return 0
    assert not changelog_refused, f"{what}: strata should refuse changelog mode without a producer"
    assert expected is not None, f"{what}: Java refused the read, strata returned {len(got)} rows"
    assert_same_rows(got, expected, what)
    return len(got)


def history(java, strata, ident: str, options: Dict[str, str], pk: bool = True) -> List[dict]:
    doc = paimon_schema_json(SCHEMA, [], {"bucket": "2" if pk else "-1", **options})
    if pk:
        doc["primaryKeys"] = ["k"]
    java.create_table(strata.warehouse, ident, doc)
    for parts in COMMITS:
        java_commit(java, strata.warehouse, ident, parts if pk else [(k, t, "+I") for k, t, _ in parts])
    java.create_tag(strata.warehouse, ident, "before-compaction")
    if pk:
        java.compact(strata.warehouse, ident, full=True)
    java_commit(java, strata.warehouse, ident, LAST if pk else [(k, t, "+I") for k, t, _ in LAST])
    java.create_tag(strata.warehouse, ident, "end")
    return java.snapshots(strata.warehouse, ident)


def ranges(snapshots: List[dict]) -> List[tuple]:
    ids = [s["id"] for s in snapshots]
    first, last = ids[0], ids[-1]
    pairs = {(first - 1, last), (first, last), (first, first + 1), (first + 1, last),
             (last - 1, last), (first + 1, last - 1), (2, 2)}
    return sorted((a, b) for a, b in pairs if first - 1 <= a <= b <= last)


@pytest.mark.parametrize("case", sorted(CASES))
def test_incremental_reads_equal_java(java, strata, case):
    ident = "db.t"
    options = CASES[case]
    snapshots = history(java, strata, ident, options)
    no_producer = options.get("changelog-producer", "none") == "none"
    seen = {mode: 0 for mode in MODES}
    for start, end in ranges(snapshots):
        for mode in MODES:
            what = f"{case}: {mode} ({start}, {end}]"
            seen[mode] += compare(java, strata, ident, what,
                    ["--incremental", f"{start}..{end}", "--incremental-mode", mode],
                    {"incremental-between": f"{start},{end}", "incremental-between-scan-mode": mode},
                    changelog_refused=no_producer and mode == "changelog")
    # Every mode that applies returned rows somewhere (the comparisons are not all empty).
    assert all(n > 0 for m, n in seen.items() if not (no_producer and m == "changelog")), seen


@pytest.mark.parametrize("case", ["plain", "lookup", "dv"])
def test_incremental_reads_by_tag_and_time_equal_java(java, strata, case):
    ident = "db.t"
    options = CASES[case]
    snapshots = history(java, strata, ident, options)
    no_producer = options.get("changelog-producer", "none") == "none"
    # Two tags are a diff of the tagged snapshots whatever the mode, unless tag-to-snapshot.
    for mode in ("auto", "delta", "diff"):
        compare(java, strata, ident, f"{case}: tags, {mode}",
                ["--incremental", "before-compaction..end", "--incremental-mode", mode],
                {"incremental-between": "before-compaction,end", "incremental-between-scan-mode": mode},
                changelog_refused=False)
    for mode in ("delta", "changelog"):
        compare(java, strata, ident, f"{case}: tags to snapshots, {mode}",
                ["--incremental", "before-compaction..end", "--incremental-mode", mode,
                 "--incremental-tag-to-snapshot"],
                {"incremental-between": "before-compaction,end", "incremental-between-scan-mode": mode,
                 "incremental-between-tag-to-snapshot": "true"},
                changelog_refused=no_producer and mode == "changelog")
    times = [s["timeMillis"] for s in snapshots]
    for t1, t2 in [(times[0] - 1000, times[-1]), (times[0], times[-1] + 1000), (times[1], times[-2])]:
        for mode in MODES:
            compare(java, strata, ident, f"{case}: times ({t1}, {t2}], {mode}",
                    ["--incremental-timestamp", f"{t1}..{t2}", "--incremental-mode", mode],
                    {"incremental-between-timestamp": f"{t1},{t2}", "incremental-between-scan-mode": mode},
                    changelog_refused=no_producer and mode == "changelog")


def test_incremental_reads_of_an_append_table_equal_java(java, strata):
    ident = "db.log"
    snapshots = history(java, strata, ident, {}, pk=False)
    for start, end in ranges(snapshots):
        for mode in ("auto", "delta", "diff"):
            compare(java, strata, ident, f"append: {mode} ({start}, {end}]",
                    ["--incremental", f"{start}..{end}", "--incremental-mode", mode],
                    {"incremental-between": f"{start},{end}", "incremental-between-scan-mode": mode},
                    changelog_refused=False)


@pytest.mark.parametrize("case", ["plain", "input", "dv"])
def test_partitioned_reads_and_expired_snapshots_equal_java(java, strata, case):
    """A partitioned PK table (key (p, k)); then Java expires all but the last two snapshots:
    ranges reaching expired snapshots are refused by both, tags still diff."""
    ident = "db.parts"
    schema = SCHEMA.append(pa.field("p", pa.string(), nullable=False))
    doc = paimon_schema_json(schema, ["p"], {"bucket": "2", **CASES[case]})
    doc["primaryKeys"] = ["p", "k"]
    java.create_table(strata.warehouse, ident, doc)

    def commit(parts) -> None:
        data = pa.concat_tables([batch(keys, tag) for keys, tag, _ in parts])
        data = data.append_column("p", pa.array([f"p{k % 3}" for k in data.column("k").to_pylist()]))
        kinds = [kind for keys, _, kind in parts for _ in keys]
        java.write(strata.warehouse, ident, rows_json(data, row_kinds=kinds))

    for parts in COMMITS:
        commit(parts)
    java.create_tag(strata.warehouse, ident, "t1", snapshot=1)
    java.compact(strata.warehouse, ident, full=True)
    commit(LAST)
    java.create_tag(strata.warehouse, ident, "t-last")
    no_producer = "changelog-producer" not in CASES[case]
    snapshots = java.snapshots(strata.warehouse, ident)
    for start, end in ranges(snapshots):
        for mode in MODES:
            compare(java, strata, ident, f"{case} partitioned: {mode} ({start}, {end}]",
                    ["--incremental", f"{start}..{end}", "--incremental-mode", mode],
                    {"incremental-between": f"{start},{end}", "incremental-between-scan-mode": mode},
                    changelog_refused=no_producer and mode == "changelog")
    assert java.expire_snapshots(strata.warehouse, ident,
                                 {"snapshot.num-retained.max": "2", "snapshot.num-retained.min": "1"}) > 0
    ids = [s["id"] for s in java.snapshots(strata.warehouse, ident)]
    last = ids[-1]
    for start, end in [(1, last), (ids[0] - 1, last), (ids[0], last), (ids[0] - 2, last)]:
        for mode in ("delta", "diff"):
            compare(java, strata, ident, f"{case} after expiry: {mode} ({start}, {end}]",
                    ["--incremental", f"{start}..{end}", "--incremental-mode", mode],
                    {"incremental-between": f"{start},{end}", "incremental-between-scan-mode": mode},
                    changelog_refused=False)
    rows = compare(java, strata, ident, f"{case} after expiry: tags",
                   ["--incremental", "t1..t-last"], {"incremental-between": "t1,t-last"},
                   changelog_refused=False)
    assert rows > 0


@pytest.mark.parametrize("case", ["plain", "input"])
def test_reads_across_schema_changes_equal_java(java, strata, case):
    """Java adds a column and renames one between commits: files of every schema are read with
    the latest, in every mode."""
    ident = "db.evolve"
    doc = paimon_schema_json(SCHEMA, [], {"bucket": "1", **CASES[case]})
    doc["primaryKeys"] = ["k"]
    java.create_table(strata.warehouse, ident, doc)
    java_commit(java, strata.warehouse, ident, COMMITS[0])
    java_commit(java, strata.warehouse, ident, COMMITS[1])
    java.alter_table(strata.warehouse, ident, [
        {"op": "addColumn", "name": "extra", "type": "STRING"},
        {"op": "renameColumn", "name": "v", "newName": "v2"},
    ])
    parts = COMMITS[2]
    data = pa.concat_tables([batch(keys, tag) for keys, tag, _ in parts]).rename_columns(["k", "v2", "n"])
    data = data.append_column("extra", pa.array([f"x{k}" for k in data.column("k").to_pylist()]))
    kinds = [kind for keys, _, kind in parts for _ in keys]
    java.write(strata.warehouse, ident, rows_json(data, row_kinds=kinds))
    java.compact(strata.warehouse, ident, full=True)
    snapshots = java.snapshots(strata.warehouse, ident)
    no_producer = "changelog-producer" not in CASES[case]
    for start, end in ranges(snapshots):
        for mode in MODES:
            compare(java, strata, ident, f"{case} evolved: {mode} ({start}, {end}]",
                    ["--incremental", f"{start}..{end}", "--incremental-mode", mode],
                    {"incremental-between": f"{start},{end}", "incremental-between-scan-mode": mode},
                    changelog_refused=no_producer and mode == "changelog")


def strata_sql(strata, query: str) -> List[str]:
    out = Path(strata.scratch) / f"sql-{abs(hash(query))}.parquet"
    strata.run("sql", "--format", "parquet", "--output", str(out), "-e", query)
    return canonical_lines(pq.ParquetFile(out).read())


@pytest.mark.parametrize("case", ["plain", "input", "lookup", "dv"])
def test_sql_incremental_reads_equal_java(java, strata, case):
    """``strata sql`` with Paimon's OPTIONS hint: ``"t$audit_log" /*+ OPTIONS('incremental-between'
    = …) */`` returns exactly the rows (and row kinds) of Java's ``$audit_log`` with the same
    options; the table itself returns those of them whose kind is ``+I`` or ``+U`` (retractions
    dropped, as Paimon's batch SQL), without the ``rowkind`` column.  (Spark's Paimon connector
    takes no OPTIONS hint -- its incremental reads are table-valued functions -- so Java's
    audit log is the reference.)"""
    ident = "db.t"
    snapshots = history(java, strata, ident, CASES[case])
    ids = [s["id"] for s in snapshots]
    first, last = ids[0], ids[-1]
    modes = ["auto", "delta", "diff"]
    if "changelog-producer" in CASES[case]:
        modes.append("changelog")
    seen = 0
    for between in (f"{first - 1},{last}", f"{first + 1},{last - 1}", "before-compaction,end"):
        for mode in modes:
            options = {"incremental-between": between, "incremental-between-scan-mode": mode}
            what = f"{case}: {mode} ({between})"
            expected = java_incremental(java, strata.warehouse, ident, options)
            hint = ", ".join(f"'{k}' = '{v}'" for k, v in options.items())
            if expected is None:
                # Java refuses a diff from snapshot 0 (it does not exist): so does strata.
                with pytest.raises(StrataError, match="incremental-between"):
                    strata_sql(strata, f"SELECT * FROM db.t /*+ OPTIONS({hint}) */")
                continue
            got = strata_sql(strata, f'SELECT * FROM db."t$audit_log" /*+ OPTIONS({hint}) */')
            assert_same_rows(got, expected, f"{what}: t$audit_log")
            adds = sorted(dumps({k: v for k, v in row.items() if k != "rowkind"})
                          for row in map(json.loads, expected) if row["rowkind"] in ("+I", "+U"))
            got = strata_sql(strata, f"SELECT * FROM db.t /*+ OPTIONS({hint}) */")
            assert_same_rows(got, adds, f"{what}: table")
            seen += len(expected)
    assert seen > 0
