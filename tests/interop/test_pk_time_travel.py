"""Time travel on primary-key tables: ``strata read --snapshot N`` returns the merge model after the
first N commits -- what pypaimon and pypaimon-rust read with ``scan.snapshot-id`` -- for tables
written by the reference engines and by strata (overlapping updates, row-kind deletes, aggregation,
partial-update: each snapshot has different merged values).  A strata write may commit a COMPACT
snapshot after its APPEND snapshot: both read the rows after that write."""
import pytest

from interop_support import pk
from interop_support.canonical import assert_same_rows
from interop_support.compaction import check_write_snapshots

pytestmark = pytest.mark.cli_snapshot

CASES = ["dedup_basic", "rowkind", "aggregation", "partial_update"]


def _check_every_snapshot(case, strata, ident, per_write=None):
    """Every snapshot reads the model after the commit that made it (``per_write``: the snapshot
    ids each commit made, by default one per commit)."""
    if per_write is None:
        per_write = [[sid] for sid in range(1, len(case.commits) + 1)]
    assert len(per_write) == len(case.commits)
    for n, sids in enumerate(per_write, 1):
        expected = case.expected_lines(n)
        for sid in sids:
            for reader in case.readers:
                assert_same_rows(pk.peer_lines(reader, strata.warehouse, ident, snapshot=sid), expected,
                                 f"{reader} read of {case.name} at snapshot {sid} (commit {n})")
            assert_same_rows(strata.read_lines(ident, snapshot=sid), expected,
                             f"strata read of {case.name} --snapshot {sid} (commit {n})")


@pytest.mark.parametrize("writer", pk.PEERS)
@pytest.mark.parametrize("case_name", CASES)
def test_strata_time_travel_on_peer_pk_table(case_name, writer, wh, strata):
    case = pk.CASES[case_name]
    pk.build_peer(writer, wh, "db.t", case)
    _check_every_snapshot(case, strata, "db.t")


@pytest.mark.cli_write
@pytest.mark.parametrize("case_name", CASES)
def test_time_travel_on_strata_pk_table(case_name, strata, inputs):
    case = pk.CASES[case_name]
    per_write = pk.build_strata(strata, "db.t", case, inputs)
    check_write_snapshots(strata, "db.t", per_write)
    _check_every_snapshot(case, strata, "db.t", per_write)
