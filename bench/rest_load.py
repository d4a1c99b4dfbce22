#!/usr/bin/env python3
"""Concurrent commits to one table through a REST catalog server (issue 32): `strata serve` and
Java Paimon 2.0's reference `RESTCatalogServer`, driven by the same client.

N clients (threads) each make M commits to one append table: every commit is one `strata
--catalog-option metastore=rest,... write` process writing one row `{client, seq}` (strata's REST
client: config handshake, getTable, write, `POST .../commit` with `baseSnapshotUuid`, re-planned
on a `{"success": false}` answer as Java's `FileStoreCommitImpl` does). Checked after the run:

* no lost commit: the table holds exactly the rows of the commits the clients saw succeed, each
  once, and one APPEND snapshot per successful commit;
* every conflict reported as a conflict: the server answered each `POST .../commit` 200 with
  `success` true or false (counted: the conflicts), never a 5xx; a client that gave up reports a
  commit conflict by name (exit status and message), never anything else;

and reported: successful commits per second (wall clock of the whole run), p50 / p99 of one
commit's round trip as a client sees it (the `strata write` process: start, catalog handshake,
write, commit with its retries), the server-side conflict count.

    python3 bench/rest_load.py --strata-bin target/release/strata --server both \
        --clients 8 --commits 200 [--json out.json]

`tests/interop/test_rest_load.py` runs the same code with a small count as a correctness test.
Java's server dispatches one request at a time (its state is not thread-safe apart from its
commit; see `Paimon2RestServerMain`), keeps metadata in memory and is a test fixture: the
comparison is of the protocol's cost, not of durability.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "interop"))

from interop_support.rest_java_server import JavaRestServer, RestServer, StrataRestServer  # noqa: E402

TABLE = "load_db.events"
SCHEMA = {
    "fields": [{"id": 0, "name": "client", "type": "INT NOT NULL"},
               {"id": 1, "name": "seq", "type": "INT NOT NULL"}],
    "partitionKeys": [], "primaryKeys": [],
    # write-only: no compaction snapshots, so APPEND snapshots = commits; retries generous so a
    # commit gives up only under real starvation (then it must say "conflict")
    "options": {"bucket": "-1", "write-only": "true", "commit.max-retries": "200"},
}
CONFLICT = re.compile(r"conflict", re.IGNORECASE)


def percentile(xs: List[float], p: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = min(len(s) - 1, max(0, int(round(p / 100.0 * (len(s) - 1)))))
    return s[k]


def strata(bin_: str, server: RestServer, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([bin_, *server.cli_args(), *args], capture_output=True, text=True, timeout=600)
    if check and p.returncode != 0:
        raise RuntimeError(f"strata {' '.join(args)} exited {p.returncode}:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    return p


def run_load(bin_: str, server: RestServer, clients: int, commits: int, scratch: Path) -> Dict[str, Any]:
    """Creates the table, runs the clients, returns the measurements and the outcome lists."""
    scratch.mkdir(parents=True, exist_ok=True)
    schema = scratch / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    strata(bin_, server, "create-table", TABLE, "--schema", str(schema))
    lat: List[float] = []
    ok: List[tuple] = []
    failed: List[Dict[str, Any]] = []
    lock = threading.Lock()

    def client(c: int) -> None:
        for s in range(commits):
            f = scratch / f"c{c}-{s}.jsonl"
            f.write_text(json.dumps({"client": c, "seq": s}) + "\n")
            t0 = time.perf_counter()
            p = strata(bin_, server, "write", TABLE, str(f), check=False)
            dt = time.perf_counter() - t0
            f.unlink()
            with lock:
                if p.returncode == 0:
                    lat.append(dt)
                    ok.append((c, s))
                else:
                    failed.append({"client": c, "seq": s, "exit": p.returncode,
                                   "stderr": p.stderr[-1500:]})

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"clients": clients, "commits_per_client": commits, "wall_s": wall,
            "succeeded": len(ok), "failed": failed, "ok": ok,
            "commits_per_s": len(ok) / wall if wall > 0 else 0.0,
            "p50_ms": percentile(lat, 50) * 1000, "p99_ms": percentile(lat, 99) * 1000}


def verify(bin_: str, server: RestServer, result: Dict[str, Any], scratch: Path) -> List[str]:
    """The correctness conditions of the module doc; returns the problems found (empty = ok)."""
    problems: List[str] = []
    out = scratch / "rows.jsonl"
    p = strata(bin_, server, "read", TABLE, "--format", "jsonl")
    rows = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    got = sorted((r["client"], r["seq"]) for r in rows)
    want = sorted(result["ok"])
    if got != want:
        missing = sorted(set(want) - set(got))
        extra = sorted(set(got) - set(want))
        dup = len(got) - len(set(got))
        problems.append(f"rows differ from the successful commits: {len(missing)} missing "
                        f"{missing[:10]}, {len(extra)} unexpected {extra[:10]}, {dup} duplicated")
    snaps = [json.loads(x) for x in strata(bin_, server, "snapshots", TABLE).stdout.splitlines() if x.strip()]
    appends = [s for s in snaps if s.get("commitKind") == "APPEND"]
    if len(appends) != result["succeeded"]:
        problems.append(f"{len(appends)} APPEND snapshots for {result['succeeded']} successful commits")
    for f in result["failed"]:
        if not CONFLICT.search(f["stderr"]):
            problems.append(f"client {f['client']} commit {f['seq']} failed without naming a conflict "
                            f"(exit {f['exit']}): {f['stderr'][-600:]}")
    out.write_text("\n".join(json.dumps(r) for r in rows))
    return problems


def server_commit_answers(server: RestServer) -> Optional[Dict[str, int]]:
    """Counts of the server's commit answers: Java's from its request log, strata's from
    /metrics (`commits_total{result=...}`); None if the server does not expose them."""
    if isinstance(server, JavaRestServer):
        reqs = [r for r in server.requests() if r["path"].endswith("/commit")]
        return {"success": sum(1 for r in reqs if r.get("success") is True),
                "conflict": sum(1 for r in reqs if r.get("success") is False),
                "error": sum(1 for r in reqs if r["status"] != 200),
                "5xx_any_call": sum(1 for r in server.requests() if r["status"] >= 500)}
    try:
        import urllib.request
        with urllib.request.urlopen(server.url + "/metrics", timeout=10) as r:
            text = r.read().decode()
    except Exception:  # noqa: BLE001 - a server without /metrics: not counted
        return None
    out: Dict[str, int] = {}
    for line in text.splitlines():
        m = re.match(r'^\w*commits_total\{[^}]*result="(\w+)"[^}]*\}\s+([0-9.e+]+)', line)
        if m:
            out[m.group(1)] = out.get(m.group(1), 0) + int(float(m.group(2)))
        m = re.match(r'^\w*requests_total\{([^}]*)\}\s+([0-9.e+]+)', line)
        if m and re.search(r'(code|status)="5\d\d"', m.group(1)):
            out["5xx_any_call"] = out.get("5xx_any_call", 0) + int(float(m.group(2)))
    out.setdefault("5xx_any_call", 0)
    return out


def bench_one(kind: str, bin_: str, clients: int, commits: int, work: Path) -> Dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    if kind == "java":
        server: RestServer = JavaRestServer(str(work / "java_data"), warehouse="load_wh")
    else:
        server = StrataRestServer(bin_, str(work / "load_wh"))
    try:
        res = run_load(bin_, server, clients, commits, work / "scratch")
        res["problems"] = verify(bin_, server, res, work / "scratch")
        sc = res["server_commits"] = server_commit_answers(server)
        if sc is not None and (sc.get("5xx_any_call") or sc.get("error")):
            res["problems"].append(f"the server answered errors: {sc}")
        if sc is not None and "success" in sc and sc["success"] != res["succeeded"]:
            res["problems"].append(f"the server acknowledged {sc['success']} commits, the clients saw "
                                   f"{res['succeeded']} succeed")
    finally:
        server.close()
    res["server"] = kind
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description="concurrent commits through a REST catalog server")
    ap.add_argument("--strata-bin", default=str(ROOT / "target" / "release" / "strata"))
    ap.add_argument("--server", choices=["strata", "java", "both"], default="both")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--commits", type=int, default=200)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="strata-rest-load-"))
    results = []
    try:
        for kind in (["strata", "java"] if args.server == "both" else [args.server]):
            r = bench_one(kind, os.path.abspath(args.strata_bin), args.clients, args.commits, work / kind)
            results.append(r)
            sc = r["server_commits"] or {}
            print(f"{kind:6}  {r['clients']} clients x {r['commits_per_client']} commits: "
                  f"{r['succeeded']} committed, {len(r['failed'])} gave up, {r['wall_s']:.1f} s, "
                  f"{r['commits_per_s']:.1f} commits/s, p50 {r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.0f} ms; "
                  f"server answers {sc}; problems: {r['problems'] or 'none'}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps([{k: v for k, v in r.items() if k != "ok"} for r in results], indent=1))
    return 1 if any(r["problems"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
