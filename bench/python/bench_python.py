#!/usr/bin/env python3
"""The Python package benchmark: strata (`import strata`, the release wheel) against pypaimon
2.1.0 (pure Python) and pypaimon-rust 0.4.0, in-process, on the 2M-row peer workload.

    bash bench/python.sh [--runs 3] [--rows 2000000] [--phases ...] [--engines ...]

Workload (bench/gen_data.py, the append and primary-key workloads of BENCHMARKS.md):
`id BIGINT NOT NULL, v_long BIGINT, v_double DOUBLE, v_str STRING, v_int INT`, 4 commits of
rows/4 rows; commits 1-3 insert fresh ids, commit 4 repeats every third earlier id. The map
table (generated here, deterministic): `id BIGINT NOT NULL, m MAP<STRING, INT>`, rows rows,
each row 1-7 keys of `a0`..`a19` plus, in half the rows, key `k`; values uniform in [0, 1000).

Phases (each engine, each run, every phase in a fresh subprocess):
  write_append   create `bench.append_t` (bucket -1; not timed), then 4 commits, each from
                 an in-memory pyarrow table (loaded before the timer)
  write_pk       the same into `bench.pk_t` (primary key id, bucket 1): the 4th commit updates
                 a third of the ids
  read_pk        plan + read the PK table this engine just wrote into one pyarrow table
                 (merge-on-read: 1.5M live rows of 2M)
  filter_pk      the same with `id < 1000`
  read_append    plan + read the append table into one pyarrow table (2M rows)
  filter_append  the same with `id < 1000`
  map_key        `SELECT id, m['k'] WHERE m['k'] > 900` on the map table (written once per
                 invocation by strata with its default layout, not timed): strata projects and
                 filters the MAP key (`columns=["id", "m['k']"], where="m['k'] > 900"`);
                 pypaimon projects `m['k']` with its own MAP-key projection (it cannot filter on
                 it) and filters in pyarrow; pypaimon-rust has no MAP-key projection: it reads
                 the whole map and extracts the key with `pyarrow.compute.map_lookup`, then
                 filters
Timed: the work inside the process (the table is opened before the timer; imports, input
loading and table creation are outside). Memory: the subprocess's peak RSS
(`resource.getrusage(RUSAGE_SELF).ru_maxrss`), which includes the interpreter, the engine's
import and, for writes, the input tables held in memory (the same for every engine).
Every read is checked against bench/gen_data.py's expected.json (rows, sum(v_int), distinct ids)
and the map answers; a mismatch is reported in the table.

pypaimon's optional native paths (`read.native.enabled`, `write.native.enabled`,
`commit.native.enabled`, which route through pypaimon-rust) stay at their default, off: pypaimon
is measured as pure Python.

Output: a markdown table (medians over --runs; ratios = peer s ÷ strata s, so 10x means strata is
ten times faster; peak RSS = max over runs) printed and written to
OUT/python-<timestamp>.md, raw measurements to OUT/python-<timestamp>.json.
"""
import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ENGINES = ['strata', 'pypaimon', 'pypaimon-rust']
PHASES = ['write_append', 'write_pk', 'read_pk', 'filter_pk', 'read_append', 'filter_append', 'map_key']
TABLES = {'append': 'bench.append_t', 'pk': 'bench.pk_t'}
MAP_TABLE = 'bench.map_t'
FILTER_BOUND = 1000
MAP_KEY, MAP_THRESHOLD = 'k', 900
RUST_BATCH_ROWS = 65536  # pypaimon-rust's write_arrow takes record batches (as in bench/peers.py)
LABELS = {
    'write_append': 'append write (4 commits)',
    'write_pk': 'PK write (4 commits, 4th updates 1/3)',
    'read_pk': 'PK full read (merge-on-read)',
    'filter_pk': 'PK read `id < 1000`',
    'read_append': 'append full read',
    'filter_append': 'append read `id < 1000`',
    'map_key': "map key read `m['k'] > 900` *",
}


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def vm_hwm_mb():
    """/proc/self/status VmHWM (this exec's own peak; a cross-check of ru_maxrss)."""
    try:
        with open('/proc/self/status') as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return round(int(line.split()[1]) / 1024.0, 1)
    except OSError:
        pass
    return None


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------

