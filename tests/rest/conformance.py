#!/usr/bin/env python3
"""REST catalog conformance of ``strata serve`` against Paimon 2.0.0's OpenAPI file (issue 32).

Runs schemathesis (tests/interop/requirements.txt) with ``openapi-2.0.0.yaml`` beside this file
against a ``strata serve`` it starts over a seeded warehouse, every operation of the spec,
valid and invalid inputs (the examples, coverage and fuzzing phases), every check
(``--checks all``: no 5xx, status codes and response bodies as the spec declares them, invalid
input refused, wrong methods refused, ...). A failing check is accepted only if
``conformance-allowlist.toml`` lists its (operation, check) with the reason (narrowed, where an
entry says ``failure-contains``, to failures whose report contains that text) -- the spec bugs
where Java's ``RESTApi`` / ``RESTCatalogServer`` is the contract (DESIGN32 §5.6). The operations strata refuses by name (views, functions, ...: 501 with an
ErrorResponse naming the operation) are listed there too, as ``[[refused]]``: their 501 answers
fail the 5xx, status-code and method checks by construction and are accepted only with a 501
ErrorResponse body. Any other 5xx fails the run and can never be allow-listed.

The warehouse is seeded with strata's filesystem CLI before the server starts:
``seed_db.seed_t`` (a partitioned primary-key table, snapshots 1 and 2, tag ``seed_tag`` of
snapshot 1, branch ``seed_branch``) for the reading operations, and the same shape as
``victim_db.victim_t`` for the destructive ones (drop, rollback, rename, alter, fast-forward), so
path parameters name real objects and no destructive call changes what the others read; views
and functions (``seed_view``, ``seed_fn``; ``victim_view``, ``victim_fn`` in victim_db) are
created through the server once it answers.

Usage (the interop test ``tests/interop/test_rest_conformance.py`` runs exactly this):
    .interop-venv/bin/python tests/rest/conformance.py --strata-bin target/debug/strata \
        [--max-examples 25] [--seed 1] [--workers 2] [--keep DIR]
Exit status 0 when every failure is allow-listed; a summary of the operations exercised and
of each failure (operation, check, status, the first response body) on stdout. Runtime:
about 10-20 s on the project's 2-core machine with the defaults (1,600-odd requests).
"""
from __future__ import annotations

import argparse
import base64
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
SPEC = HERE / "openapi-2.0.0.yaml"
ALLOWLIST = HERE / "conformance-allowlist.toml"
TOKEN = "conformance-token"

SEED_SCHEMA = {
    "fields": [
        {"id": 0, "name": "k", "type": "INT NOT NULL"},
        {"id": 1, "name": "p", "type": "STRING NOT NULL"},
        {"id": 2, "name": "v", "type": "STRING"},
    ],
    "partitionKeys": ["p"],
    "primaryKeys": ["k", "p"],
    "options": {"bucket": "1"},
}

