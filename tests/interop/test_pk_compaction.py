"""Compaction of primary-key tables by ``strata write``, checked against pypaimon and pypaimon-rust.

A batch write that triggers compaction commits an APPEND snapshot and then a COMPACT snapshot
(Java's batch writer).  Compaction *upgrades* big files whose key range overlaps nothing (the same
file name, a DELETE entry at the old level plus an ADD at the new one) and *rewrites* small or
overlapping files (new names, FileSource COMPACT).  Covered here:

* the seed experiment (compaction that upgrades non-overlapping files, as in crates/strata/tests/it/compaction.rs) through the CLI:
  two tables differing only in ``compaction.small-file-ratio``, five commits E, A, B, C, D; after
  every step the three engines read the model, the manifests show exactly the expected upgrades
  and rewrites, and every older snapshot still reads the rows of its time;
* pypaimon and pypaimon-rust appending level-0 files on top of strata's compacted L4/L5 files, and
  strata's next write restoring all of them and compacting the peers' files;
* first-row tables (readers skip level 0): strata's lookup compaction leaves no live level-0 file, so the peers read
  exactly the first value of every key after each write;
* deduplicate with ``rowkind.field`` deletes, compacted into the max level where retracts are
  dropped (including a file of deletes only, which must be rewritten, not upgraded);
* ``write-only`` tables: never compacted on write; ``strata compact --full`` afterwards.
"""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interop_support import engines, pk, warehouse
from interop_support.compaction import (ADD, DELETE, FILE_SOURCE_APPEND, MAX_LEVEL, SEED_SCHEMA,
                                        SEED_OFFSET as O, SEED_STEPS, assert_all_read_model, max_level, check_snapshot_counts,
                                        classify_compact, commit_kinds, delta_entries, manifest_live,
                                        live_levels, seed_rows, seed_schema_json)
from interop_support.datagen import write_input
from interop_support.flows import assert_all_read

pytestmark = pytest.mark.cli_compaction

SMALL_FILE_THRESHOLD = 3276     # 64 KiB x 0.05: the seed's ct


def _write(strata, ident, data, inputs, tag, fmt="parquet"):
    """One ``strata write``; returns the ids of the snapshots it committed."""
    before = warehouse.snapshot_ids(strata.warehouse, ident)
    f = write_input(data, fmt, inputs / f"{ident}-{tag}.{fmt}")
    strata.write(ident, [f])
    after = warehouse.snapshot_ids(strata.warehouse, ident)
    assert after[:len(before)] == before, f"snapshots {before} -> {after}"
    return after[len(before):]


def _kinds(wh, ident, sids):
    return [warehouse.snapshot_json(wh, ident, s)["commitKind"] for s in sids]


def _appended(wh, ident, sid, rows=None, files=None):
    """The level-0 files an APPEND snapshot adds (and nothing else)."""
    entries = delta_entries(wh, ident, sid)
    assert entries and all(e.kind == ADD and e.level == 0 and e.file_source == FILE_SOURCE_APPEND
                           for e in entries), f"APPEND snapshot {sid} of {ident}: {entries}"
    if rows is not None:
        assert sum(e.row_count for e in entries) == rows, entries
    if files is not None:
        assert len(entries) == files, f"APPEND snapshot {sid} of {ident}: {len(entries)} files, expected {files}"
    return {e.file_name for e in entries}


# ---- 1. the seed experiment ---------------------------------------------------------------------

def _expect_ct(step, cd, live, prev, app):
    """ct (small-file-ratio 0.05): the 7.4 KB-class files are big -> upgraded, only overlaps rewritten."""
    E, A, B, C, D = (app.get(s, set()) for s in "EABCD")
    if step == "A":      # E (small, alone in its section: upgraded by the shortcut) + the six A -> L5
        assert cd.upgraded == {n: (0, 5) for n in E | A}, cd
        assert not cd.rewritten_in and not cd.rewritten_out, cd
        assert live == {n: 5 for n in E | A}
    elif step == "B":    # disjoint: six upgrades to L4
        assert cd.upgraded == {n: (0, 4) for n in B}, cd
        assert not cd.rewritten_in and not cd.rewritten_out, cd
        assert live == {**prev, **{n: 4 for n in B}}
    elif step == "C":    # A+C overlap -> one rewrite into L5; B upgraded L4 -> L5; E untouched
        assert cd.upgraded == {n: (4, 5) for n in B}, cd
        assert cd.rewritten_in == {**{n: 5 for n in A}, **{n: 0 for n in C}}, cd
        assert len(cd.rewritten_out) == 6 and set(cd.rewritten_out.values()) == {5}, cd
        assert not any(e.file_name in E for e in cd.entries), "E is not part of the delta"
        assert live == {**{n: 5 for n in E | B}, **cd.rewritten_out}
    elif step == "D":    # disjoint: six upgrades to L4
        assert cd.upgraded == {n: (0, 4) for n in D}, cd
        assert not cd.rewritten_in and not cd.rewritten_out, cd
        assert live == {**prev, **{n: 4 for n in D}}


