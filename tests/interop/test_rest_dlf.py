"""strata's REST client with ``token.provider = dlf`` (Alibaba DLF request signing, issue 32)
against Java Paimon 2.0: the signatures themselves, and a real catalog session.

* ``crates/strata/src/catalog/rest/dlf/java-vectors.json`` holds generated requests (methods,
  encoded paths, query values and JSON bodies with spaces, ``$``, ``%``, non-ASCII text; both
  signers; with and without a security token) and the headers Java 2.0's ``DLFDefaultSigner`` /
  ``DLFOpenApiSigner`` signed them with (``Paimon2Dlf.signMany``). strata's unit test
  ``every_java_vector_signs_byte_equal`` requires its headers byte-equal to the file; here Java
  must still produce the file's headers exactly (``STRATA_BLESS=1`` writes a fresh file).
* Java's ``RESTCatalogServer`` with a DLF verifier (``Paimon2Dlf`` main, as Java's
  ``MockRESTCatalogTest.TestDLFAuthProvider``, plus every signed header recomputed and compared
  byte for byte) serves strata's CLI and Java's ``RESTCatalog``, both signing with DLF keys:
  strata creates, writes and reads tables through it, Java reads strata's rows and writes rows
  strata reads; every request of both is accepted, with the key and signer configured; a wrong
  secret is refused (401) and strata says so. The key also comes from a token file and from an
  ECS metadata service (a small HTTP server here, answering as Alibaba's: the role name, then
  the role's STS token), for strata and for Java's ``DLFECSTokenLoader`` alike.
"""
from __future__ import annotations

import http.server
import json
import os
import random
import queue
import string
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Dict, List, Sequence

import pytest

from interop_support.java_oracle import JavaOracle, JavaOracleError, REPO_ROOT, oracle_dir
from interop_support.rest_java_server import START_TIMEOUT_S, JavaRestServer, rest_strata

pytestmark = pytest.mark.java

VECTORS = REPO_ROOT / "crates" / "strata" / "src" / "catalog" / "rest" / "dlf" / "java-vectors.json"
KEYS = {"AKID-strata": "secret/strata+1", "AKID-java": "secret-java", "AKID-file": "file-secret",
        "AKID-ecs": "ecs-secret"}
APPEND_SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT"}, {"id": 1, "name": "name", "type": "STRING"}],
    "partitionKeys": [], "primaryKeys": [], "options": {"bucket": "-1"},
}


class DlfJavaServer(JavaRestServer):
    """``strata.oracle.Paimon2Dlf``: Java's ``RESTCatalogServer`` verifying DLF signatures of the
    access keys ``KEYS``; ``requests()`` answers ``[{method, path, keyId, algorithm,
    securityToken, ok, mismatch}]``."""

    def __init__(self, data_path: str, warehouse: str = "dlf_wh"):  # noqa: D107 (harness reuse)
        out = oracle_dir("2.0.0")
        cp_file = out / "rest-classpath.txt"
        if not (out / "classes" / "strata" / "oracle" / "Paimon2Dlf.class").is_file() or not cp_file.is_file():
            raise JavaOracleError(f"the Java oracle is not built ({out}): run "
                                  f"`bash tests/java-oracle/build.sh 2.0.0`")
        self.token, self.warehouse, self.data_path = "", warehouse, data_path
        classpath = f"{out / 'classes'}{os.pathsep}{cp_file.read_text().strip()}"
        self._stderr = tempfile.NamedTemporaryFile(prefix="java-dlf-server-", suffix=".log", delete=False)
        cmd = ["java", "-Xmx1g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
               "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
               "-Dorg.slf4j.simpleLogger.logFile=System.err",
               "-cp", classpath, "strata.oracle.Paimon2Dlf",
               "--data-path", data_path, "--warehouse", warehouse, "--region", "cn-hangzhou"]
        for k, v in KEYS.items():
            cmd += ["--key", f"{k}={v}"]
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr, text=True, encoding="utf-8", bufsize=1)
        self._lines: "queue.Queue" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        hello = json.loads(self._next_line(START_TIMEOUT_S))
        assert hello.get("ready"), hello
        self.url = hello["url"].replace("//localhost:", "//127.0.0.1:").rstrip("/")
        self._id = 0

    def dlf_options(self, key_id: str, **extra: str) -> Dict[str, str]:
        """Paimon's catalog options signing with ``key_id`` (its secret from ``KEYS``)."""
        opts = {"metastore": "rest", "uri": self.url, "warehouse": self.warehouse,
                "token.provider": "dlf", "dlf.region": "cn-hangzhou",
                "dlf.access-key-id": key_id, "dlf.access-key-secret": KEYS[key_id]}
        opts.update(extra)
        return opts


