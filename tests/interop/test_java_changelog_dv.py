"""Deletion vectors and changelog producers: tables Java Paimon writes with
``deletion-vectors.enabled`` and ``changelog-producer`` = input / lookup / full-compaction, with
inserts, updates and deletes by row kind and Java's compactions, read by strata after every commit.

strata writes deletion-vector tables and the ``input``, ``lookup`` and ``full-compaction``
producers' changelogs itself: Java reads them back, and gets the changelog it writes itself for
the same input.  Expected rows come from an upsert/delete model of the commits.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List

import pyarrow as pa
import pytest

from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import paimon_schema_json, write_input
from interop_support.java_oracle import java, rows_json  # noqa: F401  (fixture)
from interop_support.strata_cli import StrataError

pytestmark = pytest.mark.java

SCHEMA = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("v", pa.string()),
                    pa.field("n", pa.int64())])
CASES: Dict[str, Dict[str, str]] = {
    "dv": {"deletion-vectors.enabled": "true"},
    "input": {"changelog-producer": "input"},
    "lookup": {"changelog-producer": "lookup"},
    "full_compaction": {"changelog-producer": "full-compaction"},
    "dv_lookup": {"deletion-vectors.enabled": "true", "changelog-producer": "lookup"},
}


def batch(keys, tag: str) -> pa.Table:
    keys = list(keys)
    return pa.table({"k": pa.array(keys, pa.int32()), "v": [f"{tag}-{k}" for k in keys],
                     "n": pa.array([k * 10 + len(tag) for k in keys], pa.int64())}, schema=SCHEMA)


# (keys, tag, row kind) per commit
COMMITS = [
    [(range(0, 30), "a", "+I")],
    [(range(10, 20), "b", "+U"), (range(25, 30), "a", "-D")],
    [(range(30, 40), "c", "+I"), (range(0, 5), "a", "-D"), (range(12, 14), "d", "+U")],
]


def apply(model: Dict[int, dict], parts) -> None:
    for keys, tag, kind in parts:
        for r in batch(keys, tag).to_pylist():
            if kind == "-D":
                model.pop(r["k"], None)
            else:
                model[r["k"]] = r


def lines(model: Dict[int, dict]) -> List[str]:
    return canonical_lines(pa.Table.from_pylist(list(model.values()), schema=SCHEMA))


KIND_SCHEMA = SCHEMA.append(pa.field("kind", pa.string()))


def kind_table(parts) -> pa.Table:
    """The rows of ``parts`` with their row kinds in a ``kind`` column (``rowkind.field``)."""
    data = pa.concat_tables([batch(keys, tag) for keys, tag, _ in parts])
    kinds = [kind for keys, _, kind in parts for _ in keys]
    return data.append_column("kind", pa.array(kinds, pa.string()))


def apply_kinds(model: Dict[int, dict], parts) -> None:
    """``apply`` for tables whose ``kind`` column is data too."""
    for keys, tag, kind in parts:
        for r in batch(keys, tag).to_pylist():
            if kind == "-D":
                model.pop(r["k"], None)
            else:
                model[r["k"]] = {**r, "kind": kind}


def kind_lines(model: Dict[int, dict]) -> List[str]:
    return canonical_lines(pa.Table.from_pylist(list(model.values()), schema=KIND_SCHEMA))


def tree(wh: str) -> List[str]:
    return sorted(str(p.relative_to(wh)) for p in Path(wh).rglob("*") if p.is_file())


@pytest.mark.parametrize("case", sorted(CASES))
def test_java_writes_strata_reads(java, strata, case):
    ident = "db.t"
    options = {"bucket": "2", **CASES[case]}
    doc = paimon_schema_json(SCHEMA, [], options)
    doc["primaryKeys"] = ["k"]
    java.create_table(strata.warehouse, ident, doc)
    model: Dict[int, dict] = {}
    for i, parts in enumerate(COMMITS):
        data = pa.concat_tables([batch(keys, tag) for keys, tag, _ in parts])
        kinds = [kind for keys, _, kind in parts for _ in keys]
        java.write(strata.warehouse, ident, rows_json(data, row_kinds=kinds))
        apply(model, parts)
        assert_same_rows(strata.read_lines(ident), lines(model), f"{case}: strata read after Java commit {i + 1}")
    files = tree(strata.warehouse)
    if "deletion-vectors.enabled" in CASES[case]:
        # the updates and deletes of commits 2 and 3 hit rows in upper-level files
        assert any("/index/index-" in f for f in files), f"{case}: Java wrote no deletion vectors: {files}"
        if case == "dv":
            # A bucket with live vectors cannot be compacted by strata, so a write there would
            # stay at level 0, invisible to deletion-vector readers: it must be refused with
            # nothing committed; a write strata accepts must be visible to Java at once.
            early = batch(range(50, 60), "early")
            src = write_input(early, "parquet", Path(strata.scratch) / "early.parquet")
            before = len(strata.snapshots(ident))
            try:
                strata.write(ident, [src])
            except StrataError as e:
                assert "deletion vectors" in str(e), e
                assert len(strata.snapshots(ident)) == before
            else:
                apply(model, [(range(50, 60), "early", "+I")])
                assert_same_rows(java.read(strata.warehouse, ident), lines(model),
                                 f"{case}: Java read after strata's write on Java's vectors")
    java.compact(strata.warehouse, ident, full=True)
    assert_same_rows(strata.read_lines(ident), lines(model), f"{case}: strata read after Java's full compaction")
    files = tree(strata.warehouse)
    if "changelog-producer" in CASES[case]:
        assert any("/changelog-" in f for f in files), f"{case}: Java wrote no changelog files: {files}"

    more = batch(range(35, 45), "strata")
    src = write_input(more, "parquet", Path(strata.scratch) / "more.parquet")
    strata.write(ident, [src])
    apply(model, [(range(35, 45), "strata", "+I")])
    expected = lines(model)
    assert_same_rows(java.read(strata.warehouse, ident), expected, f"{case}: Java read after strata's write")
    assert_same_rows(strata.read_lines(ident), expected, f"{case}: strata read after its write")


def test_strata_deletion_vectors_read_by_java(java, strata):
    """A deletion-vector table written and compacted by strata with updates and deletes."""
    ident = "db.t"
    doc = paimon_schema_json(SCHEMA, [], {"bucket": "1", "deletion-vectors.enabled": "true",
                                          "rowkind.field": "kind"})
    doc["fields"].append({"name": "kind", "type": "STRING"})
    doc["primaryKeys"] = ["k"]
    strata.create_table(ident, doc)
    model: Dict[int, dict] = {}
    for i, parts in enumerate(COMMITS):
        data = kind_table(parts)
        strata.write(ident, [write_input(data, "parquet", Path(strata.scratch) / f"c{i}.parquet")])
        apply_kinds(model, parts)
        expected = kind_lines(model)
        assert_same_rows(java.read(strata.warehouse, ident), expected, f"Java read after strata commit {i + 1}")
        assert_same_rows(strata.read_lines(ident), expected, f"strata read after its commit {i + 1}")
    assert all(f["level"] > 0 for f in java.files(strata.warehouse, ident)), "level 0 compacted up"
    # Java writes on and compacts fully; strata reads it back.
    more = [(range(40, 50), "j", "+I"), (range(30, 33), "j", "-D")]
    java.write(strata.warehouse, ident, rows_json(kind_table(more), row_kind_column="kind"))
    apply_kinds(model, more)
    expected = kind_lines(model)
    assert_same_rows(strata.read_lines(ident), expected, "strata read after Java's write on strata's vectors")
    java.compact(strata.warehouse, ident, full=True)
    assert_same_rows(strata.read_lines(ident), expected, "strata read after Java's full compaction")


def test_strata_input_changelog_read_by_java(java, strata):
    """``changelog-producer = input`` written by strata: Java's changelog read of every commit is
    exactly the records strata was given (row kinds included), the same as Java's changelog of
    a Java-written table fed the same input, and strata's own incremental read agrees."""
    ours, theirs = "db.strata_input", "db.java_input"
    doc = paimon_schema_json(SCHEMA, [], {"bucket": "2", "changelog-producer": "input",
                                          "rowkind.field": "kind"})
    doc["fields"].append({"name": "kind", "type": "STRING"})
    doc["primaryKeys"] = ["k"]
    strata.create_table(ours, doc)
    java.create_table(strata.warehouse, theirs, doc)
    model: Dict[int, dict] = {}
    for i, parts in enumerate(COMMITS):
        data = kind_table(parts)
        kinds = data.column("kind")
        before = max((s["id"] for s in strata.snapshots(ours)), default=0)
        strata.write(ours, [write_input(data, "parquet", Path(strata.scratch) / f"in{i}.parquet")])
        java.write(strata.warehouse, theirs, rows_json(data, row_kind_column="kind"))
        appended = [s for s in strata.snapshots(ours) if s["id"] > before and s["commitKind"] == "APPEND"]
        assert len(appended) == 1, appended
        sid = appended[0]["id"]
        # the input records, each with its kind (the kind column holds the same text)
        want = sorted(canonical_lines(
            data.add_column(0, "rowkind", kinds)))
        opts = {"incremental-between": f"{sid - 1},{sid}", "incremental-between-scan-mode": "changelog"}
        assert_same_rows(java.incremental_read(strata.warehouse, ours, opts), want,
                         f"Java's changelog of strata's commit {i + 1}")
        apply_kinds(model, parts)
    # The whole changelog, Java's table vs strata's, read by Java and by strata.
    last_ours = max(s["id"] for s in strata.snapshots(ours))
    last_theirs = max(s["id"] for s in java.snapshots(strata.warehouse, theirs))
    whole = lambda last: {"incremental-between": f"0,{last}", "incremental-between-scan-mode": "changelog"}
    java_of_ours = java.incremental_read(strata.warehouse, ours, whole(last_ours))
    java_of_theirs = java.incremental_read(strata.warehouse, theirs, whole(last_theirs))
    assert_same_rows(java_of_ours, java_of_theirs, "Java's changelog: strata's table vs Java's")
    out = Path(strata.scratch) / "ours-changelog.parquet"
    strata.run("read", ours, "--incremental", f"0..{last_ours}", "--incremental-mode", "changelog",
               "--format", "parquet", "--output", str(out))
    import pyarrow.parquet as pq
    assert_same_rows(canonical_lines(pq.ParquetFile(out).read()), java_of_ours,
                     "strata's changelog read vs Java's")
    expected = kind_lines(model)
    assert_same_rows(java.read(strata.warehouse, ours), expected, "Java read of strata's input-changelog table")


