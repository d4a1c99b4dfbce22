"""Primary-key tables for the interop suite: the cases (schema, keys, options, commits), a Python
model of Paimon's merge semantics that computes the rows a table must read, and the helpers to build
a case with pypaimon, pypaimon-rust or strata.

What the model implements (Java Paimon semantics, checked against both reference readers by
``test_pk_oracle.py``):

* records are ordered by (``sequence.field`` values, if set; then the input order over all
  commits) -- the input order is the sequence number every writer assigns;
* ``rowkind.field`` names a STRING column holding ``+I``/``-U``/``+U``/``-D``; ``ignore-delete``
  (and its per-engine aliases) drops ``-U``/``-D`` records;
* deduplicate: the last record of a key wins; a retract (``-U``/``-D``) as the last record removes
  the key;
* partial-update: every non-key field takes the last non-null value; a
  ``fields.<seq>.sequence-group`` = ``a,b`` field group is updated as a whole (NULLs included) by a
  record whose ``<seq>`` is not NULL and not smaller than the stored one;
* aggregation: ``fields.<f>.aggregate-function`` per field (default
  ``fields.default-aggregate-function``, else ``last_non_null_value``); the functions of ``AGGS``;
* first-row: the first record of a key.  BUT a batch read of a first-row table skips level 0, and
  the reference writers never compact, so their tables read EMPTY (``expected_lines``;
  ``merged_lines`` is the compacted content, what strata's tables read: strata compacts on write).

Cases avoid what Java rejects or where the engines are allowed to differ: no retracts with
partial-update / aggregation / first-row, no NULL sequence fields, float sums of exactly
representable values only.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import pyarrow as pa

from . import engines, warehouse
from .canonical import canonical_lines
from .datagen import paimon_schema_json, write_input
from .strata_cli import Strata

D = decimal.Decimal
PEERS = ("pypaimon", "pypaimon-rust")
RETRACT = ("-U", "-D")
IGNORE_DELETE_KEYS = ("ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete",
                      "first-row.ignore-delete")


@dataclass
class PkCase:
    name: str
    schema: pa.Schema                     # primary-key fields are NOT NULL (as pypaimon forces them)
    primary_keys: Tuple[str, ...]
    commits: List[pa.Table]
    partition_keys: Tuple[str, ...] = ()
    options: Dict[str, str] = field(default_factory=dict)
    writers: Tuple[str, ...] = PEERS      # reference engines able to write the case
    readers: Tuple[str, ...] = PEERS      # reference engines able to read the case
    formats: Tuple[str, ...] = ("parquet",)  # strata input formats exercised for it
    note: str = ""

    @property
    def merge_engine(self) -> str:
        return self.options.get("merge-engine", "deduplicate")

    @property
    def reads_empty(self) -> bool:
        """Batch reads of an uncompacted (all level-0) table return nothing (first-row)."""
        return self.merge_engine == "first-row"

    def merged_lines(self, n: Optional[int] = None) -> List[str]:
        """Canonical rows after the first ``n`` commits (all by default), as if fully compacted."""
        return canonical_lines(pa.Table.from_pylist(merge_model(self, n), schema=self.schema))

    def expected_lines(self, n: Optional[int] = None) -> List[str]:
        """What a batch read returns when every data file is at level 0 (as the peers write)."""
        return [] if self.reads_empty else self.merged_lines(n)


# ---- the merge model ---------------------------------------------------------------------------

def _truthy(v: Optional[str]) -> bool:
    return v is not None and str(v).strip().lower() == "true"


def _agg_sum(acc, v):
    return acc if v is None else (v if acc is None else acc + v)


def _agg_product(acc, v):
    return acc if v is None else (v if acc is None else acc * v)


def _agg_max(acc, v):
    return acc if v is None else (v if acc is None or v > acc else acc)


def _agg_min(acc, v):
    return acc if v is None else (v if acc is None or v < acc else acc)


def _agg_bool_or(acc, v):
    return acc if v is None else (v if acc is None else (acc or v))


def _agg_bool_and(acc, v):
    return acc if v is None else (v if acc is None else (acc and v))


_UNSET = object()

# name -> (acc, value, options-of-the-field) -> acc; accumulators start at _UNSET for a new key
AGGS: Dict[str, Callable] = {
    "sum": lambda a, v, o: _agg_sum(None if a is _UNSET else a, v),
    "product": lambda a, v, o: _agg_product(None if a is _UNSET else a, v),
    "max": lambda a, v, o: _agg_max(None if a is _UNSET else a, v),
    "min": lambda a, v, o: _agg_min(None if a is _UNSET else a, v),
    "bool_or": lambda a, v, o: _agg_bool_or(None if a is _UNSET else a, v),
    "bool_and": lambda a, v, o: _agg_bool_and(None if a is _UNSET else a, v),
    "last_value": lambda a, v, o: v,
    "last_non_null_value": lambda a, v, o: (None if a is _UNSET else a) if v is None else v,
    "first_value": lambda a, v, o: v if a is _UNSET else a,
    "first_non_null_value": lambda a, v, o: v if a is _UNSET or a is None else a,
    "listagg": lambda a, v, o: ((None if a is _UNSET else a) if v is None else
                                (v if a is _UNSET or a is None else a + o.get("list-agg-delimiter", ",") + v)),
}


def _field_options(options: Dict[str, str], name: str) -> Dict[str, str]:
    prefix = f"fields.{name}."
    return {k[len(prefix):]: v for k, v in options.items() if k.startswith(prefix)}


def _records(case: PkCase, n: Optional[int]):
    """(sort key, primary key, row kind, row) of every kept input record, in sequence order."""
    opts = case.options
    rk_field = opts.get("rowkind.field")
    ignore_delete = any(_truthy(opts.get(k)) for k in IGNORE_DELETE_KEYS)
    seq_fields = [f for f in opts.get("sequence.field", "").split(",") if f]
    seq = itertools.count()
    out = []
    for table in case.commits[:n]:
        for row in table.to_pylist():
            s = next(seq)
            kind = row[rk_field] if rk_field else "+I"
            if kind not in ("+I", "-U", "+U", "-D"):
                raise ValueError(f"bad row kind {kind!r}")
            if ignore_delete and kind in RETRACT:
                continue
            seq_values = tuple(row[f] for f in seq_fields)
            if any(v is None for v in seq_values):
                raise ValueError("the model does not order NULL sequence fields")
            out.append((seq_values + (s,), tuple(row[k] for k in case.primary_keys), kind, row))
    out.sort(key=lambda r: r[0])
    return out


def _sequence_groups(options: Dict[str, str]) -> List[Tuple[str, List[str]]]:
    groups = []
    for k, v in options.items():
        if k.startswith("fields.") and k.endswith(".sequence-group"):
            seq = k[len("fields."):-len(".sequence-group")]
            if "," in seq:
                raise ValueError("the model supports one sequence field per group")
            groups.append((seq, [f.strip() for f in v.split(",")]))
    return groups


def merge_model(case: PkCase, n: Optional[int] = None) -> List[dict]:
    """The live rows (dicts in schema order) after the first ``n`` commits, sorted by key."""
    engine = case.merge_engine
    names = case.schema.names
    pk = set(case.primary_keys)
    by_key: Dict[tuple, list] = {}
    for _, key, kind, row in _records(case, n):
        by_key.setdefault(key, []).append((kind, row))

    out = []
    for key in sorted(by_key, key=repr):
        recs = by_key[key]
        if engine == "deduplicate":
            kind, row = recs[-1]
            if kind in RETRACT:
                continue
            out.append(dict(row))
        elif engine == "first-row":
            if any(k in RETRACT for k, _ in recs):
                raise ValueError("first-row cases must not carry retracts")
            out.append(dict(recs[0][1]))
        elif engine == "partial-update":
            if any(k in RETRACT for k, _ in recs):
                raise ValueError("partial-update cases must not carry retracts")
            groups = _sequence_groups(case.options)
            grouped = {f for seq, members in groups for f in [seq] + members}
            acc = {c: None for c in names}
            for _, row in recs:
                for c in names:
                    if c in pk:
                        acc[c] = row[c]
                    elif c not in grouped and row[c] is not None:
                        acc[c] = row[c]
                for seq, members in groups:
                    if row[seq] is None:
                        continue            # an empty sequence group leaves the group alone
                    if acc[seq] is None or row[seq] >= acc[seq]:
                        for c in [seq] + members:
                            acc[c] = row[c]
            out.append(acc)
        elif engine == "aggregation":
            if any(k in RETRACT for k, _ in recs):
                raise ValueError("aggregation cases must not carry retracts")
            default = case.options.get("fields.default-aggregate-function", "last_non_null_value")
            acc = {c: _UNSET for c in names}
            for _, row in recs:
                for c in names:
                    if c in pk:
                        acc[c] = row[c]
                        continue
                        # (primary-key fields are never aggregated)
                    fo = _field_options(case.options, c)
                    acc[c] = AGGS[fo.get("aggregate-function", default)](acc[c], row[c], fo)
            out.append({c: (None if v is _UNSET else v) for c, v in acc.items()})
        else:
            raise ValueError(f"merge engine {engine!r} not modelled")
    return out


# ---- building tables ---------------------------------------------------------------------------

def pk_schema_json(case: PkCase) -> dict:
    """The ``strata create-table --schema`` document of a case."""
    doc = paimon_schema_json(case.schema, case.partition_keys, case.options)
    doc["primaryKeys"] = list(case.primary_keys)
    return doc


def create_peer_table(wh: str, ident: str, case: PkCase) -> None:
    """Create the case's table with pypaimon (pypaimon-rust's catalog cannot create tables)."""
    from pypaimon import Schema
    cat = engines.catalog(wh)
    cat.create_database(ident.split(".")[0], True)
    cat.create_table(ident, Schema.from_pyarrow_schema(
        case.schema, partition_keys=list(case.partition_keys), primary_keys=list(case.primary_keys),
        options=dict(case.options)), False)


def build_peer(writer: str, wh: str, ident: str, case: PkCase) -> None:
    """Create the table and write every commit with ``writer`` (one snapshot per commit)."""
    create_peer_table(wh, ident, case)
    for data in case.commits:
        engines.write(writer, wh, ident, data)


def strata_write_commit(strata: Strata, ident: str, data: pa.Table, fmt: str, inputs: Path, tag: str):
    f = write_input(data, fmt, Path(inputs) / f"{tag}.{fmt}")
    return strata.write(ident, [f])


def build_strata(strata: Strata, ident: str, case: PkCase, inputs: Path, fmt: str = "parquet") -> List[List[int]]:
    """``strata create-table`` + one ``strata write`` per commit; returns the ids of the snapshots
    each write committed (an APPEND snapshot, then a COMPACT one when the write compacted:
    ``compaction.check_write_snapshots`` checks that shape)."""
    strata.create_table(ident, pk_schema_json(case))
    per_write = []
    for n, data in enumerate(case.commits):
        before = warehouse.snapshot_ids(strata.warehouse, ident)
        strata_write_commit(strata, ident, data, fmt, inputs, f"{case.name}-{n}")
        after = warehouse.snapshot_ids(strata.warehouse, ident)
        assert after[:len(before)] == before, f"write {n + 1} of {case.name}: snapshots {before} -> {after}"
        per_write.append(after[len(before):])
    return per_write


def with_options(case: PkCase, options: Dict[str, str]) -> PkCase:
    """The same case with extra table options (e.g. ``write-only``: strata never compacts on
    write, so every file stays at level 0 with one APPEND snapshot per write, as the peers write)."""
    return dataclasses.replace(case, options={**case.options, **options})


def write_with(writer: str, strata: Strata, ident: str, data: pa.Table, inputs: Path, tag: str) -> None:
    """One commit of ``data`` by ``writer`` (``strata`` or a reference engine)."""
    if writer == "strata":
        strata_write_commit(strata, ident, data, "parquet", inputs, tag)
    else:
        engines.write(writer, strata.warehouse, ident, data)


def peer_lines(reader: str, wh: str, ident: str, snapshot: Optional[int] = None) -> List[str]:
    return canonical_lines(engines.read(reader, wh, ident, snapshot=snapshot))


# ---- the cases ---------------------------------------------------------------------------------

def _nn(name: str, t: pa.DataType) -> pa.Field:
    return pa.field(name, t, nullable=False)


BASIC_SCHEMA = pa.schema([_nn("id", pa.int64()), ("name", pa.string()), ("score", pa.float64()),
                          ("cnt", pa.int32())])


def _basic_rows(ids: Sequence[int], k: int) -> pa.Table:
    return pa.table({
        "id": list(ids),
        "name": [None if (i + k) % 5 == 0 else f"c{k}_{i}" for i in ids],
        "score": [None if (i * k) % 7 == 3 else (i - k) * 0.25 for i in ids],
        "cnt": [i * 10 + k for i in ids],
    }, schema=BASIC_SCHEMA)


def _basic_commits(n: int = 5) -> List[pa.Table]:
    # commit k rewrites ids 2k..2k+5: every commit overlaps the previous two; commit 2 also carries
    # the same key twice (the later row wins inside one commit too)
    commits = [_basic_rows(range(2 * k, 2 * k + 6), k) for k in range(n)]
    if n > 2:
        commits[2] = pa.concat_tables([commits[2], _basic_rows([5], 20), _basic_rows([4], 21)])
    return commits


def case_dedup_basic() -> PkCase:
    return PkCase("dedup_basic", BASIC_SCHEMA, ("id",), _basic_commits(5), options={"bucket": "1"},
                  formats=("parquet", "jsonl", "csv"))


COMPOSITE_SCHEMA = pa.schema([
    _nn("k_int", pa.int32()), _nn("k_big", pa.int64()), _nn("k_str", pa.string()), _nn("k_date", pa.date32()),
    _nn("k_dec", pa.decimal128(10, 2)), ("v", pa.string()), ("n", pa.int64()),
])
_STRS = ["", "a", "ß✓", "a-much-longer-string-key-over-16-bytes"]


def _composite_rows(ids: Sequence[int], k: int) -> pa.Table:
    return pa.table({
        "k_int": [i % 3 - 1 for i in ids],
        "k_big": [i * 1000003 - 5 for i in ids],
        "k_str": [_STRS[i % 4] for i in ids],
        "k_date": [dt.date(2024, 2, 27) + dt.timedelta(days=i % 5) - dt.timedelta(days=20000 * (i % 2)) for i in ids],
        "k_dec": [D(i * 37 - 100) / 4 for i in ids],
        "v": [None if (i + k) % 4 == 0 else f"g{k}-{i}" for i in ids],
        "n": [i * 100 + k for i in ids],
    }, schema=COMPOSITE_SCHEMA)


def case_composite_bucket4() -> PkCase:
    """Five-column key (INT, BIGINT, STRING, DATE, DECIMAL), bucket=4: bucket hashing of the key row."""
    commits = [_composite_rows(range(4 * k, 4 * k + 10), k) for k in range(5)]
    return PkCase("composite_bucket4", COMPOSITE_SCHEMA, ("k_int", "k_big", "k_str", "k_date", "k_dec"),
                  commits, options={"bucket": "4"})


PART_SCHEMA = pa.schema([_nn("dt", pa.string()), _nn("id", pa.int32()), ("v", pa.string()),
                         ("amount", pa.decimal128(12, 3))])


def _part_rows(pairs: Sequence[Tuple[str, int]], k: int) -> pa.Table:
    return pa.table({
        "dt": [p for p, _ in pairs], "id": [i for _, i in pairs],
        "v": [None if (i + k) % 6 == 0 else f"p{k}:{p[-2:]}:{i}" for p, i in pairs],
        "amount": [D(i * 1000 + k) / 1000 for _, i in pairs],
    }, schema=PART_SCHEMA)


def _part_commits(n: int = 5) -> List[pa.Table]:
    days = ["2024-01-01", "2024-01-02", "2024-01-03"]
    out = []
    for k in range(n):
        # the same id lives in several partitions (different keys); commit k touches ids k..k+4
        out.append(_part_rows([(days[(i + k) % 3], i) for i in range(k, k + 5)] +
                              [(days[k % 3], 100 + k % 2)], k))
    return out


def case_part_bucket2() -> PkCase:
    return PkCase("part_bucket2", PART_SCHEMA, ("dt", "id"), _part_commits(5), partition_keys=("dt",),
                  options={"bucket": "2"})


REGION_SCHEMA = pa.schema([_nn("region", pa.int32()), _nn("name", pa.string()), _nn("id", pa.int64()),
                           ("x", pa.float64())])


def case_part_int_bucket4() -> PkCase:
    """INT partition key, composite key (region, name, id), bucket=4."""
    def rows(ids, k):
        return pa.table({"region": [i % 2 * 10 - 5 for i in ids], "name": [f"n{i % 3}" for i in ids],
                         "id": list(ids), "x": [None if i % 4 == k % 4 else i + k / 2 for i in ids]},
                        schema=REGION_SCHEMA)
    return PkCase("part_int_bucket4", REGION_SCHEMA, ("region", "name", "id"),
                  [rows(range(0, 12), 0), rows(range(6, 18), 1), rows(range(0, 18, 3), 2)],
                  partition_keys=("region",), options={"bucket": "4"})


def case_dynamic() -> PkCase:
    """bucket=-1 (dynamic, HASH index); a small target row count spreads the keys over buckets."""
    return PkCase("dynamic", BASIC_SCHEMA, ("id",), _basic_commits(5),
                  options={"bucket": "-1", "dynamic-bucket.target-row-num": "5"})


def case_dynamic_part() -> PkCase:
    return PkCase("dynamic_part", PART_SCHEMA, ("dt", "id"), _part_commits(4), partition_keys=("dt",),
                  options={"bucket": "-1", "dynamic-bucket.target-row-num": "3"})


ROWKIND_SCHEMA = pa.schema([_nn("id", pa.int64()), ("name", pa.string()), ("score", pa.float64()),
                            ("cnt", pa.int32()), ("rk", pa.string())])


def _rk_rows(ids, tag, kind="+I"):
    return pa.table({"id": list(ids), "name": [f"{tag}_{i}" for i in ids], "score": [i * 1.5 for i in ids],
                     "cnt": [len(tag) * 100 + i for i in ids], "rk": [kind] * len(ids)}, schema=ROWKIND_SCHEMA)


def rowkind_commits() -> List[pa.Table]:
    """The pypaimon oracle's pk_t history (four commits with row kinds) plus a fifth commit."""
    return [
        _rk_rows(range(1, 21), "v1"),
        pa.concat_tables([_rk_rows([5, 6], "v1", "-U"), _rk_rows(range(5, 16), "v2", "+U"),
                          _rk_rows(range(21, 26), "v2")]),
        pa.concat_tables([_rk_rows([1, 2, 3, 10, 22], "v2", "-D"), _rk_rows([7], "v3", "+U")]),
        pa.concat_tables([_rk_rows([2, 11, 30], "v4"), _rk_rows([30], "v4", "-D")]),
        # a -U as the last record deletes too; a delete of a key never written; re-insert of 3
        pa.concat_tables([_rk_rows([12], "v5", "-U"), _rk_rows([99], "v5", "-D"), _rk_rows([3], "v5", "+I")]),
    ]


