"""Ray Data integration: read a strata table into a ``ray.data.Dataset`` and write a Dataset into
a table as one commit.

::

    import ray, strata
    from strata.ray import read_strata, write_strata

    table = strata.Catalog("/data/wh").get_table("db.events")
    ds = read_strata(table, filter="dt = '2024-01-01' AND id < 1000", columns=["id", "m['k']"])
    write_strata(ds.map_batches(transform, batch_format="pyarrow"), other_table)

Design
------
*Reading* (:func:`read_strata`, :class:`StrataDatasource`). The driver plans once:
``table.new_read_builder()`` with the filter, projection and snapshot, ``new_scan().plan()``.
Planning reads the manifests and prunes files by partition, statistics and MAP keys, so workers
never touch a manifest. The splits (one per partition and bucket where a primary-key bucket's files
must be merged together, else one per file) are grouped into at most
``parallelism`` read tasks, balanced by ``Split.row_count`` (largest split first into the
lightest task). A read task carries the pickled table (pickling a :class:`strata.Table` stores
its catalog's options — any catalog: filesystem, REST, JDBC; a token too, so such pickles are as
secret as the token — and its identifier; unpickling re-opens it) and its pickled splits
(strata's versioned wire form). In the worker it re-creates the same read builder pinned to the
planned snapshot — every task reads the snapshot the driver planned, whatever is committed
meanwhile — and streams ``new_read().to_arrow_batch_reader(splits)`` as Arrow blocks; the
filter is applied again row by row there (planning prunes whole files only). The row counts a
task advertises are left unknown: a split's ``row_count`` counts rows before merging, deletion
vectors and the filter.

*Writing* (:func:`write_strata`). Every writer returns its commit messages pickled; nothing is
visible until, when every writer has succeeded, the driver unpickles all messages and commits
them with one ``new_commit().commit(...)``: one write is one snapshot (APPEND, or OVERWRITE with
``overwrite=True``), all or nothing. A writer that fails deletes the files it wrote
(``close()`` before re-raising); when any writer fails, or the commit fails, the files of every
message are deleted (``BatchTableCommit.abort``) — except when the commit's outcome is unknown
(``CommitOutcomeUnknownError``: the snapshot may have landed, so its files are kept).

*Append tables* are written by :class:`StrataDatasink`: every Ray write task opens its own
``new_batch_write_builder().new_write()``, writes its blocks and calls ``prepare_commit()``.

*Primary-key tables* need every row of a key written by one writer, in input order: a writer
gives its rows increasing sequence numbers, so the later row of a key wins the merge, but two
writers restore the same sequence numbers from the table and tie. So, as Java's sinks shuffle
rows by bucket before their writers, :func:`write_strata` routes them:

1. The Dataset is executed with Ray Data's ``preserve_order`` on (``Dataset.to_arrow_refs()``):
   its blocks in *dataset order*, the order ``ds.take_all()`` returns with ``preserve_order``
   on (for ``from_arrow``/``from_pandas``/``from_items`` the order given, for file reads the
   order of the files). Blocks stay in Ray's object store (spilled to disk when it is full).
2. One routing task per block splits it into ``W`` pieces, one per writer, keeping row order:
   the writer of a row is a function of its bucket — Paimon's bucket of the bucket key
   (``bucket = N``), or for dynamic buckets (``bucket = -1``) the key's bucket assigner
   (Java's ``BucketAssigner.computeAssigner``, with ``dynamic-bucket.initial-buckets = W``
   unless the table sets it; assigner ``k`` opens only buckets ``b % N == k``), so each bucket
   has one writer.
3. ``W`` writer tasks (``concurrency``, default the cluster's CPUs) each write their pieces
   block after block, in dataset order, through one ``new_write()``, holding one piece at a time
   (the writer's own memory is bounded by ``write-buffer-size``; it spills sorted runs).

So within one :func:`write_strata` the rows of a key are applied in dataset order, exactly as
one ``Table.write`` of the whole Dataset would apply them: with the deduplicate merge engine the
last row of a key in dataset order wins; partial-update and aggregation see them in that order.
Writers write ``write-only`` (several writers compacting would commit competing compactions);
the driver compacts once after the commit, as the table's strategy picks.

Needs Ray Data (``pip install 'strata-paimon[ray]'``); ``import strata.ray`` raises an
``ImportError`` saying so when Ray is missing.
"""

