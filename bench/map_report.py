#!/usr/bin/env python3
"""Footers and summary of the MAP shared-shredding benchmark (bench/map_shredding.sh).

  map_report.py footers --table-dir D [--key usage]
      one JSON object describing every Parquet data file under D (a table directory): size, rows,
      row groups, leaf columns, the `metrics` field's `paimon.map.*` metadata (from the footer's
      `ARROW:schema`, as pyarrow restores it; flat footer keys as a fallback) — storage layout,
      `num-columns` (K), `max-row-width`, overflow set, field dictionary size — and the
      compressed bytes of the `metrics` column chunks: all of them, and those a reader of
      `metrics['<key>']` needs (`__field_mapping` + the `__col_i` listed for the key in
      `field-columns` + `__overflow` if the key overflowed; 0 when the key is not in the file's
      dictionary; for a default-layout file all of `metrics`), the number of exclusive columns
      (listed in `field-columns` for exactly one field id) and the Parquet footer's size
      (`footer_bytes`: the 4-byte little-endian length before the trailing `PAR1`). Plus
      `data_bytes` (Σ data files), `footer_bytes` (Σ footers) and `table_bytes` (everything
      under D: data, manifests, snapshots, schema).
  map_report.py summarize --dir RUN_DIR [--json OUT]
      reads map_shredding.sh's run files and prints the Markdown section for BENCHMARKS.md;
      writes OUT; exits 1 when a step failed or a result differs from the generated data.

Latency of the strata query: wall time of the `strata read` process, and "− startup": minus the
wall time of `strata schema` on the same table in the same round (process start, catalog and
table open), unless `read --metrics` reports its own duration (a `*Micros` / `*Millis` field),
which is then used. pypaimon-rust: in-process time of plan + read of `metrics` + the pyarrow
lookup and filter, on a table opened beforehand (`open_s` apart), and the process wall time.
Medians are over the R rounds.
"""
import argparse
import glob
import json
import os
import statistics
import sys

MAP_COL = 'metrics'
PREFIX = 'paimon.map.'
K_NUM = 'paimon.map.shared-shredding.num-columns'
K_WIDTH = 'paimon.map.shared-shredding.max-row-width'
K_LAYOUT = 'paimon.map.storage-layout'
K_OVERFLOW = 'paimon.map.shared-shredding.overflow-set'
K_FIELD_COLS = 'paimon.map.shared-shredding.field-columns'
K_DICT = 'paimon.map.shared-shredding.field-dict'
K_DICT_COMP = 'paimon.map.shared-shredding.field-dict-compression'
K_DICT_SIZE = 'paimon.map.shared-shredding.field-dict-original-size'
SHREDDED = ('lru', 'lru-java', 'plain', 'sequential')


# ---------------------------------------------------------------------------------------- footers

def _text(v):
    return v.decode('utf-8', 'replace') if isinstance(v, bytes) else str(v)


def decode_dict(raw, compression, original_size):
    """The field dictionary {key: id} from its compressed metadata bytes."""
    import pyarrow as pa
    candidates = [raw]
    try:  # Java carries the bytes in an ISO-8859-1 String; serialised as UTF-8 text
        candidates.append(raw.decode('utf-8').encode('latin-1'))
    except (UnicodeDecodeError, UnicodeEncodeError):
        pass
    comp = (compression or 'zstd').lower()
    last = None
    for data in candidates:
        try:
            if comp == 'none':
                text = data
            elif comp == 'zstd':
                text = pa.decompress(data, decompressed_size=original_size, codec='zstd', asbytes=True)
            elif comp == 'lz4':  # Paimon block: int32 LE compressed length, int32 LE original, block
                text = pa.decompress(data[8:], decompressed_size=original_size, codec='lz4_raw', asbytes=True)
            else:
                raise ValueError(f'unknown field-dict compression {comp!r}')
            return json.loads(text)
        except Exception as e:  # noqa: BLE001 - try the next encoding
            last = e
    raise ValueError(f'cannot decode the field dictionary: {last}')


