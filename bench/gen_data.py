#!/usr/bin/env python3
"""Generates the benchmark input (append and primary-key workloads): one Parquet file per commit,
identical for every engine.

Workload (deterministic; the definition every engine in bench/ writes):
  schema   id BIGINT NOT NULL, v_long BIGINT, v_double DOUBLE, v_str STRING, v_int INT
  commits  C commits of N = rows / C rows each; commit k draws from numpy default_rng(42 + k)
  ids      commits 0 .. C-2 insert fresh ids [k*N, (k+1)*N); the last commit repeats earlier ids
           3*i for i < N (every third earlier key); ids are shuffled within each commit
  values   v_long uniform in [-2^62, 2^62); v_double uniform in [0, 1e6); v_str = the 16 lowercase
           hex digits of a uniform int in [0, 2^63 - 1); v_int uniform in [-2^31, 2^31 - 1)
  The draws happen in that order (shuffle, v_long, v_double, v_str source, v_int).

Output in --out: commit-<k>.parquet (uncompressed, one row group) and expected.json with the
answers every engine's reads must reproduce (row counts, sum of v_int, distinct ids, and the same
for the `id < 1000` filter):
  read / filter        the append table (every row of every commit)
  pk.read / pk.filter  the primary-key table (PK id, deduplicate: the last commit's row of a key
                       wins, so the live rows are the distinct ids)
Generation is skipped when expected.json already describes the requested rows/commits (an older
expected.json without the pk answers gets them added from the existing files).
"""
import argparse
import json
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA = pa.schema([
    pa.field('id', pa.int64(), nullable=False),
    pa.field('v_long', pa.int64()),
    pa.field('v_double', pa.float64()),
    pa.field('v_str', pa.string()),
    pa.field('v_int', pa.int32()),
])
FILTER_BOUND = 1000  # the filter phase reads `id < FILTER_BOUND`


def commit_table(k, n, commits):
    """Rows of commit k (0-based) as an Arrow table."""
    rng = np.random.default_rng(42 + k)
    if k == commits - 1 and commits > 1:
        ids = np.arange(n, dtype=np.int64) * 3
    else:
        ids = np.arange(k * n, (k + 1) * n, dtype=np.int64)
    rng.shuffle(ids)
    v_long = rng.integers(-(2 ** 62), 2 ** 62, size=n, dtype=np.int64)
    v_double = rng.random(n) * 1e6
    hex_src = rng.integers(0, 2 ** 63 - 1, size=n, dtype=np.int64)
    v_int = rng.integers(-(2 ** 31), 2 ** 31 - 1, size=n, dtype=np.int32)
    v_str = pa.array([format(x, '016x') for x in hex_src.tolist()], type=pa.string())
    return pa.Table.from_arrays(
        [pa.array(ids), pa.array(v_long), pa.array(v_double), v_str, pa.array(v_int)],
        schema=SCHEMA)


def answers(ids_per_commit, v_int_per_commit):
    """expected.json's read/filter answers for the append and the primary-key table."""
    ids = np.concatenate(ids_per_commit)
    v_int = np.concatenate([v.astype(np.int64) for v in v_int_per_commit])

    def digest(i, v):
        return {'rows': int(i.size), 'sum_v_int': int(v.sum()), 'distinct_ids': int(np.unique(i).size)}

    mask = ids < FILTER_BOUND
    out = {'read': digest(ids, v_int),
           'filter': dict(predicate='id < %d' % FILTER_BOUND, **digest(ids[mask], v_int[mask]))}
    # Primary key `id`, deduplicate: the last occurrence (latest commit) of every id is live.
    _, last_rev = np.unique(ids[::-1], return_index=True)
    live = ids.size - 1 - last_rev
    live_ids, live_v = ids[live], v_int[live]
    m = live_ids < FILTER_BOUND
    out['pk'] = {'read': digest(live_ids, live_v),
                 'filter': dict(predicate='id < %d' % FILTER_BOUND, **digest(live_ids[m], live_v[m]))}
    return out


def write_expected(path, expected):
    with open(path + '.tmp', 'w') as f:
        json.dump(expected, f, indent=1)
    os.replace(path + '.tmp', path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rows', type=int, default=2_000_000, help='total rows over all commits')
    ap.add_argument('--commits', type=int, default=4)
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    if a.commits < 1 or a.rows < a.commits or a.rows % a.commits:
        sys.exit('gen_data: --rows must be a positive multiple of --commits')
    n = a.rows // a.commits
    os.makedirs(a.out, exist_ok=True)
    exp_path = os.path.join(a.out, 'expected.json')
    if os.path.exists(exp_path):
        with open(exp_path) as f:
            old = json.load(f)
        if old.get('rows') == a.rows and old.get('commits') == a.commits and all(
                os.path.exists(os.path.join(a.out, p)) for p in old.get('files', [])):
            if 'pk' not in old:
                cols = [pq.read_table(os.path.join(a.out, p), columns=['id', 'v_int']) for p in old['files']]
                old.update(answers([c.column('id').to_numpy() for c in cols],
                                   [c.column('v_int').to_numpy() for c in cols]))
                write_expected(exp_path, old)
                print('gen_data: added pk answers to %s' % exp_path, file=sys.stderr)
            print('gen_data: reusing %s' % a.out, file=sys.stderr)
            return

    files, all_ids, all_v_int = [], [], []
    for k in range(a.commits):
        t = commit_table(k, n, a.commits)
        name = 'commit-%d.parquet' % k
        pq.write_table(t, os.path.join(a.out, name), compression='none', row_group_size=n)
        files.append(name)
        all_ids.append(t.column('id').to_numpy())
        all_v_int.append(t.column('v_int').to_numpy())
    expected = {'rows': a.rows, 'commits': a.commits, 'files': files}
    expected.update(answers(all_ids, all_v_int))
    write_expected(exp_path, expected)
    print('gen_data: wrote %d x %d rows to %s' % (a.commits, n, a.out), file=sys.stderr)


if __name__ == '__main__':
    main()
