"""Streaming consumers follow 200 strata commits while snapshot expiry runs (marker ``flink``).

strata (the CLI, one ``strata write`` per commit) commits 200 times to a primary-key table:
upserts and deletes of a seeded random key set, with ``snapshot.num-retained.min/max`` = 1/3 so
that every commit's own expiry removes snapshots.  While it does, two consumers with a
``consumer-id`` follow the table from its first snapshot:

* Flink 2.0 (paimon-flink-2.0 2.0.0), a continuous ``SELECT`` with checkpointing on — Paimon's
  Flink source records its consumer progress when a checkpoint completes;
* ``strata tail --from earliest --consumer-id ...``, a subprocess printing JSON lines.

Two tables:

* ``changelog-producer = input``: the writer sends a proper changelog (``+I`` new key, ``-U``/``+U``
  update, ``-D`` delete, the before images the current rows).  Both consumers must emit exactly
  those records — Flink reads the changelog files without normalizing them — in commit order per
  key.
* no changelog producer: the writer sends upserts (``+I``/``+U``) and deletes (``-D``, some of keys
  that do not exist).  ``strata tail`` follows the delta of every APPEND snapshot, so it emits the
  records as written.  Flink declares an upsert changelog for such a table and its planner adds
  the ``ChangelogNormalize`` operator: it emits ``+I`` for a new key, ``-U`` (the previous row)
  and ``+U`` for an update, ``-D`` with the previous row for a delete, and nothing for a delete of
  a key that is not there — the test's model of that operator gives Flink's expected records.

At the end the two consumed changelogs, replayed (``+I``/``+U`` insert-or-replace by key,
``-U``/``-D`` delete), equal the final table read by strata and by Flink's batch read, and the
test's model.  After every commit the earliest snapshot is at most the smallest ``nextSnapshot``
of the two consumers; expiry must have removed snapshots during the run while the consumers
held it back (more snapshots retained than ``snapshot.num-retained.max`` at some point), and
neither consumer hit a missing snapshot: Flink's job never failed, the tail never exited, and
the tail read every APPEND snapshot.
"""
from __future__ import annotations

import json
import random
import subprocess
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import pyarrow as pa
import pytest

from interop_support.datagen import paimon_schema_json
from interop_support.flink import flink  # noqa: F401  (fixture)
from interop_support.warehouse import snapshot_ids, snapshot_json, table_dir

pytestmark = pytest.mark.flink

COMMITS = 200
KEY_SPACE = 300
INITIAL_KEYS = 100
KEYS_PER_COMMIT = 12
RETAIN_MIN, RETAIN_MAX = 1, 3
CHECKPOINT_INTERVAL = "500 ms"
CATCH_UP_S = 120

SCHEMA = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("v", pa.string()),
                    pa.field("op", pa.string())])

# (kind, key, value) — one record as written, or as a consumer emitted it
Record = Tuple[str, int, Optional[str]]


# -- the writer's records ----------------------------------------------------------------------

def generate_commits(producer: str, seed: int) -> List[List[Record]]:
    """The records of every commit, distinct keys within a commit (so a commit's delta is its
    records as written, nothing merged inside the commit's write buffer)."""
    rng = random.Random(seed)
    table: Dict[int, str] = {}
    commits: List[List[Record]] = []
    first = sorted(rng.sample(range(KEY_SPACE), INITIAL_KEYS))
    commits.append([("+I", k, f"c0-{k}") for k in first])
    table.update({k: f"c0-{k}" for k in first})
    for i in range(1, COMMITS):
        records: List[Record] = []
        for k in sorted(rng.sample(range(KEY_SPACE), KEYS_PER_COMMIT)):
            new = f"c{i}-{k}"
            old = table.get(k)
            if producer == "input":
                # a proper changelog: the before images are the rows the table holds
                if old is None:
                    records.append(("+I", k, new))
                elif rng.random() < 0.3:
                    records.append(("-D", k, old))
                else:
                    records += [("-U", k, old), ("+U", k, new)]
            else:
                # upserts and deletes; a delete carries no meaningful value and may name a key
                # that is not there
                if old is None and rng.random() < 0.15:
                    records.append(("-D", k, "gone"))
                elif old is not None and rng.random() < 0.3:
                    records.append(("-D", k, "gone"))
                else:
                    records.append((rng.choice(["+I", "+U"]), k, new))
            if records[-1][0] == "-D":
                table.pop(k, None)
            else:
                table[k] = new
        commits.append(records)
    return commits