def footer_size(path):
    """The Parquet footer's length: the 4-byte little-endian int before the trailing `PAR1`."""
    with open(path, 'rb') as f:
        f.seek(-8, os.SEEK_END)
        tail = f.read(8)
    if tail[4:] != b'PAR1':
        raise ValueError('no trailing PAR1 magic')
    return int.from_bytes(tail[:4], 'little')


def describe_file(path, key):
    import pyarrow.parquet as pq
    pf = pq.ParquetFile(path)
    md = pf.metadata
    rec = {'size': os.path.getsize(path), 'rows': md.num_rows, 'row_groups': md.num_row_groups,
           'leaf_columns': md.num_columns, 'footer_bytes': footer_size(path)}
    meta = {}
    try:
        field = pf.schema_arrow.field(MAP_COL)
        meta = {_text(k): v for k, v in (field.metadata or {}).items() if _text(k).startswith(PREFIX)}
    except KeyError:
        rec['error'] = f'no column {MAP_COL!r}'
    if not meta:  # fallback: flat footer keys
        meta = {_text(k): v for k, v in (md.metadata or {}).items() if _text(k).startswith(PREFIX)}
    shredded = _text(meta.get(K_LAYOUT, b'')) == 'shared-shredding'
    rec['layout'] = 'shared-shredding' if shredded else 'default'
    rec['metadata_keys'] = sorted(meta)
    if K_NUM in meta:
        rec['num_columns'] = int(_text(meta[K_NUM]))
    if K_WIDTH in meta:
        rec['max_row_width'] = int(_text(meta[K_WIDTH]))
    overflow = None
    if K_OVERFLOW in meta:
        overflow = set(json.loads(_text(meta[K_OVERFLOW])))
        rec['overflow_keys'] = len(overflow)
    field_cols = json.loads(_text(meta[K_FIELD_COLS])) if K_FIELD_COLS in meta else None
    if field_cols is not None:
        # exclusive (dedicated) columns: listed for exactly one field id
        users = {}
        for cols in field_cols.values():
            for c in set(cols):
                users[c] = users.get(c, 0) + 1
        rec['exclusive_columns'] = sum(1 for n in users.values() if n == 1)
        rec['field_columns_entries'] = len(field_cols)
    key_id = None
    if K_DICT in meta:
        rec['field_dict_bytes'] = len(meta[K_DICT])
        try:
            size = int(_text(meta.get(K_DICT_SIZE, b'0'))) or None
            d = decode_dict(meta[K_DICT], _text(meta[K_DICT_COMP]) if K_DICT_COMP in meta else None, size)
            rec['dict_keys'] = len(d)
            key_id = d.get(key)
            rec['key_in_dict'] = key_id is not None
        except Exception as e:  # noqa: BLE001 - report, keep going
            rec['dict_error'] = str(e)[:200]

    # compressed bytes per column chunk of metrics (summed over row groups)
    chunks = {}
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for c in range(rg.num_columns):
            col = rg.column(c)
            p = col.path_in_schema
            if p == MAP_COL or p.startswith(MAP_COL + '.'):
                chunks[p] = chunks.get(p, 0) + col.total_compressed_size
    rec['metrics_bytes'] = sum(chunks.values())

    def part(name):
        return sum(v for p, v in chunks.items() if p.split('.')[1:2] == [name])

    if shredded:
        rec['field_mapping_bytes'] = part('__field_mapping')
        rec['overflow_bytes'] = part('__overflow')
        if 'dict_error' in rec or field_cols is None or 'key_in_dict' not in rec:
            rec['query_bytes'] = None
        elif key_id is None:
            rec['query_bytes'] = 0
            rec['key_columns'] = []
        else:
            cols = field_cols.get(str(key_id), [])
            rec['key_columns'] = cols
            overflowed = overflow is not None and key_id in overflow
            # strata reads a key from its columns alone (no __field_mapping) when no other key
            # ever used them and the key never overflowed.
            shared = any(c in other for k, other in field_cols.items() if k != str(key_id)
                         for c in cols)
            rec['key_exclusive'] = not shared and not overflowed
            need = sum(part(f'__col_{i}') for i in cols)
            if not rec['key_exclusive']:
                need += rec['field_mapping_bytes']
            if overflowed:
                need += rec['overflow_bytes']
                rec['key_overflowed'] = True
            rec['query_bytes'] = need
    else:
        rec['query_bytes'] = rec['metrics_bytes']
    return rec


