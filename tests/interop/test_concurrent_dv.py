"""Concurrent ``strata write`` processes on tables whose readers skip level 0.

Deletion-vector tables (and first-row tables) are read without merging levels: level 0 is
skipped and each key must live in one file of the levels above, its older records marked in
the bucket's deletion vectors.  A writer compacts its level-0 files up with lookups before it
commits; with several writers at once, a compaction that loses the commit race used to leave
its level-0 file behind (the rows read their old values, in every engine), and one that landed
with vectors built on an older snapshot replaced the other writer's (keys read twice).

Here a table of 200 keys (bucket 1, fully compacted) gets rounds of 4 ``strata write`` processes
at once, each updating 20 keys (interleaved keys in some rounds, consecutive blocks in others).
Every process must exit 0, and after every round strata, Java Paimon (the oracle) and
pypaimon-rust must read each key exactly once with its newest value, with no level-0 file left.
"""
from __future__ import annotations

import json
import subprocess
from typing import Dict, List

import pyarrow as pa
import pytest

from interop_support import engines
from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.java_oracle import java  # noqa: F401  (fixture)

pytestmark = pytest.mark.java

IDENT = "db.t"
KEYS = 200
WRITERS = 4
PER_WRITER = 20
ROUNDS = 6
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
CASES = {
    "dv": {"deletion-vectors.enabled": "true"},
    "dv_lookup": {"deletion-vectors.enabled": "true", "changelog-producer": "lookup"},
    "first_row": {"merge-engine": "first-row"},
}


def _keys(round_: int, writer: int) -> List[int]:
    """The keys writer ``writer`` updates in round ``round_``: interleaved (every WRITERS-th
    key of a window) in even rounds, consecutive blocks in odd ones; the window moves."""
    start = (round_ * 37) % (KEYS - WRITERS * PER_WRITER)
    if round_ % 2 == 0:
        return [start + i * WRITERS + writer for i in range(PER_WRITER)]
    return [start + writer * PER_WRITER + i for i in range(PER_WRITER)]


def _lines(model: Dict[int, str]) -> List[str]:
    return canonical_lines(pa.table({"id": pa.array(list(model), pa.int64()),
                                     "v": pa.array(list(model.values()), pa.string())},
                                    schema=SCHEMA))


@pytest.mark.parametrize("case", sorted(CASES))
def test_concurrent_writers_every_key_once_newest_value(java, strata, strata_bin, case, tmp_path):
    first_row = "merge-engine" in CASES[case]
    strata.create_table(IDENT, {
        "fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}],
        "primaryKeys": ["id"],
        "options": {"bucket": "1", **CASES[case]},
    })
    seed = tmp_path / "seed.jsonl"
    seed.write_text("".join(json.dumps({"id": k, "v": "base"}) + "\n" for k in range(KEYS)))
    strata.write(IDENT, [str(seed)])
    model: Dict[int, str] = {k: "base" for k in range(KEYS)}
    assert all(f["level"] > 0 for f in strata.files(IDENT)), "the seed is compacted up"
    for round_ in range(ROUNDS):
        files = []
        for w in range(WRITERS):
            f = tmp_path / f"r{round_}-w{w}.jsonl"
            # First-row keeps a key's first row: new keys only (the seed's are ignored).
            keys = [k + (KEYS if first_row else 0) + round_ * KEYS * int(first_row)
                    for k in _keys(round_, w)]
            f.write_text("".join(json.dumps({"id": k, "v": f"r{round_}-w{w}"}) + "\n"
                                 for k in keys))
            files.append((f, keys, f"r{round_}-w{w}"))
        procs = [subprocess.Popen([strata_bin, "--warehouse", strata.warehouse, "write", IDENT,
                                   str(f)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for f, _, _ in files]
        for p in procs:
            _, err = p.communicate(timeout=300)
            assert p.returncode == 0, err
        for _, keys, value in files:
            for k in keys:
                if not (first_row and k in model):
                    model[k] = value
        expected = _lines(model)
        what = f"{case} round {round_ + 1}"
        assert_same_rows(strata.read_lines(IDENT), expected, f"{what}: strata")
        assert_same_rows(java.read(strata.warehouse, IDENT), expected, f"{what}: Java {java.version}")
        rust = engines.read("pypaimon-rust", strata.warehouse, IDENT)
        assert_same_rows(canonical_lines(rust.select(["id", "v"])), expected, f"{what}: pypaimon-rust")
        level0 = [f["fileName"] for f in strata.files(IDENT) if f["level"] == 0]
        assert not level0, f"{what}: level-0 files left: {level0}"