def ensure_data(rows, data_dir):
    """bench/gen_data.py's commits + expected.json, and the map table's Parquet + answers."""
    subprocess.run([sys.executable, os.path.join(ROOT, 'bench', 'gen_data.py'), '--rows', str(rows),
                    '--out', data_dir], check=True)
    map_json = os.path.join(data_dir, 'map.json')
    if os.path.exists(map_json):
        with open(map_json) as f:
            if json.load(f).get('rows') == rows:
                return
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    rng = np.random.default_rng(7)
    n = rows
    other = rng.integers(1, 8, n)              # keys a<j> per row
    start = rng.integers(0, 20, n)
    has_k = rng.random(n) < 0.5
    per_row = other + has_k
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(per_row, out=offsets[1:])
    total = int(offsets[-1])
    codes = np.empty(total, dtype=np.int32)
    codes[offsets[:-1][has_k]] = 20            # 'k' first when present
    row_of = np.repeat(np.arange(n), other)
    other_off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(other, out=other_off[1:])
    j = np.arange(int(other_off[-1])) - np.repeat(other_off[:-1], other)
    codes[offsets[:-1][row_of] + has_k[row_of] + j] = (start[row_of] + j) % 20
    keys = pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(['a%d' % i for i in range(20)] + [MAP_KEY]))
    keys = keys.cast(pa.string())
    values = pa.array(rng.integers(0, 1000, total, dtype=np.int32))
    m = pa.MapArray.from_arrays(pa.array(offsets.astype(np.int32)), keys, values)
    t = pa.table({'id': pa.array(np.arange(n, dtype=np.int64)), 'm': m},
                 schema=pa.schema([pa.field('id', pa.int64(), nullable=False),
                                   pa.field('m', pa.map_(pa.string(), pa.int32()))]))
    pq.write_table(t, os.path.join(data_dir, 'map.parquet'), compression='none')
    kv = pc.map_lookup(m, pa.scalar(MAP_KEY), 'first')
    sel = pc.filter(kv, pc.greater(kv, MAP_THRESHOLD))
    answers = {'rows': rows, 'entries': total, 'query_rows': len(sel),
               'query_sum': int(pc.sum(sel.cast(pa.int64())).as_py() or 0)}
    with open(map_json, 'w') as f:
        json.dump(answers, f)


def load_commits(data_dir):
    import pyarrow.parquet as pq
    with open(os.path.join(data_dir, 'expected.json')) as f:
        files = json.load(f)['files']
    return [pq.read_table(os.path.join(data_dir, name)) for name in files]


# --------------------------------------------------------------------------------------------
# engines (run in the child process)
# --------------------------------------------------------------------------------------------

class Strata:
    def __init__(self, wh):
        import strata
        self.catalog = strata.Catalog(wh)

    def create(self, name, schema, pk):
        self.catalog.create_database('bench', ignore_if_exists=True)
        opts = {'bucket': '1'} if pk else {'bucket': '-1'}
        self.catalog.create_table(name, schema, primary_keys=['id'] if pk else None, options=opts)

    def write(self, name, commits):
        t = self.catalog.get_table(name)
        for data in commits:
            t.write(data, progress=False)

    def open(self, name):
        return self.catalog.get_table(name)

    def read(self, t, filtered):
        return t.read(where='id < %d' % FILTER_BOUND if filtered else None, progress=False)

    def map_key(self, t):
        out = t.read(columns=['id', "m['%s']" % MAP_KEY], where="m['%s'] > %d" % (MAP_KEY, MAP_THRESHOLD),
                     progress=False)
        return out.column(1)


