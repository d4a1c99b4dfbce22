#!/usr/bin/env python3
"""The peer side of the MAP shared-shredding benchmark (bench/map_shredding.sh): the benchmark
query `SELECT metrics['usage'] WHERE metrics['usage'] > 30` through pypaimon-rust 0.4.0
(`pypaimon_rust.datafusion.PaimonCatalog`) on a table strata wrote.

  map_peer.py query --wh W [--table bench.map_t] [--key usage] [--threshold 30] [--repeat K]
  map_peer.py full  --wh W [--table bench.map_t] [--repeat K]

pypaimon-rust has no MAP-key pushdown, so `query` reads the projection `metrics` (pypaimon-rust
reconstructs the logical map from a shared-shredding file) and filters in pyarrow:
`pc.map_lookup(metrics, key, 'first') > threshold`. `full` reads `id, metrics` (no filter).

Timed per repeat: `new_read_builder()` + projection + `new_scan().plan().splits()` + `read()` +
(query) the pyarrow lookup and filter, on a table opened once per process (`open_s`: catalog +
`get_table`, not in the repeat times). Prints one JSON line: `first_s` (repeat 1, what a fresh
process pays after opening the table), `median_s` / `min_s` over all repeats, `times_s`, and the
digests of the last repeat (`rows`; query: `query_rows`, `query_cents` = Σ round(100·value) of
the selected values; full: `entries`, `cents`), `peak_rss_mb`. On an error: `{"error": ...}`
and exit 1.
"""
import argparse
import json
import os
import resource
import statistics
import sys
import time


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def read_arrow(table, columns):
    import pyarrow as pa
    rb = table.new_read_builder().with_projection(list(columns))
    splits = rb.new_scan().plan().splits()
    batches = rb.new_read().read(splits)
    if not batches:
        return None
    return pa.Table.from_batches(batches)


def cents_sum(arr):
    import pyarrow.compute as pc
    if len(arr) == 0:
        return 0
    s = pc.sum(pc.cast(pc.round(pc.multiply(arr, 100.0)), 'int64'))
    return int(s.as_py() or 0)


def run_query(table, key, threshold):
    import pyarrow as pa
    import pyarrow.compute as pc
    t = read_arrow(table, ['metrics'])
    if t is None:
        return {'rows': 0, 'query_rows': 0, 'query_cents': 0}
    metrics = t.column('metrics')
    key_type = metrics.type.key_type
    values = pc.map_lookup(metrics, pa.scalar(key, type=key_type), 'first')
    selected = pc.filter(values, pc.greater(values, threshold))
    return {'rows': t.num_rows, 'query_rows': len(selected), 'query_cents': cents_sum(selected)}


def run_full(table):
    import pyarrow as pa
    t = read_arrow(table, ['id', 'metrics'])
    if t is None:
        return {'rows': 0, 'entries': 0, 'cents': 0}
    metrics = t.column('metrics')
    parts = []
    for c in metrics.chunks:  # the values of every entry, NULL maps contribute none
        lo, hi = c.offsets[0].as_py(), c.offsets[-1].as_py()
        parts.append(c.items.slice(lo, hi - lo))
    items = pa.chunked_array(parts, type=metrics.type.item_type)
    entries = len(items)
    return {'rows': t.num_rows, 'entries': entries, 'cents': cents_sum(items)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('mode', choices=['query', 'full'])
    ap.add_argument('--wh', required=True)
    ap.add_argument('--table', default='bench.map_t')
    ap.add_argument('--key', default='usage')
    ap.add_argument('--threshold', type=float, default=30.0)
    ap.add_argument('--repeat', type=int, default=1)
    a = ap.parse_args()
    out = {'engine': 'pypaimon-rust', 'phase': a.mode, 'table': a.table}
    try:
        from pypaimon_rust.datafusion import PaimonCatalog
        t0 = time.perf_counter()
        table = PaimonCatalog({'warehouse': os.path.abspath(a.wh)}).get_table(a.table)
        out['open_s'] = round(time.perf_counter() - t0, 4)
        times = []
        res = None
        for _ in range(max(a.repeat, 1)):
            t = time.perf_counter()
            res = run_query(table, a.key, a.threshold) if a.mode == 'query' else run_full(table)
            times.append(time.perf_counter() - t)
        out.update({'first_s': round(times[0], 4), 'median_s': round(statistics.median(times), 4),
                    'min_s': round(min(times), 4), 'times_s': [round(x, 4) for x in times]})
        out.update(res)
    except Exception as e:  # noqa: BLE001 - the harness records the failure and goes on
        out['error'] = f'{type(e).__name__}: {e}'.splitlines()[0][:500]
        out['peak_rss_mb'] = peak_rss_mb()
        print(json.dumps(out), flush=True)
        sys.exit(1)
    out['peak_rss_mb'] = peak_rss_mb()
    print(json.dumps(out), flush=True)


if __name__ == '__main__':
    main()