def case_rowkind() -> PkCase:
    return PkCase("rowkind", ROWKIND_SCHEMA, ("id",), rowkind_commits(),
                  options={"bucket": "2", "rowkind.field": "rk"}, formats=("parquet", "jsonl", "csv"))


def case_rowkind_ignore_delete() -> PkCase:
    return PkCase("rowkind_ignore_delete", ROWKIND_SCHEMA, ("id",), rowkind_commits(),
                  options={"bucket": "2", "rowkind.field": "rk", "ignore-delete": "true"})


PU_SCHEMA = pa.schema([_nn("id", pa.int32()), ("a", pa.string()), ("b", pa.int64()), ("c", pa.float64()),
                       ("d", pa.date32())])


def case_partial_update() -> PkCase:
    def rows(ids, k, cols):
        return pa.table({
            "id": list(ids),
            "a": [f"a{k}-{i}" if "a" in cols else None for i in ids],
            "b": [i * 10 + k if "b" in cols else None for i in ids],
            "c": [(i + k) * 0.5 if "c" in cols else None for i in ids],
            "d": [dt.date(2020, 1, 1) + dt.timedelta(days=k * 40 + i) if "d" in cols else None for i in ids],
        }, schema=PU_SCHEMA)
    return PkCase("partial_update", PU_SCHEMA, ("id",), [
        rows(range(0, 8), 0, "ab"),
        rows(range(4, 12), 1, "c"),
        pa.concat_tables([rows(range(0, 12, 2), 2, "ad"), rows([1], 22, "b")]),
        rows(range(3, 6), 3, ""),            # all-NULL values: nothing changes but the keys exist
        rows(range(10, 14), 4, "bcd"),
    ], options={"bucket": "2", "merge-engine": "partial-update"})