from __future__ import annotations

import functools
import heapq
import pickle
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence

try:
    import pyarrow as pa
    import ray
    import ray.data
    from ray.data.block import BlockAccessor, BlockMetadata
    from ray.data.datasource import Datasink, Datasource, ReadTask
except ImportError as _e:  # pragma: no cover - exercised only without ray
    raise ImportError(
        "strata.ray needs Ray Data and pyarrow (pip install 'strata-paimon[ray]', i.e. "
        f"ray[data] >= 2.40 and pyarrow): {_e}"
    ) from _e

import strata
import strata._native

__all__ = ["StrataDatasink", "StrataDatasource", "read_strata", "write_strata"]

# A read task yields a block once it holds this many rows (or bytes); Ray re-slices blocks to
# its own target size anyway, this only avoids one tiny block per record batch.
_BLOCK_ROWS = 256 * 1024
_BLOCK_BYTES = 64 * 1024 * 1024
# In-memory size ÷ Parquet file size, for estimate_inmemory_data_size (zstd Parquet of typical
# tables expands 2–4x when decoded; a rough figure is all Ray needs to size blocks).
_INMEMORY_EXPANSION = 3


def _filter_text(filter: Any) -> Optional[str]:
    """A filter as SQL text: ``None``, text, or a :class:`strata.Predicate` (``to_sql()``)."""
    if filter is None:
        return None
    if isinstance(filter, str):
        return filter
    if hasattr(filter, "to_sql"):
        return filter.to_sql()
    raise TypeError(
        f"filter is SQL text (\"id < 10\") or a strata.Predicate, not a {type(filter).__name__}"
    )


def _read_builder(
    table: "strata.Table",
    filter: Optional[str],
    columns: Optional[Sequence[str]],
    snapshot_id: Optional[int],
    limit: Optional[int] = None,
) -> "strata.ReadBuilder":
    rb = table.new_read_builder()
    if filter is not None:
        rb = rb.with_filter(filter)
    if columns is not None:
        rb = rb.with_projection(list(columns))
    if snapshot_id is not None:
        rb = rb.with_travel(snapshot_id=snapshot_id)
    if limit is not None:
        rb = rb.with_limit(limit)
    return rb


def _balance(splits: Sequence["strata.Split"], tasks: int) -> List[List["strata.Split"]]:
    """Splits into at most `tasks` non-empty groups of near-equal row counts (greedy: the
    largest split goes to the lightest group)."""
    tasks = max(1, min(tasks, len(splits)))
    heap = [(0, i) for i in range(tasks)]
    groups: List[List["strata.Split"]] = [[] for _ in range(tasks)]
    for s in sorted(splits, key=lambda s: s.row_count, reverse=True):
        rows, i = heapq.heappop(heap)
        groups[i].append(s)
        heapq.heappush(heap, (rows + max(s.row_count, 0), i))
    return [g for g in groups if g]


def _read_task(
    table: "strata.Table",
    filter: Optional[str],
    columns: Optional[List[str]],
    snapshot_id: Optional[int],
    splits: List["strata.Split"],
    limit: Optional[int],
) -> Iterator["pa.Table"]:
    """Runs in a Ray worker: reads `splits` (of snapshot `snapshot_id`) as Arrow blocks."""
    rb = _read_builder(table, filter, columns, snapshot_id, limit)
    reader = rb.new_read().to_arrow_batch_reader(splits)
    pending: List["pa.RecordBatch"] = []
    rows = size = 0
    emitted = False
    for batch in reader:
        if batch.num_rows == 0:
            continue
        pending.append(batch)
        rows += batch.num_rows
        size += batch.nbytes
        if rows >= _BLOCK_ROWS or size >= _BLOCK_BYTES:
            yield pa.Table.from_batches(pending, schema=reader.schema)
            emitted = True
            pending, rows, size = [], 0, 0
    if pending or not emitted:
        yield pa.Table.from_batches(pending, schema=reader.schema)


