#!/usr/bin/env python3
"""Summarises a bench/run.sh run: medians per (engine, phase, data), ratios, correctness checks.

  report.py --runs FILE.jsonl --expected DATA/expected.json [--work WORK] [--mem-rows M] [--json OUT]

FILE.jsonl has one line per phase process, written by run.sh:
  {"run": r, "workload": "append"|"pk"|"compact", "engine": E, "phase": P, "data": WRITER,
   "result": {...phase JSON...} | null, "error": ...}
where WRITER is the engine whose warehouse a read used (for writes: the engine itself; for the PK
raw floor: strata, whose data files it scans).  Lines without "workload" are append runs.
Engines: strata (and strata-1t), pypaimon-rust, pypaimon, java-paimon (Java Paimon, timed warm
inside its JVM: its `seconds` exclude JVM start and warm-up, which the Java timing section lists
with the cold first iteration) and the raw floors; java-paimon is optional (run.sh --no-java).

Prints Markdown per workload present (main table on each engine's own data, ratio table, targets,
cross-read matrix; for PK also the memory test) and writes the medians, ratios and raw runs to
--json.  Exits 1, after printing, when a phase failed or any result disagrees with expected.json
(row counts; for reads also sum(v_int) and count(distinct id); PK reads against the live rows,
the PK raw floor against the distinct ids, the memory test's read-back against what its write
generated), so a wrong-but-fast engine can never pass silently.

The compaction workload ("compact"; data = pk, upgrade or the write-amplification configuration)
is checked too: the full compaction must output the live rows and the read after it must match
expected.json's PK answers, the raw rewrite must read every physical row, every
write-amplification run must read back the last value of every key, and the upgrade-only
compaction must upgrade without writing anything.
"""
import argparse
import json
import os
import statistics
import sys

ENGINE_ORDER = ['raw-parquet', 'raw-parquet-1t', 'strata', 'strata-1t', 'pypaimon-rust', 'pypaimon', 'java-paimon']
PHASES = ['write', 'read', 'filter']
# Writers (and readers) of the cross-read matrix; the tables list those present in the runs.
WRITERS = ['strata', 'pypaimon-rust', 'pypaimon', 'java-paimon']
JAVA = 'java-paimon'
TARGET_VS_FLOOR = 1.3
# PK targets (the PK workload issue).
PK_WRITE_SPEEDUP_VS_RUST = 1.5   # strata PK write throughput >= 1.5x pypaimon-rust's
PK_READ_SPEEDUP_VS_RUST = 2.0    # full read >= 2x pypaimon-rust
PK_PEAK_RSS_MB = 600             # strata write / read / filter
PK_READ_VS_RAW_SCAN = 1.5        # full read within 1.5x of the raw scan of the same files
PK_MEM_TEST_RSS_MB = 400         # 20M rows into one bucket, write-buffer-size 64mb
PK_ENGINE_ORDER = ['raw-parquet', 'raw-parquet-1t', 'strata', 'strata-1t', 'pypaimon-rust', 'pypaimon', 'java-paimon']
# The performance issue's goals: >= 2x pypaimon-rust on every phase of both workloads; append
# write and read within 1.3x of the raw floor, PK write and merge read within 1.6x; the PK write's
# peak RSS at the default write-buffer-size at most 300 MB.
GOAL_SPEEDUP_VS_RUST = 2.0
GOAL_APPEND_VS_FLOOR = 1.3
GOAL_PK_VS_FLOOR = 1.6
GOAL_PK_WRITE_RSS_MB = 300
# Compaction targets (the compaction issue).
COMPACT_REWRITE_VS_FLOOR = 1.5   # full-compaction rewrite throughput within 1.5x of the raw floor
WA_CONFIGS = ['ratio-0.7', 'ratio-0.05', 'rewrite-all']


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


def workload(run):
    return run.get('workload', 'append')


def check(run, expected):
    """Problems of one phase result against expected.json (memory-test phases: see check_mem)."""
    res = run.get('result')
    wl = workload(run)
    if not res:
        return ['%s %s %s (data %s, run %s) failed: %s' % (
            wl, run.get('engine'), run.get('phase'), run.get('data'), run.get('run'), run.get('error', 'no result'))]
    phase = run['phase']
    if phase.startswith('mem-'):
        return []
    if wl == 'compact':
        return ['compact %s %s (data %s, run %s): %s' % (run['engine'], phase, run['data'], run['run'], p)
                for p in check_compact(run, expected)]
    if wl == 'pk':
        if 'pk' not in expected:
            return ['expected.json has no pk answers (rerun bench/gen_data.py)']
        if run['engine'].startswith('raw-parquet'):
            # The floor reads every physical row of the live files, no merge: all live ids must
            # be there, and at least as many rows as are live.
            live = expected['pk']['read']
            out = []
            if res.get('distinct_ids') != live['distinct_ids']:
                out.append('distinct_ids = %s, expected %s' % (res.get('distinct_ids'), live['distinct_ids']))
            if not isinstance(res.get('rows'), int) or res['rows'] < live['rows']:
                out.append('rows = %s, expected at least %s' % (res.get('rows'), live['rows']))
            return ['pk %s %s (data %s, run %s): %s' % (run['engine'], phase, run['data'], run['run'], p)
                    for p in out]
        want = {'rows': expected['rows']} if phase == 'write' else expected['pk'][phase]
    else:
        want = {'rows': expected['rows']} if phase == 'write' else expected[phase]
    return ['%s %s %s (data %s, run %s): %s = %s, expected %s' % (
        wl, run['engine'], phase, run['data'], run['run'], k, res.get(k), v)
            for k, v in want.items() if k in ('rows', 'sum_v_int', 'distinct_ids') and res.get(k) != v]