SEQ_GROUP_SCHEMA = pa.schema([_nn("id", pa.int64()), ("a", pa.string()), ("a2", pa.int32()), ("g1", pa.int64()),
                              ("b", pa.string()), ("g2", pa.int64()), ("free", pa.string())])


def case_partial_update_seq_group() -> PkCase:
    """partial-update with two sequence groups (g1 -> a,a2 ; g2 -> b).  pypaimon 2.1.0 refuses such
    tables on write and read (NotImplementedError): only pypaimon-rust writes and reads them."""
    def t(rows):
        return pa.table({c: [r.get(c) for r in rows] for c in SEQ_GROUP_SCHEMA.names}, schema=SEQ_GROUP_SCHEMA)
    return PkCase("partial_update_seq_group", SEQ_GROUP_SCHEMA, ("id",), [
        t([{"id": 1, "a": "a1", "a2": 1, "g1": 5, "b": "b1", "g2": 5, "free": "f1"},
           {"id": 2, "a": "x", "a2": 2, "g1": 1, "b": "y", "g2": 1},
           {"id": 3, "a": "p", "g1": 1, "free": "f3"}]),
        # id 1: g1 older -> group (a, a2) kept; g2 newer -> b replaced; id 2: g2 NULL -> b group kept,
        # g1 newer with a NULL a2 -> a2 becomes NULL
        t([{"id": 1, "a": "a-old", "a2": 9, "g1": 3, "b": "b2", "g2": 9},
           {"id": 2, "a": "x2", "g1": 2, "b": "ignored"},
           {"id": 4, "b": "only-b", "g2": 4, "free": "f4"}]),
        # equal sequence value -> the later record wins the group
        t([{"id": 1, "a": "a-tie", "a2": 7, "g1": 5, "free": "f1b"},
           {"id": 3, "a": None, "a2": 3, "g1": 1, "b": "pb", "g2": 0}]),
    ], options={"bucket": "1", "merge-engine": "partial-update",
                "fields.g1.sequence-group": "a,a2", "fields.g2.sequence-group": "b"},
        writers=("pypaimon-rust",), readers=("pypaimon-rust",))