def footers(a):
    files, table_bytes = [], 0
    for root, _, names in os.walk(a.table_dir):
        for n in names:
            p = os.path.join(root, n)
            table_bytes += os.path.getsize(p)
            if n.endswith('.parquet') and not n.startswith('.'):
                rec = {'file': os.path.relpath(p, a.table_dir), 'mtime': os.path.getmtime(p)}
                try:
                    rec.update(describe_file(p, a.key))
                except Exception as e:  # noqa: BLE001
                    rec['error'] = f'{type(e).__name__}: {e}'[:300]
                files.append(rec)
    files.sort(key=lambda f: (os.path.dirname(f['file']), f['mtime'], f['file']))
    out = {'table_dir': a.table_dir, 'key': a.key, 'files': files,
           'data_bytes': sum(f.get('size', 0) for f in files),
           'footer_bytes': sum(f.get('footer_bytes', 0) for f in files), 'table_bytes': table_bytes}
    print(json.dumps(out))


# -------------------------------------------------------------------------------------- summarize

def load_json(path):
    with open(path) as f:
        return json.load(f)


def json_lines(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, errors='replace') as f:
        for line in f:
            line = line.strip()
            if line.startswith('{'):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    return out


def read_time(run_dir, name):
    """(wall seconds, exit code, max RSS MB) of one timed step, or None."""
    p = os.path.join(run_dir, name + '.time')
    if not os.path.exists(p):
        return None
    ns, rc = open(p).read().split()
    rss = None
    try:
        last = [l for l in open(os.path.join(run_dir, name + '.rusage')).read().splitlines() if l.strip()][-1]
        rss = round(int(last.split()[0]) / 1024.0, 1)
    except (OSError, IndexError, ValueError):
        pass
    return int(ns) / 1e9, int(rc), rss


def first_error(run_dir, name):
    for ext in ('.err', '.out'):
        p = os.path.join(run_dir, name + ext)
        if os.path.exists(p):
            for line in open(p, errors='replace'):
                line = line.strip()
                if line and not line.lower().startswith('command exited'):
                    if line.startswith('{'):
                        try:
                            e = json.loads(line).get('error')
                            if e:
                                return e[:200]
                        except ValueError:
                            pass
                        continue
                    return line[:200]
    return 'no output'


def rounds_of(run_dir, prefix):
    names = sorted(glob.glob(os.path.join(run_dir, prefix + '.r*.time')),
                   key=lambda p: int(p.rsplit('.r', 1)[1].split('.')[0]))
    return [os.path.basename(p)[:-len('.time')] for p in names]


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, digits=3):
    if x is None:
        return '–'
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int):
        return f'{x:,}'
    return f'{x:,.{digits}f}'


def mb(x):
    return '–' if x is None else f'{x / 1e6:,.2f} MB'


def kb(x):
    return '–' if x is None else f'{x / 1e3:,.1f} KB'


def spread(xs, digits=3):
    xs = [x for x in xs if x is not None]
    if not xs:
        return '–'
    if len(xs) == 1:
        return fmt(xs[0], digits)
    return f'{fmt(statistics.median(xs), digits)} ({fmt(min(xs), digits)}–{fmt(max(xs), digits)})'


def ratio(a, b, digits=2):
    if a is None or b is None or b == 0:
        return None
    return round(a / b, digits)


def fx(x):
    return '–' if x is None else f'{x:,.2f}x'


def query_rows(run_dir, name):
    """(rows, cents) of the strata read's jsonl output."""
    rows = cents = 0
    with open(os.path.join(run_dir, name + '.out'), errors='replace') as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            vals = list(rec.values())
            rows += 1
            if vals and isinstance(vals[0], (int, float)):
                cents += round(vals[0] * 100)
    return rows, cents


def read_metrics(run_dir, name):
    """The `read --metrics` JSON object (last JSON line on stderr having bytesRead), or None."""
    for rec in reversed(json_lines(os.path.join(run_dir, name + '.err'))):
        if 'bytesRead' in rec or 'filesRead' in rec:
            return rec
    return None


