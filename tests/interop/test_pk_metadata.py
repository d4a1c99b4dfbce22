"""``strata files`` and ``strata snapshots`` on fresh primary-key tables.  No reference writer
compacts, so every data file is at level 0: ``files`` must list exactly the files pypaimon plans
(level 0, bucket, partition, row count, sequence-number range), and strata's own writes must produce
level-0 files whose sequence numbers grow from commit to commit within a bucket."""
import os

import pyarrow.parquet as pq
import pytest

from interop_support import engines, pk, warehouse

pytestmark = pytest.mark.cli_metadata

COMPARED = ["partition", "bucket", "level", "fileSize", "rowCount", "schemaId", "minSequenceNumber",
            "maxSequenceNumber"]


def _check_files_against_plan(strata, ident, snapshot=None):
    got = strata.files(ident, snapshot=snapshot)
    want = engines.planned_files(strata.warehouse, ident, snapshot=snapshot)
    assert sorted(f["fileName"] for f in got) == sorted(f["fileName"] for f in want)
    by_name = {f["fileName"]: f for f in want}
    for f in got:
        ref = by_name[f["fileName"]]
        diff = {k: (f.get(k), ref[k]) for k in COMPARED if f.get(k) != ref[k]}
        assert not diff, f"{f['fileName']}: (strata files, pypaimon plan) differ: {diff}"
        assert f["level"] == 0, f
        paths = warehouse.find_data_file(strata.warehouse, ident, f["fileName"])
        assert len(paths) == 1 and paths[0].parent.name == f"bucket-{f['bucket']}", paths
        assert os.path.getsize(paths[0]) == f["fileSize"]
        assert pq.ParquetFile(paths[0]).metadata.num_rows == f["rowCount"]
    return got


def _check_sequence_growth(case, strata, ident):
    """Files added by commit n+1 start above every sequence number of commit n in the same bucket."""
    prev = {}
    for sid in range(1, len(case.commits) + 1):
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
    case = pk.CASES[case_name]
    pk.build_strata(strata, "db.t", case, inputs)
    got = _check_files_against_plan(strata, "db.t")
    assert {f["level"] for f in got} == {0}
    _check_sequence_growth(case, strata, "db.t")
    # a writer folds the rows of one key inside a commit: one physical record per key and commit
    per_commit = [len({tuple(r[k] for k in case.primary_keys) for r in t.to_pylist()}) for t in case.commits]
    assert sum(f["rowCount"] for f in got) == sum(per_commit)


@pytest.mark.cli_write
def test_snapshots_of_strata_pk_table(strata, inputs):
    """One APPEND snapshot per write; totalRecordCount counts physical records (sum over level-0
    files), like the reference writers."""
    case = pk.CASES["part_bucket2"]
    pk.build_strata(strata, "db.t", case, inputs)
    snaps = strata.snapshots("db.t")
    assert [s["id"] for s in snaps] == list(range(1, len(case.commits) + 1))
    assert {s["commitKind"] for s in snaps} == {"APPEND"}
    total = 0
    for s, data in zip(snaps, case.commits):
        total += data.num_rows
        assert (s["deltaRecordCount"], s["totalRecordCount"]) == (data.num_rows, total), s
        disk = warehouse.snapshot_json(strata.warehouse, "db.t", s["id"])
        assert disk["totalRecordCount"] == total
