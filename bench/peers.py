#!/usr/bin/env python3
"""One benchmark phase of a peer engine (pypaimon or pypaimon-rust) on the append or PK table.

  peers.py write  --engine E --wh W --data DIR [--table T]   # create the table, 4 commits
  peers.py read   --engine E --wh W [--table T]              # full scan into one pyarrow Table
  peers.py filter --engine E --wh W [--table T]              # scan with `id < 1000`

T is `append` (default: bench.append_t, bucket -1) or `pk` (bench.pk_t, primary key id,
bucket 1, Paimon defaults otherwise: deduplicate merge engine; a read is a merge-on-read).

E is `pypaimon` (pure Python, 2.1.0) or `pypaimon-rust` (0.4.0).  Each call is meant to run in a
fresh process (bench/run.sh does that) and prints one JSON line
  {"engine", "phase", "seconds", "rows", "peak_rss_mb", ...}
with the same meaning as strata-bench's:
  write  - the commit files are loaded into memory first (not timed); `seconds` covers the
           commits (get_table, writer, write, prepare_commit, commit) and `per_commit_s` each one;
           pypaimon gets each commit as one Arrow table, pypaimon-rust as 65,536-row batches.
  read / filter - `seconds` covers plan + read into memory; `open_s` (import, catalog,
           get_table) is reported apart; `sum_v_int` and `distinct_ids` (computed after the
           timer) let bench/report.py check that every engine returns the same rows.
`cpu_s` is the process's user + system CPU time over the timed region (all threads);
`peak_rss_mb` is the process's maximum resident set size.  Both engines share one table layout,
so the table is always created with pypaimon (pypaimon-rust's catalog cannot create tables).
"""
import argparse
import json
import os
import resource
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

DB = 'bench'
TABLES = {'append': 'bench.append_t', 'pk': 'bench.pk_t'}
TABLE = TABLES['append']  # set from --table in main()
FILTER_BOUND = 1000
RUST_BATCH_ROWS = 65536


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def cpu_s():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def load_commits(data_dir):
    with open(os.path.join(data_dir, 'expected.json')) as f:
        files = json.load(f)['files']
    return [pq.read_table(os.path.join(data_dir, name)) for name in files]


def open_table(engine, wh):
    if engine == 'pypaimon':
        from pypaimon import CatalogFactory
        return CatalogFactory.create({'warehouse': wh}).get_table(TABLE)
    from pypaimon_rust.datafusion import PaimonCatalog
    return PaimonCatalog({'warehouse': wh}).get_table(TABLE)


def write_one(engine, wh, cat, data):
    if engine == 'pypaimon':
        t = cat.get_table(TABLE)
    else:
        t = open_table(engine, wh)
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    c = wb.new_commit()
    if engine == 'pypaimon':
        w.write_arrow(data)
    else:
        for b in data.to_batches(max_chunksize=RUST_BATCH_ROWS):
            w.write_arrow(b)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def phase_write(a, wh):
    from pypaimon import CatalogFactory, Schema
    commits = load_commits(a.data)  # not timed
    cat = CatalogFactory.create({'warehouse': wh})
    cat.create_database(DB, True)
    if a.table == 'pk':
        schema = Schema.from_pyarrow_schema(commits[0].schema, primary_keys=['id'], options={'bucket': '1'})
    else:
        schema = Schema.from_pyarrow_schema(commits[0].schema, options={'bucket': '-1'})
    cat.create_table(TABLE, schema, False)
    if a.engine == 'pypaimon-rust':
        import pypaimon_rust.datafusion  # noqa: F401  (import outside the timer)
    per_commit = []
    cpu0 = cpu_s()
    for data in commits:
        t0 = time.perf_counter()
        write_one(a.engine, wh, cat, data)
        per_commit.append(time.perf_counter() - t0)
    return {'seconds': round(sum(per_commit), 4), 'rows': sum(t.num_rows for t in commits),
            'per_commit_s': [round(s, 4) for s in per_commit], 'cpu_s': round(cpu_s() - cpu0, 3)}


def phase_read(a, wh, filtered):
    t_open = time.perf_counter()
    t = open_table(a.engine, wh)
    cpu0 = cpu_s()
    t0 = time.perf_counter()
    rb = t.new_read_builder()
    if a.engine == 'pypaimon':
        if filtered:
            rb = rb.with_filter(rb.new_predicate_builder().less_than('id', FILTER_BOUND))
        splits = rb.new_scan().plan().splits()
        plan_s = time.perf_counter() - t0
        out = rb.new_read().to_arrow(splits)
    else:
        if filtered:
            rb = rb.with_filter({'method': 'lessThan', 'field': 'id', 'literals': [FILTER_BOUND]})
        splits = rb.new_scan().plan().splits()
        plan_s = time.perf_counter() - t0
        batches = rb.new_read().read(splits)
        out = pa.Table.from_batches(batches) if batches else None
    dt = time.perf_counter() - t0
    cpu = cpu_s() - cpu0
    res = {'seconds': round(dt, 4), 'plan_s': round(plan_s, 4), 'open_s': round(t0 - t_open, 4),
           'cpu_s': round(cpu, 3),
           'rows': 0 if out is None else out.num_rows, 'sum_v_int': 0, 'distinct_ids': 0}
    if out is not None and out.num_rows:
        res['sum_v_int'] = pc.sum(out.column('v_int').cast(pa.int64())).as_py()
        res['distinct_ids'] = pc.count_distinct(out.column('id')).as_py()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('phase', choices=['write', 'read', 'filter'])
    ap.add_argument('--engine', choices=['pypaimon', 'pypaimon-rust'], required=True)
    ap.add_argument('--wh', required=True, help='warehouse directory')
    ap.add_argument('--table', choices=sorted(TABLES), default='append')
    ap.add_argument('--data', help='gen_data.py output directory (write only)')
    ap.add_argument('--label', help='extra "data" field copied into the output (e.g. the writer)')
    a = ap.parse_args()
    global TABLE
    TABLE = TABLES[a.table]
    wh = os.path.abspath(a.wh)  # pypaimon-rust rejects relative warehouse paths
    if a.phase == 'write':
        if not a.data:
            sys.exit('peers.py write needs --data')
        res = phase_write(a, wh)
    else:
        res = phase_read(a, wh, a.phase == 'filter')
    out = {'engine': a.engine, 'phase': a.phase, 'table': a.table}
    out.update(res)
    out['peak_rss_mb'] = peak_rss_mb()
    if a.label:
        out['data'] = a.label
    print(json.dumps(out), flush=True)


if __name__ == '__main__':
    main()
