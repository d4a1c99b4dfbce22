#!/usr/bin/env python3
"""The peers' side of the scan-planning benchmark (bench/scan.sh): plan one scan of a table
(`<column> = <value>`, optionally one bucket) K times in one process and time planning only.

  scan_peer.py --engine pypaimon-rust|pypaimon --wh W --table DB.T --column dt --value V
               [--bucket B --buckets N] [--repeat K] [--snapshots FROM:TO --out F]

Planning = `new_scan()` (+ the bucket selection) + `plan()` + `splits()` on a read builder that
carries the partition filter; no data file is opened.  The table object and the read builder
are made once (not timed; `open_s`), so each repeat is what a query engine pays per query on an
already-open table.  Neither engine has a "plan only bucket B" call; both have
`TableScan.with_shard(index, count)`, which for a fixed-bucket primary-key table keeps the
splits of buckets with `bucket % count == index` — with count = the table's bucket count, exactly
bucket B.  Without --bucket the whole partition (every bucket) is planned.

Prints one JSON line: `first_ms` (the first plan of the process), `median_ms` / `min_ms` /
`max_ms` over repeats 2..K, `times_ms` (all K), and the plan of the last repeat: `splits`,
`snapshotId`, `files` (data files in the splits), `rows` (row count of the splits), `buckets` (the
buckets the splits cover).  pypaimon-rust's splits expose only `row_count()` and `serialize()`; the bucket
and file count are read from the serialized split (Java SplitSerializer v1 frame around a
DataSplit v8/v9: magic, version, snapshot id, partition, bucket, bucket path, total buckets,
before-files, before-deletion-files, data files).

With --snapshots FROM:TO (bench/scan_continuous.sh) the scan is planned once per snapshot
FROM..TO in order, each through a read builder with `scan.snapshot-id` (made untimed): what a
reader of a continuously committing table pays per new snapshot.  One JSON line per snapshot
goes to --out (`snapshot`, `ms`, `files`, `splits`, `buckets`, `snapshotId`), the summary
(`median_ms`, ...) to stdout.
"""
import argparse
import json
import os
import resource
import statistics
import struct
import sys
import time

DATA_SPLIT_MAGIC = bytes.fromhex('dec3d2302c19ec66')


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def parse_rust_split(data):
    """(bucket, number of data files) of a serialized pypaimon-rust split."""
    i = data.index(DATA_SPLIT_MAGIC) + len(DATA_SPLIT_MAGIC)
    (version,) = struct.unpack_from('>i', data, i)
    i += 4
    if version not in (8, 9):
        raise ValueError(f'unexpected DataSplit version {version}')
    i += 8  # snapshot id
    (plen,) = struct.unpack_from('>i', data, i)
    i += 4 + plen  # partition BinaryRow
    (bucket,) = struct.unpack_from('>i', data, i)
    i += 4
    (ulen,) = struct.unpack_from('>H', data, i)
    i += 2 + ulen  # bucket path (writeUTF)
    if data[i]:  # total buckets: present flag + int
        i += 4
    i += 1
    (n_before,) = struct.unpack_from('>i', data, i)
    i += 4
    for _ in range(n_before):  # before files: length-prefixed rows
        (n,) = struct.unpack_from('>i', data, i)
        i += 4 + n
    if data[i]:  # before deletion files present: not expected in this table
        raise ValueError('split has before-deletion files; parser does not handle them')
    i += 1
    (n_files,) = struct.unpack_from('>i', data, i)
    return bucket, n_files


def open_rust(wh, table, column, value, options=None):
    from pypaimon_rust.datafusion import PaimonCatalog
    t = PaimonCatalog({'warehouse': wh}).get_table(table)
    rb = t.new_read_builder(options).with_filter({'method': 'equal', 'field': column, 'literals': [value]})
    return rb


def rust_builders(wh, table, column, value):
    """A function snapshot id -> read builder of that snapshot (pypaimon-rust), one table."""
    from pypaimon_rust.datafusion import PaimonCatalog
    t = PaimonCatalog({'warehouse': wh}).get_table(table)
    pred = {'method': 'equal', 'field': column, 'literals': [value]}
    return lambda sid: t.new_read_builder({'scan.snapshot-id': str(sid)}).with_filter(pred)


def py_builders(wh, table, column, value):
    """The same for pypaimon (time travel through `Table.copy`)."""
    from pypaimon import CatalogFactory
    t = CatalogFactory.create({'warehouse': wh}).get_table(table)

    def builder(sid):
        rb = t.copy({'scan.snapshot-id': str(sid)}).new_read_builder()
        return rb.with_filter(rb.new_predicate_builder().equal(column, value))
    return builder


