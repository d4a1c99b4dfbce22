"""Resource bounds and the cost of tables kept at one level, measured on the release `strata` CLI.

Every step is one `strata` process; its wall time and peak RSS come from `os.wait4` (the kernel's
accounting of exactly that child). Three measurements (BENCHMARKS.md, "Memory bounds"):

1. append write of R rows over P partitions (one process, one commit) at
   `write-buffer-size = 64 mb` (the shared pool of the append writers) and at `100 gb`, which
   leaves every partition's open file unbounded as before the pool existed;
2. a full compaction of a bucket holding a level-0 file that spans a 200-file run
   (`strata compact --full`);
3. the cost of a first-row table (kept at one level by a full compaction of each bucket written)
   against a deduplicate table: a load of L rows, then C commits of 10,000 new keys each.

Usage (from the repository root, after `cargo build --release -p strata-cli`):

    .interop-venv/bin/python bench/memory.py [--strata target/release/strata] [--rows 10000000]
        [--partitions 1000] [--load 2000000] [--commits 10] [--runs 3]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import sys

# pyarrow is imported only by the generator subprocess (see `generate`): a child's peak RSS as
# the kernel reports it (`ru_maxrss`) is at least its parent's resident set when it was
# spawned, so the driver that spawns the measured strata processes must stay small.


def run_rss(strata: str, wh: Path, *args: str) -> tuple[float, float, str, str]:
    """(seconds, peak RSS MiB, stdout, stderr) of one strata process, RSS from wait4."""
    out_f = tempfile.TemporaryFile(mode="w+")
    err_f = tempfile.TemporaryFile(mode="w+")
    t0 = time.perf_counter()
    pid = os.posix_spawn(strata, [strata, "--warehouse", str(wh), *args], os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, out_f.fileno(), 1),
                                       (os.POSIX_SPAWN_DUP2, err_f.fileno(), 2)])
    _, status, usage = os.wait4(pid, 0)
    secs = time.perf_counter() - t0
    out_f.seek(0)
    err_f.seek(0)
    out, err = out_f.read(), err_f.read()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"strata {' '.join(args)} failed ({code}):\n{err}")
    return secs, usage.ru_maxrss / 1024.0, out, err


def payload(ids, width: int):
    """Deterministic, poorly compressible text: decimal digits of several multiplicative hashes
    of the id (wrapping int64 arithmetic), concatenated and cut to `width` characters."""
    import pyarrow as pa
    import pyarrow.compute as pc
    parts = []
    for m in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5):
        m = m - (1 << 64) if m >= 1 << 63 else m
        h = pc.multiply(pc.add(ids, 1), pa.scalar(m, pa.int64()))
        parts.append(pc.utf8_lpad(pc.cast(pc.abs(h), pa.string()), 19, "7"))
    text = pc.binary_join_element_wise(*parts, "")
    return pc.utf8_slice_codeunits(pc.binary_repeat(text, width // 76 + 1), 0, width)


def write_input(path: Path, start: int, rows: int, partitions: int | None, width: int,
                files: int = 1) -> None:
    """Writes the input in a fresh Python process (keeps pyarrow out of the driver). With
    `files` > 1, `path` holds `{i}` and file i holds the rows start + i × rows onwards."""
    subprocess.run([sys.executable, __file__, "--generate", str(path), str(start), str(rows),
                    str(partitions or 0), str(width), str(files)], check=True)


def generate(path: Path, start: int, rows: int, partitions: int | None, width: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    writer = None
    step = 1_000_000
    for s in range(start, start + rows, step):
        n = min(step, start + rows - s)
        ids = pa.array(range(s, s + n), pa.int64())
        cols = {"id": ids}
        if partitions:
            import pyarrow.compute as pc
            cols["dt"] = pc.binary_join_element_wise(
                "p", pc.utf8_lpad(pc.cast(pc.subtract(ids, pc.multiply(pc.divide(ids, partitions), partitions)), pa.string()), 4, "0"), "")
        cols["payload"] = payload(ids, width)
        t = pa.table(cols)
        if writer is None:
            writer = pq.ParquetWriter(path, t.schema)
        writer.write_table(t)
    writer.close()


def table_rows(strata: str, wh: Path, ident: str) -> int:
    _, _, out, _ = run_rss(strata, wh, "files", ident)
    return sum(json.loads(line)["rowCount"] for line in out.splitlines() if line.strip())


def create(strata: str, wh: Path, ident: str, schema: dict, scratch: Path) -> None:
    f = scratch / f"{ident}.schema.json"
    f.write_text(json.dumps(schema))
    run_rss(strata, wh, "create-table", ident, "--schema", str(f))


def append_memory(strata: str, work: Path, rows: int, partitions: int, runs: int) -> list[dict]:
    inp = work / "append-input.parquet"
    if not inp.exists():
        write_input(inp, 0, rows, partitions, 100)
    out = []
    for pool in ("64 mb", "100 gb"):
        times, peaks, files = [], [], None
        for _ in range(runs):
            wh = work / "wh-append"
            shutil.rmtree(wh, ignore_errors=True)
            create(strata, wh, "b.a", {
                "fields": [{"name": "id", "type": "BIGINT NOT NULL"},
                           {"name": "dt", "type": "STRING NOT NULL"},
                           {"name": "payload", "type": "STRING"}],
                "partitionKeys": ["dt"], "primaryKeys": [],
                "options": {"bucket": "-1", "write-buffer-size": pool}}, work)
            secs, rss, _, _ = run_rss(strata, wh, "write", "b.a", str(inp))
            times.append(secs)
            peaks.append(rss)
            got = table_rows(strata, wh, "b.a")
            assert got == rows, f"{got} rows read back, {rows} written"
            _, _, listing, _ = run_rss(strata, wh, "files", "b.a")
            files = len([line for line in listing.splitlines() if line.strip()])
        out.append({"pool": pool, "seconds": statistics.median(times), "peak_mib": max(peaks),
                    "files": files})
    return out


def compaction_memory(strata: str, work: Path) -> dict:
    wh = work / "wh-compact"
    shutil.rmtree(wh, ignore_errors=True)
    create(strata, wh, "b.c", {
        "fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "payload", "type": "STRING"}],
        "primaryKeys": ["id"],
        "options": {"bucket": "1", "write-only": "true", "file.compression": "none",
                    "target-file-size": "4 mb", "num-sorted-run.stop-trigger": "1000"}}, work)
    files, rows = 200, 5000
    write_input(work / "compact-input-{i}.parquet", 0, rows, None, 200, files)
    for f in range(files):
        run_rss(strata, wh, "write", "b.c", str(work / f"compact-input-{f}.parquet"))
    # One file whose keys span all the others: the rows f * rows + 7.
    spanning = work / "spanning.jsonl"
    spanning.write_text("".join(json.dumps({"id": f * rows + 7, "payload": "x" * 200}) + "\n"
                                for f in range(files)))
    run_rss(strata, wh, "write", "b.c", str(spanning))
    secs, rss, _, _ = run_rss(strata, wh, "compact", "b.c", "--full")
    assert table_rows(strata, wh, "b.c") == files * rows
    return {"input_files": files + 1, "seconds": secs, "peak_mib": rss}


def one_level_cost(strata: str, work: Path, load: int, commits: int) -> list[dict]:
    out = []
    for engine in ("deduplicate", "first-row"):
        wh = work / f"wh-{engine}"
        shutil.rmtree(wh, ignore_errors=True)
        create(strata, wh, "b.k", {
            "fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "payload", "type": "STRING"}],
            "primaryKeys": ["id"], "options": {"bucket": "2", "merge-engine": engine}}, work)
        inp = work / "load.parquet"
        if not inp.exists():
            write_input(inp, 0, load, None, 50)
        run_rss(strata, wh, "write", "b.k", str(inp))
        if not (work / "small-0.parquet").exists():
            write_input(work / "small-{i}.parquet", load, 10_000, None, 50, commits)
        times, peaks = [], []
        for c in range(commits):
            small = work / f"small-{c}.parquet"
            secs, rss, _, _ = run_rss(strata, wh, "write", "b.k", str(small))
            times.append(secs)
            peaks.append(rss)
        assert table_rows(strata, wh, "b.k") == load + commits * 10_000 or engine == "deduplicate"
        out.append({"engine": engine, "load": load, "commit_rows": 10_000,
                    "median_commit_seconds": statistics.median(times), "peak_mib": max(peaks)})
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--generate":
        path, start, rows, parts, width, files = sys.argv[2:8]
        for i in range(int(files)):
            target = path.format(i=i) if int(files) > 1 else path
            generate(Path(target), int(start) + i * int(rows), int(rows), int(parts) or None,
                     int(width))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--strata", default="target/release/strata")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--partitions", type=int, default=1000)
    ap.add_argument("--load", type=int, default=2_000_000)
    ap.add_argument("--commits", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default="bench/results/memory")
    a = ap.parse_args()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    strata = os.path.abspath(a.strata)
    result = {
        "append": append_memory(strata, work, a.rows, a.partitions, a.runs),
        "compaction": compaction_memory(strata, work),
        "one_level": one_level_cost(strata, work, a.load, a.commits),
    }
    print(json.dumps(result, indent=2))
    (work / "latest.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
