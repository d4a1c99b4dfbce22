"""Summary of bench/file_index.sh and bench/column_backfill.sh (issue 31): medians per engine
and configuration of the JSON lines of strata-bench and strata.bench.Issue31Peer, as Markdown.

    python3 bench/issue31_report.py file-index bench/results/file_index.jsonl
    python3 bench/issue31_report.py backfill bench/results/column_backfill.jsonl

strata lines are one run each (the median of the runs is taken here); a Java line is already the
median of its in-JVM iterations (`iter_s` lists them). The other columns come from the run whose
time is the median (the lower middle one for an even count).
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict


def median_run(runs):
    runs = sorted(runs, key=lambda r: r["seconds"])
    return runs[(len(runs) - 1) // 2]


def times(runs):
    if len(runs) == 1 and "iter_s" in runs[0]:
        return sorted(runs[0]["iter_s"])
    return sorted(r["seconds"] for r in runs)


def mb(n):
    return f"{n / 1e6:.2f} MB" if n is not None else "–"


def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "–"


def file_index(lines):
    groups = defaultdict(list)
    for r in lines:
        groups[(r["engine"], r["phase"], r["table"])].append(r)
    print("| engine | table | write (median) | data files | data bytes | index bytes "
          "| lookup (median) | plan | files planned | skipped by index | files read "
          "| bytes read (metrics) | rchar | rows |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    med = {}
    for engine in ("strata", "java-paimon", "strata-on-java-table"):
        for table in ("fi_plain", "fi_bloom"):
            w = groups.get((engine, "fi-write", table))
            look = groups.get((engine, "fi-lookup", table))
            if not look:
                continue
            lm = median_run(look)
            wm = median_run(w) if w else None
            med[(engine, table)] = (wm["seconds"] if wm else None, lm["seconds"])
            m = lm.get("read_metrics", {})
            print(f"| {engine} | {table} | "
                  f"{wm['seconds']:.3f} s {times(w)} | {wm['data_files']} | {mb(wm['data_bytes'])} | "
                  f"{mb(wm['index_bytes'])} | " if wm else f"| {engine} | {table} | – | – | – | – | ",
                  end="")
            skipped = m.get("filesSkippedByIndex", lm.get("files_skipped_by_index"))
            print(f"{lm['seconds'] * 1000:.1f} ms {[round(t * 1000, 1) for t in times(look)]} | "
                  f"{lm['plan_s'] * 1000:.1f} ms | {lm['files_planned']} | {skipped} | "
                  f"{m.get('filesRead', '–')} | {mb(m.get('bytesRead'))} | {mb(lm['rchar'])} | "
                  f"{lm['rows']} |")
    print()
    for table in ("fi_plain", "fi_bloom"):
        s, j = med.get(("strata", table)), med.get(("java-paimon", table))
        if s and j:
            print(f"- {table}: Java / strata write {ratio(j[0], s[0])}, lookup {ratio(j[1], s[1])}")
    for engine in ("strata", "java-paimon"):
        p, b = med.get((engine, "fi_plain")), med.get((engine, "fi_bloom"))
        if p and b:
            print(f"- {engine}: bloom / plain write {ratio(b[0], p[0])}, lookup {ratio(b[1], p[1])}")


def backfill(lines):
    groups = defaultdict(list)
    for r in lines:
        groups[(r["engine"], r["mode"])].append(r)
    print("| engine | how | time (median) | runs | data bytes written | metadata bytes "
          "| wchar | table's data bytes |")
    print("|---|---|---|---|---|---|---|---|")
    med = {}
    for engine in ("strata", "java-paimon"):
        for mode in ("update", "rewrite"):
            runs = groups.get((engine, mode))
            if not runs:
                continue
            m = median_run(runs)
            med[(engine, mode)] = m
            print(f"| {engine} | {mode} | {m['seconds']:.3f} s | {times(runs)} | "
                  f"{m['data_bytes_written']:,} | {m['meta_bytes_written']:,} | {m['wchar']:,} | "
                  f"{m['table_bytes']:,} |")
    print()
    for mode in ("update", "rewrite"):
        s, j = med.get(("strata", mode)), med.get(("java-paimon", mode))
        if s and j:
            print(f"- {mode}: Java / strata time {ratio(j['seconds'], s['seconds'])}, "
                  f"bytes {ratio(j['data_bytes_written'], s['data_bytes_written'])}")
    for engine in ("strata", "java-paimon"):
        u, r = med.get((engine, "update")), med.get((engine, "rewrite"))
        if u and r:
            print(f"- {engine}: rewrite / update time {ratio(r['seconds'], u['seconds'])}, "
                  f"data bytes {ratio(r['data_bytes_written'], u['data_bytes_written'])}")


def main():
    kind, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        lines = [json.loads(x) for x in f if x.strip().startswith("{")]
    {"file-index": file_index, "backfill": backfill}[kind](lines)


if __name__ == "__main__":
    main()
