"""Helpers of ``test_pk_compaction.py``: the compaction-upgrade experiment's data (the Rust
version in crates/strata/tests/it/compaction.rs), the manifest entries a snapshot adds (read straight
from the Avro files with fastavro: upgrades are a DELETE at the old level plus an ADD of the SAME
file name at the new level, rewrites ADD new names with FileSource COMPACT), the live files every
view of the table agrees on, and a fast exact comparison of large (id, v) tables with a model.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import fastavro
import pyarrow as pa

from . import engines, warehouse
from .strata_cli import Strata

MAX_LEVEL = 5          # num-levels defaults to num-sorted-run.compaction-trigger (5) + 1
ADD, DELETE = 0, 1     # manifest entry _KIND
FILE_SOURCE_APPEND, FILE_SOURCE_COMPACT = 0, 1

def max_level(options: Dict[str, str]) -> int:
    """The max level of a table: ``num-levels`` - 1, num-levels defaulting (as in Java
    CoreOptions.numLevels) to ``num-sorted-run.compaction-trigger`` + 1."""
    trigger = int(options.get("num-sorted-run.compaction-trigger", "5"))
    return int(options.get("num-levels", trigger + 1)) - 1


# ---- the seed experiment ----------------------------------------------------------------------

SEED_SCHEMA = pa.schema([pa.field("id", pa.int32(), nullable=False), ("v", pa.string())])
_M64 = (1 << 64) - 1


def seed_payload(i: int, version: str) -> str:
    """The value of key ``i`` in commit ``version``: exactly crates/strata/tests/it/compaction.rs.

    A..D: the same text per key modulo 100000 (only the letter differs), so the 12000-row commits
    roll into six files of nearly equal size.  E: a longer, incompressible payload, so E is big
    enough for the size-ratio rule of the seed (``1.01 x B < A + E``) yet below the 3276-byte
    small-file threshold of ``ct``."""
    if version == "e":
        h = [((i ^ k) * 0x9E3779B97F4A7C15) & _M64 for k in (1, 2, 3, 4)]
        return "e-" + "".join("%016x" % x for x in h)
    return "%s-payload-%010d" % (version, i % 100000)


def seed_rows(lo: int, hi: int, version: str) -> pa.Table:
    ids = list(range(lo, hi + 1))
    return pa.table({"id": ids, "v": [seed_payload(i, version) for i in ids]}, schema=SEED_SCHEMA)


# The seed's key ranges shifted by SEED_OFFSET, so every commit's keys have one magnitude: with
# keys 1.. for A and 100001.. for B, B's files compress up to 8% worse than A's under some
# deflate backends (zlib-rs, which the workspace build of strata enables) and the seed's
# ``1.01 x B < A + E`` flips.  Payloads depend on the key modulo 100000 only.
SEED_OFFSET = 1_000_000

# name, first key, last key, version letter
SEED_STEPS: List[Tuple[str, int, int, str]] = [
    ("E", SEED_OFFSET + 300001, SEED_OFFSET + 300010, "e"),     # 10 rows: one small, isolated file
    ("A", SEED_OFFSET + 1, SEED_OFFSET + 12000, "a"),
    ("B", SEED_OFFSET + 100001, SEED_OFFSET + 112000, "b"),     # disjoint from everything
    ("C", SEED_OFFSET + 1, SEED_OFFSET + 12000, "c"),           # updates every key of A
    ("D", SEED_OFFSET + 200001, SEED_OFFSET + 212000, "d"),     # disjoint from everything
]


def seed_schema_json(ratio: Optional[str], extra: Optional[Dict[str, str]] = None) -> dict:
    """``strata create-table --schema`` document of the seed tables (``ratio``: the
    ``compaction.small-file-ratio``, None for the default 0.7)."""
    options = {"bucket": "1", "target-file-size": "64kb", "file.compression": "gzip"}
    if ratio is not None:
        options["compaction.small-file-ratio"] = ratio
    options.update(extra or {})
    return {"fields": [{"name": "id", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
            "partitionKeys": [], "primaryKeys": ["id"], "options": options, "comment": None}


def model_table(model: Dict[int, str]) -> pa.Table:
    """The model as an (id, v) table sorted by id."""
    ids = sorted(model)
    return pa.table({"id": pa.array(ids, pa.int32()), "v": pa.array([model[i] for i in ids], pa.string())})


def assert_model_rows(table: pa.Table, model: Dict[int, str], what: str,
                      expected: Optional[pa.Table] = None) -> None:
    """``table`` holds exactly the rows of ``model`` (key -> v), each key once.

    The exact equivalent of comparing canonical lines for an (INT, STRING) table, done with Arrow
    kernels instead of serializing tens of thousands of rows to JSON per read (``expected``: the
    ``model_table`` of ``model``, when already built); a failure lists the differences."""
    assert table.column_names == ["id", "v"], f"{what}: columns {table.column_names}"
    assert pa.types.is_int32(table.schema.field("id").type), f"{what}: id is {table.schema.field('id').type}"
    vt = table.schema.field("v").type
    assert pa.types.is_string(vt) or pa.types.is_large_string(vt), f"{what}: v is {vt}"
    if expected is None:
        expected = model_table(model)
    if table.num_rows == expected.num_rows:
        got = table.sort_by("id")
        if (got.column("id").combine_chunks().equals(expected.column("id").combine_chunks())
                and got.column("v").cast(pa.string()).combine_chunks().equals(expected.column("v").combine_chunks())):
            return
    ids = table.column("id").to_pylist()
    got = dict(zip(ids, table.column("v").to_pylist()))
    dups = [k for k, n in Counter(ids).items() if n > 1]
    missing = sorted(set(model) - set(got))
    extra = sorted(set(got) - set(model))
    wrong = sorted(k for k in set(got) & set(model) if got[k] != model[k])
    raise AssertionError(
        f"{what}: {len(ids)} rows, expected {len(model)}; duplicated keys {len(dups)} {dups[:10]}; "
        f"missing {len(missing)} {missing[:10]}; unexpected {len(extra)} "
        f"{[(k, got[k]) for k in extra[:10]]}; wrong values {len(wrong)} "
        f"{[(k, got[k], model[k]) for k in wrong[:10]]}")


def assert_all_read_model(strata: Strata, ident: str, model: Dict[int, str], snapshot: Optional[int] = None,
                          readers: Sequence[str] = ("strata",) + engines.READERS) -> None:
    """strata, pypaimon and pypaimon-rust read exactly ``model`` (at ``snapshot``)."""
    at = f" at snapshot {snapshot}" if snapshot is not None else ""
    expected = model_table(model)
    for reader in readers:
        if reader == "strata":
            t = strata.read_arrow(ident, snapshot=snapshot)
        else:
            t = engines.read(reader, strata.warehouse, ident, snapshot=snapshot)
        assert_model_rows(t, model, f"{reader} read of {ident}{at}", expected)


# ---- manifests ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """One manifest entry of a snapshot's delta manifest list."""
    kind: int                   # ADD / DELETE
    partition: bytes
    bucket: int
    level: int
    file_name: str
    file_source: Optional[int]  # FILE_SOURCE_APPEND / FILE_SOURCE_COMPACT
    row_count: int
    delete_row_count: Optional[int]


