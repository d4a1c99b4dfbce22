"""Table shapes used by the interop suite, the Paimon schema JSON for them, and input-file writers.

A *shape* is a table definition (Arrow schema, partition keys, options) plus the data of each commit.
The same shape is written by pypaimon, pypaimon-rust and strata, and every engine must then read the
same canonical rows.  All content is deterministic.

``paimon_schema_json`` renders a shape in the JSON that ``strata create-table --schema FILE``
takes (Paimon's schema/schema-N layout: fields with name/type, partitionKeys, primaryKeys, options,
comment; field ids optional).  ``write_input`` writes one commit's data as a .parquet, .jsonl or
.csv file for ``strata write``.
"""
from __future__ import annotations

import datetime as dt
import decimal
import json
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from .canonical import canonical_lines

D = decimal.Decimal
ALL_FORMATS = ("parquet", "jsonl", "csv")


@dataclass
class Shape:
    name: str
    schema: pa.Schema                      # Arrow schema of the data the writers get
    commits: List[pa.Table]
    partition_keys: Tuple[str, ...] = ()
    options: Dict[str, str] = field(default_factory=dict)
    formats: Tuple[str, ...] = ALL_FORMATS  # strata input formats able to carry this data
    create_schema: Optional[pa.Schema] = None  # schema the table is declared with, when different

    @property
    def table_schema(self) -> pa.Schema:
        return self.create_schema or self.schema

    def all_rows(self) -> pa.Table:
        return pa.concat_tables(self.commits)

    def expected_lines(self) -> List[str]:
        """Canonical rows after every commit was appended."""
        return canonical_lines(self.all_rows())

    def expected_after(self, n: int) -> List[str]:
        """Canonical rows after the first ``n`` commits (snapshot ``n`` of an append-only history)."""
        return canonical_lines(pa.concat_tables(self.commits[:n]))


def _table(schema: pa.Schema, cols: Dict[str, list]) -> pa.Table:
    return pa.table({n: cols[n] for n in schema.names}, schema=schema)


# ---- simple shapes -----------------------------------------------------------------------------

PLAIN_SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.float64()),
                          ("flag", pa.bool_())])


def _plain_rows(ids: Sequence[int], tag: str) -> pa.Table:
    return _table(PLAIN_SCHEMA, {
        "id": list(ids),
        "name": [None if i % 4 == 3 else f"{tag}{i}" for i in ids],
        "amount": [None if i % 5 == 2 else i * 1.25 - 3 for i in ids],
        "flag": [None if i % 6 == 5 else i % 2 == 0 for i in ids],
    })


def shape_plain() -> Shape:
    return Shape("plain", PLAIN_SCHEMA, [_plain_rows(range(1, 8), "a")])


def shape_multi_commit() -> Shape:
    # id 3 is written twice: append tables keep duplicates
    return Shape("multi_commit", PLAIN_SCHEMA,
                 [_plain_rows(range(1, 5), "a"), _plain_rows(range(3, 9), "b"), _plain_rows([20], "c")])


PART_STRING_SCHEMA = pa.schema([("dt", pa.string()), ("id", pa.int64()), ("name", pa.string()),
                                ("amount", pa.float64())])


def part_string_rows(dts: Sequence[Optional[str]], ids: Sequence[int], tag: str) -> pa.Table:
    return _table(PART_STRING_SCHEMA, {
        "dt": list(dts), "id": list(ids),
        "name": [None if i % 7 == 6 else f"{tag}{i}" for i in ids],
        "amount": [i * 0.5 for i in ids],
    })


def shape_part_string() -> Shape:
    return Shape("part_string", PART_STRING_SCHEMA, [
        part_string_rows(["2024-01-01"] * 3 + ["2024-01-02"] * 2, [1, 2, 3, 4, 5], "a"),
        part_string_rows(["2024-01-02", "2024-01-03", None], [6, 7, 8], "b"),
        part_string_rows(["2024-01-01", "2024-01-03", None], [1, 9, 10], "c"),
    ], partition_keys=("dt",), options={"metadata.stats-mode": "full"})


def shape_oracle_append() -> Shape:
    """The pypaimon oracle's table append_t, whose rows are in golden/append_t.jsonl."""
    s = pa.schema([("dt", pa.string()), ("id", pa.int64()), ("name", pa.string()), ("amount", pa.float64())])
    return Shape("oracle_append", s, [
        _table(s, {"dt": ["2024-01-01"] * 3 + ["2024-01-02"] * 2, "id": [1, 2, 3, 4, 5],
                   "name": ["a", "b", "c", "d", "e"], "amount": [1.5, 2.5, None, 4.0, 5.25]}),
        _table(s, {"dt": ["2024-01-02", "2024-01-03"], "id": [6, 7], "name": ["f", None],
                   "amount": [6.0, 7.0]}),
        _table(s, {"dt": ["2024-01-01", "2024-01-03", "2024-01-03"], "id": [1, 8, 9],
                   "name": ["a2", "h", "i"], "amount": [10.0, 8.0, 9.0]}),
    ], partition_keys=("dt",), options={"metadata.stats-mode": "full"})