class Pypaimon:
    def __init__(self, wh):
        from pypaimon import CatalogFactory
        self.catalog = CatalogFactory.create({'warehouse': wh})

    def create(self, name, schema, pk):
        from pypaimon import Schema
        self.catalog.create_database('bench', True)
        if pk:
            s = Schema.from_pyarrow_schema(schema, primary_keys=['id'], options={'bucket': '1'})
        else:
            s = Schema.from_pyarrow_schema(schema, options={'bucket': '-1'})
        self.catalog.create_table(name, s, False)

    def write(self, name, commits):
        for data in commits:
            t = self.catalog.get_table(name)
            wb = t.new_batch_write_builder()
            w, c = wb.new_write(), wb.new_commit()
            w.write_arrow(data)
            c.commit(w.prepare_commit())
            w.close()
            c.close()

    def open(self, name):
        return self.catalog.get_table(name)

    def read(self, t, filtered):
        rb = t.new_read_builder()
        if filtered:
            rb = rb.with_filter(rb.new_predicate_builder().less_than('id', FILTER_BOUND))
        splits = rb.new_scan().plan().splits()
        return rb.new_read().to_arrow(splits)

    def map_key(self, t):
        import pyarrow as pa
        import pyarrow.compute as pc
        rb = t.new_read_builder().with_projection(['id', "m['%s']" % MAP_KEY])
        out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
        v = out.column(1)
        return pc.filter(v, pc.greater(v, pa.scalar(MAP_THRESHOLD, v.type)))


class PypaimonRust:
    def __init__(self, wh):
        from pypaimon_rust.datafusion import PaimonCatalog
        self.catalog = PaimonCatalog({'warehouse': wh})
        self.wh = wh

    def create(self, name, schema, pk):
        Pypaimon(self.wh).create(name, schema, pk)  # pypaimon-rust's catalog cannot create tables

    def write(self, name, commits):
        for data in commits:
            t = self.catalog.get_table(name)
            wb = t.new_batch_write_builder()
            w, c = wb.new_write(), wb.new_commit()
            for b in data.to_batches(max_chunksize=RUST_BATCH_ROWS):
                w.write_arrow(b)
            c.commit(w.prepare_commit())
            w.close()
            c.close()

    def open(self, name):
        return self.catalog.get_table(name)

    def _read(self, rb):
        import pyarrow as pa
        batches = rb.new_read().read(rb.new_scan().plan().splits())
        return pa.Table.from_batches(batches) if batches else None

    def read(self, t, filtered):
        rb = t.new_read_builder()
        if filtered:
            rb = rb.with_filter({'method': 'lessThan', 'field': 'id', 'literals': [FILTER_BOUND]})
        return self._read(rb)

    def map_key(self, t):
        import pyarrow as pa
        import pyarrow.compute as pc
        out = self._read(t.new_read_builder().with_projection(['id', 'm']))
        v = pc.map_lookup(out.column('m'), pa.scalar(MAP_KEY), 'first')
        return pc.filter(v, pc.greater(v, pa.scalar(MAP_THRESHOLD, v.type)))


ENGINE_CLASSES = {'strata': Strata, 'pypaimon': Pypaimon, 'pypaimon-rust': PypaimonRust}


def digest(out):
    import pyarrow as pa
    import pyarrow.compute as pc
    if out is None or out.num_rows == 0:
        return {'rows': 0, 'sum_v_int': 0, 'distinct_ids': 0}
    return {'rows': out.num_rows,
            'sum_v_int': pc.sum(out.column('v_int').cast(pa.int64())).as_py(),
            'distinct_ids': pc.count_distinct(out.column('id')).as_py()}