def check_compact(run, expected):
    """Problems of one compaction-workload phase result."""
    res, phase = run['result'], run['phase']
    pk = expected.get('pk')
    if pk is None:
        return ['expected.json has no pk answers (rerun bench/gen_data.py)']
    out = []

    def want(key, value):
        if res.get(key) != value:
            out.append('%s = %s, expected %s' % (key, res.get(key), value))

    if phase == 'write-l0':
        want('rows', expected['rows'])
    elif phase == 'rewrite':
        want('input_rows', expected['rows'])
        want('rows', pk['read']['rows'])
    elif phase == 'compact-full':
        want('output_rows', pk['read']['rows'])
        want('input_rows', expected['rows'])
    elif phase == 'read':
        for k in ('rows', 'sum_v_int', 'distinct_ids'):
            want(k, pk['read'][k])
    elif phase == 'wa':
        if res.get('check') is not True:
            out.append('read back rows %s / sum(v_int) %s / distinct ids %s, expected %s / %s / %s' % (
                res.get('rows'), res.get('sum_v_int'), res.get('distinct_ids'), res.get('expected_rows'),
                res.get('expected_sum_v_int'), res.get('expected_rows')))
    elif phase == 'upgrade-write':
        if not res.get('files') or res.get('levels', {}).keys() != {'0'}:
            out.append('expected level-0 files only, got %s' % json.dumps(res.get('levels')))
    elif phase == 'compact-upgrade':
        if res.get('upgrade_only') is not True:
            out.append('not upgrade-only: upgraded_files %s, rewrites %s, output_bytes %s' % (
                res.get('upgraded_files'), res.get('rewrites'), res.get('output_bytes')))
        if res.get('output_rows') != res.get('input_rows'):
            out.append('output_rows %s != input_rows %s' % (res.get('output_rows'), res.get('input_rows')))
    return out


def check_mem(runs, mem_rows):
    """The memory test: each run's read-back digest must equal what its write generated."""
    problems = []
    by_run = {}
    for r in runs:
        if workload(r) == 'pk' and r.get('phase', '').startswith('mem-') and r.get('result'):
            by_run.setdefault(r['run'], {})[r['phase']] = r['result']
    for run, ph in sorted(by_run.items()):
        w, rd = ph.get('mem-write'), ph.get('mem-read')
        if w and mem_rows and w.get('rows') != mem_rows:
            problems.append('pk mem-write (run %s): rows = %s, expected %s' % (run, w.get('rows'), mem_rows))
        if w and rd:
            for k in ('rows', 'sum_v_int', 'distinct_ids'):
                if rd.get(k) != w.get(k):
                    problems.append('pk mem-read (run %s): %s = %s, but mem-write generated %s' % (
                        run, k, rd.get(k), w.get(k)))
        if rd and rd.get('ids_out_of_range'):
            problems.append('pk mem-read (run %s): %s ids outside 0..rows' % (run, rd['ids_out_of_range']))
    return problems


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
             'open_s': med('open_s'), 'gen_s': med('gen_s'), 'rows': results[0].get('rows'),
             # java-paimon only: the cold first iteration, JVM start, warm-up and process wall time
             'cold_s': med('cold_s'), 'jvm_start_s': med('jvm_start_s'), 'warmup_s': med('warmup_s'),
             'process_s': med('process_s'), 'load_s': med('load_s'), 'warmup': results[0].get('warmup'),
             'iterations': results[0].get('iterations'),
             'max_peak_rss_mb': max((x['peak_rss_mb'] for x in results
                                     if isinstance(x.get('peak_rss_mb'), (int, float))), default=None)}
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
                      'vs_java_paimon': ratio(strata, sec(JAVA)),
                      'strata_1t_vs_raw_1t': ratio(sec('strata-1t'), floor1)}
    return out


def n_runs(med):
    return max((s['n'] for s in med.values()), default=0)


def phase_row(phase, engine, s, label=None):
    pc = '/'.join(fmt(x, 3) for x in s['per_commit_s']) if s.get('per_commit_s') else ''
    return '| %s | %s | **%s** | %s–%s | %s | %s | %s | %s | %s |' % (
        phase, label or engine, fmt(s['seconds']), fmt(s['min_s']), fmt(s['max_s']), pc, fmt(s['plan_s']),
        fmt(s['cpu_s'], 2), fmt(s['peak_rss_mb'], 0), format(s['rows'], ',') if s['rows'] is not None else '–')


