"""``strata files`` and ``strata snapshots`` on fresh primary-key tables.  No reference writer
compacts, so every data file is at level 0: ``files`` must list exactly the files pypaimon plans
(level 0, bucket, partition, row count, sequence-number range), and strata's own writes must produce
level-0 files whose sequence numbers grow from commit to commit within a bucket.

strata compacts on write (an APPEND snapshot, then a COMPACT one when it picked something): the
level-0 checks use ``write-only`` tables, which never compact on write; the compacting tables are
checked the same way with files at any level, and after ``strata compact --full``."""
import os

import pyarrow.parquet as pq
import pytest

from interop_support import engines, pk, warehouse
from interop_support.canonical import assert_same_rows
from interop_support.compaction import (check_snapshot_counts, check_write_snapshots, commit_kinds, live_levels,
                                        max_level)

pytestmark = pytest.mark.cli_metadata

COMPARED = ["partition", "bucket", "level", "fileSize", "rowCount", "schemaId", "minSequenceNumber",
            "maxSequenceNumber"]


def _check_files_against_plan(strata, ident, snapshot=None, level0=True):
    got = strata.files(ident, snapshot=snapshot)
    want = engines.planned_files(strata.warehouse, ident, snapshot=snapshot)
    assert sorted(f["fileName"] for f in got) == sorted(f["fileName"] for f in want)
    by_name = {f["fileName"]: f for f in want}
    for f in got:
        ref = by_name[f["fileName"]]
        diff = {k: (f.get(k), ref[k]) for k in COMPARED if f.get(k) != ref[k]}
        assert not diff, f"{f['fileName']}: (strata files, pypaimon plan) differ: {diff}"
        if level0:
            assert f["level"] == 0, f
        paths = warehouse.find_data_file(strata.warehouse, ident, f["fileName"])
        assert len(paths) == 1 and paths[0].parent.name == f"bucket-{f['bucket']}", paths
        assert os.path.getsize(paths[0]) == f["fileSize"]
        assert pq.ParquetFile(paths[0]).metadata.num_rows == f["rowCount"]
    return got


def _check_sequence_growth(case, strata, ident, append_ids=None):
    """Files added by commit n+1 start above every sequence number of commit n in the same bucket
    (``append_ids``: the APPEND snapshot of each commit, by default 1..number of commits; the
    snapshot before one may be a COMPACT snapshot)."""
    prev = {}
    if append_ids is None:
        append_ids = list(range(1, len(case.commits) + 1))
    assert len(append_ids) == len(case.commits)
    for sid in append_ids:
        files = strata.files(ident, snapshot=sid)
        seen = {f["fileName"] for f in strata.files(ident, snapshot=sid - 1)} if sid > 1 else set()
        new = [f for f in files if f["fileName"] not in seen]
        assert new, f"snapshot {sid} added no file"
        for f in new:
            assert f["level"] == 0, f
            assert f["minSequenceNumber"] <= f["maxSequenceNumber"], f
            where = (repr(sorted(f["partition"].items())), f["bucket"])
            if where in prev:
                assert f["minSequenceNumber"] > prev[where], \
                    f"snapshot {sid}: {f['fileName']} starts at {f['minSequenceNumber']}, not above {prev[where]}"
        for f in new:
            where = (repr(sorted(f["partition"].items())), f["bucket"])
            prev[where] = max(prev.get(where, -1), f["maxSequenceNumber"])


@pytest.mark.parametrize("writer", pk.PEERS)
@pytest.mark.parametrize("case_name", ["part_bucket2", "dynamic", "composite_bucket4"])
def test_files_of_peer_pk_table_are_level0(case_name, writer, wh, strata):
    case = pk.CASES[case_name]
    pk.build_peer(writer, wh, "db.t", case)
    got = _check_files_against_plan(strata, "db.t")
    assert {f["level"] for f in got} == {0}
    _check_files_against_plan(strata, "db.t", snapshot=2)
    _check_sequence_growth(case, strata, "db.t")


@pytest.mark.cli_write
@pytest.mark.parametrize("case_name", ["part_bucket2", "dynamic", "composite_bucket4"])
def test_files_of_strata_pk_table_are_level0(case_name, strata, inputs):
    """A ``write-only`` table: one APPEND snapshot per write, every file at level 0."""
    case = pk.with_options(pk.CASES[case_name], {"write-only": "true"})
    per_write = pk.build_strata(strata, "db.t", case, inputs)
    assert [len(sids) for sids in per_write] == [1] * len(case.commits), f"write-only compacted: {per_write}"
    assert set(commit_kinds(strata.warehouse, "db.t")) == {"APPEND"}
    got = _check_files_against_plan(strata, "db.t")
    assert {f["level"] for f in got} == {0}
    _check_sequence_growth(case, strata, "db.t")
    # a writer folds the rows of one key inside a commit: one physical record per key and commit
    per_commit = [len({tuple(r[k] for k in case.primary_keys) for r in t.to_pylist()}) for t in case.commits]
    assert sum(f["rowCount"] for f in got) == sum(per_commit)