PART_INT_SCHEMA = pa.schema([("k", pa.int32()), ("id", pa.int64()), ("v", pa.string())])


def shape_part_int() -> Shape:
    return Shape("part_int", PART_INT_SCHEMA, [
        _table(PART_INT_SCHEMA, {"k": [1, 2, None, 1, -5], "id": [1, 2, 3, 4, 5],
                                 "v": ["a", "b", "c", None, "e"]}),
        _table(PART_INT_SCHEMA, {"k": [2, None], "id": [6, 7], "v": ["f", "g"]}),
    ], partition_keys=("k",), options={"file.compression": "snappy"})


PART_DATE_SCHEMA = pa.schema([("d", pa.date32()), ("id", pa.int64()), ("v", pa.string())])


def shape_part_date() -> Shape:
    d = dt.date
    return Shape("part_date", PART_DATE_SCHEMA, [
        _table(PART_DATE_SCHEMA, {"d": [d(2024, 1, 1), d(2024, 1, 1), d(1969, 7, 20), None],
                                  "id": [1, 2, 3, 4], "v": ["a", "b", "c", "d"]}),
        _table(PART_DATE_SCHEMA, {"d": [d(2024, 2, 29), None], "id": [5, 6], "v": ["e", None]}),
    ], partition_keys=("d",), options={"file.compression": "gzip"})


PART_TWO_SCHEMA = pa.schema([("region", pa.string()), ("h", pa.int32()), ("id", pa.int64()),
                             ("v", pa.float64())])


def shape_part_two_keys() -> Shape:
    return Shape("part_two_keys", PART_TWO_SCHEMA, [
        _table(PART_TWO_SCHEMA, {"region": ["eu", "eu", "us", "us", "ap"], "h": [0, 1, 0, 23, None],
                                 "id": [1, 2, 3, 4, 5], "v": [0.5, 1.5, 2.5, 3.5, 4.5]}),
        _table(PART_TWO_SCHEMA, {"region": ["eu", None], "h": [1, 7], "id": [6, 7], "v": [5.5, 6.5]}),
    ], partition_keys=("region", "h"))


BUCKET_SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])


def shape_bucket_fixed() -> Shape:
    def rows(ids):
        return _table(BUCKET_SCHEMA, {"id": list(ids), "name": [f"n{i}" for i in ids]})
    return Shape("bucket_fixed", BUCKET_SCHEMA, [rows(range(0, 25)), rows(range(20, 45))],
                 options={"bucket": "4", "bucket-key": "id"})


BUCKET_PART_SCHEMA = pa.schema([("dt", pa.string()), ("id", pa.int32()), ("name", pa.string())])


def shape_bucket_fixed_part() -> Shape:
    def rows(ids):
        return _table(BUCKET_PART_SCHEMA, {"dt": ["p%d" % (i % 2) for i in ids], "id": list(ids),
                                           "name": [None if i % 9 == 0 else "name-%d" % i for i in ids]})
    # two-column bucket key with a STRING: exercises the BinaryRow hash of variable-length fields
    return Shape("bucket_fixed_part", BUCKET_PART_SCHEMA, [rows(range(0, 30)), rows(range(30, 40))],
                 partition_keys=("dt",), options={"bucket": "3", "bucket-key": "id,name"})


def shape_bucket_unaware() -> Shape:
    return Shape("bucket_unaware", PART_STRING_SCHEMA, [
        part_string_rows(["x", "y", "x"], [1, 2, 3], "a"),
        part_string_rows(["y", "z"], [4, 5], "b"),
    ], partition_keys=("dt",), options={"bucket": "-1"})


# ---- type coverage -----------------------------------------------------------------------------

FLAT_TYPES_SCHEMA = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    ("b", pa.bool_()), ("ti", pa.int8()), ("si", pa.int16()), ("f", pa.float32()), ("dbl", pa.float64()),
    ("dec", pa.decimal128(10, 2)), ("dec38", pa.decimal128(38, 10)),
    ("ts", pa.timestamp("ms")), ("ts6", pa.timestamp("us")), ("ts_ltz", pa.timestamp("us", tz="UTC")),
    ("d", pa.date32()), ("s", pa.string()),
])


