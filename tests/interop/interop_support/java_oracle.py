"""Java Paimon as a reference engine: a client for the oracle server in ``tests/java-oracle``.

``JavaOracle(version)`` starts ``java -cp ... strata.oracle.Main`` once (the classes and the
classpath file that ``scripts/test.sh`` builds under ``.cache/java-oracle/<version>/``) and talks
to it in JSON lines: one request per line on its stdin, one answer per line on its stdout, logs
on stderr (kept in a file whose tail is shown on failure).  A failed command raises
``JavaOracleError`` with Java's exception text and stack trace.

Versions (``VERSIONS``): 1.4.2 (``paimon-bundle``, the latest 1.x) and 2.0.0 (the bundle shaded in
``paimon-flink-2.0``).  Test modules get one JVM per version per module through the ``java``
fixture below (``from interop_support.java_oracle import java``): it is parametrized over the
versions, so pytest runs a module's tests for one version, then for the other.  ``OLDEST``
(1.0.1, ``paimon-bundle``: the oldest line still deployed) runs only where a module asks for it
with ``java_fixture(ALL_VERSIONS)`` (the data-file formats module and one append and one
primary-key round trip), to keep the suite's time.

Rows go to Java as JSON objects typed by the table's row type (``rows_json`` turns an Arrow table
into them: DECIMAL as a string, timestamps as ISO text, LTZ in UTC with ``Z``, binary as hex,
NaN/inf as strings, MAP as ``[key, value]`` pairs; a row's ``_ROW_KIND`` key holds ``+I``/``-U``/
``+U``/``-D``).  Reads come back as the canonical lines of ``canonical.py`` -- the Java side
encodes them byte for byte as ``canonical_lines`` does (checked by
``test_java_selfcheck.py``), so they compare directly with strata's and pypaimon's lines.
"""
from __future__ import annotations

import datetime as dt
import decimal
import itertools
import json
import math
import os
import queue
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pyarrow as pa
import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
VERSIONS = ("1.4.2", "2.0.0")
OLDEST = "1.0.1"
ALL_VERSIONS = (OLDEST,) + VERSIONS
ROW_KIND = "_ROW_KIND"
START_TIMEOUT_S = 120
CALL_TIMEOUT_S = 300
_STDERR_SHOWN = 3000


class JavaOracleError(AssertionError):
    """A command failed inside the JVM (or the JVM died); carries Java's message and trace."""


def oracle_dir(version: str) -> Path:
    return REPO_ROOT / ".cache" / "java-oracle" / version


