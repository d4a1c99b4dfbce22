#!/usr/bin/env python3
"""Summary of the scan-planning benchmark (bench/scan.sh).

  scan_report.py target --table-json F
      prints "VALUE BUCKET": the scan of the run — the partition whose number of data files
      (from scan-gen's commit messages) is the median over all partitions, and bucket 1
      (0 for a one-bucket table)
  scan_report.py summarize --dir RUN_DIR [--json OUT]
      reads RUN_DIR (scan.sh's files: meta.json, table.json, <config>.jsonl / .time of the strata
      runs, alloc-*.summary / .hist of the heaptrack runs, peer-*.json of scan_peer.py), prints
      the Markdown tables and writes OUT; exits 1 when a run is missing or failed, or when any
      two configurations plan different files or splits (or differ from the files scan-gen
      wrote into that partition and bucket).

Times: strata's are its own `planningMicros` (the plan call of `strata scan --metrics`, in the
process that keeps the table open and, with the cache on, the cache); the peers' are
`time.perf_counter()` around `new_scan()[.with_shard()].plan().splits()` on an open table.
"Median" is over scans 2..K of a process, pooled over the rounds (scan 1 is reported apart, as
the median over rounds: for the cached configuration it is the miss that fills the cache);
"fresh" is the median over M fresh processes of their one scan. Allocations per scan are (allocations of a process with 1 + N scans − those of
a process with 1 scan) ÷ N, counted by heaptrack; bytes the same from heaptrack's size histogram.
"""
import argparse
import glob
import json
import os
import statistics
import sys

STRATA_CONFIGS = [
    # key, label, scope
    ('nocache-lazy', 'strata, no cache, lazy decode (default)', 'bucket'),
    ('cache', 'strata, cache on: hits (scans 2..K)', 'bucket'),
    ('nocache-full', 'strata, no cache, full decode', 'bucket'),
    ('partition', 'strata, no cache, lazy: whole partition', 'partition'),
]
PEERS = [
    ('peer-pypaimon-rust-bucket', 'pypaimon-rust 0.4.0 (with_shard)', 'bucket'),
    ('peer-pypaimon-bucket', 'pypaimon 2.1.0 (with_shard)', 'bucket'),
    ('peer-pypaimon-rust-partition', 'pypaimon-rust 0.4.0: whole partition', 'partition'),
    ('peer-pypaimon-partition', 'pypaimon 2.1.0: whole partition', 'partition'),
]
METRICS = ['entriesInspected', 'entriesDecoded', 'lastScannedManifests', 'skippedFiles', 'files',
           'splits', 'snapshotId', 'cacheHit']


def load_json(path):
    with open(path) as f:
        return json.load(f)


def load_lines(path):
    if not os.path.exists(path):
        return None
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith('{'):
                out.append(json.loads(line))
    return out


def ms(record):
    return record['planningMicros'] / 1000.0


def med(xs):
    return statistics.median(xs) if xs else None


def target(a):
    t = load_json(a.table_json)
    col = t['partition_column']
    by = t['files_by_partition']
    ranked = sorted(by.items(), key=lambda kv: (sum(kv[1]), kv[0]))
    name, _ = ranked[(len(ranked) - 1) // 2]
    prefix = col + '='
    if not name.startswith(prefix):
        sys.exit(f'scan_report.py: unexpected partition text {name!r}')
    bucket = 1 if t['buckets'] > 1 else 0
    print(name[len(prefix):], bucket)


def read_time(path):
    """(max RSS MB, elapsed s) from a /usr/bin/time -f '%M %e %U %S' file."""
    try:
        with open(path) as f:
            last = [l for l in f.read().split('\n') if l.strip()][-1].split()
        return round(int(last[0]) / 1024.0, 1), float(last[1])
    except (OSError, IndexError, ValueError):
        return None, None


def read_alloc(run_dir, name):
    """(allocation calls, bytes allocated, peak heap text) of one heaptrack run, or None."""
    summary = os.path.join(run_dir, name + '.summary')
    hist = os.path.join(run_dir, name + '.hist')
    if not os.path.exists(summary):
        return None
    calls = peak = None
    with open(summary) as f:
        for line in f:
            if line.startswith('calls to allocation functions:'):
                calls = int(line.split(':')[1].split()[0])
            elif line.startswith('peak heap memory consumption:'):
                peak = line.split(':')[1].strip()
    total = None
    sizes = {}
    if os.path.exists(hist):
        total = 0
        with open(hist) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    total += int(parts[0]) * int(parts[1])
                    sizes[int(parts[0])] = int(parts[1])
    return {'calls': calls, 'bytes': total, 'peak_heap': peak, 'sizes': sizes}


def fmt(x, digits=1):
    if x is None:
        return '–'
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int):
        return f'{x:,}'
    return f'{x:,.{digits}f}'