def _avro(path) -> List[dict]:
    with open(path, "rb") as fh:
        return list(fastavro.reader(fh))


def delta_entries(wh: str, ident: str, sid: int) -> List[Entry]:
    """The entries of snapshot ``sid``'s delta manifest list, in file order."""
    snap = warehouse.snapshot_json(wh, ident, sid)
    mdir = warehouse.table_dir(wh, ident) / "manifest"
    out = []
    for meta in _avro(mdir / snap["deltaManifestList"]):
        for e in _avro(mdir / meta["_FILE_NAME"]):
            f = e["_FILE"]
            out.append(Entry(e["_KIND"], e["_PARTITION"], e["_BUCKET"], f["_LEVEL"], f["_FILE_NAME"],
                             f.get("_FILE_SOURCE"), f["_ROW_COUNT"], f.get("_DELETE_ROW_COUNT")))
    return out


@dataclass
class CompactDelta:
    """A COMPACT snapshot's delta, classified as Java's CompactResult produces it."""
    upgraded: Dict[str, Tuple[int, int]]   # same name deleted and added: name -> (old, new level)
    rewritten_in: Dict[str, int]           # deleted, not re-added: name -> level
    rewritten_out: Dict[str, int]          # added under a new name: name -> level
    entries: List[Entry]


