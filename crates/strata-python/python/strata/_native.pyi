"""Type stubs of ``strata._native``, the Rust half of the ``strata`` package (pyo3).

Arrow data goes in and out through the Arrow PyCapsule interface; the methods returning
pyarrow objects need pyarrow installed.
"""

import datetime
import os
from types import TracebackType
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Type, Union

from strata.predicate import Predicate

__version__: str

# Anything with ``__arrow_c_stream__`` / ``__arrow_c_array__`` (pyarrow Table, RecordBatch,
# RecordBatchReader, Polars DataFrame, DuckDB relation, ...) or a pandas DataFrame.
ArrowData = Any
# A pyarrow.Schema or anything with ``__arrow_c_schema__``, ``[(name, "PAIMON TYPE")]``,
# ``{name: "PAIMON TYPE"}`` or a strata.Schema.
SchemaLike = Any
# SQL filter text or a strata.Predicate.
FilterLike = Union[str, Predicate]
# A duration text ("2h", "1d"), a timedelta, or a point in time (timestamp text or datetime).
RetentionLike = Union[str, datetime.timedelta, datetime.datetime]
# Epoch milliseconds, a "yyyy-MM-dd HH:mm:ss" local time text, or a datetime.
TimestampLike = Union[int, str, datetime.datetime]
# Partition values by column (their text form is used).
PartitionSpec = Mapping[str, Any]

# ---------------------------------------------------------------------------------------------
# Exceptions
# ---------------------------------------------------------------------------------------------

class StrataError(Exception):
    """Base class of every strata error. Every one carries ``retryable`` (whether the same call may succeed again: transient storage I/O; never a
    commit conflict or a commit of unknown outcome) and ``context`` (what the error concerns:
    ``table``, ``partition``, ``bucket``, ``file``, ``option``, ``snapshot`` — those known)."""

    retryable: bool
    context: dict[str, str]

class NotFoundError(StrataError, LookupError):
    """A database, table, column, snapshot or tag that does not exist."""

class AlreadyExistsError(StrataError, ValueError):
    """A database or table that exists already."""

class ConflictError(StrataError):
    """A commit that lost to a concurrent one (nothing was committed), or a database that is
    not empty."""

class CommitOutcomeUnknownError(StrataError):
    """A commit that may or may not have landed: check the table before retrying."""

class CorruptFileError(StrataError):
    """A file on storage that does not decode or breaks the format's invariants."""

class UnsupportedError(StrataError, NotImplementedError):
    """A feature, option value or table strata does not implement (refused, never ignored)."""

class InvalidInputError(StrataError, ValueError):
    """Bad input: an option value, an argument, data that does not fit the schema."""

class PermissionDeniedError(StrataError, PermissionError):
    """A catalog refused the credentials, or the grant does not cover the operation."""

class StorageError(StrataError, OSError):
    """Storage I/O failed (local disk or object store)."""

class InternalError(StrataError):
    """A bug in strata or an Arrow computation error."""

# ---------------------------------------------------------------------------------------------
# Catalog
# ---------------------------------------------------------------------------------------------

