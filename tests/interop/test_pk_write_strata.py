"""Direction B for primary-key tables: ``strata create-table`` (schema with primaryKeys) and one
``strata write`` per commit, then pypaimon and pypaimon-rust (where they support the case) read
exactly the rows of the merge model; strata reads its own table the same way.  Every write commits
an APPEND snapshot, followed by a COMPACT snapshot when the write compacted (as Java's batch
writer); ``write-only`` tables keep every file at level 0.

Also: commits alternating between strata and the reference writers on one table (sequence numbers,
fixed-bucket hashing and the dynamic-bucket HASH index must continue across engines), the bucket of
every key equal to pypaimon's, and the data-file column layout (``_KEY_<pk>``, ``_SEQUENCE_NUMBER``,
``_VALUE_KIND``, then the columns) equal to pypaimon's."""
import json
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from interop_support import engines, pk, warehouse
from interop_support.canonical import assert_same_rows, canonical_lines, dumps
from interop_support.compaction import (check_snapshot_counts, check_write_snapshots, commit_kinds, live_levels,
                                        max_level)

pytestmark = pytest.mark.cli_write

CASE_FORMATS = [(name, fmt) for name, c in pk.CASES.items() for fmt in c.formats]


def expected_for(case, strata, ident, n=None):
    """The model's rows; for first-row tables what a batch read returns given strata's file levels:
    nothing while every file is at level 0, the merged rows once none is (None: mixed, no model)."""
    if not case.reads_empty:
        return case.expected_lines(n)
    levels = {f["level"] for f in strata.files(ident, snapshot=n)}
    if levels <= {0}:
        return []
    return case.merged_lines(n) if 0 not in levels else None


def assert_all_read_case(case, strata, ident, n=None):
    expected = expected_for(case, strata, ident, n)
    lines = {r: pk.peer_lines(r, strata.warehouse, ident, snapshot=n) for r in case.readers}
    at = f" at snapshot {n}" if n is not None else ""
    if expected is None:                                    # first-row, partly compacted
        expected = lines[case.readers[0]]
    for reader, got in lines.items():
        assert_same_rows(got, expected, f"{reader} read of strata's {case.name}{at}")
    assert_same_rows(strata.read_lines(ident, snapshot=n), expected, f"strata read of its {case.name}{at}")


@pytest.mark.parametrize("case_name,fmt", CASE_FORMATS)
def test_peers_read_strata_pk_table(case_name, fmt, strata, inputs):
    case = pk.CASES[case_name]
    per_write = pk.build_strata(strata, "db.t", case, inputs, fmt)
    assert len(per_write) == len(case.commits)
    # per write: APPEND (level-0 files), optionally COMPACT; record counts match the manifests
    check_write_snapshots(strata, "db.t", per_write)
    assert_all_read_case(case, strata, "db.t")


def test_pypaimon_refuses_strata_sequence_group_table(strata, inputs):
    """pypaimon 2.1.0 rejects partial-update sequence groups: the table strata writes is declared
    like the one pypaimon-rust writes, so pypaimon refuses it the same way (not a wrong answer)."""
    case = pk.CASES["partial_update_seq_group"]
    pk.build_strata(strata, "db.t", case, inputs)
    with pytest.raises(NotImplementedError, match="sequence-group"):
        engines.read("pypaimon", strata.warehouse, "db.t")
    assert_same_rows(pk.peer_lines("pypaimon-rust", strata.warehouse, "db.t"), case.expected_lines(),
                     "pypaimon-rust read of strata's partial_update_seq_group")


MIXED = ["composite_bucket4", "part_int_bucket4", "dynamic", "dynamic_part", "rowkind", "aggregation",
         "partial_update", "sequence_field"]