def classify_compact(entries: List[Entry]) -> CompactDelta:
    deleted = {e.file_name: e for e in entries if e.kind == DELETE}
    added = {e.file_name: e for e in entries if e.kind == ADD}
    assert len(deleted) == sum(e.kind == DELETE for e in entries), f"a file deleted twice: {entries}"
    assert len(added) == sum(e.kind == ADD for e in entries), f"a file added twice: {entries}"
    assert all(e.kind in (ADD, DELETE) for e in entries), entries
    upgraded = {n: (deleted[n].level, added[n].level) for n in deleted if n in added}
    for n, (old, new) in upgraded.items():
        assert new > old, f"{n}: an upgrade must raise the level, {old} -> {new}"
        d, a = deleted[n], added[n]
        assert (d.row_count, d.file_source, d.bucket) == (a.row_count, a.file_source, a.bucket), \
            f"{n}: an upgrade changes only the level: DELETE {d} / ADD {a}"
    out = {n: e.level for n, e in added.items() if n not in deleted}
    for n in out:
        assert added[n].file_source == FILE_SOURCE_COMPACT, f"rewritten file {n} has FileSource {added[n]}"
    return CompactDelta(upgraded, {n: e.level for n, e in deleted.items() if n not in added}, out, entries)


# ---- live files --------------------------------------------------------------------------------

def manifest_live(wh: str, ident: str, sid: Optional[int] = None) -> Dict[str, Entry]:
    """The live files of snapshot ``sid`` (default latest) by name: the ADD entries of its base and
    delta manifest lists not cancelled by a DELETE of the same (partition, bucket, level, name)."""
    if sid is None:
        sid = warehouse.snapshot_ids(wh, ident)[-1]
    snap = warehouse.snapshot_json(wh, ident, sid)
    mdir = warehouse.table_dir(wh, ident) / "manifest"
    live: Dict[tuple, Entry] = {}
    for lst in (snap["baseManifestList"], snap["deltaManifestList"]):
        for meta in _avro(mdir / lst):
            for e in _avro(mdir / meta["_FILE_NAME"]):
                f = e["_FILE"]
                entry = Entry(e["_KIND"], e["_PARTITION"], e["_BUCKET"], f["_LEVEL"], f["_FILE_NAME"],
                              f.get("_FILE_SOURCE"), f["_ROW_COUNT"], f.get("_DELETE_ROW_COUNT"))
                ident_ = (entry.partition, entry.bucket, entry.level, entry.file_name)
                if entry.kind == ADD:
                    assert ident_ not in live, f"snapshot {sid}: {entry.file_name} added twice"
                    live[ident_] = entry
                else:
                    assert ident_ in live, f"snapshot {sid}: DELETE of a file not live: {entry}"
                    del live[ident_]
    by_name = {e.file_name: e for e in live.values()}
    assert len(by_name) == len(live), f"snapshot {sid}: a file live at two levels: {sorted(live)}"
    return by_name


def live_levels(strata: Strata, ident: str, snapshot: Optional[int] = None,
                pypaimon_plan: bool = True) -> Dict[str, int]:
    """file name -> level of the live files, from the manifests; ``strata files`` and (unless
    ``pypaimon_plan`` is False: pypaimon leaves level 0 of first-row tables out of its plan) the
    files pypaimon plans must be the very same files at the same levels."""
    got = {n: e.level for n, e in manifest_live(strata.warehouse, ident, snapshot).items()}
    mine = {f["fileName"]: f["level"] for f in strata.files(ident, snapshot=snapshot)}
    assert mine == got, f"strata files {sorted(mine.items())} != manifests {sorted(got.items())}"
    if pypaimon_plan:
        plan = engines.planned_files(strata.warehouse, ident, snapshot=snapshot)
        theirs = {f["fileName"]: f["level"] for f in plan}
        assert len(theirs) == len(plan) and theirs == got, \
            f"pypaimon plans {sorted((f['fileName'], f['level']) for f in plan)} != manifests {sorted(got.items())}"
    return got