def _expect_ct_def(step, cd, live, prev, app):
    """ct_def (default ratio 0.7): every file is small -> everything the unit holds is rewritten."""
    assert not cd.upgraded, f"ct_def upgrades nothing: {cd.upgraded}"
    new = app[step]
    if step == "A":
        assert cd.rewritten_in == {n: 0 for n in app["E"] | new}, cd
        out_level = 5
    elif step == "C":    # the full compaction rewrites even B's files, whose keys did not change
        assert cd.rewritten_in == {**prev, **{n: 0 for n in new}}, cd
        out_level = 5
    else:                # B, D: alone to L4
        assert cd.rewritten_in == {n: 0 for n in new}, cd
        out_level = 4
    assert cd.rewritten_out and set(cd.rewritten_out.values()) == {out_level}, cd
    kept = {n: lv for n, lv in prev.items() if n not in cd.rewritten_in}
    assert live == {**kept, **cd.rewritten_out}


def test_seed_experiment_through_the_cli(strata, inputs):
    wh = strata.warehouse
    tables = {"db.ct": ("0.05", _expect_ct), "db.ct_def": (None, _expect_ct_def)}
    for ident, (ratio, _) in tables.items():
        strata.create_table(ident, seed_schema_json(ratio))
    model = {}
    history = {ident: [] for ident in tables}      # (snapshot id, model at that snapshot)
    app = {ident: {} for ident in tables}          # step -> file names its APPEND snapshot added
    live = {ident: {} for ident in tables}
    for step, lo, hi, ver in SEED_STEPS:
        data = seed_rows(lo, hi, ver)
        model.update(zip(data["id"].to_pylist(), data["v"].to_pylist()))
        fmt = "jsonl" if step in "EB" else "parquet"
        for ident, (_, expect) in tables.items():
            sids = _write(strata, ident, data, inputs, step, fmt)
            kinds = _kinds(wh, ident, sids)
            if step == "E":
                assert kinds == ["APPEND"], f"{ident} step E (one file, nothing to compact): {kinds}"
            else:
                assert kinds == ["APPEND", "COMPACT"], f"{ident} step {step}: {kinds}"
            app[ident][step] = _appended(wh, ident, sids[0], rows=data.num_rows, files=1 if step == "E" else 6)
            history[ident] += [(sid, dict(model)) for sid in sids]
            prev, live[ident] = live[ident], live_levels(strata, ident)
            if step == "E":
                assert live[ident] == {n: 0 for n in app[ident]["E"]}
            else:
                cd = classify_compact(delta_entries(wh, ident, sids[1]))
                expect(step, cd, live[ident], prev, app[ident])
                if step == "C":
                    assert warehouse.snapshot_json(wh, ident, sids[1])["deltaRecordCount"] == -12000, \
                        "the COMPACT snapshot after C drops A's 12000 old versions"
            if ident == "db.ct" and step in "EA":   # the premise: E is small, A's files are big
                sizes = {f["fileName"]: f["fileSize"] for f in strata.files(ident)}
                for n in app[ident][step]:
                    assert (sizes[n] < SMALL_FILE_THRESHOLD) == (step == "E"), (step, n, sizes[n])
            assert_all_read_model(strata, ident, model)
    assert sorted(live["db.ct"].values()) == [4] * 6 + [5] * 13
    # every older snapshot, APPEND (level-0 files over the levels) or COMPACT, reads its own time
    for ident in tables:
        for sid, m in history[ident][:-1]:
            assert_all_read_model(strata, ident, m, snapshot=sid)
        check_snapshot_counts(strata, ident)


# ---- 2. peers append level 0 over strata's levels ------------------------------------------------

