"""Primary-key tables, reference engines only (no strata): the merge model of
``interop_support/pk.py`` agrees with what pypaimon and pypaimon-rust read from tables they wrote,
for every case and every snapshot.  This is what makes the model an oracle for the strata tests in
``test_pk_read_foreign.py`` / ``test_pk_write_strata.py``; it also pins what the peers support."""
import pytest

from interop_support import pk
from interop_support.canonical import assert_same_rows, canonical_lines

pytestmark = pytest.mark.oracle

CASE_WRITERS = [(name, w) for name, c in pk.CASES.items() for w in c.writers]


@pytest.mark.parametrize("case_name,writer", CASE_WRITERS)
def test_peers_read_the_model(case_name, writer, wh):
    case = pk.CASES[case_name]
    pk.build_peer(writer, wh, "db.t", case)
    for sid in range(1, len(case.commits) + 1):
        for reader in case.readers:
            assert_same_rows(pk.peer_lines(reader, wh, "db.t", snapshot=sid), case.expected_lines(sid),
                             f"{reader} read of {case_name} by {writer} at snapshot {sid}")
    for reader in case.readers:
        assert_same_rows(pk.peer_lines(reader, wh, "db.t"), case.expected_lines(),
                         f"{reader} read of {case_name} by {writer}")


def test_model_reproduces_the_oracle_pk_t():
    """The rowkind case is the oracle's pk_t plus a fifth commit: after four commits the model has
    pk_t's 21 rows (as the pypaimon oracle printed them), spot-checked here."""
    case = pk.CASES["rowkind"]
    rows = {r["id"]: r for r in pk.merge_model(case, 4)}
    assert len(rows) == 21
    assert sorted(rows) == [2, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 23, 24, 25]
    assert rows[11] == {"id": 11, "name": "v4_11", "score": 16.5, "cnt": 211, "rk": "+I"}
    assert rows[12] == {"id": 12, "name": "v2_12", "score": 18.0, "cnt": 212, "rk": "+U"}
    assert rows[7]["name"] == "v3_7" and rows[2]["name"] == "v4_2"
    after5 = {r["id"] for r in pk.merge_model(case, 5)}
    assert after5 == (set(rows) - {12}) | {3}


def test_model_ignore_delete_keeps_deleted_keys():
    rows = {r["id"]: r for r in pk.merge_model(pk.CASES["rowkind_ignore_delete"])}
    assert {1, 2, 3, 10, 12, 22, 30} <= set(rows)
    assert 99 not in rows                      # only a -D was ever written for 99
    assert rows[30]["rk"] == "+I" and rows[5]["name"] == "v2_5"


def test_model_sequence_group_spot_checks():
    rows = {r["id"]: r for r in pk.merge_model(pk.CASES["partial_update_seq_group"])}
    assert (rows[1]["a"], rows[1]["a2"], rows[1]["g1"], rows[1]["b"], rows[1]["g2"]) == ("a-tie", 7, 5, "b2", 9)
    assert (rows[2]["a"], rows[2]["a2"], rows[2]["b"], rows[2]["g2"]) == ("x2", None, "y", 1)
    assert (rows[3]["a"], rows[3]["a2"], rows[3]["b"], rows[3]["free"]) == (None, 3, "pb", "f3")


def test_first_row_reads_empty_but_model_is_not():
    case = pk.CASES["first_row"]
    assert case.expected_lines() == [] and len(case.merged_lines()) == 12


@pytest.mark.parametrize("writer", pk.PEERS)
def test_pypaimon_refuses_sequence_groups(writer, wh):
    """pypaimon 2.1.0 cannot write or read partial-update tables with sequence groups."""
    from interop_support import engines
    case = pk.CASES["partial_update_seq_group"]
    pk.create_peer_table(wh, "db.t", case)
    if writer == "pypaimon":
        with pytest.raises(NotImplementedError, match="sequence-group"):
            engines.write("pypaimon", wh, "db.t", case.commits[0])
    else:
        engines.write("pypaimon-rust", wh, "db.t", case.commits[0])
        with pytest.raises(NotImplementedError, match="sequence-group"):
            engines.read("pypaimon", wh, "db.t")


@pytest.mark.parametrize("writer", pk.PEERS)
def test_no_peer_knows_the_count_aggregator(writer, wh):
    """Neither reference engine accepts 'count' (so strata's count aggregator has no oracle here)."""
    import pyarrow as pa
    from interop_support import engines
    case = pk.PkCase("count", pa.schema([pa.field("id", pa.int64(), nullable=False), ("c", pa.int64())]),
                     ("id",), [], options={"bucket": "1", "merge-engine": "aggregation",
                                           "fields.c.aggregate-function": "count"})
    pk.create_peer_table(wh, "db.t", case)
    with pytest.raises(Exception, match="count|aggregate"):
        engines.write(writer, wh, "db.t", pa.table({"id": [1], "c": [1]}, schema=case.schema))


def test_rust_writes_retracts_and_counts_them(wh):
    """What test_pk_write_strata's retract check asks of strata, shown on pypaimon-rust (which
    follows Java; pypaimon writes deleteRowCount 0): -D / -U input rows are stored as _VALUE_KIND
    3 / 1 records and each file's manifest deleteRowCount is the number of such records."""
    import pyarrow.parquet as pq
    from interop_support import engines, warehouse
    pk.build_peer("pypaimon-rust", wh, "db.t", pk.CASES["rowkind"])
    plan = {f["fileName"]: f for f in engines.planned_files(wh, "db.t")}
    kinds = {}
    for p in warehouse.data_files_on_disk(wh, "db.t"):
        t = pq.ParquetFile(p).read(columns=["id", "_VALUE_KIND"])
        ks = t["_VALUE_KIND"].to_pylist()
        assert plan[p.name]["deleteRowCount"] == sum(1 for k in ks if k in (1, 3)), p.name
        for i, k in zip(t["id"].to_pylist(), ks):
            kinds.setdefault(k, set()).add(i)
    assert {1, 2, 3, 10, 22, 99} <= kinds[3] and 12 in kinds[1]
