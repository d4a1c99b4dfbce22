"""Time travel on primary-key tables: ``strata read --snapshot N`` returns the merge model after the
first N commits -- what pypaimon and pypaimon-rust read with ``scan.snapshot-id`` -- for tables
written by the reference engines and by strata (overlapping updates, row-kind deletes, aggregation,
partial-update: each snapshot has different merged values)."""
import pytest

from interop_support import pk
from interop_support.canonical import assert_same_rows

pytestmark = pytest.mark.cli_snapshot

CASES = ["dedup_basic", "rowkind", "aggregation", "partial_update"]


def _check_every_snapshot(case, strata, ident):
    for sid in range(1, len(case.commits) + 1):
        expected = case.expected_lines(sid)
        for reader in case.readers:
            assert_same_rows(pk.peer_lines(reader, strata.warehouse, ident, snapshot=sid), expected,
                             f"{reader} read of {case.name} at snapshot {sid}")
        assert_same_rows(strata.read_lines(ident, snapshot=sid), expected,
                         f"strata read of {case.name} --snapshot {sid}")


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
    pk.build_strata(strata, "db.t", case, inputs)
    _check_every_snapshot(case, strata, "db.t")
