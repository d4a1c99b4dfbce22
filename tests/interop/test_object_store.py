"""strata tables on S3-compatible object storage, read by pypaimon.

The suite's S3 server (``strata-s3-test-server``, built beside the ``strata`` binary: s3s over a
temporary directory on 127.0.0.1, SigV4-authenticated, atomic ``If-None-Match: *`` creates) is
started per test.  strata is configured only by the standard ``AWS_*`` variables the server prints;
pypaimon by Paimon's catalog options ``s3.endpoint``, ``s3.access-key``, ``s3.secret-key``,
``s3.region`` and ``s3.path-style-access`` (through pyarrow's S3 filesystem).  Both sides must agree
on every row.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory

pytestmark = pytest.mark.cli_object_store


@pytest.fixture
def s3(strata_bin, tmp_path):
    """A running server: the dict of the KEY=VALUE lines it printed."""
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
        conf["root"] = str(tmp_path / "s3")
        yield conf
    finally:
        proc.stdin.close()  # --exit-on-stdin-eof: the server stops
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_strata(strata_bin, s3, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update({k: v for k, v in s3.items() if k.startswith("AWS_")})
    out = subprocess.run([strata_bin, "--warehouse", s3["STRATA_S3_WAREHOUSE"], *args],
                         env=env, capture_output=True, text=True)
    assert out.returncode == 0, f"strata {args} failed: {out.stderr}"
    return out.stdout


def pypaimon_catalog(s3):
    return CatalogFactory.create({
        "warehouse": s3["STRATA_S3_WAREHOUSE"],
        "s3.endpoint": s3["AWS_ENDPOINT_URL"],
        "s3.access-key": s3["AWS_ACCESS_KEY_ID"],
        "s3.secret-key": s3["AWS_SECRET_ACCESS_KEY"],
        "s3.region": s3["AWS_REGION"],
        "s3.path-style-access": "true",
    })


def pypaimon_rows(s3, ident: str, snapshot: int | None = None):
    table = pypaimon_catalog(s3).get_table(ident)
    if snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    rb = table.new_read_builder()
    data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return sorted(zip(data.column("id").to_pylist(), data.column("v").to_pylist()))


def test_pypaimon_reads_a_strata_primary_key_table_from_s3(strata_bin, s3, tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({
        "fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}],
        "primaryKeys": ["id"], "options": {"bucket": "2", "write-only": "true"}}))
    run_strata(strata_bin, s3, "create-table", "db.t", "--schema", str(schema))
    commits = [[(1, "a"), (2, "a"), (3, "a")], [(2, "b"), (4, "b")], [(3, "c"), (5, "c")]]
    for i, rows in enumerate(commits):
        f = tmp_path / f"c{i}.jsonl"
        f.write_text("".join(json.dumps({"id": k, "v": v}) + "\n" for k, v in rows))
        run_strata(strata_bin, s3, "write", "db.t", str(f))
    run_strata(strata_bin, s3, "compact", "db.t", "--full")

    want = [(1, "a"), (2, "b"), (3, "c"), (4, "b"), (5, "c")]
    assert pypaimon_rows(s3, "db.t") == want
    assert pypaimon_rows(s3, "db.t", snapshot=1) == [(1, "a"), (2, "a"), (3, "a")]
    kinds = [json.loads(line)["commitKind"] for line in
             run_strata(strata_bin, s3, "snapshots", "db.t").splitlines()]
    assert kinds == ["APPEND", "APPEND", "APPEND", "COMPACT"]
    # The table is on the server's disk, in the bucket.
    assert (Path(s3["root"]) / "strata/wh/db.db/t/snapshot/snapshot-4").is_file()


def test_strata_reads_an_append_table_pypaimon_wrote_to_s3(strata_bin, s3, tmp_path):
    # strata creates the table: pypaimon's create_database writes a "db.db/" directory marker,
    # which the test server (a directory tree, not a key-value store) cannot list back.
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({
        "fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}],
        "options": {"bucket": "-1"}}))
    run_strata(strata_bin, s3, "create-table", "db.a", "--schema", str(schema))
    cat = pypaimon_catalog(s3)
    arrow_schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    for batch in ([(1, "x"), (2, "y")], [(3, "z")]):
        t = cat.get_table("db.a")
        wb = t.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        try:
            w.write_arrow(pa.table({"id": [r[0] for r in batch], "v": [r[1] for r in batch]},
                                   schema=arrow_schema))
            c.commit(w.prepare_commit())
        finally:
            w.close()
            c.close()
    out = run_strata(strata_bin, s3, "read", "db.a", "--format", "jsonl")
    rows = sorted((r["id"], r["v"]) for r in map(json.loads, out.splitlines()))
    assert rows == [(1, "x"), (2, "y"), (3, "z")]
    # strata appends on top of pypaimon's snapshots, and pypaimon reads the result.
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"id": 4, "v": "w"}) + "\n")
    run_strata(strata_bin, s3, "write", "db.a", str(more))
    assert pypaimon_rows(s3, "db.a") == [(1, "x"), (2, "y"), (3, "z"), (4, "w")]
    kinds = [json.loads(line)["commitKind"] for line in
             run_strata(strata_bin, s3, "snapshots", "db.a").splitlines()]
    assert kinds == ["APPEND", "APPEND", "APPEND"]