def replay(records: List[Record]) -> Dict[int, str]:
    """A changelog applied to an empty table: +I/+U insert or replace by key, -U/-D delete."""
    state: Dict[int, str] = {}
    for kind, k, v in records:
        if kind in ("+I", "+U"):
            state[k] = v
        elif kind in ("-U", "-D"):
            state.pop(k, None)
        else:
            raise AssertionError(f"unknown row kind {kind!r} in {(kind, k, v)}")
    return state


def strict_replay(records: List[Record], who: str) -> Dict[int, str]:
    """A retract changelog applied to an empty table: +I/+U add a row whose key is absent,
    -U/-D remove exactly the row that is there."""
    state: Dict[int, str] = {}
    for n, (kind, k, v) in enumerate(records):
        if kind in ("+I", "+U"):
            assert k not in state, f"{who}: record {n} {(kind, k, v)} adds key {k} held by {state[k]!r}"
            state[k] = v
        else:
            assert state.get(k) == v, f"{who}: record {n} {(kind, k, v)} retracts a row that is not there " \
                                      f"(the key holds {state.get(k)!r})"
            del state[k]
    return state


def normalized(commits: List[List[Record]]) -> List[Record]:
    """What Flink's ChangelogNormalize (keyed state, last row wins, update-before generated)
    emits for an upsert stream."""
    state: Dict[int, str] = {}
    out: List[Record] = []
    for records in commits:
        for kind, k, v in records:
            prev = state.get(k)
            if kind in ("+I", "+U"):
                if prev is None:
                    out.append(("+I", k, v))
                elif prev != v:
                    out += [("-U", k, prev), ("+U", k, v)]
                state[k] = v
            elif prev is not None:
                out.append(("-D", k, prev))
                del state[k]
    return out


def by_key(records: List[Record]) -> Dict[int, List[Tuple[str, Optional[str]]]]:
    out: Dict[int, List[Tuple[str, Optional[str]]]] = defaultdict(list)
    for kind, k, v in records:
        out[k].append((kind, v))
    return dict(out)


def assert_same_per_key(got: List[Record], want: List[Record], what: str) -> None:
    """The same records, in the same order for each key (the order across keys is the order of
    buckets and splits, which no reader promises)."""
    g, w = by_key(got), by_key(want)
    bad = sorted(k for k in set(g) | set(w) if g.get(k) != w.get(k))
    if bad:
        lines = [f"key {k}: got {g.get(k)} want {w.get(k)}" for k in bad[:8]]
        raise AssertionError(f"{what}: {len(got)} records, {len(want)} expected; {len(bad)} keys differ:\n"
                             + "\n".join(lines))


def assert_same_table(got: Dict[int, str], want: Dict[int, str], what: str) -> None:
    if got != want:
        missing = sorted(set(want) - set(got))
        extra = sorted(set(got) - set(want))
        changed = sorted(k for k in set(got) & set(want) if got[k] != want[k])
        raise AssertionError(
            f"{what}: {len(got)} rows, {len(want)} expected; missing keys {missing[:10]}, extra keys "
            f"{extra[:10]}, different values {[(k, got[k], want[k]) for k in changed[:10]]}")


# -- consumers ---------------------------------------------------------------------------------

def consumer_next(wh: str, ident: str, consumer: str) -> Optional[int]:
    """``nextSnapshot`` of ``consumer/consumer-ID`` (None while it does not exist).  A writer may
    be overwriting the file, so a read that is not JSON is retried."""
    path = table_dir(wh, ident) / "consumer" / f"consumer-{consumer}"
    for _ in range(50):
        try:
            return json.loads(path.read_text())["nextSnapshot"]
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, KeyError):
            time.sleep(0.01)
    raise AssertionError(f"{path} never held a consumer's JSON")


def wait_until(cond: Callable[[], bool], timeout: float, what: Callable[[], str]) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"after {timeout}s: {what()}")
        time.sleep(0.1)