def test_peer_level0_files_over_strata_levels(strata, inputs):
    """pypaimon and pypaimon-rust commit level-0 files above strata's compacted L4/L5 files (their
    sequence numbers must continue above strata's); then a strata write restores every level,
    peers' files included, and compacts them away from level 0."""
    wh, ident = strata.warehouse, "db.mixed"
    strata.create_table(ident, seed_schema_json("0.05"))
    model, history = {}, []
    for step, lo, hi, ver in SEED_STEPS[:3]:                            # E, A, B
        data = seed_rows(lo, hi, ver)
        model.update(zip(data["id"].to_pylist(), data["v"].to_pylist()))
        history += [(sid, dict(model)) for sid in _write(strata, ident, data, inputs, step)]
    strata_levels = live_levels(strata, ident)
    assert sorted(strata_levels.values()) == [4] * 6 + [5] * 7, strata_levels

    peer_files = {}
    commits = {
        # updates inside A's L5 files, new keys above everything
        "pypaimon": pa.concat_tables([seed_rows(O + 5001, O + 6000, "p"), seed_rows(O + 400001, O + 400500, "p")]),
        # updates inside B's L4 files and a few of A's (and of pypaimon's) keys
        "pypaimon-rust": pa.concat_tables([seed_rows(O + 3, O + 7, "r"), seed_rows(O + 5990, O + 6010, "r"),
                                           seed_rows(O + 100001, O + 100300, "r")]),
    }
    for writer, data in commits.items():
        before = warehouse.snapshot_ids(wh, ident)
        engines.write(writer, wh, ident, data)
        sids = warehouse.snapshot_ids(wh, ident)[len(before):]
        assert _kinds(wh, ident, sids) == ["APPEND"], f"{writer} commits one APPEND snapshot"
        model.update(zip(data["id"].to_pylist(), data["v"].to_pylist()))
        history.append((sids[0], dict(model)))
        levels = live_levels(strata, ident)
        added = {n: lv for n, lv in levels.items() if n not in strata_levels and n not in peer_files}
        assert added and set(added.values()) == {0}, f"{writer} adds level-0 files: {added}"
        peer_files.update(added)
        assert {n: levels[n] for n in strata_levels} == strata_levels, "strata's levels are untouched"
        assert_all_read_model(strata, ident, model)

    step, lo, hi, ver = SEED_STEPS[3]                                   # C: updates A again
    data = seed_rows(lo, hi, ver)
    model.update(zip(data["id"].to_pylist(), data["v"].to_pylist()))
    sids = _write(strata, ident, data, inputs, step)
    assert _kinds(wh, ident, sids) == ["APPEND", "COMPACT"]
    history += [(sid, dict(model)) for sid in sids]
    cd = classify_compact(delta_entries(wh, ident, sids[1]))
    for n in peer_files:
        left = cd.rewritten_in.get(n) == 0 or cd.upgraded.get(n, (None,))[0] == 0
        assert left, f"the peer's level-0 file {n} is not compacted: {cd}"
    levels = live_levels(strata, ident)
    assert 0 not in levels.values(), f"level-0 files left after strata's compaction: {levels}"
    assert_all_read_model(strata, ident, model)

    # and the peers keep writing on top of what strata compacted
    data = seed_rows(O + 100250, O + 100350, "z")
    engines.write("pypaimon", wh, ident, data)
    model.update(zip(data["id"].to_pylist(), data["v"].to_pylist()))
    history.append((warehouse.snapshot_ids(wh, ident)[-1], dict(model)))
    assert_all_read_model(strata, ident, model)
    for sid, m in history[:-1]:
        assert_all_read_model(strata, ident, m, snapshot=sid)
    check_snapshot_counts(strata, ident)


# ---- 3. first-row: nothing live at level 0 ------------------------------------------------------

def _first_row_rows(ids, k):
    return pa.table({"id": list(ids), "name": [None if (i + k) % 5 == 0 else f"c{k}_{i}" for i in ids],
                     "score": [None if (i * k) % 7 == 3 else (i - k) * 0.25 for i in ids],
                     "cnt": [i * 10 + k for i in ids]}, schema=pk.BASIC_SCHEMA)


FIRST_ROW = pk.PkCase("first_row_compacted", pk.BASIC_SCHEMA, ("id",), [
    _first_row_rows(range(0, 40), 1),
    # overlaps commit 1; key 50 twice in one commit (the first of the commit wins)
    pa.concat_tables([_first_row_rows(range(20, 60), 2), _first_row_rows([50, 55], 22)]),
    pa.concat_tables([_first_row_rows(range(10, 80, 3), 3), _first_row_rows([100, 100, 5], 33)]),
], options={"bucket": "2", "merge-engine": "first-row"})