def flat_types_rows(ids: Sequence[int], gen: int) -> pa.Table:
    cols: Dict[str, list] = {n: [] for n in FLAT_TYPES_SCHEMA.names}
    for i in ids:
        null = i % 5 == 4

        def nv(v):
            return None if null else v
        cols["id"].append(i)
        cols["b"].append(nv(i % 2 == 0))
        cols["ti"].append(nv((i * 7) % 127 - 60))
        cols["si"].append(nv(i * 1000 - 3000))
        cols["f"].append(nv(i + 0.25))
        cols["dbl"].append(nv(i / 3 - 1))
        cols["dec"].append(nv(D("%d.%02d" % (i * 1000 + gen, i % 100)) * (-1 if i % 2 else 1)))
        cols["dec38"].append(nv(D("12345678901234567890.%010d" % (i * 7 + gen))))
        cols["ts"].append(nv(dt.datetime(2024, 3, i % 28 + 1, 12, 34, 56, 789000)))
        cols["ts6"].append(nv(dt.datetime(1969, 12, 31, 23, 59, 59, 123456 + i)))
        cols["ts_ltz"].append(nv(dt.datetime(2024, 3, 10, 1, 2, 3, 456789 - i, tzinfo=dt.timezone.utc)))
        cols["d"].append(nv(dt.date(2000, 2, 29) + dt.timedelta(days=i * 30)))
        cols["s"].append(nv("s%d é✓" % i))
    return _table(FLAT_TYPES_SCHEMA, cols)


def shape_flat_types() -> Shape:
    return Shape("flat_types", FLAT_TYPES_SCHEMA, [flat_types_rows(range(0, 6), 1),
                                                   flat_types_rows(range(6, 10), 2)],
                 options={"metadata.stats-mode": "full"})


NESTED_SCHEMA = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    ("arr", pa.list_(pa.int32())),
    ("arr_s", pa.list_(pa.string())),
    ("m", pa.map_(pa.string(), pa.float64())),
    ("r", pa.struct([("x", pa.int32()), ("y", pa.string()),
                     ("z", pa.struct([("p", pa.float64()), ("q", pa.list_(pa.int64()))]))])),
])


def nested_rows(ids: Sequence[int], gen: int) -> pa.Table:
    cols: Dict[str, list] = {n: [] for n in NESTED_SCHEMA.names}
    for i in ids:
        null = i % 5 == 4

        def nv(v):
            return None if null else v
        cols["id"].append(i)
        cols["arr"].append(nv([i, None, i * 2] if i % 2 else []))
        cols["arr_s"].append(nv(["s%d" % i, "é✓"] if i % 3 else [None]))
        cols["m"].append(nv([("k%d" % j, i + j / 4 + gen) for j in range(i % 3 + 1)]))
        cols["r"].append(nv({"x": i, "y": None if i % 2 else "row%d" % i,
                             "z": {"p": i / 8, "q": [i, -i]} if i % 3 else None}))
    return _table(NESTED_SCHEMA, cols)


def shape_nested_types() -> Shape:
    return Shape("nested_types", NESTED_SCHEMA, [nested_rows(range(0, 6), 1), nested_rows(range(6, 10), 2)],
                 formats=("parquet", "jsonl"))


# The pypaimon oracle's table types_t (rows in golden/types_t.jsonl): every type at once, BYTES and
# BINARY(4) too.
TYPES_SCHEMA = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    ("b", pa.bool_()), ("ti", pa.int8()), ("si", pa.int16()), ("f", pa.float32()),
    ("m", pa.map_(pa.string(), pa.float64())),
    ("arr", pa.list_(pa.int32())), ("arr_s", pa.list_(pa.string())),
    ("r", pa.struct([("x", pa.int32()), ("y", pa.string()),
                     ("z", pa.struct([("p", pa.float64()), ("q", pa.list_(pa.int64()))]))])),
    ("dec", pa.decimal128(10, 2)), ("dec38", pa.decimal128(38, 10)),
    ("ts", pa.timestamp("ms")), ("ts6", pa.timestamp("us")), ("ts_ltz", pa.timestamp("us", tz="UTC")),
    ("d", pa.date32()), ("bin", pa.binary()), ("fbin", pa.binary(4)),
])
# pypaimon writes and reads BINARY(n) as variable-length binary
TYPES_WRITE_SCHEMA = pa.schema([f if f.name != "fbin" else pa.field("fbin", pa.binary()) for f in TYPES_SCHEMA])


