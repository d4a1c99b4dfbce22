"""strata.ray: Ray Data reads (read_strata) and writes (write_strata) of strata tables, checked
against a Python dict model of the table; one local Ray instance (2 CPUs) for the module."""

import pickle

import pytest

pa = pytest.importorskip("pyarrow")
ray = pytest.importorskip("ray", reason="ray is not installed")

import strata  # noqa: E402
from strata.ray import StrataDatasource, read_strata, write_strata  # noqa: E402

SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("score", pa.float64()),
        pa.field("n", pa.int32()),
    ]
)


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray instance for the module; the module is skipped if Ray cannot start."""
    if ray.is_initialized():
        ray.shutdown()
    try:
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    except Exception as e:  # noqa: BLE001 - any failure to start means "cannot test here"
        pytest.skip(f"ray cannot start on this machine: {type(e).__name__}: {e}")
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    yield
    ray.shutdown()


@pytest.fixture()
def catalog(tmp_path):
    c = strata.Catalog(str(tmp_path / "wh"))
    c.create_database("db", ignore_if_exists=True)
    return c


def rows_table(ids, version):
    """Rows for `ids`; `version` changes every non-key value (to see which write won)."""
    ids = list(ids)
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": [f"name-{i}-v{version}" if i % 7 else None for i in ids],
            "score": [i * 0.5 + version for i in ids],
            "n": pa.array([(i * 31 + version) % 1000 for i in ids], pa.int32()),
        },
        schema=SCHEMA,
    )


def model_upsert(model, table):
    for r in table.to_pylist():
        model[r["id"]] = r


def blocks_of(table, n):
    """`table` cut into `n` pyarrow tables (so ray.data.from_arrow makes `n` blocks)."""
    size = -(-table.num_rows // n)
    return [table.slice(i, size) for i in range(0, table.num_rows, size)]


def snapshot_count(table):
    """Snapshots of writes (APPEND / OVERWRITE): a commit may be followed by the table's own
    COMPACT snapshot, which write_strata does not count as its write."""
    kinds = table.snapshots().column("commit_kind").to_pylist()
    return sum(1 for k in kinds if k != "COMPACT")


def as_dict(arrow_table, key="id"):
    return {r[key]: r for r in arrow_table.to_pylist()}


def test_write_then_read_pk_table_with_upsert(ray_local, catalog):
    t = catalog.create_table("db.pk", SCHEMA, primary_keys=["id"], options={"bucket": "2"})
    model = {}

    # First write: 3,000 rows in 4 blocks (4 write tasks), one snapshot.
    first = rows_table(range(3000), version=1)
    ds = ray.data.from_arrow(blocks_of(first, 4))
    assert ds.num_blocks() == 4
    sid = write_strata(ds, t)
    model_upsert(model, first)
    assert sid == 1 == t.latest_snapshot_id()
    assert snapshot_count(t) == 1

    # Second write: an upsert of every third id plus 500 new ids, in 3 blocks; one snapshot.
    second = rows_table(list(range(0, 3000, 3)) + list(range(3000, 3500)), version=2)
    sid = write_strata(ray.data.from_arrow(blocks_of(second, 3)), t)
    model_upsert(model, second)
    assert sid is not None and sid <= t.latest_snapshot_id()  # a COMPACT snapshot may follow
    assert snapshot_count(t) == 2

    # Full read: exactly the model (last write wins per key).
    got = read_strata(t).to_arrow_refs()
    got = pa.concat_tables(ray.get(got))
    assert got.schema.names == SCHEMA.names
    assert got.num_rows == len(model)
    assert as_dict(got) == model

    # Filter + projection (columns in the order asked), several read tasks.
    ds = read_strata(t, filter="id < 1200 AND n >= 500", columns=["n", "id"], override_num_blocks=2)
    got = ds.to_pandas()
    assert list(got.columns) == ["n", "id"]
    want = {i: r["n"] for i, r in model.items() if i < 1200 and r["n"] >= 500}
    assert dict(zip(got["id"].tolist(), got["n"].tolist())) == want
    assert len(got) == len(want) > 0

    # Time travel: snapshot 1 is the first write only.
    old = read_strata(t, columns=["id", "name"], snapshot_id=1).to_pandas()
    assert sorted(old["id"].tolist()) == list(range(3000))
    assert set(old["name"].dropna()) == {r["name"] for r in first.to_pylist() if r["name"]}


def test_append_table_many_blocks_one_snapshot_balanced_tasks(ray_local, catalog):
    # Append files need no merging: one split per file, which read tasks share out.
    t = catalog.create_table("db.log", SCHEMA, options={"bucket": "4", "bucket-key": "id"})
    data = rows_table(range(10_000), version=0)
    # 5 writes of 2 blocks each, one snapshot each.
    for k in range(5):
        part = data.slice(k * 2000, 2000)
        assert write_strata(ray.data.from_arrow(blocks_of(part, 2)), t) == t.latest_snapshot_id()
        assert snapshot_count(t) == k + 1

    source = StrataDatasource(t, filter="id >= 2500")
    assert source.snapshot_id == t.latest_snapshot_id()
    splits = source.splits
    assert len(splits) > 4 and all(len(s.file_names) == 1 for s in splits)
    assert all(pickle.loads(pickle.dumps(s)).row_count == s.row_count for s in splits)
    tasks = source.get_read_tasks(2)
    assert len(tasks) == 2
    assert source.estimate_inmemory_data_size() > 0

    ds = read_strata(t, filter="id >= 2500", override_num_blocks=2)
    got = ds.to_arrow_refs()
    got = pa.concat_tables(ray.get(got)).sort_by("id")
    assert got.column("id").to_pylist() == list(range(2500, 10_000))
    assert got == data.slice(2500).cast(got.schema)
    # count() agrees (no row counts were promised by the read tasks).
    assert read_strata(t, filter="id < 100").count() == 100


def test_overwrite_replaces_the_table(ray_local, catalog):
    t = catalog.create_table("db.ow", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    write_strata(ray.data.from_arrow(rows_table(range(100), 1)), t)
    sid = write_strata(ray.data.from_arrow(blocks_of(rows_table(range(50, 60), 2), 2)), t, overwrite=True)
    assert sid == t.latest_snapshot_id() and snapshot_count(t) == 2
    got = read_strata(t).to_pandas()
    assert sorted(got["id"].tolist()) == list(range(50, 60))
    assert set(got["score"].tolist()) == {i * 0.5 + 2 for i in range(50, 60)}


def test_failed_write_commits_nothing_and_leaves_no_files(ray_local, catalog):
    t = catalog.create_table("db.fail", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    write_strata(ray.data.from_arrow(rows_table(range(10), 1)), t)
    files_before = t.files().num_rows

    def explode(batch):
        if 15 in batch["id"].to_pylist():
            raise RuntimeError("boom in the write")
        return batch

    # One block only: the write task that fails is the only one (no sibling could leave files).
    bad = ray.data.from_arrow(rows_table(range(10, 20), 2)).map_batches(explode, batch_format="pyarrow")
    with pytest.raises(Exception, match="boom"):
        write_strata(bad, t)
    assert snapshot_count(t) == 1
    assert t.files().num_rows == files_before
    # A bad cast fails inside strata's writer: the task's files are deleted, nothing commits.
    wrong = pa.table({"id": pa.array([1, 2], pa.int64()), "n": pa.array(["x", "y"])})
    with pytest.raises(Exception):
        write_strata(ray.data.from_arrow(wrong), t)
    assert snapshot_count(t) == 1
    assert t.remove_orphan_files(older_than="0s", dry_run=True) == []
    assert sorted(read_strata(t).to_pandas()["id"].tolist()) == list(range(10))


def test_empty_reads_keep_the_schema(ray_local, catalog):
    t = catalog.create_table("db.empty", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    ds = read_strata(t, columns=["id", "score"])
    assert ds.count() == 0
    assert ds.schema().names == ["id", "score"]
    write_strata(ray.data.from_arrow(rows_table(range(5), 1)), t)
    assert read_strata(t, filter="id > 100").count() == 0


def test_map_key_projection_and_filter(ray_local, catalog):
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("m", pa.map_(pa.string(), pa.int32()))])
    t = catalog.create_table("db.maps", schema, options={"bucket": "-1"})
    maps = [[("k", i), ("other", -i)] if i % 2 else [("other", i)] for i in range(200)]
    data = pa.table({"id": pa.array(range(200), pa.int64()), "m": pa.array(maps, pa.map_(pa.string(), pa.int32()))})
    write_strata(ray.data.from_arrow(blocks_of(data, 2)), t)
    got = read_strata(t, filter="m['k'] > 150", columns=["id", "m['k']"]).to_arrow_refs()
    got = pa.concat_tables(ray.get(got)).sort_by("id")
    assert got.column("id").to_pylist() == [i for i in range(151, 200) if i % 2]
    assert got.column(1).to_pylist() == [i for i in range(151, 200) if i % 2]


def test_rejects_non_tables(ray_local):
    with pytest.raises(TypeError):
        read_strata("db.t")
    with pytest.raises(TypeError):
        write_strata(ray.data.from_items([{"a": 1}]), "db.t")


def test_commit_of_several_tasks_per_bucket_compacts_cleanly(ray_local, catalog):
    """Writers write `write-only` and the driver compacts once after the commit, so no two
    compactions of the same files compete (each worker compacting on its own made the commit
    drop them all). The one bucket has one writer however many blocks: one file per write."""
    import warnings

    t = catalog.create_table(
        "db.runs", SCHEMA, primary_keys=["id"],
        options={"bucket": "1", "num-sorted-run.compaction-trigger": "3"},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in range(3):
            ds = ray.data.from_arrow(blocks_of(rows_table(range(k * 100, k * 100 + 100), k), 2))
            write_strata(ds, t, concurrency=2)
            if k == 0:
                assert t.files().num_rows == 1
    assert sorted(read_strata(t, columns=["id"]).to_pandas()["id"].tolist()) == list(range(300))
    # Three sorted runs after the third write: the driver's compaction ran.
    assert t.snapshots().column("commit_kind").to_pylist() == [
        "APPEND", "APPEND", "APPEND", "COMPACT"
    ]


def upsert_blocks(keys, blocks, seed, partitions=None):
    """`blocks` pyarrow tables, each holding every key of `keys` (twice for a third of them) in
    its own random order: ``n`` is the block's index and ``score`` the row's position in the
    dataset, so the row a read returns tells which input row won."""
    import random

    rng = random.Random(seed)
    out, position = [], 0
    for b in range(blocks):
        ids = list(keys) + [k for k in keys if k % 3 == 0]
        rng.shuffle(ids)
        cols = {
            "id": pa.array(ids, pa.int64()),
            "name": [f"seed{seed}-block{b}" for _ in ids],
            "score": [float(position + j) for j in range(len(ids))],
            "n": pa.array([b] * len(ids), pa.int32()),
        }
        if partitions:
            cols["dt"] = [partitions[i % len(partitions)] for i in ids]
        position += len(ids)
        out.append(pa.table(cols))
    return out


def last_per_key(tables, key=("id",)):
    """Each key's last row in the order given."""
    model = {}
    for t in tables:
        for r in t.to_pylist():
            model[tuple(r[k] for k in key)] = r
    return model