def summarize(a):
    d = a.dir
    meta = load_json(os.path.join(d, 'meta.json'))
    table = load_json(os.path.join(d, 'table.json'))
    col, value, bucket, k = meta['column'], meta['value'], meta['bucket'], meta['repeat']
    files_written = table['files_by_partition'].get(f'{col}={value}', [])
    expected = {'bucket': files_written[bucket] if bucket < len(files_written) else None,
                'partition': sum(files_written) if files_written else None}
    problems = []
    out = {'meta': meta, 'table': {k_: v for k_, v in table.items() if k_ != 'files_by_partition'},
           'expected_files': expected, 'strata': {}, 'fresh': {}, 'alloc': {}, 'peers': {}}

    # strata, K scans per process
    plans = {'bucket': {}, 'partition': {}}  # (files, splits) per config
    for key, label, scope in STRATA_CONFIGS:
        rounds = [load_lines(p_) for p_ in sorted(glob.glob(os.path.join(d, key + '.r*.jsonl')))]
        rounds = [r_ for r_ in rounds if r_]
        if not rounds:
            problems.append(f'strata {key}: no --metrics output')
            continue
        for i, lines in enumerate(rounds):
            if len(lines) != k:
                problems.append(f'strata {key} round {i + 1}: {len(lines)} metrics lines, expected {k}')
        firsts = [ms(lines[0]) for lines in rounds]
        steady = [ms(r_) for lines in rounds for r_ in lines[1:]]
        rss = [read_time(p_)[0] for p_ in sorted(glob.glob(os.path.join(d, key + '.r*.time')))]
        rss = [x for x in rss if x is not None]
        first_line, last_line = rounds[0][0], rounds[-1][-1]
        rec = {'label': label, 'scope': scope, 'rounds': len(rounds), 'first_ms': med(firsts),
               'first_ms_rounds': firsts, 'median_ms': med(steady),
               'median_ms_rounds': [med([ms(r_) for r_ in lines[1:]]) for lines in rounds],
               'min_ms': min(steady) if steady else None, 'max_ms': max(steady) if steady else None,
               'times_ms': [[ms(r_) for r_ in lines] for lines in rounds],
               'first': {m: first_line.get(m) for m in METRICS},
               'steady': {m: last_line.get(m) for m in METRICS},
               'cache_hits': [[r_.get('cacheHit') for r_ in lines] for lines in rounds],
               'peak_rss_mb': max(rss) if rss else None}
        extra = sorted(set(last_line) - set(METRICS) - {'planningMicros'})
        rec['extra_steady'] = {m: last_line[m] for m in extra}
        rec['extra_first'] = {m: first_line.get(m) for m in extra}
        out['strata'][key] = rec
        for ri, lines in enumerate(rounds):
            for i, r_ in enumerate(lines):
                plans[scope].setdefault((r_.get('files'), r_.get('splits'), r_.get('snapshotId')), []).append(
                    f'strata {key} round {ri + 1} scan {i + 1}')
            if key == 'cache':
                hits = [r_.get('cacheHit') for r_ in lines]
                if hits[0] is not False or any(h is not True for h in hits[1:]):
                    problems.append(f'strata cache round {ri + 1}: cacheHit per scan is {hits} '
                                    '(expected a miss, then hits)')
    # strata, first scan of fresh processes
    for key in ('nocache-lazy', 'cache', 'nocache-full', 'partition'):
        firsts, rsss, decoded = [], [], []
        for path in sorted(glob.glob(os.path.join(d, f'{key}-fresh-*.jsonl'))):
            lines = load_lines(path)
            if not lines:
                problems.append(f'strata {os.path.basename(path)}: no output')
                continue
            firsts.append(ms(lines[0]))
            decoded.append(lines[0].get('entriesDecoded'))
            rss, _ = read_time(path[:-len('.jsonl')] + '.time')
            rsss.append(rss)
            r = lines[0]
            plans['partition' if key == 'partition' else 'bucket'].setdefault(
                (r.get('files'), r.get('splits'), r.get('snapshotId')), []).append(
                f'strata {os.path.basename(path)[:-6]}')
        if firsts:
            out['fresh'][key] = {'median_ms': med(firsts), 'min_ms': min(firsts), 'max_ms': max(firsts),
                                 'times_ms': firsts, 'entries_decoded': decoded,
                                 'peak_rss_mb': med([r for r in rsss if r is not None])}
    # allocations
    n = meta.get('alloc_repeat', 0)
    for key in ('nocache-lazy', 'cache', 'nocache-full'):
        one = read_alloc(d, f'alloc-{key}-1')
        more = read_alloc(d, f'alloc-{key}-{n + 1}') if n else None
        if one and more and one['calls'] is not None and more['calls'] is not None:
            rec = {'calls_1': one['calls'], f'calls_{n + 1}': more['calls'],
                   'calls_per_scan': round((more['calls'] - one['calls']) / n),
                   'peak_heap_1': one['peak_heap'], f'peak_heap_{n + 1}': more['peak_heap']}
            if one['bytes'] is not None and more['bytes'] is not None:
                rec['bytes_per_scan'] = round((more['bytes'] - one['bytes']) / n)
                rec['bytes_1'] = one['bytes']
                # the allocation sizes that carry the most bytes per scan
                diff = {sz: (more['sizes'].get(sz, 0) - one['sizes'].get(sz, 0)) / n
                        for sz in set(one['sizes']) | set(more['sizes'])}
                top = sorted(diff.items(), key=lambda kv: -kv[0] * kv[1])[:4]
                rec['top_sizes_per_scan'] = [{'size': sz, 'count': round(c, 1), 'bytes': round(sz * c)}
                                             for sz, c in top if c > 0]
            out['alloc'][key] = rec
    # peers
    for key, label, scope in PEERS:
        recs = []
        for path in sorted(glob.glob(os.path.join(d, key + '.r*.json'))):
            with open(path) as f:
                lines = [json.loads(l) for l in f if l.strip().startswith('{')]
            if lines:
                recs.append(lines[-1])
        if not recs:
            problems.append(f'{key}: no output')
            continue
        steady = [t_ for r_ in recs for t_ in r_['times_ms'][1:]]
        r = dict(recs[-1])
        r.update({'label': label, 'rounds': len(recs), 'first_ms': med([r_['first_ms'] for r_ in recs]),
                  'first_ms_rounds': [r_['first_ms'] for r_ in recs], 'median_ms': med(steady),
                  'median_ms_rounds': [r_['median_ms'] for r_ in recs],
                  'min_ms': min(steady) if steady else None, 'max_ms': max(steady) if steady else None,
                  'times_ms': [r_['times_ms'] for r_ in recs],
                  'peak_rss_mb': max(r_.get('peak_rss_mb') or 0 for r_ in recs)})
        out['peers'][key] = r
        for r_ in recs:
            if r_.get('error'):
                problems.append(f"{key}: {r_['error']}")
            plans[scope].setdefault((r_.get('files'), r_.get('splits'), r_.get('snapshotId')), []).append(key)

    # plan identity: files and splits equal everywhere (snapshot ids of strata's runs too)
    for scope, groups in plans.items():
        want = expected[scope]
        keys = list(groups)
        shapes = {(f, s) for f, s, _ in keys}
        snaps = {sn for _, _, sn in keys if sn is not None}
        if len(shapes) > 1 or len(snaps) > 1:
            detail = '; '.join(f'files={f} splits={s} snapshot={sn}: {", ".join(v[:4])}'
                               + (f' (+{len(v) - 4})' if len(v) > 4 else '')
                               for (f, s, sn), v in groups.items())
            problems.append(f'{scope} scans plan differently: {detail}')
        if want is not None and any(f != want for f, _ in shapes):
            problems.append(f'{scope} scans: planned files {sorted(f for f, _ in shapes)} but scan-gen '
                            f'wrote {want} files into {col}={value}' + (f' bucket {bucket}' if scope == 'bucket' else ''))
    out['plans'] = {scope: [{'files': f, 'splits': s, 'snapshotId': sn, 'runs': len(v)}
                            for (f, s, sn), v in groups.items()] for scope, groups in plans.items()}

    # the table
    s = out['strata']
    base = s.get('nocache-lazy', {}).get('median_ms')
    base_part = s.get('partition', {}).get('median_ms')
    alloc = out['alloc']

    def speedup(b, x):
        return None if (b is None or not x) else b / x

    rows = []

    def strata_row(label, key, m_ms, first_ms, fresh_key, metrics, base_ms, akey=None, alloc_first=False):
        a_ = alloc.get(akey) if akey else None
        calls = a_.get('calls_per_scan') if a_ else None
        byts = a_.get('bytes_per_scan') if a_ else None
        fr = out['fresh'].get(fresh_key, {}).get('median_ms') if fresh_key else None
        rec = s.get(key, {})
        rows.append([label, fmt(m_ms, 2), fmt(first_ms, 2), fmt(fr, 2), fmt(speedup(base_ms, m_ms), 2),
                     fmt(metrics.get('entriesInspected')), fmt(metrics.get('entriesDecoded')),
                     fmt(metrics.get('lastScannedManifests')), fmt(calls), fmt(None if byts is None else byts / 1e6, 2),
                     fmt(rec.get('peak_rss_mb')), f"{metrics.get('files')} / {metrics.get('splits')}"])

    for key, label, scope in STRATA_CONFIGS:
        if key not in s:
            continue
        r = s[key]
        b = base if scope == 'bucket' else base_part
        strata_row(label, key, r['median_ms'], r['first_ms'], None if key == 'cache' else key,
                   r['steady'], b, key if key != 'partition' else None)
        if key == 'cache':
            # the miss that fills the cache: scan 1 of the K-run, and fresh processes
            fr = out['fresh'].get('cache', {})
            rows.append(['strata, cache on: miss (scan 1, fills the cache)', fmt(r['first_ms'], 2), '–', fmt(fr.get('median_ms'), 2),
                         fmt(speedup(base, r['first_ms']), 2),
                         fmt(r['first'].get('entriesInspected')), fmt(r['first'].get('entriesDecoded')),
                         fmt(r['first'].get('lastScannedManifests')), '–', '–', '–', f"{r['first'].get('files')} / {r['first'].get('splits')}"])
    for key, label, scope in PEERS:
        p = out['peers'].get(key)
        if not p:
            continue
        b = base if scope == 'bucket' else base_part
        rows.append([label, fmt(p['median_ms'], 2), fmt(p['first_ms'], 2), '–', fmt(speedup(b, p['median_ms']), 2),
                     '–', '–', '–', '–', '–', fmt(p.get('peak_rss_mb')), f"{p.get('files')} / {p.get('splits')}"])
    # order: bucket-scope rows first, then the whole-partition rows
    part_rows = [r for r in rows if 'whole partition' in r[0]]
    rows = [r for r in rows if 'whole partition' not in r[0]] + part_rows

    print(f"### Scan planning: `{meta['where']}`, bucket {bucket} — {table['partitions']} partitions × "
          f"{table['buckets']} buckets, {table['commits']} commits, {fmt(table['entries'])} manifest entries "
          f"in {fmt(table['manifests'])} manifests ({fmt(table['manifest_bytes'] / 1e6, 1)} MB)\n")
    print(f"K = {k} scans per process, {meta.get('rounds', 1)} rounds (median ms: scans 2..K of every round "
          f"pooled; scan 1 ms: median over rounds), fresh = median of {meta['fresh']} fresh "
          f"processes' single scan; pypaimon {meta['py_repeat']} plans, one process. Load at start: "
          f"{meta['load']}. strata at {meta['strata_commit']}.\n")
    hdr = ['config', 'median ms', 'scan 1 ms', 'fresh ms', 'no-cache ÷ this', 'entries inspected',
           'entries decoded', 'manifests read', 'allocs / scan', 'MB allocated / scan', 'peak RSS MB',
           'files / splits']
    print('| ' + ' | '.join(hdr) + ' |')
    print('|' + '---|' * len(hdr))
    for r in rows:
        print('| ' + ' | '.join(r) + ' |')
    print()
    print('"no-cache ÷ this": the no-cache lazy median of the same scope divided by this row\'s median '
          '(above 1 = faster than strata without the cache). Entries/manifests: the steady-state scan '
          '(the last of the process); the miss row shows scan 1.\n')

    # targets
    targets = []
    hit = s.get('cache', {}).get('median_ms')
    full = s.get('nocache-full', {}).get('median_ms')
    rust = out['peers'].get('peer-pypaimon-rust-bucket', {})
    fr = out['fresh']
    checks = [
        ('cache hit vs no cache (≥ 10×)', speedup(base, hit), 10.0,
         'no-cache lazy median ÷ cache-hit median'),
        ('lazy vs full decode on a miss (≥ 3×)', speedup(full, base), 3.0,
         'full-decode median ÷ lazy median, both uncached'),
        ('  same, first scan of fresh processes', speedup(fr.get('nocache-full', {}).get('median_ms'),
                                                          fr.get('nocache-lazy', {}).get('median_ms')), 3.0,
         'fresh full ÷ fresh lazy'),
        ('strata uncached vs pypaimon-rust (≥ 3×)', speedup(rust.get('median_ms'), base), 3.0,
         'pypaimon-rust median ÷ strata no-cache lazy median'),
        ('  same, first plan of a process', speedup(rust.get('first_ms'), fr.get('nocache-lazy', {}).get('median_ms')), 3.0,
         'pypaimon-rust first plan ÷ strata fresh-process scan'),
        ('  same, whole partition', speedup(out['peers'].get('peer-pypaimon-rust-partition', {}).get('median_ms'), base_part), 3.0,
         'pypaimon-rust partition median ÷ strata partition median'),
    ]
    print('| target | measured | met? | how |')
    print('|---|---|---|---|')
    for name, x, want, how in checks:
        met = None if x is None else x >= want
        targets.append({'target': name.strip(), 'measured': x, 'threshold': want, 'met': met, 'how': how})
        print(f"| {name} | {fmt(x, 2)}× | {'–' if met is None else ('yes' if met else 'no')} | {how} |")
    out['targets'] = targets
    print()
    if alloc:
        print('Allocations (heaptrack, per scan = (1+N scans − 1 scan) ÷ N):\n')
        for kk, v in alloc.items():
            tops = ', '.join(f"{t['count']:g} × {t['size']:,} B" for t in v.get('top_sizes_per_scan', []))
            print(f"* {kk}: {fmt(v.get('calls_per_scan'))} calls, "
                  f"{fmt((v.get('bytes_per_scan') or 0) / 1e6, 2)} MB per scan; peak heap "
                  f"{v.get('peak_heap_' + str(n + 1))} with {n + 1} scans; most bytes in {tops}")
        print()
    out['problems'] = problems
    if problems:
        print('**Problems:**')
        for p in problems:
            print(f'* {p}')
    else:
        print(f"Plans identical: every strata scan, fresh process and peer planned "
              f"{expected['bucket']} files for the bucket and {expected['partition']} for the partition "
              f"(= the files scan-gen wrote there).")
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(out, f, indent=1)
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    t = sub.add_parser('target')
    t.add_argument('--table-json', required=True)
    sm = sub.add_parser('summarize')
    sm.add_argument('--dir', required=True)
    sm.add_argument('--json')
    a = ap.parse_args()
    if a.cmd == 'target':
        target(a)
        return 0
    return summarize(a)


if __name__ == '__main__':
    sys.exit(main())