def types_rows(ids: Sequence[int], gen: int, schema: pa.Schema = TYPES_WRITE_SCHEMA) -> pa.Table:
    cols: Dict[str, list] = {n: [] for n in TYPES_SCHEMA.names}
    for i in ids:
        null = i % 5 == 4

        def nv(v):
            return None if null else v
        cols["id"].append(i)
        cols["b"].append(nv(i % 2 == 0))
        cols["ti"].append(nv((i * 7) % 127 - 60))
        cols["si"].append(nv(i * 1000 - 3000))
        cols["f"].append(nv(i + 0.25))
        cols["m"].append(nv([("k%d" % j, i + j / 4 + gen) for j in range(i % 3 + 1)]))
        cols["arr"].append(nv([i, None, i * 2] if i % 2 else []))
        cols["arr_s"].append(nv(["s%d" % i, "é✓"] if i % 3 else [None]))
        cols["r"].append(nv({"x": i, "y": None if i % 2 else "row%d" % i,
                             "z": {"p": i / 8, "q": [i, -i]} if i % 3 else None}))
        cols["dec"].append(nv(D("%d.%02d" % (i * 1000 + gen, i % 100)) * (-1 if i % 2 else 1)))
        cols["dec38"].append(nv(D("12345678901234567890.%010d" % (i * 7 + gen))))
        cols["ts"].append(nv(dt.datetime(2024, 3, i % 28 + 1, 12, 34, 56, 789000)))
        cols["ts6"].append(nv(dt.datetime(1969, 12, 31, 23, 59, 59, 123456 + i)))
        cols["ts_ltz"].append(nv(dt.datetime(2024, 3, 10, 1, 2, 3, 456789, tzinfo=dt.timezone.utc)))
        cols["d"].append(nv(dt.date(2000, 2, 29) + dt.timedelta(days=i * 30)))
        cols["bin"].append(nv(bytes([i % 256, 0, 255, gen])))
        cols["fbin"].append(nv(bytes([gen, i % 256, 0xAB, 0xCD])))
    return _table(schema, cols)


def shape_types() -> Shape:
    return Shape("types", TYPES_WRITE_SCHEMA, [types_rows(range(0, 6), 1), types_rows(range(6, 10), 2)],
                 options={"metadata.stats-mode": "full"}, formats=("parquet",), create_schema=TYPES_SCHEMA)


SPECIAL_SCHEMA = pa.schema([("id", pa.int32()), ("f", pa.float32()), ("x", pa.float64()), ("s", pa.string()),
                            ("big", pa.int64())])


def shape_special_values() -> Shape:
    inf, nan = float("inf"), float("nan")
    return Shape("special_values", SPECIAL_SCHEMA, [_table(SPECIAL_SCHEMA, {
        "id": [1, 2, 3, 4, 5, 6, 7],
        "f": [nan, inf, -inf, -0.0, 0.1, 3.4e38, None],
        "x": [nan, -inf, inf, -0.0, 1e-310, 1.7976931348623157e308, 0.1],
        "s": ["", "tab\tnew\nline", "quote\"back\\slash", "日本語テキスト", "x" * 300, "\u0000nul", None],
        "big": [-(2 ** 63), 2 ** 63 - 1, 0, -1, 2 ** 53 + 1, None, 42],
    })], formats=("parquet",))