@pytest.mark.parametrize(
    "bucket, partitioned, concurrency",
    [("2", False, None), ("-1", False, None), ("3", True, 3), ("-1", True, 2)],
)
def test_same_keys_in_many_blocks_last_in_dataset_order_wins(
    ray_local, catalog, bucket, partitioned, concurrency
):
    """Within one write_strata, rows of one key in several blocks (several Ray tasks) were
    written by different writers with sequence numbers that tie or order them by their place
    in each task, so an arbitrary one won. Now each bucket has one writer and the last row of a
    key in dataset order wins, as in one Table.write of the whole Dataset."""
    schema = SCHEMA
    keys = ["id"]
    parts = None
    if partitioned:
        schema = SCHEMA.append(pa.field("dt", pa.string(), nullable=False))
        keys = ["dt", "id"]
        parts = ["2024-01-01", "2024-01-02"]
    name = f"db.order_{bucket.replace('-', 'm')}_{int(partitioned)}"
    t = catalog.create_table(
        name, schema, primary_keys=keys, partition_keys=["dt"] if partitioned else None,
        options={"bucket": bucket},
    )

    def late_first(batch):
        """Finishes the blocks of the dataset's start last: without preserve_order, Ray Data
        would hand later blocks on first. (Defined here: Ray workers pickle it by value.)"""
        import time

        time.sleep(0.15 * max(0, 4 - batch["n"][0].as_py()))
        return batch

    model = {}
    for seed in range(3):
        blocks = upsert_blocks(range(seed * 40, seed * 40 + 120), 6, seed, parts)
        ds = ray.data.from_arrow(blocks).map_batches(
            late_first, batch_format="pyarrow", batch_size=None
        )
        sid = write_strata(ds, t, concurrency=concurrency)
        assert sid is not None
        model.update(last_per_key(blocks, keys))
        got = t.read()
        assert got.num_rows == len(model)  # no key twice (e.g. in two dynamic buckets)
        got = {tuple(r[k] for k in keys): r for r in got.to_pylist()}
        assert got == {k: {c: v[c] for c in schema.names} for k, v in model.items()}
    assert snapshot_count(t) == 3
    # pypaimon reads the same rows.
    from pypaimon import CatalogFactory

    pt = CatalogFactory.create({"warehouse": catalog.warehouse}).get_table(name)
    rb = pt.new_read_builder()
    theirs = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert theirs.num_rows == len(model)
    assert {tuple(r[k] for k in keys): r["score"] for r in theirs.to_pylist()} == {
        k: v["score"] for k, v in model.items()
    }
    # The HASH index holds every key where its rows are: a later update of every key (one
    # plain write) replaces each row instead of adding a second one in another bucket.
    again = pa.table(
        {c: [v[c] for v in model.values()] for c in schema.names}, schema=schema
    ).set_column(3, "n", pa.array([99] * len(model), pa.int32()))
    t.write(again)
    got = t.read()
    assert got.num_rows == len(model) and set(got.column("n").to_pylist()) == {99}