@pytest.mark.parametrize("case_name", MIXED)
def test_commits_alternate_between_strata_and_peers(case_name, strata, inputs):
    """strata, pypaimon and pypaimon-rust take turns committing to one table: every engine reads the
    model after each commit, whoever wrote it."""
    case = pk.CASES[case_name]
    strata.create_table("db.t", pk.pk_schema_json(case))
    order = ["strata", "pypaimon", "pypaimon-rust"]
    for n, data in enumerate(case.commits):
        writer = order[n % 3]
        pk.write_with(writer, strata, "db.t", data, inputs, f"mixed-{n}")
        expected = case.expected_lines(n + 1)
        for reader in case.readers:
            assert_same_rows(pk.peer_lines(reader, strata.warehouse, "db.t"), expected,
                             f"{reader} read after commit {n + 1} (by {writer})")
        assert_same_rows(strata.read_lines("db.t"), expected, f"strata read after commit {n + 1} (by {writer})")


def _key_placement(wh, ident, keys):
    out = set()
    for f in warehouse.data_files_on_disk(wh, ident):
        rel = f.relative_to(warehouse.table_dir(wh, ident))
        t = pq.ParquetFile(f).read(columns=list(keys))
        for line in canonical_lines(t):
            out.add(("/".join(rel.parts[:-2]), rel.parts[-2], line))
    return out


@pytest.mark.parametrize("case_name", ["composite_bucket4", "part_int_bucket4", "part_bucket2"])
def test_fixed_bucket_of_every_key_matches_pypaimon(case_name, strata, inputs, tmp_path):
    """The bucket of a key is the hash of the (trimmed) primary-key BinaryRow: strata puts every key
    in the partition directory and bucket pypaimon and pypaimon-rust choose."""
    case = pk.CASES[case_name]
    pk.build_strata(strata, "db.t", case, inputs)
    placements = {"strata": _key_placement(strata.warehouse, "db.t", case.primary_keys)}
    for writer in pk.PEERS:
        other = str(tmp_path / f"wh-{writer}")
        pk.build_peer(writer, other, "db.t", case)
        placements[writer] = _key_placement(other, "db.t", case.primary_keys)
    assert placements["pypaimon"] == placements["pypaimon-rust"], "reference writers disagree"
    diff = sorted(placements["strata"] ^ placements["pypaimon"])
    assert not diff, f"(partition dir, bucket, key) differing between strata and pypaimon: {diff[:20]}"


SYSTEM_COLUMNS = ("_SEQUENCE_NUMBER", "_VALUE_KIND")


def _layouts(wh, ident):
    return {tuple((f.name, str(f.type)) if f.name.startswith("_") else (f.name, "")
                  for f in pq.ParquetFile(p).schema_arrow) for p in warehouse.data_files_on_disk(wh, ident)}


@pytest.mark.parametrize("case_name", ["composite_bucket4", "rowkind", "part_bucket2"])
def test_data_file_layout_matches_pypaimon(case_name, strata, inputs, tmp_path):
    """Data files hold _KEY_<pk> copies of the key (minus partition keys), _SEQUENCE_NUMBER (int64) and _VALUE_KIND (int8)
    before the table's columns, in pypaimon's (and Java's default, non-thin) order."""
    case = pk.CASES[case_name]
    pk.build_strata(strata, "db.t", case, inputs)
    other = str(tmp_path / "wh-py")
    pk.build_peer("pypaimon", other, "db.t", case)
    want = _layouts(other, "db.t")
    assert len(want) == 1, want
    (layout,) = want
    trimmed = [k for k in case.primary_keys if k not in case.partition_keys]   # partition keys: no _KEY_ copy
    assert [n for n, _ in layout][: len(trimmed) + 2] == [f"_KEY_{k}" for k in trimmed] + list(SYSTEM_COLUMNS), \
        layout
    got = _layouts(strata.warehouse, "db.t")
    assert got == want, f"strata data-file columns {sorted(got)} != pypaimon's {layout}"


def _retract_records(path):
    """The number of -U / -D records (_VALUE_KIND 1 / 3) in a data file."""
    kinds = pq.ParquetFile(path).read(columns=["_VALUE_KIND"])["_VALUE_KIND"].to_pylist()
    return sum(1 for k in kinds if k in (1, 3))