def child(engine, phase, wh, data_dir, map_wh):
    """One (engine, phase) measurement; returns the JSON-able result."""
    import pyarrow as pa  # noqa: F401  (imported before the timer, as every engine needs it)
    if phase.startswith('write_'):
        kind = phase.split('_', 1)[1]
        commits = load_commits(data_dir)  # not timed
        e = ENGINE_CLASSES[engine](wh)
        e.create(TABLES[kind], commits[0].schema, pk=(kind == 'pk'))
        t0 = time.perf_counter()
        e.write(TABLES[kind], commits)
        dt = time.perf_counter() - t0
        return {'seconds': dt, 'rows': sum(c.num_rows for c in commits)}
    if phase == 'map_key':
        e = ENGINE_CLASSES[engine](map_wh)
        t = e.open(MAP_TABLE)
        t0 = time.perf_counter()
        v = e.map_key(t)
        dt = time.perf_counter() - t0
        import pyarrow as pa
        import pyarrow.compute as pc
        return {'seconds': dt, 'rows': len(v),
                'check': {'query_rows': len(v), 'query_sum': int(pc.sum(v.cast(pa.int64())).as_py() or 0)}}
    what, kind = phase.split('_', 1)
    e = ENGINE_CLASSES[engine](wh)
    t = e.open(TABLES[kind])
    t0 = time.perf_counter()
    out = e.read(t, what == 'filter')
    dt = time.perf_counter() - t0
    d = digest(out)
    return {'seconds': dt, 'rows': d['rows'], 'check': d}


def expected_check(phase, data_dir):
    with open(os.path.join(data_dir, 'expected.json')) as f:
        exp = json.load(f)
    if phase == 'map_key':
        with open(os.path.join(data_dir, 'map.json')) as f:
            m = json.load(f)
        return {'query_rows': m['query_rows'], 'query_sum': m['query_sum']}
    what, kind = phase.split('_', 1)
    e = exp['pk'][what] if kind == 'pk' else exp[what]
    return {'rows': e['rows'], 'sum_v_int': e['sum_v_int'], 'distinct_ids': e['distinct_ids']}


def write_map_table(map_wh, data_dir):
    """The map table, written once by strata (default MAP layout), read by every engine."""
    import pyarrow.parquet as pq
    import strata
    t = pq.read_table(os.path.join(data_dir, 'map.parquet'))
    c = strata.Catalog(map_wh)
    c.create_database('bench', ignore_if_exists=True)
    tbl = c.create_table(MAP_TABLE, t.schema, options={'bucket': '-1'})
    tbl.write(t, progress=False)


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------

def run_child(args, engine, phase, wh, map_wh, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), '--child', engine, phase, '--wh', wh,
           '--map-wh', map_wh, '--data-dir', args.data_dir]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    last = [l for l in p.stdout.splitlines() if l.startswith('{')]
    if p.returncode != 0 or not last:
        err = (p.stderr.strip().splitlines() or ['no output'])[-1]
        return {'error': err[:300]}
    return json.loads(last[-1])


def fmt_s(x):
    return '–' if x is None else ('%.3f' % x if x < 10 else '%.1f' % x)


def fmt_ratio(x):
    return '–' if x is None else ('%.1fx' % x if x >= 10 else '%.2fx' % x)


