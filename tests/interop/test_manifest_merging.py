"""Manifest merging (Java ``ManifestFileMerger``) in strata's commits, read by pypaimon and
pypaimon-rust.

strata merges the previous snapshot's manifests into each new snapshot's base list: small
manifests are merged once there are ``manifest.merge-min-count`` of them or their sizes reach
``manifest.target-file-size``, ADD/DELETE pairs of the same file cancel, and past
``manifest.full-compaction-threshold-size`` a full compaction rewrites every manifest holding
DELETEs or smaller than the target.  The tables here use tiny thresholds so both kinds happen
within a few commits; every engine must then read exactly the model at the latest snapshot and
at older ones (time travel through snapshots whose manifests were merged away later), and plan
exactly the files the manifests say are live.  A pypaimon commit in the middle puts a foreign
manifest into strata's next merge.
"""
from typing import Dict, List, Set

import fastavro
import pyarrow as pa
import pytest

from interop_support import engines, warehouse
from interop_support.canonical import canonical_lines
from interop_support.compaction import manifest_live
from interop_support.datagen import write_input
from interop_support.flows import assert_all_read

pytestmark = pytest.mark.cli_write

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("dt", pa.string()), ("v", pa.int64())])
MERGING = {
    "manifest.merge-min-count": "3",
    "manifest.target-file-size": "4kb",
    "manifest.full-compaction-threshold-size": "12kb",
}


def _schema_doc(primary_keys=(), options=None) -> dict:
    return {
        "fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "dt", "type": "STRING"},
                   {"name": "v", "type": "BIGINT"}],
        "partitionKeys": ["dt"],
        "primaryKeys": list(primary_keys),
        "options": dict(options or {}),
    }


def _avro(path) -> List[dict]:
    with open(path, "rb") as fh:
        return list(fastavro.reader(fh))


def _lists(wh: str, ident: str, sid: int):
    """(base manifest names, delta manifest names, data manifests with their entries)."""
    snap = warehouse.snapshot_json(wh, ident, sid)
    mdir = warehouse.table_dir(wh, ident) / "manifest"
    base = [m["_FILE_NAME"] for m in _avro(mdir / snap["baseManifestList"])]
    delta = [m["_FILE_NAME"] for m in _avro(mdir / snap["deltaManifestList"])]
    return base, delta, {n: _avro(mdir / n) for n in base + delta}


def _check_merging(wh: str, ident: str) -> Dict[str, int]:
    """Every snapshot's base is made of earlier manifests or files written by a merge; merged
    files hold no ADD and DELETE of the same file. Returns counts of what was seen."""
    deltas: Set[str] = set()
    merged: Set[str] = set()
    counts = []
    for sid in warehouse.snapshot_ids(wh, ident):
        base, delta, entries = _lists(wh, ident, sid)
        for name in base:
            if name in deltas or name in merged:
                continue
            merged.add(name)
            es = entries[name]
            key = lambda e: (bytes(e["_PARTITION"]), e["_BUCKET"], e["_FILE"]["_LEVEL"], e["_FILE"]["_FILE_NAME"])
            adds = {key(e) for e in es if e["_KIND"] == 0}
            dels = {key(e) for e in es if e["_KIND"] == 1}
            assert not adds & dels, f"merged manifest {name} of snapshot {sid} holds ADD+DELETE pairs"
        deltas.update(delta)
        counts.append(len(base) + len(delta))
    return {"merged_files": len(merged), "max_manifests": max(counts), "last": counts[-1],
            "snapshots": len(counts)}


def _check_plans(strata, ident: str) -> None:
    """pypaimon plans exactly the live files of the (merged) manifests."""
    live = manifest_live(strata.warehouse, ident)
    plan = engines.planned_files(strata.warehouse, ident)
    assert sorted(f["fileName"] for f in plan) == sorted(live), "pypaimon plans the live files"


def _rows(ids, dt, v) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64()), "dt": pa.array([dt] * len(ids), pa.string()),
                     "v": pa.array([v] * len(ids), pa.int64())}, schema=SCHEMA)


def test_peers_read_an_append_table_with_merged_manifests(strata, inputs, wh):
    ident = "db.merged"
    strata.create_table(ident, _schema_doc(options={"bucket": "-1", **MERGING}))
    model: Dict[int, tuple] = {}
    history = []
    for i in range(14):
        dt = f"d{i % 3}"
        data = _rows([i * 10 + k for k in range(1 + i % 3)], dt, i)
        overwrite = i % 5 == 4
        if i == 7:
            engines.write_pypaimon(wh, ident, data)   # a foreign manifest in the next merge
        else:
            strata.write(ident, [write_input(data, "parquet", inputs / f"c{i}.parquet")], overwrite=overwrite)
        if overwrite:
            model = {k: r for k, r in model.items() if r[1] != dt}
        model.update({r["id"]: (r["id"], r["dt"], r["v"]) for r in data.to_pylist()})
        history.append(dict(model))
    seen = _check_merging(wh, ident)
    assert seen["merged_files"] >= 2, seen
    assert seen["last"] <= 4 and seen["max_manifests"] <= 6, seen
    _check_plans(strata, ident)

    def table_of(m):
        rows = sorted(m.values())
        return pa.table({"id": [r[0] for r in rows], "dt": [r[1] for r in rows],
                         "v": [r[2] for r in rows]}, schema=SCHEMA)

    assert_all_read(strata, ident, canonical_lines(table_of(model)))
    sids = warehouse.snapshot_ids(wh, ident)
    assert len(sids) == len(history)
    for sid in (2, 6, 9, len(sids) - 1):
        assert_all_read(strata, ident, canonical_lines(table_of(history[sid - 1])), snapshot=sid)


def test_peers_read_a_compacted_primary_key_table_with_merged_manifests(strata, inputs, wh):
    ident = "db.pk"
    strata.create_table(ident, _schema_doc(primary_keys=["dt", "id"],
                                           options={"bucket": "2", **MERGING}))
    model: Dict[tuple, int] = {}
    for i in range(16):
        dt = f"d{i % 2}"
        data = _rows([(i * 7 + k) % 25 for k in range(4)], dt, i)
        strata.write(ident, [write_input(data, "parquet", inputs / f"k{i}.parquet")])
        model.update({(dt, k): i for k in data.column("id").to_pylist()})
    kinds = {warehouse.snapshot_json(wh, ident, s)["commitKind"] for s in warehouse.snapshot_ids(wh, ident)}
    assert "COMPACT" in kinds, "the writes compacted (DELETE entries for merging to cancel)"
    seen = _check_merging(wh, ident)
    assert seen["merged_files"] >= 2 and seen["last"] < seen["snapshots"] // 2, seen
    _check_plans(strata, ident)
    rows = sorted((k[1], k[0], v) for k, v in model.items())
    expected = pa.table({"id": [r[0] for r in rows], "dt": [r[1] for r in rows],
                         "v": [r[2] for r in rows]}, schema=SCHEMA)
    assert_all_read(strata, ident, canonical_lines(expected))