def run_snapshots(a, wh):
    """--snapshots: one plan per snapshot, in order."""
    first, last = (int(x) for x in a.snapshots.split(':'))
    make = (rust_builders if a.engine == 'pypaimon-rust' else py_builders)(wh, a.table, a.column, a.value)
    times = []
    with open(a.out, 'w') as out:
        for sid in range(first, last + 1):
            rb = make(sid)
            t = time.perf_counter()
            plan, splits = plan_once(rb, a.bucket, a.buckets)
            ms = (time.perf_counter() - t) * 1000.0
            times.append(ms)
            line = {'snapshot': sid, 'ms': round(ms, 3), 'snapshotId': snapshot_of(plan)}
            line.update(describe(a.engine, splits))
            out.write(json.dumps(line) + '\n')
            if (sid - first + 1) % 100 == 0:
                print(f'scan_peer: snapshot {sid} / {last}: {ms:.1f} ms', file=sys.stderr, flush=True)
    return {'engine': a.engine, 'phase': 'plan-continuous', 'bucket': a.bucket, 'from': first, 'to': last,
            'median_ms': round(statistics.median(times), 3), 'min_ms': round(min(times), 3),
            'max_ms': round(max(times), 3), 'out': a.out, 'peak_rss_mb': peak_rss_mb()}


def open_py(wh, table, column, value):
    from pypaimon import CatalogFactory
    t = CatalogFactory.create({'warehouse': wh}).get_table(table)
    rb = t.new_read_builder()
    rb = rb.with_filter(rb.new_predicate_builder().equal(column, value))
    return rb


def plan_once(rb, bucket, buckets):
    scan = rb.new_scan()
    if bucket is not None:
        scan = scan.with_shard(bucket, buckets)
    plan = scan.plan()
    return plan, plan.splits()


def snapshot_of(plan):
    sid = plan.snapshot_id
    return sid() if callable(sid) else sid


def describe(engine, splits):
    files = rows = 0
    seen = set()
    for s in splits:
        if engine == 'pypaimon-rust':
            b, n = parse_rust_split(s.serialize())
            rows += s.row_count()
        else:
            b, n = s.bucket, len(s.files)
            rows += sum(f.row_count for f in s.files)
        seen.add(b)
        files += n
    return {'splits': len(splits), 'files': files, 'rows': rows, 'buckets': sorted(seen)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--engine', choices=['pypaimon', 'pypaimon-rust'], required=True)
    ap.add_argument('--wh', required=True)
    ap.add_argument('--table', default='bench.scan_t')
    ap.add_argument('--column', default='dt')
    ap.add_argument('--value', required=True)
    ap.add_argument('--bucket', type=int)
    ap.add_argument('--buckets', type=int, help="the table's bucket count (with --bucket)")
    ap.add_argument('--repeat', type=int, default=20)
    ap.add_argument('--snapshots', help='FROM:TO: plan once per snapshot (needs --out)')
    ap.add_argument('--out', help='per-snapshot JSON lines of --snapshots')
    a = ap.parse_args()
    if a.bucket is not None and not a.buckets:
        sys.exit('scan_peer.py: --bucket needs --buckets')
    wh = os.path.abspath(a.wh)  # pypaimon-rust rejects relative warehouse paths
    if a.snapshots:
        if not a.out:
            sys.exit('scan_peer.py: --snapshots needs --out')
        print(json.dumps(run_snapshots(a, wh)), flush=True)
        return

    t0 = time.perf_counter()
    rb = (open_rust if a.engine == 'pypaimon-rust' else open_py)(wh, a.table, a.column, a.value)
    open_s = time.perf_counter() - t0
    times = []
    plan = splits = None
    for _ in range(max(a.repeat, 1)):
        t = time.perf_counter()
        plan, splits = plan_once(rb, a.bucket, a.buckets)
        times.append((time.perf_counter() - t) * 1000.0)
    rest = times[1:] or times
    out = {'engine': a.engine, 'phase': 'plan', 'scope': 'bucket' if a.bucket is not None else 'partition',
           'bucket': a.bucket, 'repeat': len(times),
           'first_ms': round(times[0], 3), 'median_ms': round(statistics.median(rest), 3),
           'min_ms': round(min(rest), 3), 'max_ms': round(max(rest), 3),
           'times_ms': [round(x, 3) for x in times], 'open_s': round(open_s, 4)}
    out['snapshotId'] = snapshot_of(plan)
    out.update(describe(a.engine, splits))
    if a.bucket is not None and out['buckets'] not in ([], [a.bucket]):
        out['error'] = f"with_shard({a.bucket}, {a.buckets}) returned buckets {out['buckets']}"
    out['peak_rss_mb'] = peak_rss_mb()
    print(json.dumps(out), flush=True)


if __name__ == '__main__':
    main()