AGG_SCHEMA = pa.schema([
    _nn("id", pa.int32()), ("s_sum", pa.int64()), ("d_sum", pa.float64()), ("dec_sum", pa.decimal128(12, 2)),
    ("mx", pa.int32()), ("mn", pa.int64()), ("s_max", pa.string()), ("lnn", pa.string()), ("lv", pa.string()),
    ("fnn", pa.int32()), ("la", pa.string()), ("la2", pa.string()), ("bo", pa.bool_()), ("ba", pa.bool_()),
    ("prod", pa.int64()), ("dflt", pa.string()),
])
AGG_FUNCS = {"s_sum": "sum", "d_sum": "sum", "dec_sum": "sum", "mx": "max", "mn": "min", "s_max": "max",
             "lnn": "last_non_null_value", "lv": "last_value", "fnn": "first_non_null_value", "la": "listagg",
             "la2": "listagg", "bo": "bool_or", "ba": "bool_and", "prod": "product"}


def _agg_rows(ids, k) -> pa.Table:
    def nv(i, v, m=5):
        return None if (i + k) % m == 0 else v
    return pa.table({
        "id": list(ids),
        "s_sum": [nv(i, i * 3 - k * 7) for i in ids],
        "d_sum": [nv(i, (i - k) * 0.25, 4) for i in ids],
        "dec_sum": [nv(i, D(i * 101 - k) / 100, 3) for i in ids],
        "mx": [nv(i, (i * 7 + k * 13) % 17 - 8) for i in ids],
        "mn": [nv(i, (i * 5 + k * 11) % 19 - 9, 4) for i in ids],
        "s_max": [nv(i, f"s{(i * 3 + k) % 7}") for i in ids],
        "lnn": [nv(i, f"l{k}-{i}", 3) for i in ids],
        "lv": [nv(i, f"v{k}-{i}", 3) for i in ids],
        "fnn": [nv(i, i * 10 + k, 2) for i in ids],
        "la": [nv(i, f"{k}{i}", 4) for i in ids],
        "la2": [nv(i, f"x{k}", 3) for i in ids],
        "bo": [nv(i, (i + k) % 3 == 0, 4) for i in ids],
        "ba": [nv(i, (i * k) % 4 != 1, 3) for i in ids],
        "prod": [nv(i, (i + k) % 3 - 1 or 2, 4) for i in ids],
        "dflt": [nv(i, f"d{k}", 2) for i in ids],
    }, schema=AGG_SCHEMA)