class StrataDatasource(Datasource):
    """A ``ray.data.Datasource`` over one planned read of a strata table (see the module
    docstring). Planning happens here, on the driver; :func:`read_strata` is the usual entry."""

    def __init__(
        self,
        table: "strata.Table",
        filter: Any = None,
        columns: Optional[Sequence[str]] = None,
        *,
        snapshot_id: Optional[int] = None,
    ):
        super().__init__()
        if not isinstance(table, strata.Table):
            raise TypeError(f"read_strata needs a strata.Table, not a {type(table).__name__}")
        self._table = table
        self._filter = _filter_text(filter)
        self._columns = None if columns is None else list(columns)
        rb = _read_builder(table, self._filter, self._columns, snapshot_id)
        plan = rb.new_scan().plan()
        self._splits: List["strata.Split"] = plan.splits()
        # Workers read the snapshot planned here, not whatever is latest when they run.
        self._snapshot_id: Optional[int] = plan.snapshot_id
        self._schema = rb.read_schema()
        table_columns = len(table.schema)
        self._column_share = (len(self._schema) / table_columns) if table_columns else 1.0

    @property
    def snapshot_id(self) -> Optional[int]:
        """The snapshot the read plans (``None`` for a table without snapshots)."""
        return self._snapshot_id

    @property
    def splits(self) -> List["strata.Split"]:
        return list(self._splits)

    def get_name(self) -> str:
        return "Strata"

    def estimate_inmemory_data_size(self) -> Optional[int]:
        file_bytes = sum(s.file_size for s in self._splits)
        return int(file_bytes * _INMEMORY_EXPANSION * self._column_share)

    def get_read_tasks(
        self,
        parallelism: int,
        per_task_row_limit: Optional[int] = None,
        data_context: Any = None,
    ) -> List[ReadTask]:
        if not self._splits:
            # One task yielding an empty block, so the Dataset still has the read's schema.
            groups: List[List["strata.Split"]] = [[]]
        else:
            groups = _balance(self._splits, parallelism if parallelism and parallelism > 0 else 1)
        tasks = []
        for group in groups:
            fn = functools.partial(
                _read_task,
                self._table,
                self._filter,
                self._columns,
                self._snapshot_id,
                group,
                per_task_row_limit,
            )
            file_bytes = sum(s.file_size for s in group)
            meta = BlockMetadata(
                num_rows=None,  # row_count is before merging, deletion vectors and the filter
                size_bytes=int(file_bytes * _INMEMORY_EXPANSION * self._column_share),
                exec_stats=None,
                input_files=[n for s in group for n in s.file_names],
            )
            tasks.append(
                ReadTask(fn, meta, schema=self._schema, per_task_row_limit=per_task_row_limit)
            )
        return tasks


def read_strata(
    table: "strata.Table",
    filter: Any = None,
    columns: Optional[Sequence[str]] = None,
    *,
    snapshot_id: Optional[int] = None,
    override_num_blocks: Optional[int] = None,
    ray_remote_args: Optional[Dict[str, Any]] = None,
) -> "ray.data.Dataset":
    """Reads a strata table into a ``ray.data.Dataset``.

    Args:
        table: the :class:`strata.Table` to read.
        filter: SQL boolean text (``"dt = '2024-01-01' AND m['k'] > 3"``) or a
            :class:`strata.Predicate`; files are pruned on the driver, rows filtered in the
            workers.
        columns: the output columns in order; a MAP key is ``"m['k']"``.
        snapshot_id: read this snapshot instead of the latest.
        override_num_blocks: the number of read tasks to aim for (never more than the splits:
            a primary-key bucket is read by one task, its files are merged together).
        ray_remote_args: passed to the read tasks' ``ray.remote`` (``num_cpus``, ...).
    """
    source = StrataDatasource(table, filter, columns, snapshot_id=snapshot_id)
    return ray.data.read_datasource(
        source,
        override_num_blocks=override_num_blocks,
        ray_remote_args=ray_remote_args,
    )


def _compacts(table: "strata.Table") -> bool:
    """Whether the table compacts on write (primary-key tables not set `write-only`)."""
    return (
        table.is_primary_key_table
        and table.options.get("write-only", "false").lower() != "true"
    )


def _builder(table: "strata.Table", overwrite: bool) -> "strata.BatchWriteBuilder":
    builder = table.new_batch_write_builder()
    if overwrite:
        builder.overwrite()
    return builder


