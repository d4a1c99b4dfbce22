"""Concurrent writers and ``kill -9``, checked by the other engines.

The ``strata-workload`` binary (beside ``strata``) runs deterministic writers: each commit user
``wl-<name>`` commits identifiers 1, 2, ... on a primary-key table with compaction on, resuming
after its last landed identifier when restarted.  ``strata-workload verify`` checks the snapshot
sequence, exactly-once identifiers, acknowledged commits and the rows against the model, and writes
the expected rows; here pypaimon and pypaimon-rust must read exactly those rows:

* 4 processes x 2 threads, 200 commits in all, sharing both buckets of one table;
* a writer killed with SIGKILL at 50 random moments, the table read by all engines after each.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from interop_support import engines
from interop_support.canonical import assert_same_rows, dumps

pytestmark = pytest.mark.cli_reliability

IDENT = "rel.t"


@pytest.fixture
def workload(strata_bin) -> str:
    p = Path(strata_bin).with_name("strata-workload")
    if not (p.is_file() and os.access(p, os.X_OK)):
        pytest.fail(f"strata-workload not found at {p}: build with `cargo build -p strata-cli --bins`",
                    pytrace=False)
    return str(p)


def _run(workload: str, wh: str, *args: str) -> str:
    out = subprocess.run([workload, args[0], "--warehouse", wh, "--table", IDENT, *args[1:]],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"strata-workload {args}: {out.stderr}"
    return out.stdout


def _verify(workload: str, wh: str, logs, tmp: Path, expect=None) -> dict:
    expected = tmp / "expected.jsonl"
    args = ["verify", "--expected-out", str(expected)]
    for log in logs:
        args += ["--log", str(log)]
    if expect is not None:
        args += ["--expect-commits", str(expect)]
    summary = json.loads(_run(workload, wh, *args))
    want = sorted(dumps(json.loads(line)) for line in expected.read_text().splitlines())
    for reader in ("pypaimon", "pypaimon-rust"):
        got = engines.read(reader, wh, IDENT, columns=["u", "k", "ident", "v"])
        rows = sorted(dumps({"u": r["u"], "k": r["k"], "ident": r["ident"], "v": r["v"]})
                      for r in got.to_pylist())
        assert_same_rows(rows, want, f"{reader} after {summary}")
    return summary


def test_four_processes_eight_threads(workload, wh, tmp_path):
    _run(workload, wh, "init")
    logs = [tmp_path / f"p{p}.log" for p in range(4)]
    procs = [subprocess.Popen([workload, "run", "--warehouse", wh, "--table", IDENT, "--writer", f"p{p}",
                               "--threads", "2", "--commits", "25", "--log", str(logs[p])],
                              stderr=subprocess.PIPE, text=True)
             for p in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    s = _verify(workload, wh, logs, tmp_path, expect=25)
    assert s["writers"] == 8 and s["appendCommits"] == 200 and s["acknowledged"] == 200, s
    assert s["compactCommits"] > 0, s


def test_kill_nine_fifty_times(workload, wh, tmp_path):
    _run(workload, wh, "init")
    log = tmp_path / "k.log"
    seed = int(time.time())
    rnd = random.Random(seed)
    last = 0
    for i in range(50):
        p = subprocess.Popen([workload, "run", "--warehouse", wh, "--table", IDENT, "--writer", "k",
                              "--threads", "2", "--commits", "1000000", "--log", str(log)],
                             stderr=subprocess.DEVNULL)
        time.sleep(0.02 + rnd.random() * 0.3)
        p.send_signal(signal.SIGKILL)
        p.wait()
        s = _verify(workload, wh, [log], tmp_path)
        assert s["appendCommits"] >= last, f"kill {i} (seed {seed}): commits lost: {s}"
        last = s["appendCommits"]
    assert last > 0