MAIN_HEADER = ['| phase | engine | median s | min–max s | per commit s | plan s | CPU s | peak RSS MB | rows |',
               '|---|---|---|---|---|---|---|---|---|']


def present_writers(med):
    """The engines of WRITERS that wrote in these runs (java-paimon is optional)."""
    return [w for w in WRITERS if (w, 'write', w) in med]


def cross_reads(med):
    writers = present_writers(med)
    lines = ['| reader | phase | ' + ' | '.join(writers) + ' |', '|---|---|' + '---|' * len(writers)]
    for reader in writers:
        for phase in ('read', 'filter'):
            cells = [fmt((med.get((reader, phase, w)) or {}).get('seconds')) for w in writers]
            lines.append('| %s | %s | %s |' % (reader, phase, ' | '.join(cells)))
    return lines


def java_timing(med, title):
    """java-paimon's warm (reported) vs cold (first iteration) in-JVM times, on its own data."""
    rows = [(ph, med.get((JAVA, ph, JAVA))) for ph in PHASES]
    rows = [(ph, s) for ph, s in rows if s]
    if not rows:
        return []
    s0 = rows[0][1]
    lines = ['', '### %s: java-paimon in-JVM timing, warm vs cold (median over runs; %s untimed warm-up '
                 'iteration(s), then %s timed)' % (title, s0.get('warmup'), s0.get('iterations')), '',
             '| phase | warm s (reported) | cold s (first iteration) | cold ÷ warm | JVM start s | warm-up s (all '
             'iterations) | input load s | whole process s | peak RSS MB |',
             '|---|---|---|---|---|---|---|---|---|']
    for ph, s in rows:
        lines.append('| %s | **%s** | %s | %s | %s | %s | %s | %s | %s |' % (
            ph, fmt(s['seconds']), fmt(s['cold_s']), fmt(ratio(s['cold_s'], s['seconds']), 1),
            fmt(s['jvm_start_s'], 2), fmt(s['warmup_s'], 2), fmt(s['load_s'], 2), fmt(s['process_s'], 2),
            fmt(s['peak_rss_mb'], 0)))
    return lines


def file_sizes(work, writers):
    sizes = {}
    if work:
        for w in writers:
            fs = data_files(work, w)
            if fs:
                sizes[w] = {'files': fs[0], 'bytes': fs[1]}
    lines = []
    if sizes:
        lines = ['', '### Data files written (last run)', '', '| writer | files | MB |', '|---|---|---|']
        lines += ['| %s | %d | %.1f |' % (w, s['files'], s['bytes'] / 1e6) for w, s in sizes.items()]
    return sizes, lines


def append_report(runs, expected, work):
    med = summarise(runs)

    def get(engine, phase, data=None):
        own = engine[:-3] if engine.endswith('-1t') else engine
        return med.get((engine, phase, data or own))

    lines = ['## Append workload: %s rows in %d commits, median of %d runs' % (
        format(expected['rows'], ','), expected['commits'], n_runs(med)), ''] + MAIN_HEADER
    for phase in PHASES:
        for engine in ENGINE_ORDER:
            s = get(engine, phase)
            if s:
                lines.append(phase_row(phase, engine, s))

    ratios = {stat: compute_ratios(get, stat) for stat in ('seconds', 'min_s')}
    for stat, title in (('seconds', 'medians'), ('min_s', 'best of %d runs (least disturbed by other load)' % (
            n_runs(med)))):
        lines += ['', '### Ratios of %s (strata ÷ other; < 1 means strata is faster)' % title, '',
                  '| phase | strata s | ÷ raw floor (2 threads) | ÷ raw floor (1 thread) | ÷ pypaimon-rust |'
                  ' ÷ pypaimon | ÷ Java Paimon (warm) | strata-1t ÷ raw 1t |',
                  '|---|---|---|---|---|---|---|---|']
        for phase in PHASES:
            r = ratios[stat][phase]
            lines.append('| %s | %s | %s | %s | %s | %s | %s | %s |' % (
                phase, fmt(r['strata_s']), fmt(r['vs_raw'], 2), fmt(r['vs_raw_1t'], 2),
                fmt(r['vs_pypaimon_rust'], 2), fmt(r['vs_pypaimon'], 2), fmt(r['vs_java_paimon'], 2),
                fmt(r['strata_1t_vs_raw_1t'], 2)))

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
    lines += java_timing(med, 'Append')
    lines += ['', '### Cross reads: median s (reader ↓, table written by →)', ''] + cross_reads(med)
    sizes, size_lines = file_sizes(work, WRITERS + ['raw-parquet'])
    lines += size_lines
    summary = {'rows': expected['rows'], 'commits': expected['commits'],
               'medians': [dict(engine=e, phase=p, data=d, **s) for (e, p, d), s in sorted(med.items())],
               'ratios': ratios, 'targets': targets, 'data_files': sizes}
    return lines, summary