class _Options:
    """What ``rest_strata`` needs of a server: the CLI flags of an option map."""

    def __init__(self, options: Dict[str, str]):
        self.options = options

    def cli_args(self) -> List[str]:
        out: List[str] = []
        for k, v in self.options.items():
            out += ["--catalog-option", f"{k}={v}"]
        return out


def cli(strata_bin: str, options: Dict[str, str], scratch: Path):
    """strata's CLI opening the catalog of ``options`` for every command."""
    return rest_strata(strata_bin, _Options(options), scratch)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = DlfJavaServer(str(tmp_path_factory.mktemp("java-dlf") / "data"))
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def java():
    try:
        oracle = JavaOracle("2.0.0")
    except JavaOracleError as e:
        pytest.fail(str(e), pytrace=False)
    yield oracle
    oracle.close()


def jsonl(path: Path, rows: Sequence[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def lines(rows: Sequence[dict]) -> List[str]:
    return sorted(json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in rows)


# -- generated vectors --------------------------------------------------------------------------
def _java_encode(s: str) -> str:
    """Java's ``URLEncoder.encode(s, UTF-8)`` (strata's and Java's path segments)."""
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if c.isascii() and (c.isalnum() or c in ".-*_"):
            out.append(c)
        elif c == " ":
            out.append("+")
        else:
            out.append(f"%{b:02X}")
    return "".join(out)


def _text(rng: random.Random, n: int) -> str:
    alphabet = string.ascii_letters + string.digits + " $%&=+/?*._-~'\"\\:" + "中文ñé€😀"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, n)))


def generate_vectors(count: int = 240, seed: int = 32) -> List[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        algorithm = "default" if i % 3 else "openapi"
        method = rng.choice(["GET", "GET", "POST", "DELETE"])
        segments = ["v1", rng.choice(["paimon", "dlf_prefix", "p x"]), "databases", _text(rng, 12)]
        if rng.random() < 0.6:
            segments += ["tables", _text(rng, 12) + rng.choice(["", "$branch_b", "$snapshots"])]
        path = "/" + "/".join(_java_encode(s) for s in segments)
        keys = rng.sample(["maxResults", "pageToken", "tableNamePattern", "warehouse", "k1", "empty"],
                          rng.randint(0, 3))
        query = [[k, "" if k == "empty" else _text(rng, 10)] for k in keys] if method == "GET" else []
        if method == "POST":
            body = json.dumps({"name": _text(rng, 10), "options": {_text(rng, 5): _text(rng, 20)}},
                              ensure_ascii=False, separators=(",", ":"))
        else:
            body = rng.choice([None, ""])
        out.append({
            "algorithm": algorithm,
            "region": rng.choice(["cn-hangzhou", "cn-beijing", "ap-southeast-1", "us-west-1"]),
            "method": method, "path": path, "query": query, "body": body,
            "time": rng.randint(946684800, 4102444799),
            "accessKeyId": "LTAI" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(16)),
            "accessKeySecret": "".join(rng.choice(string.ascii_letters + string.digits + "+/=") for _ in range(30)),
            "securityToken": rng.choice([None, "CAIS" + _text(rng, 40).replace(" ", "x")]),
            "host": rng.choice(["dlfnext.cn-hangzhou.aliyuncs.com", "127.0.0.1:8080", "cn-beijing-vpc.dlf.aliyuncs.com"]),
            "nonce": f"{rng.getrandbits(128):032x}{rng.randint(10**12, 10**13)}{rng.randint(1, 99)}",
        })
    return out


