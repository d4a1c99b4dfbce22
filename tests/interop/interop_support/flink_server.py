"""A Flink SQL server for the interop suite: runs under the Flink venv's Python (pyflink), not the
suite's, and answers one JSON request per line on stdin with one JSON line on stdout.

Requests (``{"id": N, "cmd": ..., ...}``):

* ``sql``: ``{"statements": [...], "mode": "batch"|"streaming"}`` runs the statements in order in
  the batch (or streaming) ``TableEnvironment``; the result is the rows of the last statement that
  returns rows, each ``{"kind": "+I"|"-U"|"+U"|"-D", "values": [...]}``.  DML waits for its job.
* ``catalog``: ``{"name": ..., "warehouse": ...}`` creates a Paimon catalog in both environments.
* ``configure``: ``{"options": {...}, "mode": "batch"|"streaming"}`` sets configuration options of
  that environment for the jobs it starts from then on (``SET`` is the SQL client's, not
  ``execute_sql``'s), e.g. ``execution.checkpointing.interval``: a streaming source with a
  ``consumer-id`` records its progress only when a checkpoint completes.
* ``stream_start``: ``{"query": ...}`` starts a streaming query whose rows a thread collects; the
  result is a stream id.  ``stream_poll``: ``{"stream": id, "rows": n, "timeout": s}`` waits until
  the stream has at least ``n`` rows (or the timeout) and returns all rows collected so far.
  ``stream_stop``: cancels the job.

Values: numbers and strings as JSON, DECIMAL as a string, DATE/TIMESTAMP in ISO form, NULL as
null.  Errors come back as ``{"ok": false, "error": ..., "trace": ...}``; the server keeps running.
"""
from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import sys
import threading
import time
import traceback

JARS = os.environ["STRATA_FLINK_JARS"].split(os.pathsep)

# How often a statement is retried when it lands on a py4j thread without the planner's
# metadata provider (see `_Planning`).
PLANNING_ATTEMPTS = 8

KINDS = {"INSERT": "+I", "UPDATE_BEFORE": "-U", "UPDATE_AFTER": "+U", "DELETE": "-D"}


def _value(v):
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):
        return "0x" + bytes(v).hex()
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _value(x) for k, x in v.items()}
    return v


def _row(r) -> dict:
    kind = KINDS.get(r.get_row_kind().name, r.get_row_kind().name)
    return {"kind": kind, "values": [_value(v) for v in r]}


class _Planning:
    """Runs statements so that Flink's planner finds its metadata provider.

    The planner reads it from a Calcite thread-local (``RelMetadataQueryBase.THREAD_PROVIDERS``)
    that Flink sets only on the Java thread that built the planner's cluster (FLINK-23020). py4j
    runs each call on whichever of its connection threads is free, so while a streaming result
    is being collected on one connection, the next statement can land on a thread that never had
    it and fails in planning with ``NullPointerException: metadataHandlerProvider``. So the
    provider is set on the calling thread right before each statement, and a statement that
    still hopped to another thread in between (a connection handed back by the collecting
    thread) is planned again.
    """

    def __init__(self, t_env) -> None:
        from pyflink.java_gateway import get_gateway

        self.t_env = t_env
        gw = get_gateway()
        loader = t_env._j_tenv.getPlanner().getClass().getClassLoader()

        def cls(name):
            return gw.jvm.java.lang.Class.forName(name, True, loader)

        def array(of, *items):
            a = gw.new_array(of, len(items))
            for i, x in enumerate(items):
                a[i] = x
            return a

        no_args = array(gw.jvm.java.lang.Object)
        flink_provider = (cls("org.apache.flink.table.planner.plan.metadata.FlinkDefaultRelMetadataProvider")
                          .getMethod("INSTANCE", array(gw.jvm.java.lang.Class))
                          .invoke(None, no_args))
        provider_type = cls("org.apache.calcite.rel.metadata.RelMetadataProvider")
        self.provider = (cls("org.apache.calcite.rel.metadata.JaninoRelMetadataProvider")
                         .getMethod("of", array(gw.jvm.java.lang.Class, provider_type))
                         .invoke(None, array(gw.jvm.java.lang.Object, flink_provider)))
        self.thread_providers = (cls("org.apache.calcite.rel.metadata.RelMetadataQueryBase")
                                 .getField("THREAD_PROVIDERS").get(None))

    def execute(self, statement):
        from py4j.protocol import Py4JJavaError

        for attempt in range(PLANNING_ATTEMPTS):
            self.thread_providers.set(self.provider)
            try:
                return self.t_env.execute_sql(statement)
            except Py4JJavaError as e:
                if "metadataHandlerProvider" not in str(e) or attempt + 1 == PLANNING_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")