# operations that change or remove what they name: pointed at victim_db.victim_t
DESTRUCTIVE = ["dropDatabase", "alterDatabase", "dropTable", "alterTable", "renameTable",
               "rollbackTable", "rollbackSchema", "dropPartitions", "createPartitions",
               "markDonePartitions", "dropBranch", "renameBranch", "forwardBranch", "deleteTag",
               "resetConsumer", "commitTable", "createBranch", "createTag", "RegisterTable"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd: List[str], **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return p


def seed(strata: str, wh: Path, scratch: Path) -> None:
    """Two tables of the same shape, each with snapshots 1 and 2, a tag and a branch."""
    schema = scratch / "schema.json"
    schema.write_text(json.dumps(SEED_SCHEMA))
    for db, t in (("seed_db", "seed_t"), ("victim_db", "victim_t")):
        ident = f"{db}.{t}"
        run([strata, "--warehouse", str(wh), "create-table", ident, "--schema", str(schema)])
        for n in (1, 2):
            rows = scratch / f"{t}-{n}.jsonl"
            rows.write_text("".join(json.dumps({"k": k, "p": f"p{k % 2}", "v": f"v{n}"}) + "\n"
                                    for k in range(3)))
            run([strata, "--warehouse", str(wh), "write", ident, str(rows)])
        run([strata, "--warehouse", str(wh), "create-tag", ident, "seed_tag", "--snapshot", "1"])
        run([strata, "--warehouse", str(wh), "create-branch", ident, "seed_branch"])


def http_post(url: str, body: dict) -> None:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": f"Bearer {TOKEN}",
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        r.read()


def seed_views_functions(url: str, prefix: str) -> None:
    """A view and a function in each database, through the server (views and functions live
    only in a catalog): ``seed_view`` / ``seed_fn`` for the reading operations, ``victim_view``
    / ``victim_fn`` in victim_db for the destructive ones."""
    for db, view, fn in (("seed_db", "seed_view", "seed_fn"), ("victim_db", "victim_view", "victim_fn")):
        http_post(f"{url}/v1/{prefix}/databases/{db}/views", {
            "identifier": {"database": db, "object": view},
            "schema": {"fields": SEED_SCHEMA["fields"], "query": f"SELECT * FROM {db}.seed_t",
                       "dialects": {"spark": "SELECT * FROM seed_t"}, "options": {}}})
        http_post(f"{url}/v1/{prefix}/databases/{db}/functions", {
            "name": fn, "inputParams": [{"id": 0, "name": "x", "type": "INT"}],
            "returnParams": [{"id": 0, "name": "y", "type": "INT"}], "deterministic": True,
            "definitions": {"trino": {"type": "sql", "definition": "x + 1"}}, "options": {}})


def http_get(url: str) -> dict:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def start_server(strata: str, wh: Path, scratch: Path) -> Tuple[subprocess.Popen, str, Path]:
    tokens = scratch / "tokens"
    tokens.write_text(f"{TOKEN} conformance\n")
    port = free_port()
    log = scratch / "serve.log"
    proc = subprocess.Popen([strata, "serve", "--warehouse", str(wh), "--listen", f"127.0.0.1:{port}",
                             "--token-file", str(tokens)],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"strata serve exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            http_get(f"{url}/v1/config?warehouse={wh.name}")
            return proc, url, log
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit(f"strata serve did not answer in 60 s:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)


def toml_str(v: str) -> str:
    return json.dumps(v)


def write_config(path: Path, prefix: str, table_id: str, warehouse: str) -> None:
    """schemathesis.toml: the seeded names as path parameters, victims for destructive ops."""
    common = {"prefix": prefix, "version": "1", "tag": "seed_tag", "branch": "seed_branch",
              "tableId": table_id, "warehouse": warehouse}
    lines = ["[parameters]"]
    for k, v in {**common, "database": "seed_db", "table": "seed_t", "view": "seed_view",
                 "function": "seed_fn"}.items():
        lines.append(f"{toml_str(k)} = {toml_str(v)}")
    for op in DESTRUCTIVE:
        lines += ["", "[[operations]]", f"include-operation-id = {toml_str(op)}",
                  "parameters = { database = \"victim_db\", table = \"victim_t\" }"]
    for op, param, name in (("dropView", "view", "victim_view"), ("alterView", "view", "victim_view"),
                            ("dropFunction", "function", "victim_fn"),
                            ("alterFunction", "function", "victim_fn")):
        lines += ["", "[[operations]]", f"include-operation-id = {toml_str(op)}",
                  f"parameters = {{ database = \"victim_db\", {param} = \"{name}\" }}"]
    path.write_text("\n".join(lines) + "\n")


def load_allowlist() -> Tuple[Dict[Tuple[str, str], Tuple[str, Optional[str]]], Dict[str, str]]:
    """(operation, check) -> (reason, failure-contains) of the accepted failures (with
    ``failure-contains``, only failures whose report contains that text); operation -> reason of
    the operations strata refuses by name (501)."""
    data = tomllib.loads(ALLOWLIST.read_text())
    allow: Dict[Tuple[str, str], Tuple[str, Optional[str]]] = {}
    for e in data.get("allow", []):
        if e["check"] == "not_a_server_error":
            raise SystemExit(f"{ALLOWLIST}: a 5xx can never be allow-listed ({e})")
        if not e.get("reason"):
            raise SystemExit(f"{ALLOWLIST}: entry {e} has no reason")
        for op in e["operations"]:
            allow[(op, e["check"])] = (e["reason"], e.get("failure-contains"))
    refused: Dict[str, str] = {}
    for e in data.get("refused", []):
        if not e.get("reason"):
            raise SystemExit(f"{ALLOWLIST}: entry {e} has no reason")
        for op in e["operations"]:
            refused[op] = e["reason"]
    return allow, refused


# the checks a refusal by name fails by construction: 501 is a 5xx, undeclared, and answers
# every method of the path
REFUSAL_CHECKS = {"not_a_server_error", "status_code_conformance", "unsupported_method",
                  "content_type_conformance", "response_schema_conformance"}


def refusal_ok(item: dict) -> bool:
    """A 501 whose body is an ErrorResponse with code 501 and a message naming the refusal."""
    if item["status"] != 501:
        return False
    try:
        body = json.loads(item["body_full"])
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("code") == 501 and bool(body.get("message"))


def decode(content: dict) -> str:
    if not content:
        return ""
    if "$base64" in content:
        return base64.b64decode(content["$base64"]).decode("utf-8", "replace")
    return str(content.get("string", content))


def analyse(ndjson: Path) -> Tuple[Dict[Tuple[str, str], List[dict]], Counter, int]:
    """Failures by (operation, check) with their responses; statuses per operation; case count."""
    failures: Dict[Tuple[str, str], List[dict]] = defaultdict(list)
    statuses: Counter = Counter()
    cases = 0
    for line in ndjson.read_text().splitlines():
        ev = json.loads(line)
        sf = ev.get("ScenarioFinished")
        if not sf:
            continue
        rec = sf["recorder"]
        label = rec["label"]
        inter = rec.get("interactions", {})
        for case_id, it in inter.items():
            cases += 1
            resp = it.get("response") or {}
            statuses[(label, resp.get("status_code"))] += 1
        for case_id, checks in rec.get("checks", {}).items():
            for c in checks:
                if c["status"] != "failure":
                    continue
                it = inter.get(case_id, {})
                resp = it.get("response") or {}
                req = it.get("request") or {}
                body = decode(resp.get("content"))
                failures[(label, c["name"])].append({
                    "status": resp.get("status_code"),
                    "request": f"{req.get('method')} {req.get('uri')} {decode(req.get('body'))[:300]}",
                    "body": body[:300],
                    "body_full": body,
                    "failure": json.dumps(c.get("failure_info", {}))[:400],
                    "failure_full": json.dumps(c.get("failure_info", {})),
                })
    return failures, statuses, cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--strata-bin", required=True)
    ap.add_argument("--max-examples", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", help="keep the warehouse, logs and report in this directory")
    args = ap.parse_args()
    strata = os.path.abspath(args.strata_bin)
    schemathesis = Path(sys.executable).parent / "schemathesis"
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="strata-conformance-"))
    work.mkdir(parents=True, exist_ok=True)
    wh, scratch, report = work / "conformance_wh", work / "scratch", work / "report"
    for d in (wh, scratch):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    shutil.rmtree(report, ignore_errors=True)
    allow, refused = load_allowlist()
    started = time.monotonic()
    seed(strata, wh, scratch)
    proc, url, log = start_server(strata, wh, scratch)
    try:
        prefix = http_get(f"{url}/v1/config?warehouse={wh.name}")["defaults"].get("prefix", "")
        table_id = http_get(f"{url}/v1/{prefix}/databases/seed_db/tables/seed_t")["id"]
        seed_views_functions(url, prefix)
        config = scratch / "schemathesis.toml"
        write_config(config, prefix, table_id, wh.name)
        cmd = [str(schemathesis), "--no-color", "--config-file", str(config), "run", str(SPEC),
               "--url", url, "-H", f"Authorization: Bearer {TOKEN}", "--checks", "all",
               "--phases", "examples,coverage,fuzzing", "-n", str(args.max_examples),
               "--seed", str(args.seed), "--no-shrink", "--workers", str(args.workers),
               "--request-timeout", "10", "--report", "ndjson", "--report-dir", str(report),
               "--warnings", "off"]
        st = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        (scratch / "schemathesis.log").write_text(st.stdout + st.stderr)
        alive = proc.poll() is None
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    files = glob.glob(str(report / "*.ndjson"))
    if not files:
        print(st.stdout[-5000:], st.stderr[-3000:])
        print("schemathesis wrote no report")
        return 2
    failures, statuses, cases = analyse(Path(files[0]))
    ops = sorted({label for label, _ in statuses})
    print(f"{cases} requests over {len(ops)} operations in {time.monotonic() - started:.0f} s "
          f"(schemathesis exit {st.returncode}; work dir {work})")
    five = sum(n for (label, code), n in statuses.items() if code is not None and code >= 500 and code != 501)
    not_refused_501 = sorted({label for (label, code) in statuses if code == 501 and label not in refused})
    print(f"5xx answers: {five} (besides the 501 refusals of {len(refused)} operations strata does not serve)")
    bad = []
    used = set()
    for op in not_refused_501:
        bad.append((op, "501"))
        print(f"FAILED   {op}  answered 501 but is not listed as refused")
    for key, items in sorted(failures.items()):
        op, check = key
        if op in refused and check in REFUSAL_CHECKS and all(refusal_ok(i) for i in items):
            used.add(("refused", op))
            continue
        if key in allow and (allow[key][1] is None or all(allow[key][1] in i["failure_full"] for i in items)):
            used.add(key)
            print(f"allowed  {op}  {check}  x{len(items)}  ({allow[key][0][:90]})")
            continue
        bad.append(key)
        first = items[0]
        print(f"FAILED   {op}  {check}  x{len(items)}\n         status {first['status']}; "
              f"request {first['request']}\n         body {first['body']!r}\n         {first['failure']}")
    for op in sorted(refused):
        print(f"refused  {op}  ({refused[op][:90]})")
    for key in sorted(set(allow) - used):
        print(f"unused allow-list entry (not reproduced by this run): {key[0]}  {key[1]}")
    if not alive:
        print("strata serve died during the run:\n" + log.read_text()[-3000:])
        return 1
    if "Seed:" not in st.stdout and st.returncode not in (0, 1):
        print(st.stdout[-3000:], st.stderr[-3000:])
        return 1
    return 1 if bad or five else 0


if __name__ == "__main__":
    sys.exit(main())