def test_datasink_refuses_primary_key_tables(ray_local, catalog):
    from strata.ray import StrataDatasink

    t = catalog.create_table("db.pk_sink", SCHEMA, primary_keys=["id"], options={"bucket": "2"})
    with pytest.raises(strata.UnsupportedError, match="write_strata"):
        StrataDatasink(t)
    # write_strata routes instead.
    assert write_strata(ray.data.from_arrow(blocks_of(rows_table(range(10), 1), 2)), t) == 1


def test_write_then_read_through_a_jdbc_catalog(ray_local, tmp_path):
    """Ray tasks carry a pickled table, which re-opens its catalog from the same options: a
    JDBC catalog (SQLite) here, so writers, readers and the driver's commit all go through it."""
    options = {
        "metastore": "jdbc",
        "uri": f"jdbc:sqlite:{tmp_path / 'catalog.db'}",
        "warehouse": str(tmp_path / "wh"),
        "catalog-key": "ray",
    }
    c = strata.Catalog(options)
    c.create_database("db")
    t = c.create_table("db.pk", SCHEMA, primary_keys=["id"], options={"bucket": "2"})
    model = {}
    for version, ids in ((1, range(400)), (2, range(0, 600, 2))):
        data = rows_table(ids, version=version)
        assert write_strata(ray.data.from_arrow(blocks_of(data, 3)), t) is not None
        model_upsert(model, data)
    again = strata.Catalog(dict(options)).get_table("db.pk")
    got = pa.concat_tables(ray.get(read_strata(again, override_num_blocks=2).to_arrow_refs()))
    assert as_dict(got) == model
