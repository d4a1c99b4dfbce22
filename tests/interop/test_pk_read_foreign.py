"""Direction A for primary-key tables: tables written by pypaimon / pypaimon-rust (every case of
``interop_support/pk.py``: fixed and dynamic buckets, partitions, composite keys, row kinds,
ignore-delete, partial-update, aggregation, first-row, sequence.field) are read by strata with the
rows the merge model computes -- the rows the reference readers return too (re-checked first, so a
failure on the strata line is strata's)."""
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from interop_support import engines, pk
from interop_support.canonical import assert_same_rows, canonical_lines

pytestmark = pytest.mark.cli_read

CASE_WRITERS = [(name, w) for name, c in pk.CASES.items() for w in c.writers]


def _check_peers(case, wh, ident, expected):
    for reader in case.readers:
        assert_same_rows(pk.peer_lines(reader, wh, ident), expected, f"{reader} read of {case.name}")


@pytest.mark.parametrize("case_name,writer", CASE_WRITERS)
def test_strata_reads_peer_pk_table(case_name, writer, wh, strata):
    case = pk.CASES[case_name]
    pk.build_peer(writer, wh, "db.t", case)
    expected = case.expected_lines()
    _check_peers(case, wh, "db.t", expected)
    assert_same_rows(strata.read_lines("db.t"), expected, f"strata read of {case_name} written by {writer}")


def test_strata_reads_table_written_by_both_peers(wh, strata):
    """Commits alternate between pypaimon and pypaimon-rust on one table (sequence numbers and
    buckets continue across writers)."""
    case = pk.CASES["composite_bucket4"]
    pk.create_peer_table(wh, "db.t", case)
    for n, data in enumerate(case.commits):
        engines.write(pk.PEERS[n % 2], wh, "db.t", data)
    _check_peers(case, wh, "db.t", case.expected_lines())
    assert_same_rows(strata.read_lines("db.t"), case.expected_lines(), "strata read of a two-writer table")


@pytest.mark.cli_query
@pytest.mark.parametrize("writer", pk.PEERS)
def test_strata_filters_after_merging(writer, wh, strata):
    """A --where on a value column applies to the merged row: an older version of a key that matches
    the predicate must not resurface (and a newer one that fails it hides the key)."""
    case = pk.CASES["dedup_basic"]
    pk.build_peer(writer, wh, "db.t", case)
    merged = pa.Table.from_pylist(pk.merge_model(case), schema=case.schema)
    want = canonical_lines(merged.filter(pc.greater(merged["cnt"], 60)))
    # an old version of id 5 (cnt 51) and id 6 (cnt 61, later 62...) exist below the newest rows
    for reader in pk.PEERS:
        got = canonical_lines(engines.read_filtered(reader, wh, "db.t", None, "cnt", ">", 60))
        assert_same_rows(got, want, f"{reader} read of cnt > 60")
    assert_same_rows(strata.read_lines("db.t", where="cnt > 60"), want, "strata read --where 'cnt > 60'")
    key_want = canonical_lines(merged.filter(pc.less(merged["id"], 6)))
    assert_same_rows(strata.read_lines("db.t", where="id < 6"), key_want, "strata read --where 'id < 6'")


@pytest.mark.cli_query
@pytest.mark.parametrize("writer", pk.PEERS)
def test_strata_projection_of_value_columns(writer, wh, strata):
    """--columns without the key columns still merges by key."""
    case = pk.CASES["partial_update"]
    pk.build_peer(writer, wh, "db.t", case)
    merged = pa.Table.from_pylist(pk.merge_model(case), schema=case.schema)
    want = canonical_lines(merged.select(["c", "a"]))
    for reader in pk.PEERS:
        got = canonical_lines(engines.read(reader, wh, "db.t", columns=["c", "a"]))
        assert_same_rows(got, want, f"{reader} read of columns c,a")
    assert_same_rows(strata.read_lines("db.t", columns=["c", "a"]), want, "strata read --columns c,a")