def pk_report(runs, expected, work, mem_rows):
    med = summarise(runs)

    def get(engine, phase, data=None):
        # The raw floor scans strata's files; strata-1t reads strata's table.
        own = 'strata' if engine.startswith(('raw-parquet', 'strata')) else engine
        return med.get((engine, phase, data or own))

    def sec(engine, phase, stat):
        s = get(engine, phase)
        return s and s[stat]

    live = expected.get('pk', {}).get('read', {}).get('rows')
    lines = ['## Primary-key workload: %s rows in %d commits (%s live rows; PK id, bucket 1), median of %d runs' % (
        format(expected['rows'], ','), expected['commits'], format(live, ',') if live else '?', n_runs(med)),
        '', 'raw-parquet = the live data files of strata\'s PK table read with arrow-rs, all columns, no merge '
        '(every physical row); strata-1t = strata on a single-threaded runtime.', ''] + MAIN_HEADER
    for phase in PHASES:
        for engine in PK_ENGINE_ORDER:
            s = get(engine, phase)
            if s:
                label = engine + (' (floor, no merge)' if engine.startswith('raw-parquet') else '')
                lines.append(phase_row(phase, engine, s, label))

    ratios = {}
    for stat in ('seconds', 'min_s'):
        ratios[stat] = {}
        for phase in PHASES:
            strata = sec('strata', phase, stat)
            ratios[stat][phase] = {
                'strata_s': strata,
                'speedup_vs_pypaimon_rust': ratio(sec('pypaimon-rust', phase, stat), strata),
                'speedup_vs_pypaimon': ratio(sec('pypaimon', phase, stat), strata),
                'speedup_vs_java_paimon': ratio(sec(JAVA, phase, stat), strata),
                'vs_raw_scan': ratio(strata, sec('raw-parquet', phase, stat)) if phase == 'read' else None,
                'vs_raw_scan_1t': ratio(strata, sec('raw-parquet-1t', phase, stat)) if phase == 'read' else None,
                'strata_1t_vs_raw_1t': (ratio(sec('strata-1t', phase, stat), sec('raw-parquet-1t', phase, stat))
                                        if phase == 'read' else None)}
    for stat, title in (('seconds', 'medians'), ('min_s', 'best of %d runs' % n_runs(med))):
        lines += ['', '### PK ratios of %s' % title, '',
                  '| phase | strata s | speed-up vs pypaimon-rust (its s ÷ strata s) | speed-up vs pypaimon |'
                  ' speed-up vs Java Paimon (warm; its s ÷ strata s) |'
                  ' strata ÷ raw scan (2 threads) | strata ÷ raw scan (1 thread) | strata-1t ÷ raw 1t |',
                  '|---|---|---|---|---|---|---|---|']
        for phase in PHASES:
            r = ratios[stat][phase]
            lines.append('| %s | %s | %s | %s | %s | %s | %s | %s |' % (
                phase, fmt(r['strata_s']), fmt(r['speedup_vs_pypaimon_rust'], 2), fmt(r['speedup_vs_pypaimon'], 2),
                fmt(r['speedup_vs_java_paimon'], 2), fmt(r['vs_raw_scan'], 2), fmt(r['vs_raw_scan_1t'], 2),
                fmt(r['strata_1t_vs_raw_1t'], 2)))

    # The memory test.
    mw, mr = get('strata', 'mem-write'), get('strata', 'mem-read')
    if mw or mr:
        lines += ['', '### PK memory test: %s rows into one bucket, write-buffer-size 64mb, one commit (strata), '
                      'median of %d runs' % (format(mem_rows, ',') if mem_rows else '?', (mw or mr)['n']), '',
                  '| phase | median s | min–max s | input generation s (not in median) | CPU s | peak RSS MB median'
                  ' / max | rows | rows/s |', '|---|---|---|---|---|---|---|---|']
        for name, s in (('mem-write', mw), ('mem-read', mr)):
            if s:
                rate = s['rows'] / s['seconds'] if s['rows'] and s['seconds'] else None
                lines.append('| %s | **%s** | %s–%s | %s | %s | %s / %s | %s | %s |' % (
                    name, fmt(s['seconds']), fmt(s['min_s']), fmt(s['max_s']), fmt(s['gen_s']),
                    fmt(s['cpu_s'], 2), fmt(s['peak_rss_mb'], 0), fmt(s['max_peak_rss_mb'], 0),
                    format(s['rows'], ',') if s['rows'] is not None else '–',
                    format(int(rate), ',') if rate else '–'))

    def verdict(ok):
        return 'PASS' if ok else 'MISS'

    targets = []
    m, b = ratios['seconds'], ratios['min_s']
    for phase, want, what in (('write', PK_WRITE_SPEEDUP_VS_RUST, 'write throughput'),
                              ('read', PK_READ_SPEEDUP_VS_RUST, 'full read')):
        x = m[phase]['speedup_vs_pypaimon_rust']
        targets.append('%s >= %.1fx pypaimon-rust: %s' % (what, want, 'not measured' if x is None else (
            '%s (median %.2fx, best %.2fx)' % (verdict(x >= want), x, b[phase]['speedup_vs_pypaimon_rust']))))
    rss = {ph: (get('strata', ph) or {}).get('max_peak_rss_mb') for ph in PHASES}
    if any(v is None for v in rss.values()):
        targets.append('strata peak RSS < %d MB: not measured (%s missing)' % (
            PK_PEAK_RSS_MB, ', '.join(ph for ph, v in rss.items() if v is None)))
    else:
        targets.append('strata peak RSS < %d MB: %s (max over runs: write %.0f, read %.0f, filter %.0f MB)' % (
            PK_PEAK_RSS_MB, verdict(max(rss.values()) < PK_PEAK_RSS_MB), rss['write'], rss['read'], rss['filter']))
    x = m['read']['vs_raw_scan']
    targets.append('full read within %.1fx of the raw scan: %s' % (PK_READ_VS_RAW_SCAN, 'not measured' if x is None else (
        '%s (median %.2fx, best %.2fx)' % (verdict(x <= PK_READ_VS_RAW_SCAN), x, b['read']['vs_raw_scan']))))
    x = mw and mw['max_peak_rss_mb']
    targets.append('memory test peak RSS < %d MB: %s' % (PK_MEM_TEST_RSS_MB, 'not measured' if x is None else (
        '%s (max over runs %.0f MB, median %.0f MB)' % (verdict(x < PK_MEM_TEST_RSS_MB), x, mw['peak_rss_mb']))))
    lines += [''] + ['* PK target: %s' % t for t in targets]
    lines += java_timing(med, 'PK')
    lines += ['', '### PK cross reads: median s (reader ↓, table written by →)', ''] + cross_reads(med)
    sizes, size_lines = file_sizes(os.path.join(work, 'pk') if work else None, WRITERS)
    lines += size_lines
    summary = {'rows': expected['rows'], 'commits': expected['commits'], 'mem_rows': mem_rows,
               'medians': [dict(engine=e, phase=p, data=d, **s) for (e, p, d), s in sorted(med.items())],
               'ratios': ratios, 'targets': targets, 'data_files': sizes}
    return lines, summary


