#!/usr/bin/env python3
"""Summarises bench/tpch.sh's JSON lines (``strata-bench tpch-run`` for parquet and strata,
``tpch_peer.py`` for pypaimon-rust) as the markdown table of BENCHMARKS.md.

  tpch_report.py RESULTS.jsonl

Per query: the three medians, strata / parquet (the goal: geometric mean <= 1.15) and
pypaimon-rust / strata (> 1: strata faster; the goal: every query), and whether the result rows
and digests agree with DataFusion over plain Parquet (the reference).
"""
import json
import math
import sys


def main(path):
    res = {}
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("phase") != "tpch":
            continue
        res.setdefault(r["query"], {})[r["engine"]] = r
    queries = sorted(res, key=lambda q: int(q[1:]))
    print("| query | parquet s | strata s | pypaimon-rust s | strata ÷ parquet | pypaimon-rust ÷ strata | rows (parquet) | same result |")
    print("|---|---|---|---|---|---|---|---|")
    ratios_sp, ratios_ps, misses = [], [], []
    for q in queries:
        e = res[q]
        p, s, r = e.get("parquet", {}), e.get("strata", {}), e.get("pypaimon-rust", {})
        fmt = lambda x: "%.3f" % x["median_s"] if "median_s" in x else ("error" if "error" in x else "–")
        sp = s["median_s"] / p["median_s"] if "median_s" in s and "median_s" in p else None
        ps = r["median_s"] / s["median_s"] if "median_s" in r and "median_s" in s else None
        if sp:
            ratios_sp.append(sp)
        if ps:
            ratios_ps.append(ps)
            if ps <= 1.0:
                misses.append(q)
        same = []
        for name, x in (("strata", s), ("pypaimon-rust", r)):
            if "rows" not in x or "rows" not in p:
                same.append(f"{name}: n/a")
            elif x["rows"] != p["rows"]:
                same.append(f"{name}: **{x['rows']} rows**")
            elif x.get("digest") != p.get("digest"):
                same.append(f"{name}: rows equal, digest differs")
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            q, fmt(p), fmt(s), fmt(r), "%.2f" % sp if sp else "–", "%.2f" % ps if ps else "–",
            p.get("rows", "–"), "; ".join(same) or "yes"))
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
    print()
    print("geometric mean strata ÷ parquet: %.3f over %d queries (goal <= 1.15)" % (geo(ratios_sp), len(ratios_sp)))
    print("geometric mean pypaimon-rust ÷ strata: %.3f over %d queries; strata not faster on: %s"
          % (geo(ratios_ps), len(ratios_ps), ", ".join(misses) or "none"))
    errors = [(q, n, x["error"]) for q in queries for n, x in res[q].items() if "error" in x]
    for q, n, err in errors:
        print(f"- {q} {n}: {err}")


if __name__ == "__main__":
    main(sys.argv[1])