class Catalog:
    """A Paimon catalog: a filesystem warehouse of ``DB.db/TABLE/`` folders, a REST catalog or
    a JDBC catalog, opened from pypaimon's ``CatalogFactory.create`` options.

    ``Catalog("/data/warehouse")``, ``Catalog("s3://bucket/wh", {"s3.endpoint": ...})``,
    pypaimon's form ``Catalog({"warehouse": "/data/warehouse", ...})``, a REST catalog
    ``Catalog({"metastore": "rest", "uri": "http://host:8080", "warehouse": "wh",
    "token.provider": "bear", "token": "..."})`` or a JDBC catalog ``Catalog({"metastore":
    "jdbc", "uri": "jdbc:sqlite:/data/cat.db", "warehouse": "/data/wh", "catalog-key": "c"})``.
    Values may be strings, bools or numbers (``{"data-token.enabled": True}``).

    Options (Paimon's names; see docs/catalogs.md): ``metastore`` = ``filesystem`` (default),
    ``rest`` or ``jdbc`` (anything else is refused); ``warehouse`` (required for a filesystem
    catalog); REST: ``uri``, ``token.provider``, ``token``, ``header.NAME``,
    ``data-token.enabled``, ...; JDBC: ``uri``, ``catalog-key``, ``jdbc.*``, ``lock.*``; every
    catalog: the S3 settings of an ``s3://`` warehouse (``s3.endpoint``, ``s3.access-key``,
    ``s3.secret-key``, ``s3.session-token``, ``s3.region``, ``s3.path-style-access``,
    ``s3.max-retries``, also spelled with Java's ``s3a.``/``fs.s3a.`` and pypaimon's
    ``fs.s3.`` prefixes) and ``table-default.K`` (option ``K`` of every table created whose own
    options do not set it, as Java applies it at ``createTable``). A key the chosen catalog
    does not honour is refused with an ``UnsupportedError`` naming it.

    Pickling a catalog (or a table of it, as Ray tasks do) keeps every option, secrets
    included: such pickles are as secret as the token.
    """

    def __new__(
        cls,
        warehouse: Union[str, "os.PathLike[str]", Mapping[str, Union[str, bool, int]]],
        options: Optional[Mapping[str, Union[str, bool, int]]] = None,
    ) -> "Catalog": ...
    @property
    def warehouse(self) -> Optional[str]:
        """The warehouse this catalog was opened with (a location; for a REST catalog the
        server's catalog name), or ``None`` when the options gave none."""
    @property
    def options(self) -> Dict[str, str]:
        """The catalog options this catalog was opened with, secrets (``token``,
        ``jdbc.password``, ``header.*``, ``*secret*``) shown as ``"***"``."""
    def list_databases(self) -> List[str]:
        """Names of the databases, sorted."""
    def create_database(
        self,
        name: str,
        ignore_if_exists: bool = False,
        properties: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Creates a database (a ``NAME.db`` directory); non-empty properties are refused."""
    def drop_database(
        self, name: str, ignore_if_not_exists: bool = False, cascade: bool = False
    ) -> None:
        """Drops a database; with ``cascade=False`` it must hold no table."""
    def list_tables(self, database: str) -> List[str]:
        """Names of the tables of ``database``, sorted."""
    def create_table(
        self,
        identifier: str,
        schema: SchemaLike,
        partition_keys: Optional[Sequence[str]] = None,
        primary_keys: Optional[Sequence[str]] = None,
        options: Optional[Mapping[str, str]] = None,
        comment: Optional[str] = None,
        ignore_if_exists: bool = False,
    ) -> "Table":
        """Creates table ``"db.table"`` and returns it; the catalog's ``table-default.K``
        options set ``K`` where ``options`` (and the schema's options) do not."""
    def get_table(self, identifier: str) -> "Table":
        """The table ``identifier`` (``"db.table"``)."""
    def drop_table(self, identifier: str, ignore_if_not_exists: bool = False) -> None:
        """Drops a table and deletes its directory."""
    def list_views(self, database: str) -> List[str]:
        """Names of the views of ``database``, sorted. Views live in REST catalogs; the
        filesystem and JDBC catalogs raise ``UnsupportedError`` naming the call."""
    def get_view(self, identifier: str) -> Dict[str, Any]:
        """The view ``"db.view"`` as a dict: ``database``, ``name``, ``fields`` (Paimon's
        DataField JSON), ``query``, ``dialects`` (dialect → query), ``comment``, ``options``."""
    def create_view(
        self,
        identifier: str,
        query: str,
        columns: Optional[Sequence[str]] = None,
        dialects: Optional[Mapping[str, str]] = None,
        comment: Optional[str] = None,
        options: Optional[Mapping[str, str]] = None,
        ignore_if_exists: bool = False,
    ) -> None:
        """Creates view ``"db.view"`` of ``query``: its columns are what the query gives when
        strata's SQL plans it in ``db`` (renamed by ``columns``); the query is kept as the
        default query and the ``datafusion`` dialect's, ``dialects`` adds other engines'."""
    def drop_view(self, identifier: str, ignore_if_not_exists: bool = False) -> None:
        """Drops view ``"db.view"``."""
    def list_functions(self, database: str) -> List[str]:
        """Names of the functions of ``database``, sorted (REST catalogs only, as views)."""
    def get_function(self, identifier: str) -> Dict[str, Any]:
        """The function ``"db.fn"`` in Java's ``GetFunctionResponse`` shape: ``name``,
        ``inputParams``, ``returnParams``, ``deterministic``, ``definitions``, ``comment``,
        ``options``, plus ``database``."""
    def create_function(
        self,
        identifier: str,
        definitions: Mapping[str, Mapping[str, Any]],
        input_params: Optional[Sequence[Mapping[str, Any]]] = None,
        return_params: Optional[Sequence[Mapping[str, Any]]] = None,
        deterministic: bool = True,
        comment: Optional[str] = None,
        options: Optional[Mapping[str, str]] = None,
        ignore_if_exists: bool = False,
    ) -> None:
        """Creates function ``"db.fn"``: ``definitions`` maps a dialect to Paimon's
        FunctionDefinition (``{"type": "sql", "definition": "x + 1"}``, ``{"type": "lambda",
        "definition": ..., "language": ...}``, ``{"type": "file", "fileResources": [...],
        "language": ..., "className": ..., "functionName": ...}``); parameters are DataField
        dicts (``{"id": 0, "name": "x", "type": "INT"}``)."""
    def drop_function(self, identifier: str, ignore_if_not_exists: bool = False) -> None:
        """Drops function ``"db.fn"``."""
    def sql(self, query: str) -> Any:
        """Runs SQL statements over this warehouse; the last one's rows as a ``pyarrow.Table``.
        A script with ``CREATE TABLE`` is refused when the catalog has ``table-default.*``
        options (SQL does not apply them yet)."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

# ---------------------------------------------------------------------------------------------
# Table
# ---------------------------------------------------------------------------------------------

class Table:
    """A Paimon table (append or primary-key) of a :class:`Catalog`."""

    @property
    def full_name(self) -> str:
        """``"db.table"``."""
    @property
    def name(self) -> str:
        """The table name without the database."""
    @property
    def database(self) -> str:
        """The database name."""
    @property
    def location(self) -> str:
        """The table directory."""
    @property
    def schema(self) -> Any:
        """The table's Arrow schema (a ``pyarrow.Schema`` when pyarrow is installed)."""
    @property
    def fields(self) -> List[Tuple[str, str]]:
        """The columns as ``(name, "PAIMON TYPE")`` pairs."""
    @property
    def primary_keys(self) -> List[str]:
        """The primary key columns (empty for an append table)."""
    @property
    def partition_keys(self) -> List[str]:
        """The partition columns."""
    @property
    def options(self) -> Dict[str, str]:
        """The table options (schema options with any dynamic options over them)."""
    @property
    def schema_id(self) -> int:
        """The id of the schema in use."""
    @property
    def is_primary_key_table(self) -> bool:
        """Whether the table has a primary key."""
    def latest_snapshot_id(self) -> Optional[int]:
        """The latest snapshot id, ``None`` for a table without snapshots."""
    def copy(self, options: Mapping[str, str]) -> "Table":
        """This table with dynamic options over its schema options.

        ``{"incremental-between": "3,7"}`` (two snapshot ids or tag names, START exclusive,
        END inclusive) or ``{"incremental-between-timestamp": "T1,T2"}`` (epoch ms or
        ``yyyy-MM-dd HH:mm:ss``), with ``incremental-between-scan-mode`` (``auto``, ``delta``,
        ``changelog``, ``diff``) and ``incremental-between-tag-to-snapshot``, make every read
        of the copy incremental: the changes of the range, each row's kind (``+I``, ``-U``,
        ``+U``, ``-D``) in a first ``rowkind`` column. Bad values raise here."""
    def new_read_builder(self) -> "ReadBuilder":
        """A builder of scans and reads (filter, projection, limit, time travel)."""
    def new_stream_read_builder(self) -> "StreamReadBuilder":
        """A builder of a streaming read: the table's changes as they are committed."""
    def new_batch_write_builder(self) -> "BatchWriteBuilder":
        """A builder of a batch write and its commit."""
    def read(
        self,
        columns: Optional[Sequence[str]] = None,
        where: Optional[FilterLike] = None,
        limit: Optional[int] = None,
        snapshot_id: Optional[int] = None,
        tag: Optional[str] = None,
        timestamp: Optional[TimestampLike] = None,
        progress: Optional[bool] = None,
    ) -> Any:
        """Reads the table (or a snapshot / tag of it) into a ``pyarrow.Table``."""
    def write(
        self,
        data: ArrowData,
        overwrite: bool = False,
        partition: Optional[PartitionSpec] = None,
        progress: Optional[bool] = None,
    ) -> Optional[int]:
        """Writes Arrow data as one commit; returns the new snapshot id."""
    def compact(
        self,
        full: bool = False,
        partition: Optional[PartitionSpec] = None,
        bucket: Optional[int] = None,
        progress: Optional[bool] = None,
    ) -> Dict[str, Any]:
        """Compacts a primary-key table; returns ``{"snapshot_id", "buckets", "tasks"}``."""
    def rescale(
        self,
        bucket_num: Optional[int] = None,
        partitions: Optional[PartitionSpec] = None,
    ) -> Dict[str, Any]:
        """Rewrites the partitions matching ``partitions`` (``None``: all) into ``bucket_num``
        buckets (``None``: the table's ``bucket``) in one OVERWRITE commit, as ``strata
        rescale``; returns ``{"snapshot_id", "rows", "bucket_num"}``."""
    def expire_snapshots(
        self,
        retain_max: Optional[int] = None,
        retain_min: Optional[int] = None,
        older_than: Optional[RetentionLike] = None,
        max_deletes: Optional[int] = None,
        dry_run: bool = False,
    ) -> Dict[str, Any]:
        """Expires old snapshots; returns ``{"expired", "dry_run", "earliest",
        "deleted_files"}`` (``"files"`` instead of the last two with ``dry_run=True``)."""
    def create_tag(
        self,
        name: str,
        snapshot_id: Optional[int] = None,
        time_retained: Optional[Union[str, datetime.timedelta]] = None,
    ) -> int:
        """Tags a snapshot (default: the latest); returns the snapshot id tagged."""
    def delete_tag(self, name: str) -> None:
        """Deletes tag ``name`` and the files only it still uses."""
    def tags(self) -> Any:
        """The tags (Paimon's ``$tags`` system table) as a ``pyarrow.Table``."""
    def rollback_to(self, snapshot_id: Optional[int] = None, tag: Optional[str] = None) -> int:
        """Makes a snapshot (or a tag's snapshot) the latest; returns its id."""
    def remove_orphan_files(
        self, older_than: Optional[RetentionLike] = None, dry_run: bool = False
    ) -> List[str]:
        """Deletes (or with ``dry_run=True`` lists) unreferenced files older than ``older_than``."""
    def snapshots(self) -> Any:
        """Paimon's ``$snapshots`` system table."""
    def files(self, snapshot_id: Optional[int] = None) -> Any:
        """Paimon's ``$files`` system table."""
    def levels(self, snapshot_id: Optional[int] = None) -> Any:
        """One row per live file with its bucket and LSM level."""
    def update_columns(self, data: Any) -> Optional[int]:
        """Data-evolution tables: write the columns of ``data`` (with ``_ROW_ID``) into those
        rows, one file of those columns per row-id range; the new snapshot id."""
        ...
    def levels_svg(
        self,
        snapshot_id: Optional[int] = None,
        partition: Optional[PartitionSpec] = None,
        bucket: Optional[int] = None,
    ) -> str:
        """The LSM tree of each selected bucket as an SVG picture (levels as rows, files as
        boxes by key range), as ``strata levels --svg`` draws it."""
    def system_table(self, name: str, snapshot_id: Optional[int] = None) -> Any:
        """Any of Paimon's system tables by name (``"snapshots"``, ``"schemas"``, ...)."""
    def __datafusion_table_provider__(self, session: Any = None) -> Any:
        """DataFusion's FFI: ``SessionContext().register_table_provider("t", table)``."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------

class ReadBuilder:
    """A builder of scans and reads of one table. Every ``with_*`` changes this builder and
    returns it, as pypaimon's ``ReadBuilder`` does: ``rb.with_filter(p)`` alone takes effect,
    and chaining works too. A scan or read keeps the builder's settings of when it was made."""

    def with_filter(self, predicate: Optional[FilterLike]) -> "ReadBuilder":
        """Keeps the rows matching ``predicate`` (SQL text or a :class:`strata.Predicate`;
        ``None``: no filter). Returns this builder."""
    def with_projection(self, columns: Optional[Sequence[str]]) -> "ReadBuilder":
        """Outputs only these columns, in this order; a MAP key is ``"m['k']"`` (``None``: all).
        Returns this builder."""
    def with_limit(self, limit: Optional[int]) -> "ReadBuilder":
        """Outputs at most ``limit`` rows (``None``: no limit). Returns this builder."""
    def with_travel(
        self,
        snapshot_id: Optional[int] = None,
        tag: Optional[str] = None,
        timestamp: Optional[TimestampLike] = None,
    ) -> "ReadBuilder":
        """Time travel to a snapshot, a tag, or the latest snapshot at a timestamp (none of
        them: the latest snapshot). Returns this builder."""
    def new_predicate_builder(self) -> Any:
        """A :class:`strata.PredicateBuilder`."""
    def read_schema(self) -> Any:
        """The Arrow schema the read outputs (``rowkind`` first for an incremental read)."""
    def new_scan(self) -> "TableScan":
        """A scan planning this read."""
    def new_read(self) -> "TableRead":
        """A reader of this read's splits."""

class TableScan:
    """Plans a read: which files of which snapshot, as splits."""

    def plan(self) -> "Plan":
        """Reads the manifests and prunes files by partition, statistics and MAP keys; for a
        table with ``incremental-between`` options, plans the changes of the range."""

class Plan:
    """The result of planning: splits of one snapshot."""

    def splits(self) -> List["Split"]:
        """The splits to read."""
    @property
    def snapshot_id(self) -> Optional[int]:
        """The snapshot planned (an incremental read's END), ``None`` for a table without
        snapshots or an empty range."""
    @property
    def skipped_files(self) -> int:
        """Files pruned by partition, statistics or MAP keys."""

class Split:
    """Files of one partition and bucket to read together. Picklable."""

    @property
    def row_count(self) -> int:
        """Rows in the split's files before merging, deletion vectors and filters."""
    @property
    def bucket(self) -> int:
        """The bucket."""
    @property
    def snapshot_id(self) -> int:
        """The snapshot the split was planned from."""
    @property
    def file_names(self) -> List[str]:
        """Names of the data files."""
    @property
    def file_size(self) -> int:
        """Bytes of the data files."""
    @property
    def raw_convertible(self) -> bool:
        """Whether the files can be read without merging."""
    @property
    def is_incremental(self) -> bool:
        """Whether the split belongs to an incremental read (rows come with ``rowkind``)."""
    def to_bytes(self) -> bytes:
        """The split in strata's versioned wire form."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

class TableRead:
    """Reads splits into Arrow. Splits of an incremental read give every row with its kind
    in a first ``rowkind`` column (filter and limit apply after the read)."""

    def to_arrow(self, splits: Sequence[Split], progress: Optional[bool] = None) -> Any:
        """The rows of ``splits`` as a ``pyarrow.Table``."""
    def to_arrow_batch_reader(self, splits: Sequence[Split]) -> Any:
        """The rows of ``splits`` as a ``pyarrow.RecordBatchReader``, read as consumed."""
    def to_arrow_stream(self, splits: Sequence[Split]) -> Any:
        """The rows of ``splits`` as an object with ``__arrow_c_stream__`` (no pyarrow needed)."""
    def to_pandas(self, splits: Sequence[Split], progress: Optional[bool] = None) -> Any:
        """The rows of ``splits`` as a ``pandas.DataFrame``."""
    def to_polars(self, splits: Sequence[Split], progress: Optional[bool] = None) -> Any:
        """The rows of ``splits`` as a ``polars.DataFrame``."""
    def to_duckdb(self, splits: Sequence[Split], table_name: str, connection: Any = None) -> Any:
        """Registers the rows as DuckDB view ``table_name``; returns the connection."""

# ---------------------------------------------------------------------------------------------
# Streaming
# ---------------------------------------------------------------------------------------------

class StreamReadBuilder:
    """A builder of a streaming read (pypaimon's ``new_stream_read_builder()``). Every
    ``with_*`` changes this builder and returns it."""

    def with_starting_position(
        self,
        position: str,
        snapshot_id: Optional[int] = None,
        timestamp: Optional[TimestampLike] = None,
    ) -> "StreamReadBuilder":
        """Where the stream starts (Java's ``scan.mode``): ``"latest"`` (changes committed
        from now on), ``"latest-full"`` (default: the latest snapshot whole, each row ``+I`` or ``+U`` as its record, then
        later changes), ``"compacted-full"`` (the latest compacted snapshot whole, then later
        changes), ``"earliest"`` (the earliest snapshot whole, then every change),
        ``"from-snapshot"`` (changes of ``snapshot_id`` and later), ``"from-snapshot-full"``
        (``snapshot_id`` whole, then later changes), ``"from-timestamp"`` (changes of the
        snapshots committed after ``timestamp``)."""
    def with_consumer_id(self, consumer_id: str) -> "StreamReadBuilder":
        """Records progress in ``consumer/consumer-<id>``: expiry keeps the snapshots the
        stream still needs, and a stream with the same id resumes where this one stopped
        (whatever the starting position)."""
    def with_poll_interval_ms(self, poll_interval_ms: int) -> "StreamReadBuilder":
        """How often to look for a new snapshot once caught up (default 1000 ms)."""
    def with_until_snapshot(self, snapshot_id: Optional[int]) -> "StreamReadBuilder":
        """Ends the stream once snapshot ``snapshot_id`` has been read (``None``: never)."""
    def with_bounded(self, bounded: bool = True) -> "StreamReadBuilder":
        """Ends the stream once the snapshot that is the latest when it starts has been read."""
    def with_projection(self, columns: Optional[Sequence[str]]) -> "StreamReadBuilder":
        """Outputs only these columns (after ``rowkind``), in this order."""
    def with_filter(self, predicate: Optional[FilterLike]) -> "StreamReadBuilder":
        """Keeps the rows matching ``predicate`` (SQL text or a :class:`strata.Predicate`)."""
    def with_include_row_kind(self, include: bool = True) -> "StreamReadBuilder":
        """Whether batches carry the ``rowkind`` column first (default: yes; pypaimon names it
        ``_row_kind`` and leaves it out unless asked)."""
    def new_predicate_builder(self) -> Any:
        """A :class:`strata.PredicateBuilder`."""
    def read_schema(self) -> Any:
        """The Arrow schema of every batch."""
    def changes(self) -> "ChangeStream":
        """Starts the stream."""

class ChangeStream:
    """A running streaming read, an iterator of :class:`ChangeBatch`. Unbounded streams never
    end: ``break`` or :meth:`close` stops one, and Ctrl-C interrupts a wait (the GIL is
    released while waiting). With a consumer id, a snapshot counts as read once the batch
    after its last one is asked for (at-least-once)."""

    def __iter__(self) -> Iterator["ChangeBatch"]: ...
    def __next__(self) -> "ChangeBatch": ...
    def poll(self, timeout: float) -> Optional["ChangeBatch"]:
        """The next batch, waiting at most ``timeout`` seconds (``None``: none came);
        raises ``StopIteration`` once a bounded stream has ended."""
    @property
    def schema(self) -> Any:
        """The Arrow schema of every batch."""
    @property
    def closed(self) -> bool:
        """Whether the stream has ended or been closed."""
    def close(self) -> None:
        """Stops the stream."""
    def __enter__(self) -> "ChangeStream": ...
    def __exit__(
        self,
        t: Optional[Type[BaseException]],
        v: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

class ChangeBatch:
    """Rows of one snapshot's changes (or of a whole snapshot read first: ``+I`` / ``+U``, no deletes), with
    ``rowkind`` first. Has ``__arrow_c_array__`` and ``__arrow_c_stream__``."""

    @property
    def snapshot_id(self) -> int:
        """The snapshot the rows come from."""
    @property
    def num_rows(self) -> int: ...
    @property
    def batch(self) -> Any:
        """A ``pyarrow.RecordBatch`` (without pyarrow: an object with ``__arrow_c_array__``)."""
    def to_arrow(self) -> Any:
        """The rows as a ``pyarrow.RecordBatch``."""
    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame``."""
    def to_polars(self) -> Any:
        """The rows as a ``polars.DataFrame``."""
    def to_pylist(self) -> List[Dict[str, Any]]:
        """The rows as dicts."""
    def __arrow_c_array__(self, requested_schema: Any = None) -> Tuple[Any, Any]: ...
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...
    def __len__(self) -> int: ...

# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------

class BatchWriteBuilder:
    """Builds one batch write and its commit."""

    def overwrite(self, static_partition: Optional[PartitionSpec] = None) -> "BatchWriteBuilder":
        """Makes the commit an overwrite of the table or of one partition; returns the builder."""
    def new_write(self) -> "BatchTableWrite":
        """A writer of new data files."""
    def new_commit(self) -> "BatchTableCommit":
        """The commit of the writers' messages."""

class BatchTableWrite:
    """Writes Arrow data into new data files (nothing is visible until the commit)."""

    def write_arrow(
        self,
        data: ArrowData,
        progress: Optional[bool] = None,
        row_kinds: Optional[Sequence[str]] = None,
    ) -> None:
        """Writes Arrow data (or a list of it); columns are matched by name and cast to the table's types.

        `row_kinds`: one of ``"+I"``, ``"-U"``, ``"+U"``, ``"-D"`` per row (append tables take
        ``"+I"`` and ``"+U"``; their ``"-U"`` / ``"-D"`` rows are dropped by ``ignore-delete`` /
        ``ignore-update-before`` or refused, as Java does)."""
    def write_arrow_batch(self, batch: ArrowData) -> None:
        """Writes one record batch."""
    def write_pandas(self, df: Any) -> None:
        """Writes a pandas DataFrame (the index is not written)."""
    def prepare_commit(self) -> List["CommitMessage"]:
        """Flushes everything written and returns the commit messages."""
    def close(self) -> None:
        """Deletes the files written so far unless they were handed to ``prepare_commit``."""
    def __enter__(self) -> "BatchTableWrite": ...
    def __exit__(
        self,
        t: Optional[Type[BaseException]],
        v: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

class BatchTableCommit:
    """Commits commit messages as one snapshot."""

    def commit(self, messages: Sequence["CommitMessage"]) -> Optional[int]:
        """Commits ``messages`` as one snapshot; returns its id (``None``: nothing to commit)."""
    def abort(self, messages: Sequence["CommitMessage"]) -> None:
        """Deletes the data files of ``messages`` that were never committed."""
    def close(self) -> None:
        """Does nothing (pypaimon compatibility)."""
    def __enter__(self) -> "BatchTableCommit": ...
    def __exit__(
        self,
        t: Optional[Type[BaseException]],
        v: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

class CommitMessage:
    """New files of one partition and bucket, ready to commit. Picklable."""

    @property
    def bucket(self) -> int:
        """The bucket."""
    @property
    def file_names(self) -> List[str]:
        """Names of the new data files."""
    @property
    def row_count(self) -> int:
        """Rows in the new data files."""
    def is_empty(self) -> bool:
        """Whether the message holds no file."""
    def to_bytes(self) -> bytes:
        """The message in strata's versioned wire form."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

# ---------------------------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------------------------

def sql(query: str, catalog: Union[Catalog, str]) -> Any:
    """Runs SQL statements over ``catalog`` (a Catalog or a warehouse path); the last
    statement's rows as a ``pyarrow.Table``."""

def split_from_bytes(data: bytes) -> Split:
    """A split from :meth:`Split.to_bytes` (what unpickling a split does)."""

def commit_message_from_bytes(data: bytes) -> CommitMessage:
    """A commit message from :meth:`CommitMessage.to_bytes`."""

def open_table(
    warehouse: Optional[str],
    options: Mapping[str, str],
    identifier: str,
    dynamic_options: Optional[Mapping[str, str]] = None,
) -> Table:
    """Re-opens a table (what unpickling a :class:`Table` does)."""

def _write_routes(table: Table, data: Any, writers: int) -> Any:
    """The writer (``0 .. writers-1``) of every row of ``data`` for a write of primary-key
    ``table`` spread over ``writers`` writers, as a ``pyarrow.UInt32Array``: one writer per
    bucket (``strata.ray.write_strata`` routes rows with it)."""