def report(args, results, meta):
    def cell(engine, phase):
        rs = [r for r in results if r['engine'] == engine and r['phase'] == phase]
        ok = [r for r in rs if 'error' not in r]
        if not ok:
            errs = [r['error'] for r in rs if 'error' in r]
            return None, None, (errs[0] if errs else 'not run'), None
        med = statistics.median(r['seconds'] for r in ok)
        rss = max(r['peak_rss_mb'] for r in ok)
        bad = [r for r in ok if r.get('check_ok') is False]
        return med, rss, ('wrong result: %s' % bad[0]['check'] if bad else None), ok[0].get('rows')

    lines = []
    lines.append('| phase | strata s | pypaimon s | pypaimon-rust s | pypaimon ÷ strata | pypaimon-rust ÷ strata '
                 '| strata peak RSS MB | pypaimon peak RSS MB | pypaimon-rust peak RSS MB | rows |')
    lines.append('|---|---|---|---|---|---|---|---|---|---|')
    goals = []
    problems = []
    for phase in args.phases:
        c = {e: cell(e, phase) for e in ENGINES}
        s = c['strata'][0]

        def ratio(e):
            return None if s is None or c[e][0] is None or s == 0 else c[e][0] / s

        for e in args.engines:
            if c[e][2]:
                problems.append('%s / %s: %s' % (LABELS[phase], e, c[e][2]))
        rows = next((c[e][3] for e in ENGINES if c[e][3] is not None), None)
        lines.append('| %s | **%s** | %s | %s | %s | %s | **%s** | %s | %s | %s |' % (
            LABELS[phase], fmt_s(c['strata'][0]), fmt_s(c['pypaimon'][0]), fmt_s(c['pypaimon-rust'][0]),
            fmt_ratio(ratio('pypaimon')), fmt_ratio(ratio('pypaimon-rust')),
            c['strata'][1] if c['strata'][1] is not None else '–',
            c['pypaimon'][1] if c['pypaimon'][1] is not None else '–',
            c['pypaimon-rust'][1] if c['pypaimon-rust'][1] is not None else '–',
            '{:,}'.format(rows) if rows is not None else '–'))
        rp, rr = ratio('pypaimon'), ratio('pypaimon-rust')
        mem = [c[e][1] for e in ENGINES]
        goals.append((phase, rp, rr, mem))
    out = []
    out.append('strata %s, %s, %d run(s) (medians; peak RSS = max over runs), rows=%s, load before: %s, '
               'Python %s, %s' % (meta['strata_commit'], meta['started'], args.runs, '{:,}'.format(args.rows),
                                  meta['load_before'], meta['python'], meta['machine']))
    out.append('')
    out.extend(lines)
    out.append('')
    out.append("\\* map key read: strata projects and filters `m['k']` in the engine; pypaimon uses its "
               "`m['k']` projection (no filter on it) and filters in pyarrow; pypaimon-rust reads the whole "
               "map and extracts the key in Python (`pyarrow.compute.map_lookup`), then filters.")
    out.append('')
    out.append('Goals (every phase: ≥ 10x pypaimon, ≥ 2x pypaimon-rust, lower peak RSS than both):')
    out.append('')
    out.append('| phase | ≥ 10x pypaimon | ≥ 2x pypaimon-rust | lower peak RSS than both |')
    out.append('|---|---|---|---|')
    for phase, rp, rr, mem in goals:
        def mark(r, target):
            if r is None:
                return 'n/a'
            return ('met (%s)' if r >= target else 'missed (%s)') % fmt_ratio(r)
        if None in mem:
            m = 'n/a'
        else:
            m = ('met (%s vs %s / %s MB)' if mem[0] < min(mem[1:]) else 'missed (%s vs %s / %s MB)') % tuple(mem)
        out.append('| %s | %s | %s | %s |' % (LABELS[phase], mark(rp, 10), mark(rr, 2), m))
    if problems:
        out.append('')
        out.append('Problems:')
        out.extend('* ' + p for p in problems)
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rows', type=int, default=2_000_000)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--engines', nargs='+', default=ENGINES, choices=ENGINES)
    ap.add_argument('--phases', nargs='+', default=PHASES, choices=PHASES)
    ap.add_argument('--work-dir', default=os.path.join(ROOT, '.cache', 'bench-python'))
    ap.add_argument('--data-dir', default=None, help='default: WORK_DIR/data-ROWS')
    ap.add_argument('--out-dir', default=os.path.join(ROOT, 'bench', 'results'))
    ap.add_argument('--timeout', type=int, default=1800, help='seconds per measurement')
    ap.add_argument('--child', nargs=2, metavar=('ENGINE', 'PHASE'), help=argparse.SUPPRESS)
    ap.add_argument('--gen-data', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('--wh', help=argparse.SUPPRESS)
    ap.add_argument('--map-wh', help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.data_dir = args.data_dir or os.path.join(args.work_dir, 'data-%d' % args.rows)

    if args.gen_data:
        ensure_data(args.rows, args.data_dir)
        return
    if args.child:
        engine, phase = args.child
        res = child(engine, phase, args.wh, args.data_dir, args.map_wh)
        res.update({'engine': engine, 'phase': phase, 'peak_rss_mb': peak_rss_mb(), 'vm_hwm_mb': vm_hwm_mb()})
        print(json.dumps(res), flush=True)
        return

    os.makedirs(args.work_dir, exist_ok=True)
    # The driver never imports numpy / pyarrow and stays small: Linux carries a process's peak
    # RSS over fork + exec into the child's ru_maxrss, so a big driver would inflate every
    # child's figure. Data generation runs in its own process for that reason.
    subprocess.run([sys.executable, os.path.abspath(__file__), '--gen-data', '--rows', str(args.rows),
                    '--data-dir', args.data_dir], check=True)
    runs_dir = os.path.join(args.work_dir, 'runs')
    shutil.rmtree(runs_dir, ignore_errors=True)
    map_wh = os.path.join(runs_dir, 'map-wh')
    if 'map_key' in args.phases:
        subprocess.run([sys.executable, '-c',
                        'import sys; sys.path.insert(0, %r); import bench_python as b; b.write_map_table(%r, %r)'
                        % (HERE, map_wh, args.data_dir)], check=True)
    try:
        commit = subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'], capture_output=True,
                                text=True).stdout.strip()
        dirty = subprocess.run(['git', '-C', ROOT, 'status', '--porcelain', '--untracked-files=no'],
                               capture_output=True, text=True).stdout.strip()
        commit += '+dirty' if dirty else ''
    except OSError:
        commit = 'unknown'
    meta = {'strata_commit': commit, 'started': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'),
            'load_before': ' '.join('%.2f' % x for x in os.getloadavg()), 'python': platform.python_version(),
            'machine': '%d CPUs' % os.cpu_count(), 'rows': args.rows, 'runs': args.runs}
    results = []
    for r in range(args.runs):
        engines = args.engines[r % len(args.engines):] + args.engines[:r % len(args.engines)]
        for phase in args.phases:
            for engine in engines:
                wh = os.path.join(runs_dir, 'run-%d' % r, engine)
                os.makedirs(wh, exist_ok=True)
                res = run_child(args, engine, phase, wh, map_wh, args.timeout)
                res.update({'engine': engine, 'phase': phase, 'run': r + 1})
                if 'check' in res:
                    want = expected_check(phase, args.data_dir)
                    res['check_ok'] = res['check'] == want
                    if not res['check_ok']:
                        res['want'] = want
                results.append(res)
                print('run %d %-14s %-14s %s' % (r + 1, phase, engine,
                      res.get('error') or '%.3f s, %s MB%s' % (res['seconds'], res['peak_rss_mb'],
                                                               '' if res.get('check_ok', True) else ' WRONG RESULT')),
                      file=sys.stderr, flush=True)
    meta['load_after'] = ' '.join('%.2f' % x for x in os.getloadavg())
    md = report(args, results, meta)
    os.makedirs(args.out_dir, exist_ok=True)
    stamp = datetime.datetime.now().strftime('%Y%m%d-%H%M%S')
    base = os.path.join(args.out_dir, 'python-%s' % stamp)
    with open(base + '.md', 'w') as f:
        f.write(md)
    with open(base + '.json', 'w') as f:
        json.dump({'meta': meta, 'results': results}, f, indent=1)
    print(md)
    print('results: %s.md, %s.json' % (base, base), file=sys.stderr)


if __name__ == '__main__':
    main()
