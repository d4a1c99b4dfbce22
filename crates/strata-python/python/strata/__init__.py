"""strata: Apache Paimon tables from Python, on a Rust engine.

Quick start::

    import pyarrow as pa, strata
    catalog = strata.Catalog("/tmp/warehouse")
    catalog.create_database("db", ignore_if_exists=True)
    t = catalog.create_table("db.events", pa.schema([("id", pa.int64()), ("v", pa.string())]),
                             primary_keys=["id"], options={"bucket": "2"})
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    print(t.read(where="id < 2"))

The API follows pypaimon's (``new_read_builder()``, ``new_batch_write_builder()``,
``new_stream_read_builder()``), with
shortcuts (``Table.read``, ``Table.write``), maintenance (``compact``, ``expire_snapshots``,
tags, ``rollback_to``, ``remove_orphan_files``), system tables, SQL (:func:`sql`) and
DataFusion's FFI (``__datafusion_table_provider__``). Arrow goes in and out through the Arrow
PyCapsule interface; pyarrow is needed only for the methods that return pyarrow objects.

Changes, with each row's kind in a first ``rowkind`` column (``+I``, ``-U``, ``+U``, ``-D``)::

    t.copy({"incremental-between": "3,7"}).read()        # snapshots (3, 7]; or two tag names
    for change in t.new_stream_read_builder().with_starting_position("earliest").changes():
        print(change.snapshot_id, change.batch)            # follows the table as it is committed
Ray: :mod:`strata.ray`.
"""

from strata._native import (
    AlreadyExistsError,
    BatchTableCommit,
    BatchTableWrite,
    BatchWriteBuilder,
    Catalog,
    ChangeBatch,
    ChangeStream,
    CommitMessage,
    CommitOutcomeUnknownError,
    ConflictError,
    CorruptFileError,
    InternalError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    Plan,
    ReadBuilder,
    Split,
    StorageError,
    StrataError,
    StreamReadBuilder,
    Table,
    TableRead,
    TableScan,
    UnsupportedError,
    __version__,
    sql,
)
from strata.predicate import Predicate, PredicateBuilder
from strata.schema import Schema

__all__ = [
    "AlreadyExistsError",
    "BatchTableCommit",
    "BatchTableWrite",
    "BatchWriteBuilder",
    "Catalog",
    "ChangeBatch",
    "ChangeStream",
    "CommitMessage",
    "CommitOutcomeUnknownError",
    "ConflictError",
    "CorruptFileError",
    "InternalError",
    "InvalidInputError",
    "NotFoundError",
    "PermissionDeniedError",
    "Plan",
    "Predicate",
    "PredicateBuilder",
    "ReadBuilder",
    "Schema",
    "Split",
    "StorageError",
    "StrataError",
    "StreamReadBuilder",
    "Table",
    "TableRead",
    "TableScan",
    "UnsupportedError",
    "__version__",
    "sql",
]