def own_seconds(m):
    """A duration of the whole read that `--metrics` reports itself (elapsed/total/duration/
    query/read + Micros, Millis or Nanos), in seconds; planning-only fields are not used."""
    if not m:
        return None
    scale = {'micros': 1e6, 'millis': 1e3, 'nanos': 1e9}
    for k, v in m.items():
        kl = k.lower()
        unit = next((u for u in scale if kl.endswith(u)), None)
        if unit is None or not isinstance(v, (int, float)) or 'plan' in kl:
            continue
        stem = kl[:-len(unit)]
        if stem in ('elapsed', 'total', 'duration', 'query', 'read', 'wall') or \
                any(stem.startswith(w) or stem.endswith(w) for w in ('elapsed', 'total', 'duration')):
            return v / scale[unit]
    return None


def summarize(a):
    d = a.dir
    meta = load_json(os.path.join(d, 'meta.json'))
    layouts = meta['layouts']
    problems, notes = [], []
    res = {'meta': meta, 'layouts': {}}

    # ---- writes and the expected answers
    expected = None
    for l in layouts:
        rec = {'write_s': [], 'write_cpu_s': [], 'write_error': None}
        for name in rounds_of(d, f'write-{l}'):
            t = read_time(d, name)
            lines = json_lines(os.path.join(d, name + '.out'))
            if t is None or t[1] != 0 or not lines:
                rec['write_error'] = first_error(d, name)
                problems.append(f'write {l}: {rec["write_error"]}')
                break
            w = lines[-1]
            rec['write_s'].append(w['seconds'])
            rec['write_cpu_s'].append(w.get('cpu_s'))
            rec['write'] = w
            digest = {k: w.get(k) for k in ('rows', 'entries', 'cents', 'usage_rows', 'query_rows', 'query_cents')}
            if expected is None:
                expected = digest
            elif digest != expected:
                problems.append(f'write {l}: generated data differs from another layout: {digest} vs {expected}')
        fp = os.path.join(d, f'footers-{l}.json')
        if os.path.exists(fp):
            rec['footers'] = load_json(fp)
        res['layouts'][l] = rec
    res['expected'] = expected

    # ---- reads
    for l in layouts:
        rec = res['layouts'][l]
        if rec.get('write_error') or 'write' not in rec:
            continue
        base, wall, net, own, mets = [], [], [], [], []
        for name in rounds_of(d, f'query-{l}'):
            t = read_time(d, name)
            r = name.rsplit('.r', 1)[1]
            if t is None or t[1] != 0:
                rec['query_error'] = first_error(d, name)
                problems.append(f'strata query {l}: {rec["query_error"]}')
                break
            bt = read_time(d, f'base-{l}.r{r}')
            b = bt[0] if bt and bt[1] == 0 else None
            m = read_metrics(d, name)
            if m is None:
                rec.setdefault('query_notes', []).append('no --metrics JSON on stderr')
            mets.append(m)
            o = own_seconds(m)
            wall.append(t[0])
            base.append(b)
            own.append(o)
            net.append(o if o is not None else (t[0] - b if b is not None else None))
            rows, cents = query_rows(d, name)
            rec['query_result'] = {'rows': rows, 'cents': cents}
            if expected and (rows, cents) != (expected['query_rows'], expected['query_cents']):
                problems.append(f'strata query {l} round {r}: {rows} rows / {cents} cents, expected '
                                f'{expected["query_rows"]} / {expected["query_cents"]}')
        if wall:
            rec.update({'query_wall_s': wall, 'base_s': base, 'query_net_s': net, 'query_own_s': own,
                        'query_metrics': mets[-1] if mets else None,
                        'query_net_kind': 'reported by --metrics' if any(o is not None for o in own)
                        else 'wall − `strata schema` wall'})
        iq = []
        for name in rounds_of(d, f'iquery-{l}'):
            t = read_time(d, name)
            lines = json_lines(os.path.join(d, name + '.out'))
            if t is None or t[1] != 0 or not lines:
                rec['iquery_error'] = first_error(d, name)
                problems.append(f'strata in-process query {l}: {rec["iquery_error"]}')
                break
            q = lines[-1]
            iq.append(q['seconds'])
            got = (q.get('query_rows'), q.get('query_cents'))
            if expected and got != (expected['query_rows'], expected['query_cents']):
                problems.append(f'strata in-process query {l}: {got} != written '
                                f'{(expected["query_rows"], expected["query_cents"])}')
        rec['iquery_s'] = iq
        # the query latency the ratios use: in process if measured, else wall − startup
        rec['query_s'] = iq if iq else rec.get('query_net_s', [])
        rec['query_s_kind'] = 'in process (map-read)' if iq else rec.get('query_net_kind')
        full = []
        for name in rounds_of(d, f'full-{l}'):
            t = read_time(d, name)
            lines = json_lines(os.path.join(d, name + '.out'))
            if t is None or t[1] != 0 or not lines:
                rec['full_error'] = first_error(d, name)
                problems.append(f'strata full read {l}: {rec["full_error"]}')
                break
            f = lines[-1]
            full.append(f['seconds'])
            got = {k: f.get(k) for k in ('rows', 'entries', 'cents', 'usage_rows', 'query_rows', 'query_cents')}
            if expected and got != expected:
                problems.append(f'strata full read {l}: digest {got} != written {expected}')
        rec['full_s'] = full
        for kind in ('query', 'full'):
            peer = []
            for name in rounds_of(d, f'peer-{kind}-{l}'):
                t = read_time(d, name)
                lines = json_lines(os.path.join(d, name + '.out'))
                p = lines[-1] if lines else {}
                if t is None or t[1] != 0 or 'error' in p or not p:
                    rec[f'peer_{kind}_error'] = p.get('error') or first_error(d, name)
                    problems.append(f'pypaimon-rust {kind} {l}: {rec[f"peer_{kind}_error"]}')
                    break
                p['wall_s'] = t[0]
                peer.append(p)
                if expected:
                    keys = ('query_rows', 'query_cents') if kind == 'query' else ('rows', 'entries', 'cents')
                    got = {k: p.get(k) for k in keys}
                    want = {k: expected[k] for k in keys}
                    if got != want:
                        problems.append(f'pypaimon-rust {kind} {l}: {got} != written {want}')
            rec[f'peer_{kind}'] = peer

    # ---- footers: did the layout apply?
    for l in layouts:
        rec = res['layouts'][l]
        files = rec.get('footers', {}).get('files', [])
        if not files:
            continue
        shredded = sum(1 for f in files if f.get('layout') == 'shared-shredding')
        rec['shredded_files'] = shredded
        if l in SHREDDED and shredded < len(files):
            problems.append(f'{l}: {len(files) - shredded} of {len(files)} data files are not in the '
                            'shared-shredding layout (option rejected or ignored by this strata)')
        if l == 'default' and shredded:
            problems.append(f'default: {shredded} data files are shared-shredding')
        for f in files:
            if 'error' in f or 'dict_error' in f:
                problems.append(f'{l}: footer of {f["file"]}: {f.get("error") or f.get("dict_error")}')

    out = render(res, problems, notes)
    print(out)
    res['problems'] = problems
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(res, f, indent=1)
    return 1 if problems else 0