def compact_report(runs, expected):
    """The compaction workload: rewrite throughput vs the floor, write amplification, upgrade-only."""
    groups = {}
    for r in runs:
        if r.get('result'):
            groups.setdefault((r['engine'], r['phase'], r['data']), []).append(r['result'])

    def results(engine, phase, data):
        return groups.get((engine, phase, data), [])

    def med(rs, field):
        vals = [x[field] for x in rs if isinstance(x.get(field), (int, float)) and not isinstance(x.get(field), bool)]
        return statistics.median(vals) if vals else None

    def best(rs, field):
        vals = [x[field] for x in rs if isinstance(x.get(field), (int, float))]
        return min(vals) if vals else None

    def mb(b):
        return None if b is None else b / 1e6

    n = max((len(v) for v in groups.values()), default=0)
    summary = {}
    lines = ['## Compaction workload (strata; median of %d runs)' % n, '']

    # (1) Rewrite throughput.
    full = results('strata', 'compact-full', 'pk')
    raw2 = results('raw-parquet', 'rewrite', 'pk')
    raw1 = results('raw-parquet-1t', 'rewrite', 'pk')
    wl0 = results('strata', 'write-l0', 'pk')
    rd = results('strata', 'read', 'pk')
    lines += ['### Full compaction of the PK data (%s rows in %d level-0 runs, write-only) vs the raw rewrite floor' % (
        format(expected['rows'], ','), expected['commits']), '',
        '| phase | engine | median s | min–max s | input MB | MB/s of input (median) | CPU s | peak RSS MB | rows written |',
        '|---|---|---|---|---|---|---|---|---|']
    rows = [('compact-full', 'strata', full, 'rewritten_input_bytes'),
            ('rewrite', 'raw-parquet (floor: read ∥ write, 2 threads)', raw2, 'input_bytes'),
            ('rewrite', 'raw-parquet-1t (floor: 1 thread)', raw1, 'input_bytes')]
    for phase, label, rs, inb in rows:
        if not rs:
            continue
        s = med(rs, 'seconds')
        b = med(rs, inb)
        lines.append('| %s | %s | **%s** | %s–%s | %s | %s | %s | %s | %s |' % (
            phase, label, fmt(s), fmt(best(rs, 'seconds')), fmt(max(x['seconds'] for x in rs)), fmt(mb(b), 1),
            fmt(mb(b) / s if b and s else None, 1), fmt(med(rs, 'cpu_s'), 2), fmt(med(rs, 'peak_rss_mb'), 0),
            format(rs[0].get('rows'), ',') if rs[0].get('rows') is not None else '–'))
    extra = []
    if wl0:
        extra.append('write-only write of the input (4 commits): median %s s, peak RSS %s MB' % (
            fmt(med(wl0, 'seconds')), fmt(med(wl0, 'peak_rss_mb'), 0)))
    if full:
        f = full[0]
        extra.append('compact-full: compact() %s s + prepare-commit (the task) %s s + commit %s s; task %s s; '
                     '%s input files (%s rows) → %s output file(s) (%s MB, %s rows) at level %s; '
                     '%s rewrite(s), %s upgraded; levels before %s, after %s' % (
                         fmt(med(full, 'compact_call_s')), fmt(med(full, 'prepare_commit_s')),
                         fmt(med(full, 'commit_s')), fmt(med(full, 'task_s')), f.get('input_files'),
                         format(f.get('input_rows', 0), ','), f.get('output_files'),
                         fmt(mb(f.get('output_bytes')), 1), format(f.get('output_rows', 0), ','),
                         f.get('max_output_level'), f.get('rewrites'), f.get('upgraded_files'),
                         json.dumps(f.get('levels_before')), json.dumps(f.get('levels_after'))))
    if rd:
        extra.append('read of the compacted table (one sorted run, no merge): median %s s, %s rows' % (
            fmt(med(rd, 'seconds')), format(rd[0].get('rows', 0), ',')))
    lines += [''] + ['* ' + e for e in extra]
    ratios = {}
    for stat, fn in (('median', med), ('best', best)):
        s = fn(full, 'seconds') if full else None
        ratios[stat] = {'vs_raw_2t': ratio(s, fn(raw2, 'seconds') if raw2 else None),
                        'vs_raw_1t': ratio(s, fn(raw1, 'seconds') if raw1 else None),
                        'cpu_vs_raw_2t': ratio(fn(full, 'cpu_s') if full else None,
                                               fn(raw2, 'cpu_s') if raw2 else None)}
    lines += ['', '| strata compact-full s ÷ floor s (same input bytes) | median | best |', '|---|---|---|',
              '| ÷ raw-parquet (2 threads) | %s | %s |' % (fmt(ratios['median']['vs_raw_2t'], 2),
                                                         fmt(ratios['best']['vs_raw_2t'], 2)),
              '| ÷ raw-parquet-1t | %s | %s |' % (fmt(ratios['median']['vs_raw_1t'], 2),
                                                fmt(ratios['best']['vs_raw_1t'], 2)),
              '| CPU s ÷ raw-parquet CPU s (less sensitive to other load) | %s | %s |' % (
                  fmt(ratios['median']['cpu_vs_raw_2t'], 2), fmt(ratios['best']['cpu_vs_raw_2t'], 2))]
    targets = []
    x = ratios['median']['vs_raw_2t']
    targets.append('full-compaction rewrite throughput within %.1fx of the raw floor (2 threads): %s' % (
        COMPACT_REWRITE_VS_FLOOR, 'not measured' if x is None else '%s (median %.2fx, best %.2fx; vs the 1-thread floor %s)' % (
            'PASS' if x <= COMPACT_REWRITE_VS_FLOOR else 'MISS', x, ratios['best']['vs_raw_2t'],
            fmt(ratios['median']['vs_raw_1t'], 2) + 'x')))
    summary['rewrite'] = {'ratios': ratios}

    # (2) Write amplification: one table per key mix ("<mix>/<configuration>").
    wa_groups = {}
    for (e, p, d), rs in groups.items():
        if p == 'wa' and e == 'strata':
            mix, _, conf = d.rpartition('/')
            wa_groups.setdefault(mix or 'upsert', {})[conf] = rs
    summary['write_amplification'] = {}
    for mix in sorted(wa_groups, key=lambda m: (m != 'upsert', m)):
        confs = wa_groups[mix]
        order = [c for c in WA_CONFIGS if c in confs] + sorted(c for c in confs if c not in WA_CONFIGS)
        r0 = confs[order[0]][0]
        opts = [o for o in r0.get('options', []) if o.startswith(('bucket=', 'target-file-size='))]
        updates = r0.get('rows_per_commit', 0) - r0.get('new_rows_per_commit', 0)
        lines += ['', '### Write amplification, %s: load of %s keys, then %s commits × %s rows (%s new keys, '
                      '%s updates of Zipf(%s) ranks over %s keys, %s); %s; one TableWrite' % (
                          mix, format(r0.get('keys', 0), ','), r0.get('commits'),
                          format(r0.get('rows_per_commit', 0), ','), format(r0.get('new_rows_per_commit', 0), ','),
                          format(updates, ','), r0.get('zipf'), format(r0.get('hot_keys', 0), ','),
                          'hot keys scattered over the key range' if r0.get('layout') == 'scattered'
                          else 'the newest keys hottest', ', '.join(opts)), '',
                  '| configuration | ingested MB (load + commits) | rewritten MB | write amplification | '
                  'upgraded MB (files) | tasks / rewrites | live files, MB | files per level | '
                  'max sorted runs | commits s | commit p50 / p95 / max s | CPU s | peak RSS MB |',
                  '|---|---|---|---|---|---|---|---|---|---|---|---|---|']
        for c in order:
            rs = confs[c]
            r = rs[0]
            levels = ' '.join('L%s:%s' % (lv, v['files']) for lv, v in sorted(r.get('levels', {}).items(),
                                                                              key=lambda kv: int(kv[0])))
            lines.append('| %s | %s (%s + %s) | %s | **%s** | %s (%s) | %s / %s | %s, %s | %s | %s | %s | %s / %s / %s | %s | %s |' % (
                c, fmt(mb(r.get('ingested_bytes')), 1), fmt(mb(r.get('load_bytes')), 1),
                fmt(mb(r.get('stream_ingested_bytes')), 1), fmt(mb(r.get('rewritten_bytes')), 1),
                fmt(r.get('write_amplification'), 2), fmt(mb(r.get('upgraded_bytes')), 1), r.get('upgraded_files'),
                r.get('tasks'), r.get('rewrites'), r.get('live_files'), fmt(mb(r.get('live_bytes')), 1), levels,
                r.get('max_sorted_runs_per_bucket'), fmt(med(rs, 'seconds')), fmt(r.get('commit_p50_s')),
                fmt(r.get('commit_p95_s')), fmt(r.get('commit_max_s')), fmt(med(rs, 'cpu_s'), 2),
                fmt(med(rs, 'peak_rss_mb'), 0)))
            summary['write_amplification']['%s/%s' % (mix, c)] = {k: r.get(k) for k in (
                'ingested_bytes', 'load_bytes', 'stream_ingested_bytes', 'rewritten_bytes', 'write_amplification',
                'upgraded_bytes', 'upgraded_files', 'tasks', 'rewrites', 'live_files', 'live_bytes', 'levels',
                'max_sorted_runs_per_bucket', 'seconds', 'options', 'layout', 'new_rows_per_commit', 'hot_keys')}

    # (3) Upgrade-only.
    uw = results('strata', 'upgrade-write', 'upgrade')
    cu = results('strata', 'compact-upgrade', 'upgrade')
    if uw or cu:
        w = uw[0] if uw else {}
        lines += ['', '### Upgrade-only compaction: %s MB in %s key-disjoint level-0 files (target-file-size %s), '
                      'one full compaction' % (fmt(mb(w.get('bytes')), 0), w.get('files', '?'),
                                               w.get('target_file_size', '?')), '',
                  '| phase | median s | min–max s | upgraded files (MB) | rewrites | output bytes | CPU s | peak RSS MB | runs |',
                  '|---|---|---|---|---|---|---|---|---|']
        if uw:
            lines.append('| upgrade-write (input, %s rows; files %s–%s MB, small-file threshold %s MB%s) | %s | – | – '
                         '| – | %s | %s | %s | %d |' % (
                             format(w.get('rows', 0), ','), fmt(mb(w.get('min_file_bytes')), 1),
                             fmt(mb(w.get('max_file_bytes')), 1), fmt(mb(w.get('small_file_threshold_bytes')), 1),
                             '' if w.get('all_upgradable') else '; NOT all above it',
                             fmt(w.get('seconds')), format(w.get('bytes', 0), ','),
                             fmt(w.get('cpu_s'), 2), fmt(w.get('peak_rss_mb'), 0), len(uw)))
        if cu:
            c0 = cu[0]
            lines.append('| compact-upgrade (compaction + commit) | **%s** | %s–%s | %s (%s) | %s | %s | %s | %s | %d |' % (
                fmt(med(cu, 'seconds')), fmt(best(cu, 'seconds')), fmt(max(x['seconds'] for x in cu)),
                c0.get('upgraded_files'), fmt(mb(c0.get('upgraded_bytes')), 1), c0.get('rewrites'),
                c0.get('output_bytes'), fmt(med(cu, 'cpu_s'), 2), fmt(med(cu, 'peak_rss_mb'), 0), len(cu)))
            ok = all(x.get('upgrade_only') for x in cu)
            targets.append('upgrade-only compaction of %s MB is metadata-only (upgraded > 0, rewrites 0, output '
                           'bytes 0) and takes milliseconds: %s (median %s ms, max %s ms)' % (
                               fmt(mb(c0.get('input_bytes')), 0), 'PASS' if ok and med(cu, 'seconds') < 1 else 'MISS',
                               fmt(med(cu, 'seconds') * 1000, 0), fmt(max(x['seconds'] for x in cu) * 1000, 0)))
            summary['upgrade'] = {'seconds': med(cu, 'seconds'), 'upgrade_only': ok,
                                  'bytes': c0.get('input_bytes')}
    lines += [''] + ['* compaction target: %s' % t for t in targets]
    summary['targets'] = targets
    summary['medians'] = [{'engine': e, 'phase': p, 'data': d, 'n': len(rs), 'seconds': med(rs, 'seconds'),
                           'min_s': best(rs, 'seconds'), 'peak_rss_mb': med(rs, 'peak_rss_mb')}
                          for (e, p, d), rs in sorted(groups.items())]
    return lines, summary