class JavaOracle:
    """One JVM running the oracle against one Paimon version."""

    def __init__(self, version: str):
        if version not in ALL_VERSIONS:
            raise ValueError(f"unknown Java Paimon version {version!r} (have {ALL_VERSIONS})")
        self.version = version
        out = oracle_dir(version)
        classes, cp_file = out / "classes", out / "classpath.txt"
        if not (classes / "strata" / "oracle" / "Main.class").is_file() or not cp_file.is_file():
            raise JavaOracleError(
                f"the Java oracle for Paimon {version} is not built ({out}): run "
                f"`bash scripts/test.sh --interop-only` (it builds tests/java-oracle with Maven)")
        classpath = f"{classes}{os.pathsep}{cp_file.read_text().strip()}"
        self._stderr = tempfile.NamedTemporaryFile(prefix=f"java-oracle-{version}-", suffix=".log",
                                                   delete=False)
        cmd = ["java", "-Xmx2g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
               f"-Dstrata.paimon.version={version}",
               "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
               "-Dorg.slf4j.simpleLogger.logFile=System.err",
               "-cp", classpath, "strata.oracle.Main"]
        try:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._stderr, text=True, encoding="utf-8", bufsize=1)
        except FileNotFoundError as e:
            raise JavaOracleError("`java` not found: install a JDK 17") from e
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self._ids = itertools.count(1)
        ready = self._next_line(START_TIMEOUT_S, "start")
        hello = json.loads(ready)
        if not hello.get("ready") or hello.get("paimon") != version:
            raise JavaOracleError(f"unexpected first line from the Java oracle: {ready!r}")
        self.info = self.call("ping")

    # -- protocol --------------------------------------------------------------------------------
    def _pump(self) -> None:
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def stderr_tail(self) -> str:
        try:
            text = Path(self._stderr.name).read_text(errors="replace")
        except OSError:
            return ""
        return text[-_STDERR_SHOWN:]

    def _next_line(self, timeout: float, what: str) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise JavaOracleError(f"Java oracle {self.version}: no answer to {what} after {timeout}s; "
                                  f"stderr:\n{self.stderr_tail()}") from None
        if line is None:
            raise JavaOracleError(f"Java oracle {self.version} exited ({self._proc.poll()}) during "
                                  f"{what}; stderr:\n{self.stderr_tail()}")
        return line

    def call(self, cmd: str, **args: Any) -> Any:
        """Run one command; returns its ``result`` or raises ``JavaOracleError``."""
        rid = next(self._ids)
        req = {"id": rid, "cmd": cmd, **{k: v for k, v in args.items() if v is not None}}
        text = json.dumps(req, ensure_ascii=False, allow_nan=False)
        if self._proc.poll() is not None:
            raise JavaOracleError(f"Java oracle {self.version} is not running; stderr:\n{self.stderr_tail()}")
        self._proc.stdin.write(text + "\n")
        self._proc.stdin.flush()
        resp = json.loads(self._next_line(CALL_TIMEOUT_S, cmd))
        if resp.get("id") != rid:
            raise JavaOracleError(f"Java oracle answered request {resp.get('id')} to request {rid}")
        if not resp["ok"]:
            shown = text if len(text) < 2000 else text[:2000] + "..."
            raise JavaOracleError(f"Java Paimon {self.version} `{cmd}` failed: {resp['error']}\n"
                                  f"request: {shown}\n--- Java stack trace ---\n{resp.get('trace', '')}")
        return resp.get("result")

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

    # -- commands --------------------------------------------------------------------------------
    def create_table(self, wh: str, ident: str, schema: dict, ignore_if_exists: bool = False) -> None:
        """``schema``: strata's ``create-table --schema`` document (Paimon's schema shape)."""
        self.call("createTable", warehouse=_abs(wh), table=ident, schema=schema,
                  ignoreIfExists=ignore_if_exists)

    def alter_table(self, wh: str, ident: str, changes: List[dict]) -> None:
        """``changes``: ``{"op": "addColumn"|"renameColumn"|"dropColumn"|"updateColumnType"|
        "setOption"|"removeOption", "name"|"path", "type", "newName", "after", "key", "value"}``."""
        self.call("alterTable", warehouse=_abs(wh), table=ident, changes=changes)

    def write(self, wh: str, ident: str, rows: List[dict], overwrite: Any = None,
              options: Optional[Dict[str, str]] = None) -> int:
        """One ``BatchWriteBuilder`` commit of ``rows`` (``rows_json``); ``overwrite``: True (INSERT
        OVERWRITE) or a static partition dict.  Returns the latest snapshot id."""
        return self.call("write", warehouse=_abs(wh), table=ident, rows=rows,
                         overwrite=overwrite, options=options)["snapshotId"]

    def write_commits(self, wh: str, ident: str, commits: List[List[dict]],
                      options: Optional[Dict[str, str]] = None) -> List[int]:
        """Several commits by one ``StreamWriteBuilder`` writer; the snapshot id after each."""
        return self.call("write", warehouse=_abs(wh), table=ident, commits=commits,
                         options=options)["snapshotIds"]

    def read(self, wh: str, ident: str, columns: Optional[Sequence[str]] = None,
             snapshot: Optional[int] = None, tag: Optional[str] = None,
             options: Optional[Dict[str, str]] = None) -> List[str]:
        """The table's rows as sorted canonical lines (``canonical.canonical_lines``)."""
        res = self.call("read", warehouse=_abs(wh), table=ident,
                        columns=list(columns) if columns else None, snapshot=snapshot, tag=tag,
                        options=options)
        return sorted(res["rows"])

    def incremental_read(self, wh: str, ident: str, options: Dict[str, str]) -> List[str]:
        """An incremental read (``options``: ``incremental-between`` or
        ``incremental-between-timestamp``, ``incremental-between-scan-mode``, ...) as the table's
        ``$audit_log`` returns it: sorted canonical lines whose first key is ``rowkind``
        (``+I``/``-U``/``+U``/``-D``), deletes kept, every level scanned (Paimon 2.0's incremental
        scans; see ``Incremental.java``)."""
        res = self.call("incrementalRead", warehouse=_abs(wh), table=ident, options=options)
        return sorted(res["rows"])

    def files(self, wh: str, ident: str, snapshot: Optional[int] = None) -> List[dict]:
        """Every live data file (``strata files`` keys, plus ``totalBuckets``)."""
        return self.call("files", warehouse=_abs(wh), table=ident, snapshot=snapshot)

    def snapshots(self, wh: str, ident: str) -> List[dict]:
        return self.call("snapshots", warehouse=_abs(wh), table=ident)

    def schema(self, wh: str, ident: str) -> dict:
        return self.call("schema", warehouse=_abs(wh), table=ident)

    def compact(self, wh: str, ident: str, partition: Optional[dict] = None, bucket: Optional[int] = None,
                full: bool = True, options: Optional[Dict[str, str]] = None) -> int:
        """``BatchTableWrite.compact(partition, bucket, full)`` on every matching live bucket,
        one commit; returns the latest snapshot id."""
        return self.call("compact", warehouse=_abs(wh), table=ident, partition=partition,
                         bucket=bucket, full=full, options=options)["snapshotId"]

    def expire_snapshots(self, wh: str, ident: str, options: Optional[Dict[str, str]] = None) -> int:
        """Expire with the table's ``snapshot.*`` options overridden by ``options``; the count."""
        return self.call("expireSnapshots", warehouse=_abs(wh), table=ident, options=options)["expired"]

    def create_tag(self, wh: str, ident: str, name: str, snapshot: Optional[int] = None,
                   time_retained_ms: Optional[int] = None) -> None:
        self.call("createTag", warehouse=_abs(wh), table=ident, name=name, snapshot=snapshot,
                  timeRetainedMillis=time_retained_ms)

    def delete_tag(self, wh: str, ident: str, name: str) -> None:
        self.call("deleteTag", warehouse=_abs(wh), table=ident, name=name)

    def rollback_to(self, wh: str, ident: str, snapshot: Optional[int] = None, tag: Optional[str] = None) -> None:
        if (snapshot is None) == (tag is None):
            raise ValueError("rollback_to needs exactly one of snapshot / tag")
        self.call("rollbackTo", warehouse=_abs(wh), table=ident, snapshot=snapshot, tag=tag)

    def tags(self, wh: str, ident: str) -> List[dict]:
        return self.call("tags", warehouse=_abs(wh), table=ident)