class Tail:
    """``strata tail ... --verbose`` as a subprocess: its JSON lines collected by a thread,
    stderr (one ``{"snapshot": N}`` per snapshot with changes) to a file."""

    def __init__(self, strata_bin: str, wh: str, ident: str, consumer: str, scratch: Path):
        self.stderr_path = scratch / f"tail-{consumer}.stderr"
        self._stderr = open(self.stderr_path, "w")
        self.cmd = [strata_bin, "--warehouse", wh, "tail", ident, "--from", "earliest", "--consumer-id",
                    consumer, "--columns", "k,v", "--poll-ms", "20", "--verbose"]
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        self.records: List[Record] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            r = json.loads(line)
            with self._lock:
                self.records.append((r["rowkind"], r["k"], r["v"]))

    def count(self) -> int:
        with self._lock:
            return len(self.records)

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text()

    def assert_running(self) -> None:
        rc = self.proc.poll()
        assert rc is None, f"`{' '.join(self.cmd)}` exited {rc}:\n{self.stderr()[-3000:]}"

    def stop(self) -> List[Record]:
        """Ends the tail (it never ends by itself) and returns every line it printed."""
        self.assert_running()
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self._thread.join(timeout=30)
        self._stderr.close()
        return list(self.records)

    def snapshots(self) -> List[int]:
        return [json.loads(line)["snapshot"] for line in self.stderr_path.read_text().splitlines()
                if line.startswith('{"snapshot"')]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self._stderr.close()


@pytest.fixture(scope="module")
def streaming_flink(flink):
    # Paimon's Flink source records its consumer (consumer-id) when a checkpoint completes.
    flink.call("configure", options={"execution.checkpointing.interval": CHECKPOINT_INTERVAL},
               mode="streaming")
    return flink


def write_commit(strata, ident: str, records: List[Record], path: Path) -> str:
    path.write_text("".join(json.dumps({"k": k, "v": v, "op": kind}) + "\n" for kind, k, v in records))
    return strata.run("write", ident, str(path)).stderr


