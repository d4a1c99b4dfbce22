"""The two reference engines: pypaimon 2.1.0 (pure Python) and pypaimon-rust 0.4.0.

Both run in-process against a filesystem-catalog warehouse.  pypaimon-rust's catalog cannot create
databases or tables, so tables are always created with pypaimon; the data (files, manifests,
snapshots) is then written by whichever engine the test names.

Writer names used throughout the suite: ``"pypaimon"`` and ``"pypaimon-rust"``.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from pypaimon import CatalogFactory, Schema
from pypaimon.schema.data_types import PyarrowFieldParser
from pypaimon_rust.datafusion import PaimonCatalog

WRITERS = ("pypaimon", "pypaimon-rust")
READERS = ("pypaimon", "pypaimon-rust")

# Overwrite modes for the writers: None appends; {} is INSERT OVERWRITE (dynamic partitions on a
# partitioned table with the default dynamic-partition-overwrite=true, the whole table otherwise);
# {"dt": "x"} overwrites that static partition.
Overwrite = Optional[Dict[str, object]]


def catalog(wh: str):
    return CatalogFactory.create({"warehouse": os.path.abspath(wh)})


def rust_catalog(wh: str) -> PaimonCatalog:
    # pypaimon-rust rejects relative warehouse paths
    return PaimonCatalog({"warehouse": os.path.abspath(wh)})


def create_table(wh: str, ident: str, schema: pa.Schema, partition_keys: Sequence[str] = (),
                 options: Optional[Dict[str, str]] = None) -> None:
    """Create ``ident`` (and its database) with pypaimon; the schema is an Arrow schema."""
    cat = catalog(wh)
    cat.create_database(ident.split(".")[0], True)
    cat.create_table(ident, Schema.from_pyarrow_schema(
        schema, partition_keys=list(partition_keys), options=dict(options or {})), False)


def alter_table(wh: str, ident: str, changes: list) -> None:
    """Apply pypaimon SchemaChange objects (add/rename/drop column, ...)."""
    catalog(wh).alter_table(ident, changes)


def write_pypaimon(wh: str, ident: str, data: pa.Table, overwrite: Overwrite = None) -> None:
    """One pypaimon batch commit of ``data`` (one snapshot)."""
    t = catalog(wh).get_table(ident)
    wb = t.new_batch_write_builder()
    if overwrite is not None:
        wb = wb.overwrite(dict(overwrite))
    w, c = wb.new_write(), wb.new_commit()
    try:
        w.write_arrow(data)
        c.commit(w.prepare_commit())
    finally:
        w.close()
        c.close()


def write_rust(wh: str, ident: str, data: pa.Table, overwrite: Overwrite = None) -> None:
    """One pypaimon-rust batch commit of ``data`` (one snapshot)."""
    t = rust_catalog(wh).get_table(ident)
    wb = t.new_batch_write_builder()
    if overwrite is not None:
        wb = wb.with_overwrite(dict(overwrite))
    w, c = wb.new_write(), wb.new_commit()
    try:
        for batch in data.to_batches():
            w.write_arrow(batch)
        c.commit(w.prepare_commit())
    finally:
        w.close()
        c.close()


def write(writer: str, wh: str, ident: str, data: pa.Table, overwrite: Overwrite = None) -> None:
    if writer == "pypaimon":
        write_pypaimon(wh, ident, data, overwrite)
    elif writer == "pypaimon-rust":
        write_rust(wh, ident, data, overwrite)
    else:
        raise ValueError(f"unknown writer {writer!r}")


def table_arrow_schema(wh: str, ident: str, columns: Optional[Sequence[str]] = None,
                       snapshot: Optional[int] = None) -> pa.Schema:
    """Arrow schema pypaimon reads ``ident`` with (optionally projected / at a snapshot)."""
    t = catalog(wh).get_table(ident)
    if snapshot is not None:
        t = t.copy({"scan.snapshot-id": str(snapshot)})
    fields = list(t.fields)
    if columns:
        by_name = {f.name: f for f in fields}
        fields = [by_name[c] for c in columns]
    return PyarrowFieldParser.from_paimon_schema(fields)


def read_pypaimon(wh: str, ident: str, columns: Optional[Sequence[str]] = None,
                  snapshot: Optional[int] = None, predicate=None) -> pa.Table:
    """Read with pypaimon; ``predicate(pb)`` may build a pushed-down filter from a PredicateBuilder."""
    t = catalog(wh).get_table(ident)
    if snapshot is not None:
        t = t.copy({"scan.snapshot-id": str(snapshot)})
    rb = t.new_read_builder()
    if columns:
        rb = rb.with_projection(list(columns))
    if predicate is not None:
        rb = rb.with_filter(predicate(rb.new_predicate_builder()))
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    if out is None:
        out = table_arrow_schema(wh, ident, columns, snapshot).empty_table()
    return out


def read_rust(wh: str, ident: str, columns: Optional[Sequence[str]] = None,
              snapshot: Optional[int] = None, predicate: Optional[dict] = None) -> pa.Table:
    """Read with pypaimon-rust; ``predicate`` is its dict form, e.g.
    ``{'method': 'lessThan', 'field': 'id', 'literals': [5]}``."""
    t = rust_catalog(wh).get_table(ident)
    opts = {"scan.snapshot-id": str(snapshot)} if snapshot is not None else None
    rb = t.new_read_builder(opts)
    if columns:
        rb = rb.with_projection(list(columns))
    if predicate is not None:
        rb = rb.with_filter(predicate)
    batches = rb.new_read().read(rb.new_scan().plan().splits())
    if batches:
        return pa.Table.from_batches(batches)
    return table_arrow_schema(wh, ident, columns, snapshot).empty_table()


def read(reader: str, wh: str, ident: str, columns: Optional[Sequence[str]] = None,
         snapshot: Optional[int] = None) -> pa.Table:
    if reader == "pypaimon":
        return read_pypaimon(wh, ident, columns, snapshot)
    if reader == "pypaimon-rust":
        return read_rust(wh, ident, columns, snapshot)
    raise ValueError(f"unknown reader {reader!r}")


_PY_OPS = {"=": "equal", "!=": "not_equal", "<": "less_than", "<=": "less_or_equal",
           ">": "greater_than", ">=": "greater_or_equal"}
_RUST_OPS = {"=": "equal", "!=": "notEqual", "<": "lessThan", "<=": "lessOrEqual",
             ">": "greaterThan", ">=": "greaterOrEqual"}
_PC_OPS = {"=": pc.equal, "!=": pc.not_equal, "<": pc.less, "<=": pc.less_equal,
           ">": pc.greater, ">=": pc.greater_equal}


def read_filtered(reader: str, wh: str, ident: str, columns: Optional[Sequence[str]],
                  col: str, op: str, value) -> pa.Table:
    """The oracle's filtered read: one ``col OP value`` predicate pushed to the engine, then
    re-applied exactly (so the result never depends on reader-side pruning), then projected."""
    read_cols = list(columns) if columns else None
    if read_cols is not None and col not in read_cols:
        read_cols.append(col)
    if reader == "pypaimon":
        # pypaimon 2.1.0 bug: with a projection, a pushed-down predicate is tested against the
        # value stats of the field at the predicate's *projected* index (e.g. 'id < 5' compared
        # with dt's min/max -> TypeError, or wrong pruning).  Push the filter on a full read and
        # project afterwards.
        table = read_pypaimon(wh, ident, None,
                              predicate=lambda pb: getattr(pb, _PY_OPS[op])(col, value))
    else:
        table = read_rust(wh, ident, read_cols,
                          predicate={"method": _RUST_OPS[op], "field": col, "literals": [value]})
    table = table.filter(_PC_OPS[op](table[col], pa.scalar(value, type=table.schema.field(col).type)))
    if columns:
        table = table.select(list(columns))
    return table


def planned_files(wh: str, ident: str, snapshot: Optional[int] = None) -> List[dict]:
    """The data files pypaimon plans for a full scan, one dict per file (strata ``files`` keys)."""
    t = catalog(wh).get_table(ident)
    if snapshot is not None:
        t = t.copy({"scan.snapshot-id": str(snapshot)})
    partition_keys = list(t.partition_keys)
    out = []
    for split in t.new_read_builder().new_scan().plan().splits():
        values = split.partition.to_dict() if partition_keys else {}
        part = {k: _py_partition_value(values.get(k)) for k in partition_keys}
        for f in split.files:
            out.append({
                "partition": part, "bucket": split.bucket, "level": f.level, "fileName": f.file_name,
                "fileSize": f.file_size, "rowCount": f.row_count, "schemaId": f.schema_id,
                "minSequenceNumber": f.min_sequence_number, "maxSequenceNumber": f.max_sequence_number,
                "deleteRowCount": f.delete_row_count, "filePath": f.file_path,
            })
    return out


def _py_partition_value(v):
    import datetime as dt
    import decimal
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v


def rust_snapshots(wh: str, ident: str) -> List[dict]:
    """pypaimon-rust's view of the snapshots, oldest first."""
    t = rust_catalog(wh).get_table(ident)
    snaps = [{"id": s.id(), "commitKind": s.commit_kind(), "timeMillis": s.commit_time_ms(),
              "totalRecordCount": s.total_record_count(), "deltaRecordCount": s.delta_record_count()}
             for s in t.list_snapshots()]
    return sorted(snaps, key=lambda s: s["id"])