def case_aggregation() -> PkCase:
    opts = {"bucket": "2", "merge-engine": "aggregation", "fields.la2.list-agg-delimiter": "|"}
    opts.update({f"fields.{c}.aggregate-function": f for c, f in AGG_FUNCS.items()})
    commits = [_agg_rows(range(0, 6), 1), _agg_rows(range(2, 9), 2),
               pa.concat_tables([_agg_rows(range(0, 9, 2), 3), _agg_rows([4], 30)]),
               _agg_rows(range(5, 10), 4), _agg_rows([0, 9], 5)]
    return PkCase("aggregation", AGG_SCHEMA, ("id",), commits, options=opts)


def case_first_row() -> PkCase:
    return PkCase("first_row", BASIC_SCHEMA, ("id",), _basic_commits(4),
                  options={"bucket": "2", "merge-engine": "first-row"},
                  note="reads EMPTY while every file is at level 0")


SEQ_SCHEMA = pa.schema([_nn("id", pa.int64()), ("v", pa.string()), ("ts", pa.int64())])


def case_sequence_field() -> PkCase:
    def t(ids, vs, ts):
        return pa.table({"id": ids, "v": vs, "ts": ts}, schema=SEQ_SCHEMA)
    return PkCase("sequence_field", SEQ_SCHEMA, ("id",), [
        t([1, 2, 3, 4], ["a1", "b1", "c1", "d1"], [10, 10, 10, 10]),
        # smaller ts loses even though written later; equal ts: the later write wins
        t([1, 2, 3], ["a2", "b2", "c2"], [5, 10, 11]),
        # inside one commit the order of ts, not of the rows, decides
        t([4, 4, 4, 5, 5], ["d3", "d2", "d1x", "e2", "e1"], [30, 20, 9, 2, 1]),
        t([1, 5], ["a4", "e3"], [11, 2]),
    ], options={"bucket": "1", "sequence.field": "ts"})


def all_cases() -> List[PkCase]:
    return [case_dedup_basic(), case_composite_bucket4(), case_part_bucket2(), case_part_int_bucket4(),
            case_dynamic(), case_dynamic_part(), case_rowkind(), case_rowkind_ignore_delete(),
            case_partial_update(), case_partial_update_seq_group(), case_aggregation(), case_first_row(),
            case_sequence_field()]


CASES = {c.name: c for c in all_cases()}
