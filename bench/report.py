#!/usr/bin/env python3
"""Summarises a bench/run.sh run: medians per (engine, phase, data), ratios, correctness checks.

  report.py --runs FILE.jsonl --expected DATA/expected.json [--work WORK] [--json OUT]

FILE.jsonl has one line per phase process, written by run.sh:
  {"run": r, "engine": E, "phase": P, "data": WRITER, "result": {...phase JSON...} | null, "error": ...}
where WRITER is the engine whose warehouse a read used (for writes: the engine itself).

Prints Markdown (main table on each engine's own data, ratio table against the targets, cross-read
matrix) and writes the medians, ratios and raw runs to --json.  Exits 1, after printing, when a
phase failed or any result disagrees with expected.json (row counts; for reads also sum(v_int) and
count(distinct id)), so a wrong-but-fast engine can never pass silently.
"""
import argparse
import json
import os
import statistics
import sys

ENGINE_ORDER = ['raw-parquet', 'raw-parquet-1t', 'strata', 'strata-1t', 'pypaimon-rust', 'pypaimon']
PHASES = ['write', 'read', 'filter']
WRITERS = ['strata', 'pypaimon-rust', 'pypaimon']
TARGET_VS_FLOOR = 1.3


def load_runs(path):
    runs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line:
                try:
                    runs.append(json.loads(line))
                except json.JSONDecodeError as e:
                    runs.append({'error': 'line %d is not JSON (%s): %s' % (n, e, line[:200])})
    return runs


def check(run, expected):
    """Problems of one phase result against expected.json."""
    res = run.get('result')
    if not res:
        return ['%s %s (data %s, run %s) failed: %s' % (run.get('engine'), run.get('phase'), run.get('data'),
                                                        run.get('run'), run.get('error', 'no result'))]
    phase = run['phase']
    want = {'rows': expected['rows']} if phase == 'write' else expected[phase]
    return ['%s %s (data %s, run %s): %s = %s, expected %s' % (run['engine'], phase, run['data'], run['run'],
                                                               k, res.get(k), v)
            for k, v in want.items() if k in ('rows', 'sum_v_int', 'distinct_ids') and res.get(k) != v]


def summarise(runs):
    groups = {}
    for r in runs:
        if r.get('result'):
            groups.setdefault((r['engine'], r['phase'], r['data']), []).append(r['result'])
    out = {}
    for key, results in groups.items():
        def med(field):
            vals = [x[field] for x in results if isinstance(x.get(field), (int, float))]
            return statistics.median(vals) if vals else None
        s = {'n': len(results), 'seconds': med('seconds'),
             'min_s': min(x['seconds'] for x in results), 'max_s': max(x['seconds'] for x in results),
             'peak_rss_mb': med('peak_rss_mb'), 'cpu_s': med('cpu_s'), 'plan_s': med('plan_s'),
             'open_s': med('open_s'), 'rows': results[0].get('rows')}
        pcs = [x['per_commit_s'] for x in results if x.get('per_commit_s')]
        if pcs:
            s['per_commit_s'] = [round(statistics.median(c), 4) for c in zip(*pcs)]
        out[key] = s
    return out


def data_files(work, writer):
    """(count, bytes) of the data files in the last warehouse `writer` wrote."""
    root = os.path.join(work, writer)
    n = size = 0
    for d, _, files in os.walk(root):
        if os.path.basename(d).startswith('bucket-') or writer.startswith('raw'):
            for f in files:
                if f.endswith('.parquet'):
                    n += 1
                    size += os.path.getsize(os.path.join(d, f))
    return (n, size) if n else None


def fmt(x, digits=3):
    return '–' if x is None else ('%.*f' % (digits, x))


def ratio(a, b):
    return None if a is None or b in (None, 0) else a / b


