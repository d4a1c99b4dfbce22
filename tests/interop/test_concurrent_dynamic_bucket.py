"""Concurrent ``strata write`` processes into the same partitions of a dynamic-bucket table.

Java Paimon allows one writer per partition of a ``bucket = -1`` table: each commit replaces a
bucket's HASH index file with one built from the index it loaded at start, so concurrent writers
drop each other's keys from the index, and the next update of a dropped key is routed to a new
bucket — the key is then read twice.  strata rebases every commit's index files onto the
snapshot it lands on.  Here 4 processes write distinct keys into the same 2 partitions at once,
10 rounds (each round updates every key); strata and pypaimon must read every key exactly once
with its last value, and the live HASH index must hold every key in exactly one bucket.
"""
from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import fastavro
import pytest

from interop_support import engines

pytestmark = pytest.mark.cli_write

IDENT = "db.dyn"
WRITERS = 4
ROUNDS = 10
KEYS = 50  # per writer and partition
PARTITIONS = ("a", "b")


def _rows(writer: int, round_: int) -> str:
    return "".join(json.dumps({"id": writer * 1000 + i, "dt": dt, "v": round_}) + "\n"
                   for dt in PARTITIONS for i in range(KEYS))


def _live_hash_index(wh: str) -> dict:
    """(partition bytes, bucket) -> hashes of the latest snapshot's live HASH files."""
    table = Path(wh) / "db.db" / "dyn"
    latest = max(int(p.name.split("-")[1]) for p in (table / "snapshot").glob("snapshot-*"))
    snap = json.loads((table / "snapshot" / f"snapshot-{latest}").read_text())
    with open(table / "manifest" / snap["indexManifest"], "rb") as fh:
        entries = list(fastavro.reader(fh))
    out = {}
    for e in entries:
        assert e["_KIND"] == 0 and e["_INDEX_TYPE"] == "HASH", e
        data = (table / "index" / e["_FILE_NAME"]).read_bytes()
        hashes = list(struct.unpack(f">{len(data) // 4}i", data))
        assert len(hashes) == e["_ROW_COUNT"]
        key = (bytes(e["_PARTITION"]), e["_BUCKET"])
        assert key not in out, f"two live HASH files for {key}"
        out[key] = hashes
    return out


def test_four_concurrent_writers_keep_every_key_once(strata, strata_bin, wh, tmp_path):
    strata.create_table(IDENT, {
        "fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "dt", "type": "STRING NOT NULL"},
                   {"name": "v", "type": "INT"}],
        "partitionKeys": ["dt"], "primaryKeys": ["id", "dt"],
        "options": {"bucket": "-1", "dynamic-bucket.target-row-num": "60"},
    })
    for round_ in range(ROUNDS):
        files = []
        for w in range(WRITERS):
            f = tmp_path / f"w{w}-r{round_}.jsonl"
            f.write_text(_rows(w, round_))
            files.append(f)
        procs = [subprocess.Popen([strata_bin, "--warehouse", wh, "write", IDENT, str(f)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for f in files]
        for p in procs:
            _, err = p.communicate(timeout=300)
            assert p.returncode == 0, err
    want = sorted((w * 1000 + i, dt) for w in range(WRITERS) for i in range(KEYS) for dt in PARTITIONS)
    got_strata = strata.read_arrow(IDENT).to_pylist()
    assert sorted((r["id"], r["dt"]) for r in got_strata) == want
    assert {r["v"] for r in got_strata} == {ROUNDS - 1}
    got_py = engines.read("pypaimon", wh, IDENT).to_pylist()
    assert sorted((r["id"], r["dt"]) for r in got_py) == want
    assert {r["v"] for r in got_py} == {ROUNDS - 1}
    index = _live_hash_index(wh)
    by_partition: dict = {}
    for (part, bucket), hashes in index.items():
        for h in hashes:
            assert h not in by_partition.setdefault(part, {}), f"hash {h} in two buckets"
            by_partition[part][h] = bucket
    assert len(by_partition) == len(PARTITIONS)
    for part, held in by_partition.items():
        assert len(held) == WRITERS * KEYS, f"partition {part!r}: {len(held)} keys in the index"
