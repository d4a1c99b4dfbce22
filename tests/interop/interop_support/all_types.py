"""Rows of every column type strata supports, for the all-types interop tests.

``COLUMNS`` lists (name, Paimon type text, Arrow type); ``rows_table(ids, gen)`` builds rows with
extremes and NULLs at every level (every 5th row is NULL but the id), different per generation
``gen``; ``schema_doc`` is a table schema of the columns (``exclude`` leaves some out, e.g. the
nanosecond timestamps Avro cannot store).
"""
from __future__ import annotations

import datetime as dt
import decimal
from typing import Iterable

import pyarrow as pa

D = decimal.Decimal
UTC = dt.timezone.utc

# (name, Paimon type text, Arrow type of the data)
COLUMNS = [
    ("id", "INT NOT NULL", pa.int32()),
    ("b", "BOOLEAN", pa.bool_()),
    ("ti", "TINYINT", pa.int8()),
    ("si", "SMALLINT", pa.int16()),
    ("i", "INT", pa.int32()),
    ("bi", "BIGINT", pa.int64()),
    ("f", "FLOAT", pa.float32()),
    ("d", "DOUBLE", pa.float64()),
    ("dec5", "DECIMAL(5, 2)", pa.decimal128(5, 2)),
    ("dec18", "DECIMAL(18, 4)", pa.decimal128(18, 4)),
    ("dec19", "DECIMAL(19, 0)", pa.decimal128(19, 0)),
    ("dec38", "DECIMAL(38, 10)", pa.decimal128(38, 10)),
    ("c", "CHAR(5)", pa.string()),
    ("vc", "VARCHAR(20)", pa.string()),
    ("s", "STRING", pa.string()),
    ("bin", "BINARY(4)", pa.binary(4)),
    ("vb", "VARBINARY(10)", pa.binary()),
    ("by", "BYTES", pa.binary()),
    ("dt", "DATE", pa.date32()),
    ("tm", "TIME", pa.time32("ms")),
    ("tm3", "TIME(3)", pa.time32("ms")),
    ("ts0", "TIMESTAMP(0)", pa.timestamp("s")),
    ("ts3", "TIMESTAMP(3)", pa.timestamp("ms")),
    ("ts6", "TIMESTAMP(6)", pa.timestamp("us")),
    ("ts9", "TIMESTAMP(9)", pa.timestamp("ns")),
    ("ltz3", "TIMESTAMP(3) WITH LOCAL TIME ZONE", pa.timestamp("ms", tz="UTC")),
    ("ltz6", "TIMESTAMP(6) WITH LOCAL TIME ZONE", pa.timestamp("us", tz="UTC")),
    ("ltz9", "TIMESTAMP_LTZ(9)", pa.timestamp("ns", tz="UTC")),
    ("arr", "ARRAY<INT>", pa.list_(pa.int32())),
    ("arr_arr", "ARRAY<ARRAY<BIGINT>>", pa.list_(pa.list_(pa.int64()))),
    ("arr_row", "ARRAY<ROW<x INT, y STRING>>",
     pa.list_(pa.struct([("x", pa.int32()), ("y", pa.string())]))),
    ("m", "MAP<STRING, DOUBLE>", pa.map_(pa.string(), pa.float64())),
    ("m_int", "MAP<INT, ARRAY<STRING>>", pa.map_(pa.int32(), pa.list_(pa.string()))),
    ("m_row", "MAP<STRING, ROW<p DECIMAL(10, 2), q TIMESTAMP(6)>>",
     pa.map_(pa.string(), pa.struct([("p", pa.decimal128(10, 2)), ("q", pa.timestamp("us"))]))),
    ("r", "ROW<a INT, b ROW<c STRING, d ARRAY<MAP<STRING, INT>>>, t TIMESTAMP(3), e DATE>",
     pa.struct([("a", pa.int32()),
                ("b", pa.struct([("c", pa.string()), ("d", pa.list_(pa.map_(pa.string(), pa.int32())))])),
                ("t", pa.timestamp("ms")), ("e", pa.date32())])),
]
SCHEMA = pa.schema([pa.field(n, t, nullable=not p.endswith("NOT NULL")) for n, p, t in COLUMNS])

_FLOATS = [float("nan"), float("inf"), float("-inf"), -0.0, 1e-45, 3.4028234663852886e38, 0.1, -1.5]
_DOUBLES = [float("nan"), float("-inf"), float("inf"), -0.0, 5e-324, 1.7976931348623157e308, 0.1, 1e16]
_STRINGS = ["", "é✓ 日本", "tab\tnl\n", "q\"b\\s", "\u0001ctl", "x" * 40, "😀 astral", "plain"]