def compute_ratios(get, stat):
    """strata's `stat` (median `seconds` or best `min_s`) divided by the others', per phase."""
    out = {}
    for phase in PHASES:
        def sec(engine):
            s = get(engine, phase)
            return s and s[stat]
        strata = sec('strata')
        floor = sec('raw-parquet')
        # The write floor is single-threaded already.
        floor1 = sec('raw-parquet-1t') or (floor if phase == 'write' else None)
        out[phase] = {'strata_s': strata,
                      'vs_raw': ratio(strata, floor),
                      'vs_raw_1t': ratio(strata, floor1),
                      'vs_pypaimon_rust': ratio(strata, sec('pypaimon-rust')),
                      'vs_pypaimon': ratio(strata, sec('pypaimon')),
                      'strata_1t_vs_raw_1t': ratio(sec('strata-1t'), floor1)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--runs', required=True)
    ap.add_argument('--expected', required=True)
    ap.add_argument('--work', help='run.sh work directory (for data-file sizes)')
    ap.add_argument('--json', help='write the summary here')
    a = ap.parse_args()
    with open(a.expected) as f:
        expected = json.load(f)
    runs = load_runs(a.runs)
    problems = [p for r in runs for p in check(r, expected)]
    med = summarise(runs)

    def get(engine, phase, data=None):
        own = engine[:-3] if engine.endswith('-1t') else engine
        return med.get((engine, phase, data or own))

    lines = ['## Append workload: %s rows in %d commits, median of %d runs' % (
        format(expected['rows'], ','), expected['commits'], max((s['n'] for s in med.values()), default=0)), '',
        '| phase | engine | median s | min–max s | per commit s | plan s | CPU s | peak RSS MB | rows |',
        '|---|---|---|---|---|---|---|---|---|']
    for phase in PHASES:
        for engine in ENGINE_ORDER:
            s = get(engine, phase)
            if not s:
                continue
            pc = '/'.join(fmt(x, 3) for x in s['per_commit_s']) if s.get('per_commit_s') else ''
            lines.append('| %s | %s | **%s** | %s–%s | %s | %s | %s | %s | %s |' % (
                phase, engine, fmt(s['seconds']), fmt(s['min_s']), fmt(s['max_s']), pc, fmt(s['plan_s']),
                fmt(s['cpu_s'], 2), fmt(s['peak_rss_mb'], 0), format(s['rows'], ',') if s['rows'] is not None else '–'))

    ratios = {stat: compute_ratios(get, stat) for stat in ('seconds', 'min_s')}
    for stat, title in (('seconds', 'medians'), ('min_s', 'best of %d runs (least disturbed by other load)' % (
            max((s['n'] for s in med.values()), default=0)))):
        lines += ['', '### Ratios of %s (strata ÷ other; < 1 means strata is faster)' % title, '',
                  '| phase | strata s | ÷ raw floor (2 threads) | ÷ raw floor (1 thread) | ÷ pypaimon-rust |'
                  ' ÷ pypaimon | strata-1t ÷ raw 1t |',
                  '|---|---|---|---|---|---|---|']
        for phase in PHASES:
            r = ratios[stat][phase]
            lines.append('| %s | %s | %s | %s | %s | %s | %s |' % (
                phase, fmt(r['strata_s']), fmt(r['vs_raw'], 2), fmt(r['vs_raw_1t'], 2),
                fmt(r['vs_pypaimon_rust'], 2), fmt(r['vs_pypaimon'], 2), fmt(r['strata_1t_vs_raw_1t'], 2)))

    targets = []
    for phase in ('write', 'read'):
        r, b = ratios['seconds'][phase], ratios['min_s'][phase]
        if r['vs_raw'] is not None:
            targets.append('%s within %.1fx of the raw floor: %s (median %.2fx, best %.2fx)' % (
                phase, TARGET_VS_FLOOR, 'PASS' if r['vs_raw'] <= TARGET_VS_FLOOR else 'MISS', r['vs_raw'],
                b['vs_raw']))
        if r['vs_pypaimon_rust'] is not None:
            targets.append('%s faster than pypaimon-rust: %s (median %.2fx, best %.2fx)' % (
                phase, 'PASS' if r['vs_pypaimon_rust'] < 1 else 'MISS', r['vs_pypaimon_rust'],
                b['vs_pypaimon_rust']))
    lines += [''] + ['* target: %s' % t for t in targets]

    lines += ['', '### Cross reads: median s (reader ↓, table written by →)', '',
              '| reader | phase | ' + ' | '.join(WRITERS) + ' |', '|---|---|' + '---|' * len(WRITERS)]
    for reader in ['strata', 'pypaimon-rust', 'pypaimon']:
        for phase in ('read', 'filter'):
            cells = [fmt((med.get((reader, phase, w)) or {}).get('seconds')) for w in WRITERS]
            lines.append('| %s | %s | %s |' % (reader, phase, ' | '.join(cells)))

    sizes = {}
    if a.work:
        for w in WRITERS + ['raw-parquet']:
            fs = data_files(a.work, w)
            if fs:
                sizes[w] = {'files': fs[0], 'bytes': fs[1]}
        if sizes:
            lines += ['', '### Data files written (last run)', '', '| writer | files | MB |', '|---|---|---|']
            lines += ['| %s | %d | %.1f |' % (w, s['files'], s['bytes'] / 1e6) for w, s in sizes.items()]

    lines += ['', 'Checks against expected.json (rows; reads also sum(v_int), count(distinct id)): %s' % (
        'all %d phase runs agree' % len(runs) if not problems else '%d PROBLEMS' % len(problems))]
    print('\n'.join(lines))
    for p in problems:
        print('ERROR: ' + p, file=sys.stderr)

    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        summary = {'rows': expected['rows'], 'commits': expected['commits'],
                   'medians': [dict(engine=e, phase=p, data=d, **s) for (e, p, d), s in sorted(med.items())],
                   'ratios': ratios, 'targets': targets, 'data_files': sizes, 'problems': problems, 'runs': runs}
        with open(a.json, 'w') as f:
            json.dump(summary, f, indent=1)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