def render(res, problems, notes):
    meta, L = res['meta'], res['layouts']
    layouts = meta['layouts']
    dflt = L.get('default', {})
    lines = []
    w = lines.append
    exp = res.get('expected') or {}
    w('## MAP shared-shredding (issue 6, PIP-43)')
    w('')
    w('```')
    w(meta['command'])
    w('```')
    w('')
    w(f'strata `{meta["strata_commit"]}`, {meta["date"]}, load {meta["load"]} on {meta["nproc"]} cores; '
      f'release build; medians of {meta["runs"]} rounds (min–max in parentheses), layouts interleaved '
      'within a round, every step in a fresh process.')
    w('')
    w(f'Data: {meta["rows"]:,} rows in {meta["commits"]} commits (`strata-bench map-gen`, bench/src/map_gen.rs), '
      f'`id BIGINT NOT NULL, dt STRING, metrics MAP<STRING NOT NULL, DOUBLE>`, {meta["partitions"]} `dt` partitions, '
      'append table (bucket -1); 5,000 distinct keys, 1–20 entries per row, Zipf(1.1) key popularity, '
      f'`{meta["key"]}` in ≈30% of the rows; '
      + (f'{exp.get("entries", 0):,} entries, {exp.get("usage_rows", 0):,} rows with `{meta["key"]}`, '
         f'{exp.get("query_rows", 0):,} with `{meta["key"]} > {meta["threshold"]}`. ' if exp else '')
      + 'Layouts: `default`, and `fields.metrics.map.storage-layout = shared-shredding` with '
      '`column-placement-policy` lru (Paimon\'s default) / plain / sequential, max-columns '
      + (meta['max_columns'] or 'default (256)') + '; lru, plain and sequential use strata\'s '
      'dedicated columns (`fields.metrics.map.shared-shredding.max-dedicated-columns`, default 32: a key '
      'in ≥ 20% of the sampled rows gets a column of its own, a churning tail of keys goes to '
      '`__overflow`), `lru-java` is lru with `max-dedicated-columns = 0` — Java\'s (and pypaimon-rust\'s) '
      'placement: no dedicated columns, every column shared, K by Java\'s rule.')
    w('')

    # ---- 1. query
    w(f'### 1. `SELECT metrics[\'{meta["key"]}\'] WHERE metrics[\'{meta["key"]}\'] > {meta["threshold"]}`')
    w('')
    w(f'strata: `strata read {meta["table"]} --columns "{meta["columns"]}" --where "{meta["where"]}" '
      '--metrics --format jsonl` — "wall" is that process, "− startup" subtracts the wall time of '
      '`strata schema` on the same table in the same round (process start, catalog and table open), or '
      'is the duration `--metrics` reports when it has one; "in process" is `strata-bench map-read '
      f'--columns "{meta["columns"]}" --where "{meta["where"]}"` (plan + read through the library, '
      'timed inside the process; the ratios use it when measured, else "− startup"). bytesRead and the '
      'pruning counters are `--metrics`\'s; "bytes the key needs" is the sum of the compressed column '
      'chunks holding the key according to the footers — its `__col_i`, `__field_mapping` unless those '
      'columns hold no other key and the key never overflowed, `__overflow` if it did; all of `metrics` '
      'for the default layout — without the Parquet footers, which every read also fetches (bytesRead '
      'counts them; their sizes are in "File sizes and K").')
    w('')
    w('| layout | wall s | − startup s | in process s | bytesRead | files read / skipped | '
      'row groups read / skipped | bytes the key needs (footer) | rows | default ÷ layout: bytesRead | '
      'default ÷ layout: query s |')
    w('|---|---|---|---|---|---|---|---|---|---|---|')
    d_bytes = (dflt.get('query_metrics') or {}).get('bytesRead')
    d_net = med(dflt.get('query_s', []))
    for l in layouts:
        r = L[l]
        qb = footer_sum(r, 'query_bytes')
        if r.get('write_error'):
            w(f'| {l} | write failed: `{r["write_error"]}` | | | | | | | | | |')
            continue
        iq = ('failed' if r.get('iquery_error') else spread(r.get('iquery_s', [])))
        if r.get('query_error'):
            w(f'| {l} | failed: `{r["query_error"]}` | | {iq} | | | | {mb(qb)} | | | '
              f'{fx(ratio(d_net, med(r.get("query_s", []))))} |')
            continue
        m = r.get('query_metrics') or {}
        net = med(r.get('query_s', []))
        w(f'| {l} | {spread(r.get("query_wall_s", []))} | {spread(r.get("query_net_s", []))} | {iq} | '
          f'{mb(m.get("bytesRead"))} | {fmt(m.get("filesRead"))} / {fmt(m.get("filesSkipped"))} | '
          f'{fmt(m.get("rowGroupsRead"))} / {fmt(m.get("rowGroupsSkipped"))} | {mb(qb)} | '
          f'{fmt((r.get("query_result") or {}).get("rows"))} | '
          f'{fx(ratio(d_bytes, m.get("bytesRead")))} | {fx(ratio(d_net, net))} |')
    w('')
    w('pypaimon-rust 0.4.0 (`bench/map_peer.py query`: read projection `metrics` — pypaimon-rust '
      'reconstructs the maps, it has no key pushdown — then `pc.map_lookup` + filter in pyarrow; '
      '"query" = in process, table already open):')
    w('')
    w('| table | pypaimon-rust query s | pypaimon-rust wall s | rows | strata query ÷ pypaimon-rust query | strata wall ÷ pypaimon-rust wall |')
    w('|---|---|---|---|---|---|')
    for l in layouts:
        r = L[l]
        if r.get('peer_query_error'):
            w(f'| {l} | failed: `{r["peer_query_error"]}` | | | | |')
            continue
        pq_ = r.get('peer_query') or []
        if not pq_:
            continue
        pt = [p['first_s'] for p in pq_]
        pw = [p['wall_s'] for p in pq_]
        w(f'| {l} | {spread(pt)} | {spread(pw)} | {fmt(pq_[-1].get("query_rows"))} | '
          f'{fx(ratio(med(r.get("query_s", [])), med(pt)))} | {fx(ratio(med(r.get("query_wall_s", [])), med(pw)))} |')
    w('')

    # ---- 2. write and full read
    w('### 2. Write and full-map read')
    w('')
    w(f'Write: `strata-bench map-gen`, the {meta["commits"]} commits (get_table → write → prepare_commit → '
      'commit; data generated beforehand, not timed). Full read: `strata-bench map-read --columns id,metrics` '
      '(plan + read into memory in process; digests checked against the written data). pypaimon-rust '
      'full read (`map_peer.py full`, round 1) checks that it reconstructs every map strata wrote.')
    w('')
    w('| layout | write s | write ÷ default | write CPU s | full read s | full read ÷ default | pypaimon-rust full read s |')
    w('|---|---|---|---|---|---|---|')
    dw, df_ = med(dflt.get('write_s', [])), med(dflt.get('full_s', []))
    for l in layouts:
        r = L[l]
        if r.get('write_error'):
            w(f'| {l} | failed: `{r["write_error"]}` | | | | | |')
            continue
        pf = r.get('peer_full') or []
        pfs = ('failed' if r.get('peer_full_error') else spread([p['first_s'] for p in pf]))
        full = ('failed: `' + r['full_error'] + '`') if r.get('full_error') else spread(r.get('full_s', []))
        w(f'| {l} | {spread(r["write_s"])} | {fx(ratio(med(r["write_s"]), dw))} | {spread(r["write_cpu_s"], 2)} | '
          f'{full} | {fx(ratio(med(r.get("full_s", [])), df_))} | {pfs} |')
    w('')

    # ---- sizes and K
    w('### File sizes and K')
    w('')
    w('"footers" = Σ Parquet footer bytes of the data files (the 4-byte length before the trailing '
      '`PAR1`); every query reads the footer, whose `ARROW:schema` carries the `paimon.map.*` metadata '
      '(field dictionary, `field-columns`, overflow set).')
    w('')
    w('| layout | data files | data bytes | ÷ default | footers | `metrics` column chunks | of which '
      '`__field_mapping` | `__overflow` | table dir bytes | shared-shredding files |')
    w('|---|---|---|---|---|---|---|---|---|---|')
    d_data = (dflt.get('footers') or {}).get('data_bytes')
    for l in layouts:
        r = L[l]
        fo = r.get('footers')
        if not fo:
            continue
        files = fo['files']
        w(f'| {l} | {len(files)} | {mb(fo["data_bytes"])} | {fx(ratio(fo["data_bytes"], d_data))} | '
          f'{kb(footer_sum(r, "footer_bytes"))} | {mb(footer_sum(r, "metrics_bytes"))} | {mb(footer_sum(r, "field_mapping_bytes"))} | '
          f'{mb(footer_sum(r, "overflow_bytes"))} | {mb(fo["table_bytes"])} | '
          f'{r.get("shredded_files", 0)} / {len(files)} |')
    w('')
    w('K per data file (`paimon.map.shared-shredding.num-columns` / `max-row-width` of the `metrics` field in '
      'the footer\'s `ARROW:schema`), per partition in write order; "col(s)" = physical columns that can '
      f'hold `{meta["key"]}`, "excl" = exclusive (dedicated) columns — listed in `field-columns` for exactly '
      'one field id —, "+No" = N keys that overflowed (`overflow-set`):')
    w('')
    w('| layout | partition | files: K / max-row-width (cols holding the key, exclusive columns, +overflow keys) |')
    w('|---|---|---|')
    for l in layouts:
        fo = L[l].get('footers')
        if not fo or not any('num_columns' in f for f in fo['files']):
            continue
        by_part = {}
        for f in fo['files']:
            by_part.setdefault(os.path.dirname(f['file']), []).append(f)
        for part, fs in sorted(by_part.items()):
            cells = []
            for f in fs:
                c = f'{f.get("num_columns", "?")}/{f.get("max_row_width", "?")}'
                extra = []
                if 'key_columns' in f:
                    n = len(f['key_columns'])
                    extra.append(f'{n} col' + ('' if n == 1 else 's'))
                if 'exclusive_columns' in f:
                    extra.append(f'{f["exclusive_columns"]} excl')
                if f.get('overflow_keys'):
                    extra.append(f'+{f["overflow_keys"]}o')
                cells.append(c + (f' ({", ".join(extra)})' if extra else ''))
            w(f'| {l} | `{part}` | {"; ".join(cells)} |')
    w('')

    # ---- targets
    w('### Against the issue\'s targets')
    w('')
    w('Judged on `lru` (strata\'s default placement, dedicated columns on); `lru-java` '
      '(max-dedicated-columns = 0, Java placement) is listed under each target for reference only.')
    w('')
    lru = L.get('lru', {})
    jv = L.get('lru-java', {}) if 'lru-java' in layouts else None

    def targets(r):
        b = (r.get('query_metrics') or {}).get('bytesRead')
        return [('≥ 10x fewer bytes', '{} vs default', ratio(d_bytes, b), 10, True),
                ('≥ 5x faster query', '{} vs default', ratio(d_net, med(r.get('query_s', []))), 5, True),
                ('write ≤ 1.5x default', '{}', ratio(med(r.get('write_s', [])), dw), 1.5, False),
                ('full read ≤ 1.5x default', '{}', ratio(med(r.get('full_s', [])), df_), 1.5, False)]

    jt = targets(jv) if jv is not None else None
    for i, (name, who, x, target, hb) in enumerate(targets(lru)):
        w(f'* {name} ({who.format("lru")}): {verdict(x, target, hb)}')
        if jt is not None:
            _, jwho, jx, _, _ = jt[i]
            w(f'  * Java placement, for reference ({jwho.format("lru-java")}): {verdict(jx, target, hb)}')
    for name, r in (('lru', lru), ('lru-java', jv)):
        if r is not None and r.get('footers') and not r.get('shredded_files'):
            w(f'* (caveat: no {name} data file is in the shared-shredding layout in this run — these ratios '
              'compare the default layout with itself)')
    w('')
    if problems:
        w('### Problems in this run')
        w('')
        for p in problems:
            w(f'* {p}')
        w('')
    for n in notes:
        w(f'* {n}')
    return '\n'.join(lines)


def footer_sum(r, key):
    files = (r.get('footers') or {}).get('files', [])
    vals = [f.get(key) for f in files]
    if not files or any(v is None for v in vals):
        return None
    return sum(vals)


def verdict(x, target, higher_better):
    if x is None:
        return 'not measured'
    ok = x >= target if higher_better else x <= target
    return f'{x:,.2f}x — **{"met" if ok else "not met"}**'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    f = sub.add_parser('footers')
    f.add_argument('--table-dir', required=True)
    f.add_argument('--key', default='usage')
    s = sub.add_parser('summarize')
    s.add_argument('--dir', required=True)
    s.add_argument('--json')
    a = ap.parse_args()
    if a.cmd == 'footers':
        footers(a)
        return 0
    return summarize(a)


if __name__ == '__main__':
    sys.exit(main())