LOOKUP_CASES = {
    "lookup": {"changelog-producer": "lookup"},
    "dv_lookup": {"changelog-producer": "lookup", "deletion-vectors.enabled": "true"},
    "dedupe": {"changelog-producer": "lookup", "changelog-producer.row-deduplicate": "true"},
    # Java's batch writer compacts fully only when asked (Flink's sink does at every
    # checkpoint, as strata does at every commit): the Java side runs a full compaction.
    "full": {"changelog-producer": "full-compaction"},
    # First rows stay: a later write of a key changes nothing (deletes ignored, as first-row
    # requires), and only new keys get +I.
    "first_row": {"changelog-producer": "lookup", "merge-engine": "first-row", "ignore-delete": "true"},
}

# Commits for the lookup changelog: updates to the same value (row-deduplicate), deletes of
# missing keys, keys changed twice in one commit.
LOOKUP_COMMITS = COMMITS + [
    [(range(30, 35), "c", "+I"), (range(35, 40), "e", "+U"), (range(90, 95), "z", "-D")],
    [(range(5, 12), "f", "+I"), (range(5, 8), "g", "+U"), (range(20, 25), "a", "-D")],
]


@pytest.mark.parametrize("case", sorted(LOOKUP_CASES))
def test_strata_compaction_changelog_equals_javas(java, strata, case):
    """``changelog-producer = lookup`` / ``full-compaction`` written by strata: for every commit, Java's changelog
    read of strata's table equals Java's changelog read of a Java-written table fed the same
    input (``-U``/``+U``/``+I``/``-D`` from the lookup compaction, ``row-deduplicate``
    included), strata's own read of its changelog agrees, and Java reads the table."""
    ours, theirs = f"db.strata_{case}", f"db.java_{case}"
    doc = paimon_schema_json(SCHEMA, [], {"bucket": "2", "rowkind.field": "kind",
                                          **LOOKUP_CASES[case]})
    doc["fields"].append({"name": "kind", "type": "STRING"})
    doc["primaryKeys"] = ["k"]
    strata.create_table(ours, doc)
    java.create_table(strata.warehouse, theirs, doc)
    model: Dict[int, dict] = {}
    latest = lambda snaps: max((s["id"] for s in snaps), default=0)
    changelog = lambda a, b: {"incremental-between": f"{a},{b}", "incremental-between-scan-mode": "changelog"}
    for i, parts in enumerate(LOOKUP_COMMITS):
        data = kind_table(parts)
        before_ours = latest(strata.snapshots(ours))
        before_theirs = latest(java.snapshots(strata.warehouse, theirs))
        strata.write(ours, [write_input(data, "parquet", Path(strata.scratch) / f"l{i}.parquet")])
        java.write(strata.warehouse, theirs, rows_json(data, row_kind_column="kind"))
        if case == "full":
            java.compact(strata.warehouse, theirs, full=True)
        after_ours = latest(strata.snapshots(ours))
        after_theirs = latest(java.snapshots(strata.warehouse, theirs))
        kinds = [s["commitKind"] for s in strata.snapshots(ours) if s["id"] > before_ours]
        assert kinds == ["APPEND", "COMPACT"], f"{case} commit {i + 1}: {kinds}"
        java_of_ours = java.incremental_read(strata.warehouse, ours, changelog(before_ours, after_ours))
        java_of_theirs = java.incremental_read(strata.warehouse, theirs,
                                               changelog(before_theirs, after_theirs))
        assert java_of_ours or case == "first_row", f"{case} commit {i + 1}: no changelog"
        assert_same_rows(java_of_ours, java_of_theirs,
                         f"{case} commit {i + 1}: Java's changelog of strata's table vs Java's table")
        out = Path(strata.scratch) / f"{case}-{i}.parquet"
        strata.run("read", ours, "--incremental", f"{before_ours}..{after_ours}", "--incremental-mode",
                   "changelog", "--format", "parquet", "--output", str(out))
        import pyarrow.parquet as pq
        assert_same_rows(canonical_lines(pq.ParquetFile(out).read()), java_of_ours,
                         f"{case} commit {i + 1}: strata's changelog read vs Java's")
        java_rows = java.read(strata.warehouse, ours)
        assert_same_rows(java_rows, java.read(strata.warehouse, theirs),
                         f"{case} commit {i + 1}: Java read of strata's table vs Java's table")
        if case != "first_row":
            apply_kinds(model, parts)
            assert_same_rows(java_rows, kind_lines(model), f"{case} commit {i + 1}: Java read vs the model")