def test_retracts_are_stored_with_their_row_kind(strata, inputs):
    """With rowkind.field, -D / -U input rows are written as _VALUE_KIND 3 / 1 records (level 0 keeps
    them so they can cancel older files), and the manifest's deleteRowCount counts them.  The table
    is ``write-only``: no write compacts, so every record written is still on disk at level 0."""
    case = pk.with_options(pk.CASES["rowkind"], {"write-only": "true"})
    per_write = pk.build_strata(strata, "db.t", case, inputs)
    assert [len(sids) for sids in per_write] == [1] * len(case.commits), f"write-only compacted: {per_write}"
    check_write_snapshots(strata, "db.t", per_write)
    kinds = {}
    per_file = {}
    for p in warehouse.data_files_on_disk(strata.warehouse, "db.t"):
        t = pq.ParquetFile(p).read(columns=["id", "_VALUE_KIND"])
        ks = t["_VALUE_KIND"].to_pylist()
        per_file[p.name] = sum(1 for k in ks if k in (1, 3))
        for i, k in zip(t["id"].to_pylist(), ks):
            kinds.setdefault(k, set()).add(i)
    assert {1, 2, 3, 10, 22, 99} <= kinds.get(3, set()), f"-D ids: {kinds.get(3)}"
    assert 12 in kinds.get(1, set()), f"-U ids: {kinds.get(1)}"
    assert set(kinds) <= {0, 1, 2, 3}
    files = strata.files("db.t")
    assert {f["fileName"] for f in files} == set(per_file)
    for f in files:
        assert f["level"] == 0, f
        assert f["deleteRowCount"] == per_file[f["fileName"]], \
            f"{f['fileName']}: deleteRowCount {f['deleteRowCount']} != retract rows {per_file[f['fileName']]}"
    assert_all_read_case(case, strata, "db.t")


def test_retracts_are_dropped_at_the_max_level(strata, inputs):
    """The same table compacting on write: at every snapshot each live file's deleteRowCount counts
    its -U / -D records, and files at the max level hold none (compacting into the max level drops
    retracts).  After ``strata compact --full`` every file is at the max level with deleteRowCount 0
    and exactly one record per live key, and every engine still reads the model."""
    case = pk.CASES["rowkind"]
    top = max_level(case.options)
    per_write = pk.build_strata(strata, "db.t", case, inputs)
    check_write_snapshots(strata, "db.t", per_write)

    def live_retracts(snapshot=None):
        """file name -> retract records of the live files (checked against deleteRowCount)."""
        live_levels(strata, "db.t", snapshot=snapshot)    # strata files == manifests == pypaimon's plan
        out = {}
        for f in strata.files("db.t", snapshot=snapshot):
            (path,) = warehouse.find_data_file(strata.warehouse, "db.t", f["fileName"])
            out[f["fileName"]] = n = _retract_records(path)
            at = f"snapshot {snapshot}" if snapshot is not None else "latest snapshot"
            assert f["deleteRowCount"] == n, \
                f"{at}: {f['fileName']} (level {f['level']}): deleteRowCount {f['deleteRowCount']} != retract rows {n}"
            assert f["level"] < top or n == 0, f"{at}: {f['fileName']}: {n} retracts kept at the max level"
        return out

    for sids in per_write:
        for sid in sids:
            live_retracts(sid)
    # the last write's own -U / -D records are live (at level 0) in its APPEND snapshot
    assert sum(live_retracts(per_write[-1][0]).values()) > 0
    assert_all_read_case(case, strata, "db.t")

    before = warehouse.snapshot_ids(strata.warehouse, "db.t")
    strata.run("compact", "db.t", "--full")
    added = warehouse.snapshot_ids(strata.warehouse, "db.t")[len(before):]
    assert commit_kinds(strata.warehouse, "db.t")[len(before):] == ["COMPACT"] * len(added) and len(added) <= 1, \
        f"compact --full committed {added}"
    assert sum(live_retracts().values()) == 0
    files = strata.files("db.t")
    assert files and {f["level"] for f in files} == {top}, f"after compact --full: {files}"
    assert all(f["deleteRowCount"] == 0 for f in files), files
    assert sum(f["rowCount"] for f in files) == len(case.merged_lines()), "one record per live key"
    assert_all_read_case(case, strata, "db.t")
    check_snapshot_counts(strata, "db.t")
