#!/usr/bin/env python3
"""Summarises a run of bench/scan_continuous.sh: planning one partition and bucket of a table
after each of its commits, strata without and with the (incrementally built) manifest-entry
cache, and pypaimon-rust.

  scan_continuous_report.py --dir RUN_DIR [--json OUT]

Reads RUN_DIR/meta.json, strata.json (the scan-continuous summary), strata.jsonl (one line per
snapshot: uncached_ms, cached_ms, hit_ms, rebuild_ms, deltas_applied, files, ok) and
peer-pypaimon-rust.jsonl (one line per snapshot: ms, files, buckets).  Prints a Markdown table
of medians (every snapshot, and the last tenth, where the table is largest) with ratios, and
exits non-zero when any plan differs: a strata configuration from the uncached plan, or the peer
from strata's file count, or the peer's split from another bucket.
"""
import argparse
import json
import os
import statistics
import sys


def load_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def p90(xs):
    xs = sorted(x for x in xs if x is not None)
    return xs[min(len(xs) - 1, int(0.9 * len(xs)))] if xs else None


def fmt(x, digits=2):
    return '–' if x is None else f'{x:,.{digits}f}'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--dir', required=True)
    ap.add_argument('--json')
    a = ap.parse_args()
    meta = json.load(open(os.path.join(a.dir, 'meta.json')))
    summary = load_lines(os.path.join(a.dir, 'strata.json'))[-1]
    strata = load_lines(os.path.join(a.dir, 'strata.jsonl'))
    peer_path = os.path.join(a.dir, 'peer-pypaimon-rust.jsonl')
    peer = {p['snapshot']: p for p in load_lines(peer_path)} if os.path.exists(peer_path) else {}

    problems = []
    for s in strata:
        if not s['ok']:
            problems.append(f"snapshot {s['snapshot']}: strata configurations plan different files")
        p = peer.get(s['snapshot'])
        if peer and p is None:
            problems.append(f"snapshot {s['snapshot']}: no pypaimon-rust plan")
        elif p is not None:
            if p['files'] != s['files']:
                problems.append(f"snapshot {s['snapshot']}: pypaimon-rust plans {p['files']} files, strata {s['files']}")
            if p['buckets'] not in ([], [meta['bucket']]):
                problems.append(f"snapshot {s['snapshot']}: pypaimon-rust planned buckets {p['buckets']}")

    n = len(strata)
    tail = strata[n - max(1, n // 10):]
    tail_ids = {s['snapshot'] for s in tail}
    cols = {
        'uncached': [s['uncached_ms'] for s in strata],
        'cached': [s['cached_ms'] for s in strata if s['deltas_applied'] > 0],
        'hit': [s['hit_ms'] for s in strata],
        'rebuild': [s['rebuild_ms'] for s in strata],
        'peer': [p['ms'] for p in peer.values()],
    }
    tails = {
        'uncached': [s['uncached_ms'] for s in tail],
        'cached': [s['cached_ms'] for s in tail if s['deltas_applied'] > 0],
        'hit': [s['hit_ms'] for s in tail],
        'rebuild': [s['rebuild_ms'] for s in tail],
        'peer': [p['ms'] for sid, p in peer.items() if sid in tail_ids],
    }
    base_all, base_tail = median(cols['uncached']), median(tails['uncached'])
    rows = [
        ('strata, no cache (lazy decode, the default)', 'uncached',
         median([s['uncached_manifests_read'] for s in strata])),
        ('strata, cache: new snapshot, built incrementally (a miss)', 'cached',
         median([s['cached_manifests_read'] for s in strata if s['deltas_applied'] > 0])),
        ('strata, cache: same snapshot again (a hit)', 'hit', 0),
        ('strata, cache: empty cache (a miss rebuilt from all manifests)', 'rebuild',
         median([s['uncached_manifests_read'] for s in strata if s['rebuild_ms'] is not None])),
        ('pypaimon-rust 0.4.0 (`with_shard`)', 'peer', None),
    ]
    incremental = sum(1 for s in strata if s['deltas_applied'] > 0)
    print(f"### Continuous planning: {meta['commits']} commits, {meta['partitions']} partitions × "
          f"{meta['buckets']} buckets; `{meta['where']}`, bucket {meta['bucket']}, planned after each commit")
    print()
    print(f"strata {meta['strata_commit']}, {meta['date']}, load {meta['load']}; snapshots "
          f"{summary['from']}..{summary['to']}; strata's cached plan was built incrementally for "
          f"{incremental} of {n} snapshots; the rebuild was timed every {meta['rebuild_every']}th snapshot. "
          f"Last tenth = snapshots {min(tail_ids)}..{max(tail_ids)}.")
    print()
    print('| config | median ms | p90 ms | median ms, last tenth | no cache ÷ this | no cache ÷ this, last tenth | manifests read (median) |')
    print('|---|---|---|---|---|---|---|')
    out_rows = []
    for label, key, manifests in rows:
        m, t = median(cols[key]), median(tails[key])
        r = base_all / m if m else None
        rt = base_tail / t if t else None
        print(f"| {label} | **{fmt(m)}** | {fmt(p90(cols[key]))} | {fmt(t)} | {fmt(r)} | {fmt(rt)} | "
              f"{fmt(manifests, 0) if manifests is not None else '–'} |")
        out_rows.append({'config': key, 'label': label, 'median_ms': m, 'p90_ms': p90(cols[key]),
                         'tail_median_ms': t, 'ratio': r, 'tail_ratio': rt, 'plans': len([x for x in cols[key] if x is not None])})
    if peer:
        pm, cm = median(cols['peer']), median(cols['cached'])
        pt, ct = median(tails['peer']), median(tails['cached'])
        print()
        print(f"pypaimon-rust ÷ strata incremental: **{fmt(pm / cm)}x** (last tenth {fmt(pt / ct)}x); "
              f"pypaimon-rust ÷ strata uncached: {fmt(pm / base_all)}x (last tenth {fmt(pt / base_tail)}x); "
              f"strata rebuild ÷ uncached (miss without a base vs no cache): "
              f"{fmt(median(cols['rebuild']) / median([s['uncached_ms'] for s in strata if s['rebuild_ms'] is not None]))}.")
    print()
    if problems:
        print(f"**{len(problems)} plan mismatches**, first: {problems[:5]}")
    else:
        print(f"Plans identical: every snapshot's strata configurations agree"
              f"{' and pypaimon-rust plans the same number of files of the same bucket' if peer else ''}.")
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'meta': meta, 'summary': summary, 'rows': out_rows, 'problems': problems}, f, indent=1)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
