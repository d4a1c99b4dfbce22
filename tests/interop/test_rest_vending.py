"""Scoped, expiring S3 credentials vended by ``strata serve`` and used by pypaimon 2.1.

``strata serve`` runs over ``s3://strata/wh`` on the suite's S3 test server
(``strata-s3-test-server``: s3s, SigV4, plus an STS ``AssumeRole`` endpoint whose temporary keys are
bound to the session policy they were minted with, enforced on every request) with
``s3.sts.role-arn`` set, so every ``GET …/token`` answer holds STS keys limited to the table's
directory and to read or read + write by the caller's grant.  strata's CLI writes through the
server with vended keys only (no ``AWS_*`` in its environment); pypaimon's REST catalog
(``RESTTokenFileIO`` → pyarrow's S3 filesystem with the session token) reads the rows with a
reader's keys, and its write with those keys is refused by the store.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory

from interop_support.rest_java_server import free_port

pytestmark = pytest.mark.cli_object_store

ADMIN, READER = "admin-tok", "reader-tok"


@pytest.fixture
def s3(strata_bin, tmp_path):
    """The S3 test server: the dict of the KEY=VALUE lines it printed."""
    server_bin = Path(strata_bin).parent / "strata-s3-test-server"
    if not (server_bin.is_file() and os.access(server_bin, os.X_OK)):
        pytest.fail(f"{server_bin} not found: build it with `cargo build -p strata-s3-test-server`",
                    pytrace=False)
    proc = subprocess.Popen([str(server_bin), "--root", str(tmp_path / "s3"), "--exit-on-stdin-eof"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    conf = {}
    try:
        for line in proc.stdout:
            line = line.strip()
            if not line:
                break
            key, value = line.split("=", 1)
            conf[key] = value
        assert "AWS_ENDPOINT_URL" in conf, f"server printed no endpoint (exit {proc.poll()})"
        yield conf
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def no_aws_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}


@pytest.fixture
def serve(strata_bin, s3, tmp_path):
    """``strata serve`` over the bucket, vending STS keys; yields its URL."""
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{ADMIN} admin\n{READER} reader read db\n")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    opts = {
        "s3.endpoint": s3["AWS_ENDPOINT_URL"], "s3.access-key": s3["AWS_ACCESS_KEY_ID"],
        "s3.secret-key": s3["AWS_SECRET_ACCESS_KEY"], "s3.region": s3["AWS_REGION"],
        "s3.path-style-access": "true",
        "s3.sts.role-arn": "arn:aws:iam::000000000000:role/strata-serve",
    }
    cmd = [strata_bin, "serve", "--warehouse", s3["STRATA_S3_WAREHOUSE"],
           "--listen", f"127.0.0.1:{port}", "--token-file", str(tokens)]
    for k, v in opts.items():
        cmd += ["--catalog-option", f"{k}={v}"]
    log = open(tmp_path / "serve.log", "w+")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=no_aws_env())
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"strata serve exited: {(tmp_path / 'serve.log').read_text()}"
            try:
                urllib.request.urlopen(urllib.request.Request(
                    f"{url}/v1/config?warehouse=wh", headers={"Authorization": f"Bearer {ADMIN}"}),
                    timeout=5).read()
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                assert time.monotonic() < deadline, "strata serve did not answer"
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def strata(strata_bin, *args, env=None):
    out = subprocess.run([strata_bin, *args], env=env, capture_output=True, text=True)
    assert out.returncode == 0, f"strata {args} failed: {out.stderr}"
    return out.stdout


def token_of(url, bearer, table):
    req = urllib.request.Request(f"{url}/v1/wh/databases/db/tables/{table}/token",
                                 headers={"Authorization": f"Bearer {bearer}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def rest_catalog(url, bearer):
    return CatalogFactory.create({"metastore": "rest", "uri": url, "warehouse": "wh",
                                  "token.provider": "bear", "token": bearer,
                                  "data-token.enabled": "true"})


def test_pypaimon_reads_with_scoped_reader_keys_and_cannot_write(strata_bin, s3, serve, tmp_path):
    # The table is created in the bucket (an object store's database appears with its first
    # table); everything after goes through the server.
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({
        "fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}],
        "options": {"bucket": "-1"}}))
    env = no_aws_env()
    env.update({k: v for k, v in s3.items() if k.startswith("AWS_")})
    strata(strata_bin, "--warehouse", s3["STRATA_S3_WAREHOUSE"], "create-table", "db.t",
           "--schema", str(schema), env=env)

    # strata's CLI writes through the server with vended keys only.
    rest = ["--catalog-option",
            f"metastore=rest,uri={serve},warehouse=wh,token.provider=bear,data-token.enabled=true"]
    cli_env = no_aws_env()
    cli_env["STRATA_CATALOG_OPTIONS"] = f"token={ADMIN}"
    for i, rows in enumerate([[(1, "a"), (2, "b")], [(3, "c")]]):
        f = tmp_path / f"rows{i}.jsonl"
        f.write_text("".join(json.dumps({"id": k, "v": v}) + "\n" for k, v in rows))
        strata(strata_bin, *rest, "write", "db.t", str(f), env=cli_env)

    # The reader's token: STS keys for reading only.
    tok = token_of(serve, READER, "t")["token"]
    assert tok["s3.session-token"] and tok["s3.access-key"] != s3["AWS_ACCESS_KEY_ID"]

    # pypaimon reads with them...
    table = rest_catalog(serve, READER).get_table("db.t")
    rb = table.new_read_builder()
    data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert sorted(zip(data.column("id").to_pylist(), data.column("v").to_pylist())) == \
        [(1, "a"), (2, "b"), (3, "c")]

    # ...and its write is refused by the store (no PutObject in the session policy).
    wb = table.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    arrow_schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    with pytest.raises(Exception) as refused:
        try:
            w.write_arrow(pa.table({"id": [9], "v": ["x"]}, schema=arrow_schema))
            c.commit(w.prepare_commit())
        finally:
            try:
                w.close()
                c.close()
            except Exception:
                pass
    assert "ACCESS_DENIED" in str(refused.value), str(refused.value)
    assert "s3:PutObject" in str(refused.value), str(refused.value)

    # The admin's pypaimon writes with its read + write keys; strata reads it through the server.
    admin = rest_catalog(serve, ADMIN).get_table("db.t")
    wb = admin.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    try:
        w.write_arrow(pa.table({"id": [4], "v": ["d"]}, schema=arrow_schema))
        c.commit(w.prepare_commit())
    finally:
        w.close()
        c.close()
    out = strata(strata_bin, *rest, "read", "db.t", "--format", "jsonl", env=cli_env)
    rows = sorted((r["id"], r["v"]) for r in map(json.loads, out.splitlines()))
    assert rows == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