@pytest.mark.cli_write
@pytest.mark.cli_compaction
@pytest.mark.parametrize("case_name", ["part_bucket2", "dynamic", "composite_bucket4"])
def test_files_of_compacted_strata_pk_table(case_name, strata, inputs):
    """The same tables compacting on write: at every snapshot, APPEND or COMPACT, ``files`` lists
    exactly the files pypaimon plans (now also above level 0) and the manifests hold; each write's
    level-0 files continue the sequence numbers of its bucket.  ``strata compact --full`` then puts
    every file at the max level with exactly one record per key."""
    case = pk.CASES[case_name]
    ident = "db.t"
    per_write = pk.build_strata(strata, ident, case, inputs)
    check_write_snapshots(strata, ident, per_write)
    for sid in [sid for sids in per_write for sid in sids]:
        _check_files_against_plan(strata, ident, snapshot=sid, level0=False)
        live_levels(strata, ident, snapshot=sid, pypaimon_plan=False)     # strata files == manifests
    _check_sequence_growth(case, strata, ident, [sids[0] for sids in per_write])
    levels = live_levels(strata, ident)

    before = warehouse.snapshot_ids(strata.warehouse, ident)
    strata.run("compact", ident, "--full")
    added = commit_kinds(strata.warehouse, ident)[len(before):]
    # level-0 files left: a full compaction must commit; otherwise it may find nothing to do
    assert added == ["COMPACT"] or (added == [] and 0 not in levels.values()), \
        f"compact --full over levels {sorted(set(levels.values()))} committed {added}"
    got = _check_files_against_plan(strata, ident, level0=False)
    assert {f["level"] for f in got} == {max_level(case.options)}, got
    assert sum(f["rowCount"] for f in got) == len(case.merged_lines()), "one record per key after a full compaction"
    assert all(f["deleteRowCount"] == 0 for f in got), got
    check_snapshot_counts(strata, ident)
    expected = case.expected_lines()
    for reader in case.readers:
        assert_same_rows(pk.peer_lines(reader, strata.warehouse, ident), expected, f"{reader} after compact --full")
    assert_same_rows(strata.read_lines(ident), expected, "strata after compact --full")


@pytest.mark.cli_write
def test_snapshots_of_strata_pk_table(strata, inputs):
    """Per write an APPEND snapshot, then a COMPACT snapshot when the write compacted.
    totalRecordCount counts physical records (the rows of the live files, at every level) and
    deltaRecordCount what a snapshot adds minus what it removes, like the reference writers: an
    APPEND adds the write's records, a COMPACT removes the versions it merged away."""
    case = pk.CASES["part_bucket2"]
    per_write = pk.build_strata(strata, "db.t", case, inputs)
    # APPEND (+ COMPACT) per write, ids 1..N, counts against the manifests and pypaimon-rust
    check_write_snapshots(strata, "db.t", per_write)
    assert "COMPACT" in commit_kinds(strata.warehouse, "db.t"), \
        "the 5th write reaches num-sorted-run.compaction-trigger (5) and compacts"
    snaps = strata.snapshots("db.t")
    assert [s["id"] for s in snaps] == [sid for sids in per_write for sid in sids]
    by_id = {s["id"]: s for s in snaps}
    total = 0
    for sids, data in zip(per_write, case.commits):
        for sid in sids:
            s, disk = by_id[sid], warehouse.snapshot_json(strata.warehouse, "db.t", sid)
            assert (s["commitKind"], s["deltaRecordCount"], s["totalRecordCount"]) == \
                (disk["commitKind"], disk["deltaRecordCount"], disk["totalRecordCount"]), (s, disk)
            assert s["totalRecordCount"] == sum(f["rowCount"] for f in strata.files("db.t", snapshot=sid)), s
        app = by_id[sids[0]]
        assert app["commitKind"] == "APPEND"
        assert (app["deltaRecordCount"], app["totalRecordCount"]) == (data.num_rows, total + data.num_rows), app
        if len(sids) == 2:
            comp = by_id[sids[1]]
            assert comp["commitKind"] == "COMPACT"
            assert comp["deltaRecordCount"] <= 0, f"a compaction merges records, never adds any: {comp}"
            assert comp["totalRecordCount"] == app["totalRecordCount"] + comp["deltaRecordCount"], comp
        total = by_id[sids[-1]]["totalRecordCount"]