def _abs(wh: str) -> str:
    return os.path.abspath(wh)


# ---- rows for the oracle ------------------------------------------------------------------------

def _json_value(v: Any, t: pa.DataType) -> Any:
    if v is None:
        return None
    if pa.types.is_map(t):
        return [[_json_value(k, t.key_type), _json_value(x, t.item_type)] for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_json_value(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: _json_value(v.get(t.field(i).name), t.field(i).type)
                for i in range(t.num_fields)}
    if pa.types.is_decimal(t):
        return str(v)
    if pa.types.is_timestamp(t):
        return _timestamp_text(v, t)
    if pa.types.is_date(t):
        return v.isoformat()
    if pa.types.is_time(t):
        return v.isoformat()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return bytes(v).hex()
    if pa.types.is_floating(t):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return float(v)
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v


def _timestamp_text(v: Any, t: pa.TimestampType) -> str:
    z = "Z" if t.tz else ""
    if t.unit == "ns":
        ns = v.value            # pandas Timestamp: nanoseconds since the epoch (UTC when tz-aware)
        secs, frac = divmod(ns, 10 ** 9)
        base = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=secs)
        return base.strftime("%Y-%m-%dT%H:%M:%S") + ".%09d" % frac + z
    if v.tzinfo is not None:
        v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return v.isoformat(timespec="microseconds") + z


def rows_json(data: pa.Table, row_kinds: Optional[Sequence[str]] = None,
              row_kind_column: Optional[str] = None) -> List[dict]:
    """An Arrow table as the oracle's JSON rows.  ``row_kinds``: one row kind per row;
    ``row_kind_column``: take each row's kind from that column (which is kept as data too)."""
    types = [data.schema.field(i).type for i in range(data.num_columns)]
    cols = [data.column(i).to_pylist() for i in range(data.num_columns)]
    names = data.column_names
    out = []
    for r in range(data.num_rows):
        row = {n: _json_value(cols[i][r], types[i]) for i, n in enumerate(names)}
        if row_kinds is not None:
            row[ROW_KIND] = row_kinds[r]
        elif row_kind_column is not None:
            row[ROW_KIND] = row[row_kind_column]
        out.append(row)
    return out


# ---- pytest fixture -----------------------------------------------------------------------------

def java_fixture(versions: Sequence[str] = VERSIONS):
    """A module-scoped ``java`` fixture over ``versions``: a running Java oracle, one JVM per
    Paimon version per test module.  A module runs the oldest line too with
    ``java = java_fixture(ALL_VERSIONS)``."""

    @pytest.fixture(scope="module", params=tuple(versions))
    def java(request) -> JavaOracle:
        try:
            oracle = JavaOracle(request.param)
        except JavaOracleError as e:
            pytest.fail(str(e), pytrace=False)
        yield oracle
        oracle.close()

    return java


java = java_fixture(VERSIONS)