@pytest.mark.parametrize("producer", ["input", "none"])
def test_consumers_follow_200_commits_while_expiry_runs(streaming_flink, strata, tmp_path, producer):
    flink = streaming_flink
    ident = f"db.follow_{producer}"
    options = {"bucket": "2", "rowkind.field": "op",
               "snapshot.num-retained.min": str(RETAIN_MIN), "snapshot.num-retained.max": str(RETAIN_MAX),
               # Flink refuses a consumer-id without it; strata's expiry never drops consumers
               "consumer.expiration-time": "1 h"}
    if producer == "input":
        options["changelog-producer"] = "input"
    doc = paimon_schema_json(SCHEMA, [], options)
    doc["primaryKeys"] = ["k"]
    strata.create_table(ident, doc)
    commits = generate_commits(producer, seed=20261205 + (producer == "none"))
    inputs = tmp_path / "commits"
    inputs.mkdir()
    wh = strata.warehouse

    write_commit(strata, ident, commits[0], inputs / "c0.jsonl")
    assert snapshot_ids(wh, ident) == [1]

    t = flink.table(wh, ident)
    stream = flink.call("stream_start", query=(
        f"SELECT k, v FROM {t} /*+ OPTIONS('consumer-id' = 'flink', "
        f"'continuous.discovery-interval' = '100ms') */"))

    def consumers() -> Dict[str, Optional[int]]:
        return {c: consumer_next(wh, ident, c) for c in ("flink", "tail")}

    tail: Optional[Tail] = None
    try:
        tail = Tail(strata.binary, wh, ident, "tail", tmp_path)
        # Both consumers are registered and have read snapshot 1 before the writer goes on
        # (until then expiry could remove what they need: it knows only registered consumers).
        n0 = len(commits[0])
        wait_until(lambda: None not in consumers().values(), 60, lambda: f"consumers: {consumers()}")
        first = flink.call("stream_poll", stream=stream, rows=n0, timeout=60)
        assert len(first) == n0, f"Flink emitted {len(first)} of snapshot 1's {n0} rows"
        wait_until(lambda: tail.count() >= n0, 60,
                   lambda: f"tail printed {tail.count()} of {n0} rows:\n{tail.stderr()}")

        appends = [1]          # the APPEND snapshot of every commit
        latest = 1
        earliest_seen: List[int] = []
        most_retained = 1
        warnings = []
        started = time.monotonic()
        for i in range(1, COMMITS):
            err = write_commit(strata, ident, commits[i], inputs / f"c{i}.jsonl")
            warnings += [line for line in err.splitlines() if line.startswith("warning")]
            ids = snapshot_ids(wh, ident)
            new = [s for s in ids if s > latest]
            kinds = [snapshot_json(wh, ident, s)["commitKind"] for s in new]
            assert kinds in (["APPEND"], ["APPEND", "COMPACT"]), f"commit {i}: snapshots {new} {kinds}"
            appends.append(new[0])
            latest = ids[-1]
            earliest = ids[0]
            nexts = consumers()
            assert earliest <= min(nexts.values()), \
                f"commit {i}: expiry removed snapshot {earliest - 1}, which consumer(s) {nexts} still needed"
            earliest_seen.append(earliest)
            most_retained = max(most_retained, len(ids))
            if i % 20 == 0:
                tail.assert_running()
                flink.call("stream_poll", stream=stream, rows=0, timeout=0)  # raises if the job failed
        write_s = time.monotonic() - started

        # Caught up: each consumer recorded that it reads next the snapshot after the last
        # APPEND one (Flink's record comes with a checkpoint, after which the rows it emitted
        # up to there are in the collected result).
        wait_until(lambda: all((n or 0) > appends[-1] for n in consumers().values()), CATCH_UP_S,
                   lambda: f"the consumers did not get past snapshot {appends[-1]}: {consumers()}")
        flink_want = [r for c in commits for r in c] if producer == "input" else normalized(commits)
        flink_rows = flink.call("stream_poll", stream=stream, rows=len(flink_want), timeout=30)
        tail_records = tail.stop()
    finally:
        if tail is not None:
            tail.kill()
        flink.call("stream_stop", stream=stream)
    flink_records = [(r["kind"], r["values"][0], r["values"][1]) for r in flink_rows]
    written = [r for c in commits for r in c]

    # Expiry ran during the run (snapshots were removed)...
    assert earliest_seen[-1] > COMMITS // 2, f"earliest snapshot after the last commit: {earliest_seen[-1]}"
    # ...and the consumers held it back: more snapshots than snapshot.num-retained.max were kept.
    assert most_retained > RETAIN_MAX, f"at most {most_retained} snapshots retained: the consumers never " \
                                       f"held expiry back"
    # The tail read every APPEND snapshot (snapshot 1 whole first) and only those: no gap.
    assert tail.snapshots() == appends, f"tail read snapshots {tail.snapshots()}, APPEND snapshots {appends}"

    # The final table: the model, strata's read and Flink's batch read agree.
    model = replay(written)
    got = strata.read_arrow(ident, columns=["k", "v"]).to_pylist()
    strata_table = {r["k"]: r["v"] for r in got}
    assert len(strata_table) == len(got), "strata read a key twice"
    assert_same_table(strata_table, model, "strata read of the final table vs the model")
    # Flink's batch read keeps the row kind of each key's latest record: +U for a key last
    # written as +U (Java's KeyValue read drops only -U/-D); every row is a row of the table.
    flink_batch = flink.sql(f"SELECT k, v FROM {t}") or []
    assert {r["kind"] for r in flink_batch} <= {"+I", "+U"}, {r["kind"] for r in flink_batch}
    flink_table = {r["values"][0]: r["values"][1] for r in flink_batch}
    assert len(flink_table) == len(flink_batch), "Flink read a key twice"
    assert_same_table(flink_table, model, "Flink batch read of the final table vs the model")

    # Both consumed changelogs replay to the final table...
    assert_same_table(replay(tail_records), strata_table, "strata tail's changelog replayed")
    assert_same_table(replay(flink_records), strata_table, "Flink's changelog replayed")
    # ...and are exactly what each must emit, in commit order per key: strata's tail the
    # records as written (the input changelog, or the delta of each APPEND snapshot); Flink the
    # input changelog as written, or the normalized upsert stream.
    assert_same_per_key(tail_records, written, "strata tail vs the written records")
    assert_same_per_key(flink_records, flink_want,
                        "Flink vs the written changelog" if producer == "input" else "Flink vs ChangelogNormalize")
    # Flink's stream is a retract changelog either way; the input changelog written was one too.
    assert_same_table(strict_replay(flink_records, "Flink"), strata_table, "Flink's changelog applied strictly")
    if producer == "input":
        assert_same_table(strict_replay(tail_records, "strata tail"), strata_table,
                          "strata tail's changelog applied strictly")
    print(f"{producer}: {COMMITS} commits in {write_s:.1f}s, {len(appends)} APPEND and "
          f"{latest - len(appends)} COMPACT snapshots, earliest after the run {earliest_seen[-1]}, "
          f"at most {most_retained} retained; tail {len(tail_records)} records, Flink {len(flink_records)}; "
          f"{len(warnings)} write warnings")
    # Every commit's expiry ran. Flink (Java's LocalFileIO) rewrites consumer/consumer-flink in
    # place at each checkpoint, so a commit can find it empty; Java's Consumer.fromPath retries
    # (3 x 100 ms) a consumer file it cannot parse, strata's expiry must not fail on it either.
    assert warnings == [], f"{len(warnings)} of strata's writes warned (their expiry failed): {warnings[:3]}"