def test_java_signs_the_golden_vectors_byte_equal(java):
    """Java 2.0's signers give exactly the headers of ``java-vectors.json`` (which strata's unit
    test matches byte for byte), on every generated request."""
    if os.environ.get("STRATA_BLESS") == "1":
        vectors = generate_vectors()
        signed = java.call("Paimon2Dlf.signMany", vectors=vectors)
        for v, h in zip(vectors, signed):
            v["headers"] = h
        VECTORS.write_text("[\n" + ",\n".join(json.dumps(v, ensure_ascii=False, sort_keys=True)
                                              for v in vectors) + "\n]\n", encoding="utf-8")
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))
    assert len(vectors) >= 200
    assert {v["algorithm"] for v in vectors} == {"default", "openapi"}
    assert {v["method"] for v in vectors} == {"GET", "POST", "DELETE"}
    inputs = [{k: v for k, v in vec.items() if k != "headers"} for vec in vectors]
    signed = java.call("Paimon2Dlf.signMany", vectors=inputs)
    for i, (vec, h) in enumerate(zip(vectors, signed)):
        assert h == vec["headers"], f"vector {i}: {vec['method']} {vec['path']}"


# -- a session through Java's server ------------------------------------------------------------
def served(server: DlfJavaServer) -> List[dict]:
    reqs = server.requests()
    bad = [r for r in reqs if not r["ok"]]
    assert not bad, f"requests refused by Java's DLF verifier: {bad[:5]}"
    return reqs


@pytest.mark.parametrize("algorithm", ["default", "openapi"])
def test_strata_and_java_share_a_dlf_signed_catalog(strata_bin, server, java, tmp_path, algorithm):
    """strata creates, writes, reads and drops through Java's server with DLF keys and a
    security token; Java's RESTCatalog (its own DLF keys, same signer) reads strata's rows and
    writes rows strata reads. Java's verifier accepted every request of both, each signed with
    the configured key and signer."""
    db = f"dlf_{algorithm}"
    sopts = server.dlf_options("AKID-strata", **{"dlf.signing-algorithm": algorithm,
                                                  "dlf.security-token": "sts-strata"})
    jopts = server.dlf_options("AKID-java", **{"dlf.signing-algorithm": algorithm})
    s = cli(strata_bin, sopts, tmp_path / "scratch")
    server.clear_requests()
    s.create_table(f"{db}.events", APPEND_SCHEMA)
    mine = [{"id": i, "name": f"strata {i} ü$"} for i in range(4)]
    s.write(f"{db}.events", [jsonl(tmp_path / "s.jsonl", mine)])
    assert s.read_lines(f"{db}.events") == lines(mine)
    strata_reqs = served(server)
    assert {r["keyId"] for r in strata_reqs} == {"AKID-strata"}
    assert {r["securityToken"] for r in strata_reqs} == {"sts-strata"}
    assert {r["algorithm"] for r in strata_reqs} == {algorithm}
    assert {r["method"] for r in strata_reqs} >= {"GET", "POST"}
    assert any(r["path"].endswith("/commit") for r in strata_reqs), strata_reqs

    server.clear_requests()
    assert sorted(java.call("read", catalogOptions=jopts, table=f"{db}.events")["rows"]) == lines(mine)
    theirs = [{"id": 100 + i, "name": f"java {i}"} for i in range(3)]
    java.call("write", catalogOptions=jopts, table=f"{db}.events", rows=theirs)
    java_reqs = served(server)
    assert {r["keyId"] for r in java_reqs} == {"AKID-java"}
    assert {r["securityToken"] for r in java_reqs} == {None}
    assert {r["algorithm"] for r in java_reqs} == {algorithm}

    server.clear_requests()
    assert s.read_lines(f"{db}.events") == lines(mine + theirs)
    s.run("drop-table", f"{db}.events")
    reqs = served(server)
    assert any(r["method"] == "DELETE" for r in reqs), reqs
    assert {r["keyId"] for r in reqs} == {"AKID-strata"}