def _commit(table: "strata.Table", overwrite: bool, messages: List[Any]) -> Optional[int]:
    """On the driver: commits every writer's messages as one snapshot; on failure deletes their
    files (unless the outcome is unknown). Then compacts once if the writers did not."""
    commit = _builder(table, overwrite).new_commit()
    try:
        snapshot_id = commit.commit(messages)
    except strata.CommitOutcomeUnknownError:
        raise  # the snapshot may exist: its files must stay
    except BaseException:
        _abort(table, messages)
        raise
    if snapshot_id is not None and _compacts(table):
        # What each writer would have done, once for all of them: the table's compaction
        # strategy picks (a COMPACT snapshot when it finds work).
        table.compact(progress=False)
    return snapshot_id


def _abort(table: "strata.Table", messages: List[Any]) -> None:
    """Deletes the files of `messages` (nothing references them)."""
    try:
        table.new_batch_write_builder().new_commit().abort(messages)
    except Exception:  # noqa: BLE001 - the write's own error is the one to report
        pass


class StrataDatasink(Datasink):
    """A ``ray.data.Datasink`` writing a Dataset into a strata **append** table as one commit
    (see the module docstring). After the write, :attr:`snapshot_id` is the snapshot committed.

    A primary-key table is refused: Ray's write tasks would each write rows of the same keys
    with tied sequence numbers; :func:`write_strata` routes each bucket to one writer."""

    def __init__(self, table: "strata.Table", overwrite: bool = False):
        if not isinstance(table, strata.Table):
            raise TypeError(f"write_strata needs a strata.Table, not a {type(table).__name__}")
        if table.is_primary_key_table:
            raise strata.UnsupportedError(
                f"StrataDatasink cannot write primary-key table {table.full_name}: Ray's write "
                "tasks would write rows of one key with tied sequence numbers, so which one wins "
                "would be unspecified; use strata.ray.write_strata(ds, table), which routes each "
                "bucket to one writer and keeps the dataset's order"
            )
        self._table = table
        self._overwrite = bool(overwrite)
        self.snapshot_id: Optional[int] = None

    def get_name(self) -> str:
        return "Strata"

    def write(self, blocks: Iterable[Any], ctx: Any) -> List[bytes]:
        """In a Ray worker: writes `blocks` into new data files and returns the pickled commit
        messages (nothing is committed here). On an error the files written are deleted."""
        writer = _builder(self._table, self._overwrite).new_write()
        try:
            for block in blocks:
                data = BlockAccessor.for_block(block).to_arrow()
                if data.num_rows:
                    writer.write_arrow(data)
            messages = writer.prepare_commit()
        except BaseException:
            writer.close()  # deletes what this task wrote
            raise
        return [pickle.dumps(m) for m in messages]

    def on_write_complete(self, write_result: Any) -> None:
        """On the driver: commits every task's messages as one snapshot."""
        messages = [
            pickle.loads(m) for returned in write_result.write_returns for m in (returned or [])
        ]
        self.snapshot_id = _commit(self._table, self._overwrite, messages)


def _route_block(table: "strata.Table", block: "pa.Table", writers: int) -> tuple:
    """A routing task: `block` cut into `writers` pieces (piece ``w`` for writer ``w``), each
    in the block's row order."""
    import numpy as np
    import pyarrow.compute as pc

    data = BlockAccessor.for_block(block).to_arrow()
    routes = strata._native._write_routes(table, data, writers)
    order = pc.sort_indices(routes)  # stable: rows of one writer keep their order
    data = data.take(order)
    counts = np.bincount(routes.to_numpy(zero_copy_only=False), minlength=writers)
    pieces, offset = [], 0
    for n in counts.tolist():
        pieces.append(data.slice(offset, n))
        offset += n
    return tuple(pieces)


def _write_pieces(table: "strata.Table", overwrite: bool, pieces: List[Any]) -> List[bytes]:
    """A writer task: writes its pieces (object refs, in dataset order) one at a time through
    one writer and returns the pickled commit messages. On an error its files are deleted."""
    writer = _builder(table, overwrite).new_write()
    try:
        for ref in pieces:
            piece = ray.get(ref)
            if piece.num_rows:
                writer.write_arrow(piece)
            del piece
        messages = writer.prepare_commit()
    except BaseException:
        writer.close()
        raise
    return [pickle.dumps(m) for m in messages]