def _row(i: int, gen: int) -> dict:
    """Row ``i`` of generation ``gen``; every 5th row is all NULL but the id."""
    if i % 5 == 4:
        return {n: (i if n == "id" else None) for n in SCHEMA.names}
    k = i % 8
    base = dt.datetime(2024, 2, 29, 23, 59, 58) + dt.timedelta(days=i * 37, seconds=gen)
    ns = 1_700_000_000_123_456_789 + i * 1_000_000_007 + gen
    return {
        "id": i,
        "b": i % 2 == 0,
        "ti": [-128, 127, 0, -1, 42, 7, -7, 100][k],
        "si": [-32768, 32767, 0, -1, 1000, 7, -7, 12345][k],
        "i": [-2 ** 31, 2 ** 31 - 1, 0, -1, 123456, 7, gen, 99][k],
        "bi": [-2 ** 63, 2 ** 63 - 1, 0, -1, 2 ** 53 + 1, 7, gen, 10 ** 18][k],
        "f": _FLOATS[k],
        "d": _DOUBLES[k],
        "dec5": D(i * 137 - 999 + gen) / 100,
        "dec18": D("-99999999999999.9999") if k == 0 else D(i * 10007 + gen) / 10000,
        "dec19": D("9999999999999999999") if k == 1 else D(-(i * 10 ** 17) - gen),
        "dec38": D("-9999999999999999999999999999.9999999999") if k == 2 else
        D("12345678901234567890.%010d" % (i * 7 + gen)),
        "c": ["abcde", "ab", "日本語ab", "x", "     ", "a b c", "12345", "z"][k],
        "vc": _STRINGS[k][:20],
        "s": _STRINGS[(k + gen) % 8],
        "bin": bytes([i, gen, 0, 255]),
        "vb": bytes(range(k)),
        "by": bytes([255 - i] * (k * 3)),
        "dt": dt.date(1970, 1, 1) + dt.timedelta(days=(i * 4001 - 9000) * (1 if k % 2 else -1)),
        "tm": dt.time(i % 24, (i * 7) % 60, (i * 13) % 60),
        "tm3": dt.time(23, 59, 59, 999000) if k == 0 else dt.time(i % 24, 1, 2, (i * 1000 + gen) % 1000 * 1000),
        "ts0": base.replace(microsecond=0),
        "ts3": base.replace(microsecond=(i * 1000 + gen * 1000) % 1_000_000),
        "ts6": dt.datetime(1969, 12, 31, 23, 59, 59, 999999) if k == 3 else base.replace(microsecond=(i * 123457) % 1_000_000),
        "ts9": pa.scalar(ns, pa.timestamp("ns")).as_py(),
        "ltz3": base.replace(microsecond=(i * 1000) % 1_000_000, tzinfo=UTC),
        "ltz6": base.replace(microsecond=(i * 654321) % 1_000_000, tzinfo=UTC),
        "ltz9": pa.scalar(ns + 17, pa.timestamp("ns", tz="UTC")).as_py(),
        "arr": [[], [None], [1, None, -3], [2 ** 31 - 1]][k % 4],
        "arr_arr": [[[1, 2], [], None, [None, -(2 ** 63)]], [], [[gen]], None][k % 4],
        "arr_row": [[{"x": 1, "y": "a"}, None, {"x": None, "y": None}], [], [{"x": gen, "y": "é"}]][k % 3],
        "m": [{}, {"a": 1.5, "b": None}, {"k%d" % j: j / 4 for j in range(k)}][k % 3],
        "m_int": [{1: ["x", None], -5: [], 7: None}, {}, {gen: ["g"]}][k % 3],
        "m_row": [{"p": {"p": D("-12345678.90"), "q": base}, "null": None, "n2": {"p": None, "q": None}},
                  {}][k % 2],
        "r": [{"a": i, "b": {"c": "nested", "d": [{"x": 1, "y": None}, {}, None]}, "t": base, "e": base.date()},
              {"a": None, "b": None, "t": None, "e": None},
              {"a": -i, "b": {"c": None, "d": None}, "t": base.replace(microsecond=5000), "e": dt.date(1900, 1, 1)}][k % 3],
    }


def _as_map(v):
    return None if v is None else list(v.items())


def rows_table(ids, gen: int, exclude: Iterable[str] = ()) -> pa.Table:
    rows = [_row(i, gen) for i in ids]
    cols = {}
    for name, _, t in COLUMNS:
        if name in exclude:
            continue
        vals = [r[name] for r in rows]
        if name in ("m", "m_int", "m_row"):
            vals = [_as_map(v) for v in vals]
        elif name == "r":
            vals = [None if v is None else {**v, "b": None if v["b"] is None else
                                            {**v["b"], "d": None if v["b"]["d"] is None else
                                             [_as_map(m) for m in v["b"]["d"]]}} for v in vals]
        cols[name] = pa.array(vals, type=t)
    return pa.table(cols, schema=pa.schema([f for f in SCHEMA if f.name not in exclude]))


def schema_doc(primary_keys=(), partition_keys=(), options=None, exclude: Iterable[str] = ()) -> dict:
    return {"fields": [{"name": n, "type": p} for n, p, _ in COLUMNS if n not in exclude],
            "partitionKeys": list(partition_keys),
            "primaryKeys": list(primary_keys), "options": dict(options or {})}
