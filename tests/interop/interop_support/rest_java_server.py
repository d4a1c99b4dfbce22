"""REST catalog servers for the interop suite (issue 32): Java Paimon 2.0's reference server and
``strata serve``, plus the option maps each client opens them with.

``JavaRestServer`` runs ``strata.oracle.Paimon2RestServerMain`` (tests/java-oracle: Java's
``RESTCatalogServer`` from paimon-core's test jar, a bearer token, a warehouse name) in its own
JVM, started once per test module; ``requests()`` returns every request it served (method, path,
query, status), so a test can check which calls strata's client made and that none failed.
``StrataRestServer`` runs ``strata serve`` on a free loopback port over a local warehouse.

Option maps: ``java_options(server)`` for Java's ``RESTCatalog`` (the oracle's
``catalogOptions``), ``pypaimon_options(server)`` for pypaimon's ``CatalogFactory``,
``cli_options(server)`` for strata's ``--catalog-option K=V`` flags -- all Paimon's key names.
"""
from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from .java_oracle import REPO_ROOT, JavaOracleError, oracle_dir

START_TIMEOUT_S = 120


class RestServer:
    """What the clients need of a REST catalog server: its URL, warehouse name and token."""

    url: str
    warehouse: str
    token: str

    def catalog_options(self) -> Dict[str, str]:
        """Paimon's REST catalog options (``RESTCatalogOptions``; pypaimon reads the same keys)."""
        return {"metastore": "rest", "uri": self.url.rstrip("/"), "warehouse": self.warehouse,
                "token.provider": "bear", "token": self.token}

    def cli_args(self) -> List[str]:
        """strata's global flags opening this catalog."""
        out: List[str] = []
        for k, v in self.catalog_options().items():
            out += ["--catalog-option", f"{k}={v}"]
        return out


class JavaRestServer(RestServer):
    """Java Paimon 2.0's ``RESTCatalogServer`` (see the module doc)."""

    def __init__(self, data_path: str, token: str = "strata-token", warehouse: str = "rest_wh",
                 data_token: bool = False, defaults: Optional[Dict[str, str]] = None):
        out = oracle_dir("2.0.0")
        cp_file = out / "rest-classpath.txt"
        if not (out / "classes" / "strata" / "oracle" / "Paimon2RestServerMain.class").is_file() \
                or not cp_file.is_file():
            raise JavaOracleError(
                f"Java's REST catalog server is not built ({out}): run "
                f"`bash tests/java-oracle/build.sh 2.0.0`")
        self.token, self.warehouse, self.data_path = token, warehouse, data_path
        classpath = f"{out / 'classes'}{os.pathsep}{cp_file.read_text().strip()}"
        self._stderr = tempfile.NamedTemporaryFile(prefix="java-rest-server-", suffix=".log", delete=False)
        cmd = ["java", "-Xmx1g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
               "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
               "-Dorg.slf4j.simpleLogger.logFile=System.err",
               "-cp", classpath, "strata.oracle.Paimon2RestServerMain",
               "--data-path", data_path, "--token", token, "--warehouse", warehouse,
               "--data-token", "true" if data_token else "false"]
        for k, v in (defaults or {}).items():
            cmd += ["--default", f"{k}={v}"]
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr, text=True, encoding="utf-8", bufsize=1)
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        hello = json.loads(self._next_line(START_TIMEOUT_S))
        if not hello.get("ready"):
            raise JavaOracleError(f"unexpected first line from Java's REST server: {hello!r}")
        # MockWebServer answers on "localhost"; the clients get the loopback address itself
        self.url = hello["url"].replace("//localhost:", "//127.0.0.1:").rstrip("/")
        self._id = 0

    def _pump(self) -> None:
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def stderr_tail(self, n: int = 3000) -> str:
        try:
            return Path(self._stderr.name).read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def _next_line(self, timeout: float) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise JavaOracleError(f"Java's REST server: no answer after {timeout}s; stderr:\n"
                                  f"{self.stderr_tail()}") from None
        if line is None:
            raise JavaOracleError(f"Java's REST server exited ({self._proc.poll()}); stderr:\n"
                                  f"{self.stderr_tail()}")
        return line

    def _call(self, cmd: str) -> Any:
        self._id += 1
        self._proc.stdin.write(json.dumps({"id": self._id, "cmd": cmd}) + "\n")
        self._proc.stdin.flush()
        resp = json.loads(self._next_line(60))
        if not resp.get("ok"):
            raise JavaOracleError(f"Java's REST server `{cmd}` failed: {resp.get('error')}")
        return resp.get("result")

    def requests(self) -> List[Dict[str, Any]]:
        """Every request served since the start or the last ``clear_requests``, in order:
        ``{method, path, query, status}`` (path without the query string, as sent: encoded)."""
        return self._call("requests")

    def clear_requests(self) -> None:
        self._call("clearRequests")

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._stderr.close()
        os.unlink(self._stderr.name)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StrataRestServer(RestServer):
    """``strata serve --warehouse DIR --listen 127.0.0.1:PORT --token-file F`` in the background,
    its output kept in a log file; ready once ``GET /v1/config`` answers."""

    def __init__(self, binary: str, warehouse_dir: str, token: str = "strata-token",
                 extra_args: Sequence[str] = (), token_file_lines: Optional[Sequence[str]] = None):
        self.token = token
        self.warehouse_dir = warehouse_dir
        # the server's warehouse name is the folder's base name (`GET /v1/config?warehouse=`)
        self.warehouse = os.path.basename(os.path.normpath(warehouse_dir))
        os.makedirs(warehouse_dir, exist_ok=True)
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self._tmp = tempfile.mkdtemp(prefix="strata-serve-")
        token_file = os.path.join(self._tmp, "tokens")
        with open(token_file, "w") as f:
            f.write("\n".join(token_file_lines or [f"{token} admin-principal"]) + "\n")
        self._log = open(os.path.join(self._tmp, "serve.log"), "w+")
        cmd = [binary, "serve", "--warehouse", warehouse_dir, "--listen", f"127.0.0.1:{port}",
               "--token-file", token_file, *extra_args]
        self._proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            if self._proc.poll() is not None:
                raise AssertionError(f"`strata serve` exited ({self._proc.returncode}):\n{self.log_tail()}")
            try:
                self.get(f"/v1/config?warehouse={self.warehouse}")
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    raise AssertionError(f"`strata serve` did not answer within 60 s:\n{self.log_tail()}")
                time.sleep(0.1)

    def get(self, path: str) -> Any:
        req = urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
            return json.loads(body) if body else None

    def log_tail(self, n: int = 4000) -> str:
        self._log.flush()
        self._log.seek(0)
        return self._log.read()[-n:]

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._log.close()


def rest_strata(binary: str, server: RestServer, scratch: Path):
    """A ``Strata`` CLI driver whose every command opens ``server``'s REST catalog (the
    ``--catalog-option`` flags instead of ``--warehouse``)."""
    from .strata_cli import Strata

    class RestStrata(Strata):
        def run(self, *args: str, check: bool = True, warehouse: bool = True, cwd=None,
                env: Optional[Dict[str, str]] = None):
            extra = server.cli_args() if warehouse else []
            return super().run(*extra, *args, check=check, warehouse=False, cwd=cwd, env=env)

    return RestStrata(binary, str(scratch / "unused-warehouse"), scratch)