def shape_many_rows(n: int = 20000) -> Shape:
    ids = list(range(n))
    data = _table(PART_STRING_SCHEMA, {"dt": ["d%d" % (i % 5) for i in ids], "id": ids,
                                       "name": ["name-%06d" % i for i in ids], "amount": [i / 7 for i in ids]})
    return Shape("many_rows", PART_STRING_SCHEMA, [data.slice(0, n // 2), data.slice(n // 2)],
                 partition_keys=("dt",), formats=("parquet",))


def all_shapes() -> List[Shape]:
    return [shape_plain(), shape_multi_commit(), shape_oracle_append(), shape_part_string(),
            shape_part_int(), shape_part_date(), shape_part_two_keys(), shape_bucket_fixed(),
            shape_bucket_fixed_part(), shape_bucket_unaware(), shape_flat_types(), shape_nested_types(),
            shape_types(), shape_special_values(), shape_many_rows()]


SHAPES = {s.name: s for s in all_shapes()}


# ---- Paimon schema JSON ------------------------------------------------------------------------

def paimon_type(t: pa.DataType, nullable: bool = True, ids: Optional[List[int]] = None):
    """Paimon JSON type of an Arrow type (string for atomic types, object for ARRAY/MAP/ROW).

    ``ids`` is a one-element counter list: when given, nested ROW fields get ids from it."""
    nn = "" if nullable else " NOT NULL"
    if pa.types.is_boolean(t):
        return "BOOLEAN" + nn
    for pred, name in ((pa.types.is_int8, "TINYINT"), (pa.types.is_int16, "SMALLINT"),
                       (pa.types.is_int32, "INT"), (pa.types.is_int64, "BIGINT"),
                       (pa.types.is_float32, "FLOAT"), (pa.types.is_float64, "DOUBLE"),
                       (pa.types.is_date32, "DATE")):
        if pred(t):
            return name + nn
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "STRING" + nn
    if pa.types.is_fixed_size_binary(t):
        return "BINARY(%d)" % t.byte_width + nn
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return "BYTES" + nn
    if pa.types.is_decimal(t):
        return "DECIMAL(%d, %d)" % (t.precision, t.scale) + nn
    if pa.types.is_timestamp(t):
        precision = {"s": 0, "ms": 3, "us": 6, "ns": 9}[t.unit]
        return ("TIMESTAMP_LTZ(%d)" if t.tz else "TIMESTAMP(%d)") % precision + nn
    if pa.types.is_map(t):
        return {"type": "MAP" + nn, "key": paimon_type(t.key_type, False, ids),
                "value": paimon_type(t.item_type, t.item_field.nullable, ids)}
    if pa.types.is_list(t):
        return {"type": "ARRAY" + nn, "element": paimon_type(t.value_type, t.value_field.nullable, ids)}
    if pa.types.is_struct(t):
        return {"type": "ROW" + nn, "fields": [_paimon_field(t.field(i), ids) for i in range(t.num_fields)]}
    raise ValueError(f"no Paimon type for Arrow {t}")


def _paimon_field(f: pa.Field, ids: Optional[List[int]]) -> dict:
    out: dict = {}
    if ids is not None:
        out["id"] = ids[0]
        ids[0] += 1
    out["name"] = f.name
    out["type"] = paimon_type(f.type, f.nullable, ids)
    return out


def paimon_schema_json(schema: pa.Schema, partition_keys: Sequence[str] = (), options: Optional[dict] = None,
                       comment: Optional[str] = None, with_ids: bool = False) -> dict:
    """The ``--schema FILE`` document for ``strata create-table``."""
    if with_ids:
        counter = [len(schema)]           # top-level fields take 0..n-1, nested fields follow
        fields = [{"id": i, "name": f.name, "type": paimon_type(f.type, f.nullable, counter)}
                  for i, f in enumerate(schema)]
    else:
        fields = [_paimon_field(f, None) for f in schema]
    return {"fields": fields, "partitionKeys": list(partition_keys), "primaryKeys": [],
            "options": dict(options or {}), "comment": comment}


def shape_schema_json(shape: Shape, with_ids: bool = False) -> dict:
    return paimon_schema_json(shape.table_schema, shape.partition_keys, shape.options, with_ids=with_ids)


# ---- input files for strata write --------------------------------------------------------------

def _json_value(v, t: pa.DataType):
    """Python value -> the JSON form of a .jsonl input file (the natural Arrow-JSON reading)."""
    if v is None:
        return None
    if pa.types.is_map(t):
        return {k: _json_value(x, t.item_type) for k, x in v}
    if pa.types.is_list(t):
        return [_json_value(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: _json_value(v.get(t.field(i).name), t.field(i).type)
                for i in range(t.num_fields)}
    if pa.types.is_decimal(t):
        return str(v)
    if pa.types.is_timestamp(t):
        if v.tzinfo is not None:
            return v.astimezone(dt.timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"
        return v.isoformat(timespec="microseconds")
    if pa.types.is_date(t):
        return v.isoformat()
    if pa.types.is_binary(t) or pa.types.is_fixed_size_binary(t):
        raise ValueError("binary columns have no .jsonl input encoding in this suite")
    return v


def write_input(data: pa.Table, fmt: str, path) -> str:
    """Write ``data`` as an input file of format ``fmt``; returns the path as a string."""
    path = str(path)
    if fmt == "parquet":
        pq.write_table(data, path)
    elif fmt == "jsonl":
        types = [data.schema.field(i).type for i in range(data.num_columns)]
        cols = [data.column(i).to_pylist() for i in range(data.num_columns)]
        with open(path, "w", encoding="utf-8") as fh:
            for r in range(data.num_rows):
                row = {n: _json_value(cols[i][r], types[i]) for i, n in enumerate(data.column_names)}
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    elif fmt == "csv":
        pacsv.write_csv(data, path)
    else:
        raise ValueError(f"unknown input format {fmt!r}")
    return path