def test_a_token_file_and_a_wrong_secret(strata_bin, server, tmp_path):
    """``dlf.token-path``: the key, secret and STS token come from the JSON file Java's
    ``DLFLocalFileTokenLoader`` reads; a wrong secret is refused by Java's verifier (401) and
    strata reports it as not authorized, nothing created."""
    token = tmp_path / "dlf-token.json"
    token.write_text(json.dumps({"AccessKeyId": "AKID-file", "AccessKeySecret": KEYS["AKID-file"],
                                 "SecurityToken": "sts-from-file", "Expiration": "2099-01-01T00:00:00Z"}))
    opts = {"metastore": "rest", "uri": server.url, "warehouse": server.warehouse,
            "token.provider": "dlf", "dlf.region": "cn-hangzhou", "dlf.token-path": str(token)}
    s = cli(strata_bin, opts, tmp_path / "s1")
    server.clear_requests()
    s.create_table("dlf_file.t", APPEND_SCHEMA)
    rows = [{"id": 1, "name": "from file"}]
    s.write("dlf_file.t", [jsonl(tmp_path / "r.jsonl", rows)])
    assert s.read_lines("dlf_file.t") == lines(rows)
    reqs = served(server)
    assert {r["keyId"] for r in reqs} == {"AKID-file"}
    assert {r["securityToken"] for r in reqs} == {"sts-from-file"}
    # No dlf.region and none in a loopback uri (Java's parseRegionFromUri fails too): refused
    # by name before anything is sent.
    no_region = {k: v for k, v in opts.items() if k != "dlf.region"}
    p = cli(strata_bin, no_region, tmp_path / "s3").run("list", check=False)
    assert p.returncode != 0 and "dlf.region" in p.stderr, p.stderr

    wrong = server.dlf_options("AKID-strata")
    wrong["dlf.access-key-secret"] = "not-the-secret"
    server.clear_requests()
    p = cli(strata_bin, wrong, tmp_path / "s2").run("list", check=False)
    assert p.returncode != 0
    assert "not authorized" in (p.stderr + p.stdout).lower(), p.stderr
    reqs = server.requests()
    assert reqs and not any(r["ok"] for r in reqs), reqs


class EcsMetadata:
    """The ECS metadata service's instance-role credentials: ``GET {base}`` answers the role
    name, ``GET {base}{role}`` its STS token (Java's ``MockECSMetadataService``); counts calls."""

    BASE = "/latest/meta-data/Ram/security-credentials/"

    def __init__(self, role: str, token: dict):
        self.role, self.token, self.calls = role, token, []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                outer.calls.append(self.path)
                if self.path == outer.BASE:
                    body = outer.role.encode()
                elif self.path == outer.BASE + outer.role:
                    body = json.dumps(outer.token).encode()
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{self.BASE}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_an_ecs_instance_role(strata_bin, server, java, tmp_path):
    """``dlf.token-loader = ecs``: strata asks the metadata service for the role once, then for
    its STS token, and signs with it (key id and security token from the service); Java's
    ``DLFECSTokenLoader`` on the same service signs the same way, and both read the rows."""
    ecs = EcsMetadata("EcsTestRole", {"AccessKeyId": "AKID-ecs", "AccessKeySecret": KEYS["AKID-ecs"],
                                      "SecurityToken": "sts-ecs", "Expiration": "2099-01-01T00:00:00Z",
                                      "Code": "Success", "LastUpdated": "2026-12-08T00:00:00Z"})
    try:
        opts = {"metastore": "rest", "uri": server.url, "warehouse": server.warehouse,
                "token.provider": "dlf", "dlf.region": "cn-hangzhou", "dlf.token-loader": "ecs",
                "dlf.token-ecs-metadata-url": ecs.url}
        s = cli(strata_bin, opts, tmp_path / "s")
        server.clear_requests()
        s.create_table("dlf_ecs.t", APPEND_SCHEMA)
        rows = [{"id": 7, "name": "ecs"}]
        s.write("dlf_ecs.t", [jsonl(tmp_path / "r.jsonl", rows)])
        reqs = served(server)
        assert {r["keyId"] for r in reqs} == {"AKID-ecs"}
        assert {r["securityToken"] for r in reqs} == {"sts-ecs"}
        # each CLI process asks the role once, then the token once
        assert ecs.calls.count(ecs.BASE) == 2 and ecs.calls.count(ecs.BASE + "EcsTestRole") == 2, ecs.calls
        server.clear_requests()
        assert sorted(java.call("read", catalogOptions=opts, table="dlf_ecs.t")["rows"]) == lines(rows)
        assert {r["keyId"] for r in served(server)} == {"AKID-ecs"}
    finally:
        ecs.close()