def test_first_row_table_has_no_live_level0(strata, inputs):
    """pypaimon and pypaimon-rust skip level 0 of first-row tables: they see data only once it is
    compacted.  strata compacts level 0 up with lookups, as Java does (a key already in a higher
    level keeps its first row there, so the new one is dropped), so after each write nothing is
    live at level 0 and all engines read the first value of every key without merging, though
    files stay on several levels.  The APPEND snapshot in between reads the previous write's rows
    everywhere."""
    wh, ident, case = strata.warehouse, "db.first_row", FIRST_ROW
    strata.create_table(ident, pk.pk_schema_json(case))
    history = []
    for n, data in enumerate(case.commits, 1):
        sids = _write(strata, ident, data, inputs, f"c{n}")
        assert _kinds(wh, ident, sids) == ["APPEND", "COMPACT"], f"write {n}"
        _appended(wh, ident, sids[0], rows=len(set(data["id"].to_pylist())))   # one record per key
        levels = live_levels(strata, ident)
        assert 0 not in set(levels.values()), f"write {n}: live levels {levels}"
        buckets = {e.bucket for e in manifest_live(wh, ident).values()}
        assert buckets == {0, 1}, f"both buckets hold data: {buckets}"
        assert_all_read(strata, ident, case.merged_lines(n))
        history += [(sids[0], case.merged_lines(n - 1) if n > 1 else []), (sids[1], case.merged_lines(n))]
    for sid, expected in history[:-1]:
        assert_all_read(strata, ident, expected, snapshot=sid)
    check_snapshot_counts(strata, ident)


# ---- 4. deduplicate with deletes, compacted into the max level -----------------------------------

def _rk(ids, tag, kind="+I"):
    ids = list(ids)
    return pa.table({"id": ids, "name": [f"{tag}_{i}" for i in ids], "score": [i * 1.5 for i in ids],
                     "cnt": [len(tag) * 100 + i for i in ids], "rk": [kind] * len(ids)}, schema=pk.ROWKIND_SCHEMA)


DELETES = pk.PkCase("deletes_compacted", pk.ROWKIND_SCHEMA, ("id",), [
    _rk(range(1, 41), "v1"),
    pa.concat_tables([_rk(range(1, 6), "v1", "-D"), _rk(range(6, 11), "v2", "+U"), _rk([11], "v1", "-U"),
                      _rk(range(41, 51), "v2")]),
    pa.concat_tables([_rk([12], "v1", "-D"), _rk([1], "v3"), _rk([999], "v3", "-D"), _rk(range(41, 46), "v3", "+U")]),
    _rk(range(3000, 3020), "v4"),                  # keys above everything: upgraded, names kept
    _rk(range(2000, 2004), "v5", "-D"),            # deletes only, of absent keys, alone in their range
    pa.concat_tables([_rk(range(3000, 3005), "v6", "-D"), _rk(range(41, 51), "v6", "-D"), _rk([60], "v6")]),
], options={"bucket": "2", "rowkind.field": "rk",
            # every write with a second sorted run compacts everything into the max level, which
            # is level 1 (num-levels defaults to the trigger + 1)
            "num-sorted-run.compaction-trigger": "1",
            # every file counts as big: non-overlapping files take the upgrade path
            "compaction.small-file-ratio": "0.000001"})


def _retract_rows(wh, ident):
    """-U / -D records physically present in the live data files."""
    n = 0
    for f in engines.planned_files(wh, ident):
        kinds = pq.ParquetFile(f["filePath"]).read(columns=["_VALUE_KIND"])["_VALUE_KIND"].to_pylist()
        n += sum(1 for k in kinds if k in (1, 3))
    return n


