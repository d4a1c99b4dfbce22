"""Flink 2.0 (pyflink 2.0.2, local mini-cluster) with Paimon's Flink jar as a reference engine.

pyflink's dependencies (apache-beam, an older pyarrow and numpy) conflict with the suite's pins, so
Flink runs in its own venv (``.flink-venv``, from ``tests/interop/requirements-flink.txt``; built by
``scripts/test.sh``) as a JSON-lines server (``flink_server.py``), one per test module (the ``flink``
fixture): its JVM and mini-cluster start once (~30 s).  The Paimon jar is ``paimon-flink-2.0``
2.0.0 with the Hadoop client jars (``tests/engines/fetch-jars.sh``).
"""
from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
FLINK_VENV = Path(os.environ.get("FLINK_VENV", REPO_ROOT / ".flink-venv"))
PYFLINK_VERSION = "2.0.2"
PAIMON_FLINK_VERSION = "2.0.0"
JARS = [REPO_ROOT / ".cache" / "jars" / name for name in (
    f"paimon-flink-2.0-{PAIMON_FLINK_VERSION}.jar", "hadoop-client-api-3.3.6.jar",
    "hadoop-client-runtime-3.3.6.jar")]
START_TIMEOUT_S = 240
CALL_TIMEOUT_S = 300


class FlinkError(AssertionError):
    pass


class Flink:
    def __init__(self) -> None:
        python = FLINK_VENV / "bin" / "python"
        if not python.is_file():
            raise FlinkError(f"no Flink venv at {FLINK_VENV}: scripts/test.sh creates it from "
                             f"tests/interop/requirements-flink.txt")
        missing = [str(j) for j in JARS if not j.is_file()]
        if missing:
            raise FlinkError(f"missing jars {missing}: run `bash tests/engines/fetch-jars.sh`")
        env = dict(os.environ, STRATA_FLINK_JARS=os.pathsep.join(str(j) for j in JARS))
        self._stderr = tempfile.NamedTemporaryFile(prefix="flink-server-", suffix=".log", delete=False)
        server = Path(__file__).with_name("flink_server.py")
        self._proc = subprocess.Popen([str(python), str(server)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr, text=True, encoding="utf-8", bufsize=1, env=env)
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self._ids = itertools.count(1)
        self._catalogs: Dict[str, str] = {}
        hello = json.loads(self._next_line(START_TIMEOUT_S, "start"))
        if not hello.get("ready") or hello.get("pyflink") != PYFLINK_VERSION:
            raise FlinkError(f"unexpected first line from the Flink server: {hello!r}")
        self.version = hello["pyflink"]

    def _pump(self) -> None:
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def stderr_tail(self) -> str:
        try:
            return Path(self._stderr.name).read_text(errors="replace")[-6000:]
        except OSError:
            return ""

    def _next_line(self, timeout: float, what: str) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise FlinkError(f"Flink server: no answer to {what} after {timeout}s; stderr:\n"
                             f"{self.stderr_tail()}") from None
        if line is None:
            raise FlinkError(f"Flink server exited ({self._proc.poll()}) during {what}; stderr:\n"
                             f"{self.stderr_tail()}")
        return line

    def call(self, cmd: str, **args: Any) -> Any:
        rid = next(self._ids)
        self._proc.stdin.write(json.dumps({"id": rid, "cmd": cmd, **args}) + "\n")
        self._proc.stdin.flush()
        resp = json.loads(self._next_line(CALL_TIMEOUT_S, cmd))
        if resp.get("id") != rid:
            raise FlinkError(f"Flink server answered request {resp.get('id')} to request {rid}")
        if not resp["ok"]:
            raise FlinkError(f"Flink `{cmd}` {args} failed: {resp['error']}\n{resp.get('trace', '')}")
        return resp["result"]

    # -- conveniences ---------------------------------------------------------------------------
    def catalog(self, wh: str) -> str:
        wh = os.path.abspath(wh)
        name = self._catalogs.get(wh)
        if name is None:
            name = self.call("catalog", name=f"wh{len(self._catalogs)}", warehouse=wh)
            self._catalogs[wh] = name
        return name

    def table(self, wh: str, ident: str, system: Optional[str] = None) -> str:
        db, t = ident.split(".", 1)
        name = f"{t}${system}" if system else t
        return f"`{self.catalog(wh)}`.`{db}`.`{name}`"

    def sql(self, *statements: str, mode: str = "batch") -> Optional[List[dict]]:
        return self.call("sql", statements=list(statements), mode=mode)

    def rows(self, query: str) -> List[list]:
        """A batch query's rows (all must be inserts)."""
        out = self.sql(query) or []
        kinds = {r["kind"] for r in out}
        assert kinds <= {"+I"}, f"batch query {query!r} returned row kinds {kinds}"
        return [r["values"] for r in out]

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()


@pytest.fixture(scope="module")
def flink():
    try:
        f = Flink()
    except FlinkError as e:
        pytest.fail(str(e), pytrace=False)
    yield f
    f.close()
