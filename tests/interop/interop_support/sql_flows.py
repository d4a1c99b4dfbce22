"""Tables, rows and models shared by the Spark and Flink interop modules (``test_spark``,
``test_flink``): a partitioned table ``(k INT, dt STRING, v STRING, n BIGINT, x DOUBLE)`` with an
optional primary key ``(k, dt)``, deterministic rows for a key range, SQL ``VALUES`` text for them,
and the model every engine's read is compared with (append, or upsert by key).
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pyarrow as pa

from .canonical import canonical_lines
from .datagen import paimon_schema_json, write_input

SCHEMA = pa.schema([
    pa.field("k", pa.int32(), nullable=False),
    pa.field("dt", pa.string(), nullable=False),
    pa.field("v", pa.string()),
    pa.field("n", pa.int64()),
    pa.field("x", pa.float64()),
])
_seq = itertools.count()


def rows(keys: Sequence[int], tag: str, dts: Sequence[str] = ("2026-01-01", "2026-01-02")) -> pa.Table:
    return pa.table({
        "k": pa.array(list(keys), pa.int32()),
        "dt": pa.array([dts[k % len(dts)] for k in keys], pa.string()),
        "v": pa.array([None if k % 7 == 3 else f"{tag}-{k:06d}" for k in keys], pa.string()),
        "n": pa.array([k * 1000 + len(tag) for k in keys], pa.int64()),
        "x": pa.array([None if k % 5 == 1 else k / 4 for k in keys], pa.float64()),
    }, schema=SCHEMA)


def sql_type(t: pa.DataType) -> str:
    return {pa.string(): "STRING", pa.int64(): "BIGINT", pa.int32(): "INT", pa.float64(): "DOUBLE",
            pa.date32(): "DATE"}[t]


def sql_literal(v, t: pa.DataType) -> str:
    if v is None:
        return f"CAST(NULL AS {sql_type(t)})"   # Flink refuses an untyped NULL in VALUES
    if pa.types.is_string(t):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if pa.types.is_int64(t):
        return f"CAST({v} AS BIGINT)"
    if pa.types.is_floating(t):
        return f"CAST({float(v)!r} AS DOUBLE)"
    if pa.types.is_date(t):
        return f"DATE '{v.isoformat()}'"
    return str(v)


def values_sql(data: pa.Table) -> str:
    types = [f.type for f in data.schema]
    return ", ".join("(" + ", ".join(sql_literal(v, t) for v, t in zip(r.values(), types)) + ")"
                     for r in data.to_pylist())


class Model:
    """Expected rows: append, or upsert by key."""

    def __init__(self, primary_key: Optional[Sequence[str]] = None):
        self.pk = list(primary_key) if primary_key else None
        self.rows: List[dict] = []
        self.history: List[List[dict]] = []

    def commit(self, data: pa.Table) -> None:
        new = data.to_pylist()
        if self.pk is None:
            self.rows = self.rows + new
        else:
            by_key = {tuple(r[c] for c in self.pk): r for r in self.rows}
            for r in new:
                by_key[tuple(r[c] for c in self.pk)] = r
            self.rows = list(by_key.values())
        self.history.append(list(self.rows))

    def lines(self, at: Optional[int] = None, schema: pa.Schema = SCHEMA) -> List[str]:
        rs = self.rows if at is None else self.history[at - 1]
        return canonical_lines(pa.Table.from_pylist(rs, schema=schema))


def strata_write(strata, ident: str, data: pa.Table, overwrite: bool = False) -> None:
    f = write_input(data, "parquet", Path(strata.scratch) / f"in-{next(_seq)}.parquet")
    strata.write(ident, [f], overwrite=overwrite)


def create_strata(strata, ident: str, pk: bool, options: Optional[Dict[str, str]] = None,
                  schema: pa.Schema = SCHEMA, partition: Sequence[str] = ("dt",)) -> None:
    doc = paimon_schema_json(schema, partition, options)
    if pk:
        doc["primaryKeys"] = ["k", "dt"]
    strata.create_table(ident, doc)


def value_lines(values: List[list]) -> List[str]:
    """Rows given as value lists (``[k, dt, v, n, x]``), as sorted JSON lines."""
    import json
    return sorted(json.dumps(v, ensure_ascii=False) for v in values)


def model_value_lines(model: "Model", at: Optional[int] = None) -> List[str]:
    rs = model.rows if at is None else model.history[at - 1]
    return value_lines([[r[c] for c in SCHEMA.names] for r in rs])