def test_deletes_dropped_at_max_level(strata, inputs):
    """Retracts written with ``rowkind.field`` cancel older versions while they sit at level 0; the
    compaction into the max level drops them (deleteRowCount 0, no -U/-D record left).  A file of
    isolated, non-overlapping deletes is not upgraded to the max level but rewritten (to nothing),
    as Java's MergeTreeCompactTask.upgrade does; isolated inserts are upgraded under their names."""
    wh, ident, case = strata.warehouse, "db.deletes", DELETES
    top = max_level(case.options)
    assert top == 1
    strata.create_table(ident, pk.pk_schema_json(case))
    history = []
    for n, data in enumerate(case.commits, 1):
        fmt = "jsonl" if n % 2 else "parquet"
        sids = _write(strata, ident, data, inputs, f"c{n}", fmt)
        kinds = _kinds(wh, ident, sids)
        appended = _appended(wh, ident, sids[0])
        history += [(sid, case.expected_lines(n)) for sid in sids]
        assert_all_read(strata, ident, case.expected_lines(n))
        live = manifest_live(wh, ident)
        levels = live_levels(strata, ident)
        if n == 1:
            assert kinds == ["APPEND"] and set(levels.values()) == {0}, (kinds, levels)
            continue
        assert kinds == ["APPEND", "COMPACT"], f"write {n}: {kinds}"
        assert set(levels.values()) == {top}, f"write {n}: {levels}"
        assert all(e.delete_row_count == 0 for e in live.values()), f"write {n}: deletes kept at the max level: {live}"
        assert _retract_rows(wh, ident) == 0, f"write {n}: -U/-D records left in max-level files"
        cd = classify_compact(delta_entries(wh, ident, sids[1]))
        if n == 4:
            assert cd.upgraded == {f: (0, top) for f in appended}, cd
            assert not cd.rewritten_in and not cd.rewritten_out, cd
        if n == 5:
            assert cd.rewritten_in == {f: 0 for f in appended} and not cd.rewritten_out and not cd.upgraded, \
                f"the isolated delete file must be rewritten away, not upgraded: {cd}"
            assert all(e.kind == DELETE for e in cd.entries)
    for sid, expected in history[:-1]:
        assert_all_read(strata, ident, expected, snapshot=sid)
    check_snapshot_counts(strata, ident)


# ---- 5. write-only -------------------------------------------------------------------------------

WRITE_ONLY_COMMITS = [seed_rows(k * 5, k * 5 + 19, f"w{k}") for k in range(9)]   # > stop-trigger runs


def _build_write_only(strata, inputs, ident):
    strata.create_table(ident, seed_schema_json(None, {"write-only": "true"}))
    model = {}
    for n, data in enumerate(WRITE_ONLY_COMMITS, 1):
        sids = _write(strata, ident, data, inputs, f"w{n}")
        assert _kinds(strata.warehouse, ident, sids) == ["APPEND"], f"write-only write {n} compacted"
        model.update(zip(data["id"].to_pylist(), data["v"].to_pylist()))
        levels = live_levels(strata, ident)
        assert list(levels.values()) == [0] * n, f"write {n}: one level-0 file per write: {levels}"
        assert_all_read_model(strata, ident, model)
    return model


def test_write_only_never_compacts(strata, inputs):
    _build_write_only(strata, inputs, "db.wo")
    assert set(commit_kinds(strata.warehouse, "db.wo")) == {"APPEND"}
    check_snapshot_counts(strata, "db.wo")


def test_write_only_then_full_compact(strata, inputs):
    """``strata compact DB.TABLE --full`` on a write-only table: one COMPACT snapshot moving every
    level-0 file to the max level; later writes stay uncompacted."""
    wh, ident = strata.warehouse, "db.wo"
    model = _build_write_only(strata, inputs, ident)
    before = warehouse.snapshot_ids(wh, ident)
    strata.run("compact", ident, "--full")
    sids = warehouse.snapshot_ids(wh, ident)[len(before):]
    assert _kinds(wh, ident, sids) == ["COMPACT"], sids
    levels = live_levels(strata, ident)
    assert levels and set(levels.values()) == {MAX_LEVEL}, levels
    cd = classify_compact(delta_entries(wh, ident, sids[0]))
    assert set(cd.rewritten_in) | set(cd.upgraded) == set(manifest_live(wh, ident, before[-1])), cd
    assert warehouse.snapshot_json(wh, ident, sids[0])["totalRecordCount"] == len(model)
    assert_all_read_model(strata, ident, model)
    # still write-only: the next write adds a level-0 file and does not compact
    data = seed_rows(3, 8, "after")
    sids = _write(strata, ident, data, inputs, "after")
    assert _kinds(wh, ident, sids) == ["APPEND"]
    model.update(zip(data["id"].to_pylist(), data["v"].to_pylist()))
    assert sorted(live_levels(strata, ident).values()) == [0] + [MAX_LEVEL] * len(levels)
    assert_all_read_model(strata, ident, model)
    check_snapshot_counts(strata, ident)