class Server:
    def __init__(self) -> None:
        from pyflink.table import EnvironmentSettings, TableEnvironment

        def env(settings, dml_sync):
            t_env = TableEnvironment.create(settings)
            conf = t_env.get_config()
            # procedures (CALL sys.compact) start a job; with dml-sync the call returns when it ends
            conf.set("table.dml-sync", "true" if dml_sync else "false")
            conf.set("pipeline.jars", ";".join("file://" + j for j in JARS))
            conf.set("parallelism.default", "1")
            conf.set("table.local-time-zone", "UTC")
            conf.set("table.exec.resource.default-parallelism", "1")
            return t_env

        self.batch = _Planning(env(EnvironmentSettings.in_batch_mode(), True))
        self.streaming = _Planning(env(EnvironmentSettings.in_streaming_mode(), False))
        self.streams = {}
        self._next_stream = 0

    def sql(self, statements, mode="batch"):
        from pyflink.table import ResultKind

        env = self.batch if mode == "batch" else self.streaming
        rows = None
        for s in statements:
            result = env.execute(s)
            if s.lstrip().upper().startswith("INSERT"):
                # the job's end is the commit; its result (a row count) is not collected
                result.wait()
                continue
            if result.get_result_kind() == ResultKind.SUCCESS_WITH_CONTENT:
                it = result.collect()
                rows = [_row(r) for r in it]
        return rows

    def catalog(self, name, warehouse):
        stmt = f"CREATE CATALOG {name} WITH ('type' = 'paimon', 'warehouse' = 'file://{warehouse}')"
        self.batch.execute(stmt)
        self.streaming.execute(stmt)
        return name

    def configure(self, options, mode="streaming"):
        env = self.batch if mode == "batch" else self.streaming
        conf = env.t_env.get_config()
        for key, value in options.items():
            conf.set(key, value)
        return sorted(options)

    def stream_start(self, query):
        result = self.streaming.execute(query)
        sid = self._next_stream
        self._next_stream += 1
        state = {"result": result, "rows": [], "error": None, "lock": threading.Lock()}

        def pump():
            try:
                with result.collect() as it:
                    for r in it:
                        with state["lock"]:
                            state["rows"].append(_row(r))
            except Exception as e:  # noqa: BLE001 - reported by stream_poll
                if not state.get("stopped"):
                    state["error"] = f"{type(e).__name__}: {e}"

        state["thread"] = threading.Thread(target=pump, daemon=True)
        state["thread"].start()
        self.streams[sid] = state
        return sid

    def stream_poll(self, stream, rows=0, timeout=60):
        state = self.streams[stream]
        deadline = time.monotonic() + timeout
        while True:
            with state["lock"]:
                got = list(state["rows"])
            if state["error"]:
                raise RuntimeError(f"streaming query failed: {state['error']}")
            if len(got) >= rows or time.monotonic() > deadline:
                return got
            time.sleep(0.2)

    def stream_stop(self, stream):
        state = self.streams.pop(stream)
        state["stopped"] = True
        client = state["result"].get_job_client()
        if client is not None:
            try:
                client.cancel().result()
            except Exception:  # noqa: BLE001 - already finished
                pass
        # The collecting thread hands its py4j connection back when its iterator ends; wait for
        # that, so the next statement does not race it for a connection.
        state["thread"].join(timeout=30)
        return len(state["rows"])


def main() -> None:
    # The protocol owns the original stdout; everything else written to fd 1 — Python prints and
    # the output of the JVM pyflink starts, which inherits the descriptor — goes to stderr.
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    server = Server()
    from importlib.metadata import version
    out.write(json.dumps({"ready": True, "pyflink": version("apache-flink")}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        rid = req.pop("id")
        cmd = req.pop("cmd")
        try:
            result = getattr(server, cmd)(**req)
            resp = {"id": rid, "ok": True, "result": result}
        except Exception as e:  # noqa: BLE001 - sent to the client
            resp = {"id": rid, "ok": False, "error": f"{type(e).__name__}: {e}",
                    "trace": traceback.format_exc()}
        out.write(json.dumps(resp, ensure_ascii=False) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