def goals_report(append_runs, pk_runs):
    """The performance issue's goals, one line per (workload, phase), from both workloads' runs."""
    app, pk = summarise(append_runs), summarise(pk_runs)

    def get(med, engine, phase, data):
        return med.get((engine, phase, data))

    floors = {
        # (workload, phase): (summary, engine, data, goal, what)
        ('append', 'write'): (app, 'raw-parquet', 'raw-parquet', GOAL_APPEND_VS_FLOOR,
                              'arrow-rs writing the same batches'),
        ('append', 'read'): (app, 'raw-parquet', 'raw-parquet', GOAL_APPEND_VS_FLOOR,
                             'arrow-rs reading those files, 2 threads'),
        # The PK write's floor: the same input batches written as plain Parquet (no key columns,
        # no sort), i.e. the append workload's raw write.
        ('pk', 'write'): (app, 'raw-parquet', 'raw-parquet', GOAL_PK_VS_FLOOR,
                          'arrow-rs writing the same batches (append floor)'),
        ('pk', 'read'): (pk, 'raw-parquet', 'strata', GOAL_PK_VS_FLOOR,
                         'arrow-rs reading strata\'s live files, no merge, 2 threads'),
    }
    lines = ['## Goals of the performance issue (this run)', '',
             '| workload | phase | strata s | pypaimon-rust s | pypaimon s | Java Paimon s (warm) '
             '| speed-up vs pypaimon-rust | ≥ %.0fx | floor s | strata ÷ floor | floor goal |' % GOAL_SPEEDUP_VS_RUST,
             '|---|---|---|---|---|---|---|---|---|---|---|']
    met = missed = 0
    for wl, med in (('append', app), ('pk', pk)):
        for phase in PHASES:
            own = lambda e: get(med, e, phase, e)
            st, rust, py, java = own('strata'), own('pypaimon-rust'), own('pypaimon'), own(JAVA)
            if not st:
                continue
            speed = ratio(rust and rust['seconds'], st['seconds'])
            ok = speed is not None and speed >= GOAL_SPEEDUP_VS_RUST
            met, missed = (met + 1, missed) if ok else (met, missed + 1)
            floor_s = floor_ratio = None
            floor_goal = '–'
            if (wl, phase) in floors:
                fmed, fe, fd, goal, what = floors[(wl, phase)]
                f = get(fmed, fe, phase, fd)
                floor_s = f and f['seconds']
                floor_ratio = ratio(st['seconds'], floor_s)
                if floor_ratio is not None:
                    fok = floor_ratio <= goal
                    met, missed = (met + 1, missed) if fok else (met, missed + 1)
                    floor_goal = '≤ %.1fx: %s (%s)' % (goal, 'MET' if fok else 'MISSED', what)
            lines.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                wl, phase, fmt(st['seconds']), fmt(rust and rust['seconds']), fmt(py and py['seconds']),
                fmt(java and java['seconds']), fmt(speed, 2) + 'x' if speed else '–',
                'MET' if ok else 'MISSED', fmt(floor_s), fmt(floor_ratio, 2), floor_goal))
    w = get(pk, 'strata', 'write', 'strata')
    if w and w.get('max_peak_rss_mb') is not None:
        ok = w['max_peak_rss_mb'] <= GOAL_PK_WRITE_RSS_MB
        met, missed = (met + 1, missed) if ok else (met, missed + 1)
        lines += ['', '* PK write peak RSS ≤ %d MB (default write-buffer-size, input held in memory): %s '
                  '(max over runs %.0f MB)' % (GOAL_PK_WRITE_RSS_MB, 'MET' if ok else 'MISSED',
                                               w['max_peak_rss_mb'])]
    lines += ['* goals met: %d, missed: %d' % (met, missed)]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--runs', required=True)
    ap.add_argument('--expected', required=True)
    ap.add_argument('--work', help='run.sh work directory (for data-file sizes)')
    ap.add_argument('--mem-rows', type=int, help='rows the PK memory test wrote')
    ap.add_argument('--json', help='write the summary here')
    a = ap.parse_args()
    with open(a.expected) as f:
        expected = json.load(f)
    runs = load_runs(a.runs)
    problems = [p for r in runs for p in check(r, expected)] + check_mem(runs, a.mem_rows)
    append_runs = [r for r in runs if workload(r) == 'append' and 'engine' in r]
    pk_runs = [r for r in runs if workload(r) == 'pk']
    compact_runs = [r for r in runs if workload(r) == 'compact']

    lines, summary = [], {}
    if append_runs:
        ls, summary = append_report(append_runs, expected, a.work)
        lines += ls
    if pk_runs:
        ls, summary['pk'] = pk_report(pk_runs, expected, a.work, a.mem_rows)
        lines += ([''] if lines else []) + ls
    if append_runs and pk_runs:
        lines += [''] + goals_report(append_runs, pk_runs)
    if compact_runs:
        ls, summary['compact'] = compact_report(compact_runs, expected)
        lines += ([''] if lines else []) + ls

    lines += ['', 'Checks against expected.json (rows; reads also sum(v_int), count(distinct id)): %s' % (
        'all %d phase runs agree' % len(runs) if not problems else '%d PROBLEMS' % len(problems))]
    print('\n'.join(lines))
    for p in problems:
        print('ERROR: ' + p, file=sys.stderr)

    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        summary.update({'problems': problems, 'runs': runs})
        with open(a.json, 'w') as f:
            json.dump(summary, f, indent=1)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
