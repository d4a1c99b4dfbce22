"""`s3://` warehouses from Python: strata's own S3 server (``strata-s3-test-server``, s3s over a
local directory, built with the workspace's binaries) with Paimon's ``s3.*`` catalog options;
written and read by strata, read by pypaimon in the same process, and a table pickled and
re-opened with its S3 options."""

from __future__ import annotations

import os
import pickle
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

import strata

ROOT = Path(__file__).resolve().parents[3]


def server_binary() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    return target / "debug" / "strata-s3-test-server"


@pytest.fixture
def s3(tmp_path):
    """A running server: the dict of the KEY=VALUE lines it printed."""
    binary = server_binary()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        pytest.fail(f"{binary} not found: build it with `cargo build -p strata-s3-test-server`",
                    pytrace=False)
    proc = subprocess.Popen([str(binary), "--root", str(tmp_path / "s3"), "--exit-on-stdin-eof"],
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


def options(s3):
    return {
        "s3.endpoint": s3["AWS_ENDPOINT_URL"],
        "s3.access-key": s3["AWS_ACCESS_KEY_ID"],
        "s3.secret-key": s3["AWS_SECRET_ACCESS_KEY"],
        "s3.region": s3["AWS_REGION"],
        "s3.path-style-access": "true",
    }


def test_s3_warehouse_round_trip(s3, monkeypatch):
    # Only the catalog options may point strata at the server.
    for k in list(os.environ):
        if k.startswith("AWS_"):
            monkeypatch.delenv(k)
    warehouse = s3["STRATA_S3_WAREHOUSE"]
    assert warehouse.startswith("s3://")
    catalog = strata.Catalog(warehouse, options(s3))
    catalog.create_database("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["id"], options={"bucket": "2"})
    t.write(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}, schema=schema))
    t.write(pa.table({"id": [2], "v": ["B"]}, schema=schema))
    expected = [(1, "a"), (2, "B"), (3, "c")]

    def rows(table):
        return sorted(zip(table.column("id").to_pylist(), table.column("v").to_pylist()))

    assert rows(t.read()) == expected
    assert catalog.list_tables("db") == ["t"]
    # The files are in the server's bucket directory, not on a local path named s3:.
    assert any(p.name.startswith("snapshot-") for p in Path(s3["root"]).rglob("*"))
    # pypaimon, in this process, reads what strata wrote.
    from pypaimon import CatalogFactory

    pt = CatalogFactory.create({"warehouse": warehouse, **options(s3)}).get_table("db.t")
    rb = pt.new_read_builder()
    assert rows(rb.new_read().to_arrow(rb.new_scan().plan().splits())) == expected
    # A pickled table re-opens with its S3 options (what Ray workers do).
    assert rows(pickle.loads(pickle.dumps(t)).read()) == expected
    # A wrong secret is a storage error naming the problem, not a crash.
    bad = strata.Catalog(warehouse, {**options(s3), "s3.secret-key": "wrong"})
    with pytest.raises(strata.StrataError):
        bad.get_table("db.t").read()


def test_s3_options_in_pypaimon_and_java_spellings(s3, monkeypatch, tmp_path):
    """The S3 settings under the prefixes Java's S3FileIO (``s3a.``, ``fs.s3a.``) and
    pypaimon (``fs.s3.``, ``fs.s3.accessKeyId``...) accept reach strata's S3 client: before,
    every key outside ``s3.*`` was dropped, and the catalog had no credentials."""
    for k in list(os.environ):
        if k.startswith("AWS_"):
            monkeypatch.delenv(k)
    warehouse = s3["STRATA_S3_WAREHOUSE"]
    strata.Catalog(warehouse, options(s3)).create_database("db")
    pypaimon_style = {
        "fs.s3.endpoint": s3["AWS_ENDPOINT_URL"],
        "fs.s3.accessKeyId": s3["AWS_ACCESS_KEY_ID"],
        "fs.s3.accessKeySecret": s3["AWS_SECRET_ACCESS_KEY"],
        "fs.s3.region": s3["AWS_REGION"],
        "s3a.path.style.access": "true",
    }
    hadoop_style = {
        "fs.s3a.endpoint": s3["AWS_ENDPOINT_URL"],
        "fs.s3a.access.key": s3["AWS_ACCESS_KEY_ID"],
        "fs.s3a.secret.key": s3["AWS_SECRET_ACCESS_KEY"],
        "fs.s3a.endpoint.region": s3["AWS_REGION"],
        "fs.s3a.path.style.access": "true",
    }
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False)])
    for i, opts in enumerate((pypaimon_style, hadoop_style)):
        c = strata.Catalog(warehouse, opts)
        t = c.create_table(f"db.t{i}", schema)
        t.write(pa.table({"id": [i]}, schema=schema))
        assert t.read().column("id").to_pylist() == [i]
    # pypaimon, given its own spelling, reads what strata wrote with it.
    from pypaimon import CatalogFactory

    pt = CatalogFactory.create({"warehouse": warehouse, **pypaimon_style}).get_table("db.t0")
    rb = pt.new_read_builder()
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist() == [0]
    # Two spellings of one setting that disagree, and an S3 setting strata does not know.
    with pytest.raises(strata.InvalidInputError, match="fs.s3.accessKeyId"):
        strata.Catalog(warehouse, {**options(s3), "fs.s3.accessKeyId": "other"})
    with pytest.raises(strata.UnsupportedError, match="fs.s3a.connection.maximum"):
        strata.Catalog(warehouse, {**options(s3), "fs.s3a.connection.maximum": "10"})