def commit_kinds(wh: str, ident: str) -> List[str]:
    return [warehouse.snapshot_json(wh, ident, s)["commitKind"] for s in warehouse.snapshot_ids(wh, ident)]


def check_snapshot_counts(strata: Strata, ident: str) -> None:
    """Every snapshot: totalRecordCount = the rows of its live files, deltaRecordCount = ADD rows
    minus DELETE rows of its delta; pypaimon-rust reports the same ids, kinds and counts."""
    wh = strata.warehouse
    ids = warehouse.snapshot_ids(wh, ident)
    rust = {s["id"]: s for s in engines.rust_snapshots(wh, ident)}
    assert sorted(rust) == ids, f"pypaimon-rust lists snapshots {sorted(rust)}, on disk {ids}"
    for sid in ids:
        snap = warehouse.snapshot_json(wh, ident, sid)
        entries = delta_entries(wh, ident, sid)
        delta = sum(e.row_count * (1 if e.kind == ADD else -1) for e in entries)
        total = sum(e.row_count for e in manifest_live(wh, ident, sid).values())
        assert (snap["totalRecordCount"], snap["deltaRecordCount"]) == (total, delta), \
            f"snapshot {sid} ({snap['commitKind']}): total/delta record counts " \
            f"{snap['totalRecordCount']}/{snap['deltaRecordCount']} != live rows {total} / delta rows {delta}"
        r = rust[sid]
        assert (r["commitKind"], r["totalRecordCount"], r["deltaRecordCount"]) == \
            (snap["commitKind"], snap["totalRecordCount"], snap["deltaRecordCount"]), (sid, r, snap)


def check_write_snapshots(strata: Strata, ident: str, per_write: Sequence[Sequence[int]]) -> None:
    """The snapshots of a table built by one ``strata write`` per commit (``per_write``: the ids each
    write committed, as ``pk.build_strata`` returns them): the ids run 1..N with nothing else
    committed; every write committed an APPEND snapshot adding only level-0 files (FileSource
    APPEND), optionally followed by a COMPACT snapshot whose delta is a valid compaction result
    (upgrades keep names and raise levels, rewrites add new COMPACT files, only live files are
    deleted, ``classify_compact``); and every snapshot's total/delta record counts match its
    manifests (``check_snapshot_counts``, pypaimon-rust reporting the same)."""
    wh = strata.warehouse
    flat = [sid for sids in per_write for sid in sids]
    on_disk = warehouse.snapshot_ids(wh, ident)
    assert flat == list(range(1, len(flat) + 1)) == on_disk, \
        f"snapshots per write {[list(s) for s in per_write]}, on disk {on_disk}"
    for n, sids in enumerate(per_write, 1):
        kinds = [warehouse.snapshot_json(wh, ident, sid)["commitKind"] for sid in sids]
        assert kinds in (["APPEND"], ["APPEND", "COMPACT"]), \
            f"write {n} committed {list(zip(sids, kinds))}: expected APPEND, optionally followed by COMPACT"
        entries = delta_entries(wh, ident, sids[0])
        assert entries and all(e.kind == ADD and e.level == 0 and e.file_source == FILE_SOURCE_APPEND
                               for e in entries), f"APPEND snapshot {sids[0]} (write {n}) of {ident}: {entries}"
        if len(sids) == 2:
            cd = classify_compact(delta_entries(wh, ident, sids[1]))
            assert cd.upgraded or cd.rewritten_in, f"COMPACT snapshot {sids[1]} (write {n}) changes nothing: {cd}"
            manifest_live(wh, ident, sids[1])      # every DELETE names a file live at that level
    check_snapshot_counts(strata, ident)


def schema_doc(schema: pa.Schema, primary_keys: Sequence[str], options: Dict[str, str]) -> dict:
    from .datagen import paimon_schema_json
    doc = paimon_schema_json(schema, (), options)
    doc["primaryKeys"] = list(primary_keys)
    return doc


def dump(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, default=str)
