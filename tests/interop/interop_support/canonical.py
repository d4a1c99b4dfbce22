"""Canonical row encoding: turns table contents into sorted JSON lines that can be diffed.

Every engine under test (strata, pypaimon, pypaimon-rust) produces an Arrow table; two engines agree
when their canonical lines are identical.  The rules are the canonical form of the pypaimon oracle that produced the golden files in
``tests/interop/golden``, so those files compare byte-for-byte:

* one JSON object per row, keys in column order, ``json.dumps(ensure_ascii=False,
  separators=(',', ':'))``; lines sorted by their serialized string
* DECIMAL -> string keeping the scale ("-1000.01")
* TIMESTAMP -> "YYYY-MM-DDTHH:MM:SS.ffffff" (6 fraction digits; 9 for nanosecond Arrow
  timestamps, i.e. TIMESTAMP(7..9), as strata's ``--format jsonl`` prints them); TIMESTAMP_LTZ (an
  Arrow timestamp with a time zone) -> the same in UTC, suffixed "Z"
* DATE -> "YYYY-MM-DD"; TIME -> "HH:MM:SS.ffffff"
* BYTES / BINARY(n) -> "0x" + lowercase hex (variable or fixed-size Arrow binary alike)
* FLOAT / DOUBLE -> JSON number; NaN and infinities -> "NaN", "Infinity", "-Infinity";
  FLOAT (float32) values are rounded through numpy's float32 repr so 0.1f prints as 0.1
* MAP -> list of [key, value] pairs sorted by the JSON of the key (map order carries no meaning)
* ARRAY -> list (order kept); ROW -> object keyed by its field names; NULL -> null

The same module also normalizes strata's ``--format jsonl`` output (``canonical_json_rows``): that
output must already use the encoding above, the only accepted differences being row order,
map-entry order and the textual form of numbers.
"""
from __future__ import annotations

import datetime as dt
import decimal
import difflib
import json
import math
from typing import Any, Iterable, List, Sequence

import numpy as np
import pyarrow as pa


def dumps(obj: Any) -> str:
    """Serialize like the oracle: compact separators, non-ASCII kept."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _float(v: float, t: pa.DataType) -> Any:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if pa.types.is_float32(t):
        return float(str(np.float32(v)))
    return float(v)


def _timestamp(v: Any, t: pa.TimestampType) -> str:
    if t.unit == "ns":
        # a pandas Timestamp (nanosecond precision: TIMESTAMP(7..9)): 9 fraction digits
        secs, frac = divmod(v.value, 10 ** 9)
        base = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=secs)
        return base.strftime("%Y-%m-%dT%H:%M:%S") + ".%09d" % frac + ("Z" if t.tz else "")
    if isinstance(v, dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
            return v.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
        return v.strftime("%Y-%m-%dT%H:%M:%S.%f")
    return str(v)


def canon_value(v: Any, t: pa.DataType) -> Any:
    """Canonical JSON-able form of one Python value (from Arrow ``to_pylist``) of Arrow type ``t``."""
    if v is None:
        return None
    if pa.types.is_map(t):
        pairs = [[canon_value(k, t.key_type), canon_value(x, t.item_type)] for k, x in v]
        pairs.sort(key=lambda kv: dumps(kv[0]))
        return pairs
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [canon_value(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: canon_value(v.get(t.field(i).name), t.field(i).type)
                for i in range(t.num_fields)}
    if pa.types.is_decimal(t):
        return str(v)
    if pa.types.is_timestamp(t):
        return _timestamp(v, t)
    if pa.types.is_date(t):
        return v.isoformat()
    if pa.types.is_time(t):
        return v.strftime("%H:%M:%S.%f")
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return "0x" + bytes(v).hex()
    if pa.types.is_floating(t):
        return _float(v, t)
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v


def canonical_lines(table: pa.Table) -> List[str]:
    """All rows of ``table`` as sorted canonical JSON lines."""
    cols = table.column_names
    types = [table.schema.field(i).type for i in range(len(cols))]
    data = [table.column(i).to_pylist() for i in range(len(cols))]
    lines = []
    for r in range(table.num_rows):
        row = {c: canon_value(data[i][r], types[i]) for i, c in enumerate(cols)}
        lines.append(dumps(row))
    lines.sort()
    return lines


def canonical_dicts(table: pa.Table) -> List[dict]:
    """Rows as canonical dicts (same values as ``canonical_lines``), in sorted-line order."""
    return [json.loads(line) for line in canonical_lines(table)]


# ---- strata --format jsonl ---------------------------------------------------------------------

def _canon_json(v: Any, t: pa.DataType, where: str) -> Any:
    """Normalize one value parsed from strata's JSON output, given the column's Arrow type."""
    if v is None:
        return None
    if pa.types.is_map(t):
        if not isinstance(v, list) or not all(isinstance(p, list) and len(p) == 2 for p in v):
            raise AssertionError(f"{where}: MAP must be a JSON list of [key, value] pairs, got {v!r}")
        pairs = [[_canon_json(k, t.key_type, where), _canon_json(x, t.item_type, where)] for k, x in v]
        pairs.sort(key=lambda kv: dumps(kv[0]))
        return pairs
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        if not isinstance(v, list):
            raise AssertionError(f"{where}: ARRAY must be a JSON list, got {v!r}")
        return [_canon_json(x, t.value_type, where) for x in v]
    if pa.types.is_struct(t):
        if not isinstance(v, dict):
            raise AssertionError(f"{where}: ROW must be a JSON object, got {v!r}")
        names = [t.field(i).name for i in range(t.num_fields)]
        if set(v) != set(names):
            raise AssertionError(f"{where}: ROW keys {sorted(v)} != {sorted(names)}")
        return {n: _canon_json(v[n], t.field(i).type, f"{where}.{n}") for i, n in enumerate(names)}
    if pa.types.is_floating(t):
        if isinstance(v, str):
            if v not in ("NaN", "Infinity", "-Infinity"):
                raise AssertionError(f"{where}: float given as string {v!r}")
            return v
        return _float(float(v), t)
    return v


def canonical_json_rows(json_lines: Iterable[str], schema: pa.Schema) -> List[str]:
    """Canonicalize strata's ``read --format jsonl`` output against the expected Arrow schema.

    Keys are reordered to the schema's column order (their set must match exactly); map entries and
    floats are normalized; every other value must already be in canonical form.
    """
    names = schema.names
    out = []
    for n, line in enumerate(json_lines):
        if not line.strip():
            continue
        obj = json.loads(line)
        if not isinstance(obj, dict):
            raise AssertionError(f"jsonl line {n + 1} is not an object: {line!r}")
        if set(obj) != set(names):
            raise AssertionError(f"jsonl line {n + 1}: keys {list(obj)} != columns {names}")
        row = {c: _canon_json(obj[c], schema.field(c).type, f"line {n + 1} column {c}") for c in names}
        out.append(dumps(row))
    out.sort()
    return out


# ---- comparison --------------------------------------------------------------------------------

def assert_same_rows(actual: Sequence[str], expected: Sequence[str], what: str, limit: int = 60) -> None:
    """Assert two canonical line lists are identical; the failure shows a bounded unified diff."""
    actual, expected = list(actual), list(expected)
    if actual == expected:
        return
    diff = list(difflib.unified_diff(expected, actual, "expected", what, lineterm="", n=1))
    shown = "\n".join(diff[:limit])
    more = f"\n... ({len(diff) - limit} more diff lines)" if len(diff) > limit else ""
    raise AssertionError(f"{what}: {len(actual)} rows, expected {len(expected)}; diff:\n{shown}{more}")