@pytest.mark.parametrize("bitmap64", ["false", "true"])
def test_strata_lookup_compaction_with_deletion_vectors_read_by_java(java, strata, bitmap64):
    """A table big enough that strata's lookup compaction keeps several levels: updates and
    deletes of keys in the upper level become strata-written deletion vectors (32-bit, or the
    64-bit form with ``deletion-vectors.bitmap64``), which Java applies (its read skips level 0
    and never merges) after every commit."""
    ident = "db.lookup"
    doc = paimon_schema_json(SCHEMA, [], {"bucket": "1", "deletion-vectors.enabled": "true",
                                          "rowkind.field": "kind",
                                          "deletion-vectors.bitmap64": bitmap64})
    doc["fields"].append({"name": "kind", "type": "STRING"})
    doc["primaryKeys"] = ["k"]
    strata.create_table(ident, doc)
    commits = [
        [(range(0, 3000), "a", "+I")],
        [(range(100, 150), "b", "+U")],
        [(range(1000, 1010), "a", "-D"), (range(5000, 5050), "c", "+I")],
        [(range(2000, 2100), "d", "+U"), (range(120, 130), "e", "+U")],
    ]
    model: Dict[int, dict] = {}
    for i, parts in enumerate(commits):
        data = kind_table(parts)
        strata.write(ident, [write_input(data, "parquet", Path(strata.scratch) / f"l{i}.parquet")])
        apply_kinds(model, parts)
        expected = kind_lines(model)
        assert_same_rows(java.read(strata.warehouse, ident), expected, f"Java read after strata commit {i + 1}")
        assert_same_rows(strata.read_lines(ident), expected, f"strata read after its commit {i + 1}")
    files = java.files(strata.warehouse, ident)
    assert all(f["level"] > 0 for f in files), files
    assert len({f["level"] for f in files}) > 1, f"strata kept several levels: {files}"
    assert any("/index/index-" in f for f in tree(strata.warehouse)), "strata wrote deletion vectors"
    java.compact(strata.warehouse, ident, full=True)
    assert_same_rows(strata.read_lines(ident), expected, "strata read after Java's full compaction")