def _blocks_in_order(ds: "ray.data.Dataset") -> List[Any]:
    """The Dataset's blocks as Arrow object refs, in dataset order (``preserve_order`` on for
    this execution)."""
    options = ds.context.execution_options
    before = options.preserve_order
    options.preserve_order = True
    try:
        return ds.to_arrow_refs()
    finally:
        options.preserve_order = before


def _writer_count(concurrency: Optional[int]) -> int:
    if concurrency is not None:
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be a positive int, got {concurrency!r}")
        return concurrency
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _write_keyed(
    ds: "ray.data.Dataset",
    table: "strata.Table",
    overwrite: bool,
    concurrency: Optional[int],
    ray_remote_args: Optional[Dict[str, Any]],
) -> Optional[int]:
    """write_strata for a primary-key table: rows routed to one writer per bucket, written in
    dataset order (see the module docstring)."""
    writers = _writer_count(concurrency)
    dynamic = {}
    if _compacts(table):
        dynamic["write-only"] = "true"
    if (
        table.options.get("bucket", "-1").strip() == "-1"  # Paimon's default: dynamic
        and "dynamic-bucket.initial-buckets" not in table.options
    ):
        # Java: without the option, the number of assigners is the sink's parallelism.
        dynamic["dynamic-bucket.initial-buckets"] = str(writers)
    writer_table = table.copy(dynamic) if dynamic else table
    remote_args = dict(ray_remote_args or {})
    blocks = _blocks_in_order(ds)
    pieces: List[List[Any]] = [[] for _ in range(writers)]
    if writers == 1:
        pieces[0] = blocks
    else:
        route = ray.remote(_route_block).options(num_returns=writers, **remote_args)
        for i, block in enumerate(blocks):
            for w, piece in enumerate(route.remote(writer_table, block, writers)):
                pieces[w].append(piece)
            blocks[i] = None  # the routing task holds the block until it has split it
    del blocks
    write = ray.remote(_write_pieces).options(**remote_args)
    tasks = [write.remote(writer_table, overwrite, p) for p in pieces if p]
    del pieces
    messages: List[Any] = []
    error: Optional[BaseException] = None
    for task in tasks:
        try:
            messages.extend(pickle.loads(m) for m in ray.get(task))
        except BaseException as e:  # noqa: BLE001 - every writer is waited for, then re-raised
            error = error or e
    if error is not None:
        _abort(table, messages)
        raise error
    return _commit(table, overwrite, messages)


def write_strata(
    ds: "ray.data.Dataset",
    table: "strata.Table",
    overwrite: bool = False,
    *,
    concurrency: Optional[int] = None,
    ray_remote_args: Optional[Dict[str, Any]] = None,
) -> Optional[int]:
    """Writes `ds` into `table` as one commit and returns the new snapshot id (``None`` when
    there was nothing to commit).

    Each writer writes data files and returns its commit messages; the driver commits them all
    at once (one snapshot, all or nothing). With ``overwrite=True`` the snapshot replaces the
    table's data (with ``dynamic-partition-overwrite``, the partitions written). Columns are
    matched by name and cast to the table's types.

    Primary-key tables: rows are routed so that each bucket has one writer, which writes them in
    dataset order (``preserve_order``), so the rows of a key are applied in dataset order, as one
    ``Table.write`` of the whole Dataset would (deduplicate: the last row of a key wins).
    ``concurrency`` is then the number of writers (default: the cluster's CPUs);
    ``ray_remote_args`` apply to the routing and writer tasks.
    """
    if not isinstance(table, strata.Table):
        raise TypeError(f"write_strata needs a strata.Table, not a {type(table).__name__}")
    if table.is_primary_key_table:
        return _write_keyed(ds, table, bool(overwrite), concurrency, ray_remote_args)
    sink = StrataDatasink(table, overwrite=overwrite)
    kwargs: Dict[str, Any] = {}
    if concurrency is not None:
        kwargs["concurrency"] = concurrency
    if ray_remote_args:
        kwargs["ray_remote_args"] = ray_remote_args
    ds.write_datasink(sink, **kwargs)
    return sink.snapshot_id
