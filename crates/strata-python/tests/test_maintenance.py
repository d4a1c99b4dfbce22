"""Maintenance: compaction, snapshot expiry, tags, rollback, orphan files, system tables."""

from __future__ import annotations

import datetime
import os

import pyarrow as pa
import pytest

import strata
from conftest import people, rows


def test_full_compaction_moves_files_to_top_level(catalog):
    t = catalog.create_table(
        "db.c",
        [("id", "BIGINT NOT NULL"), ("v", "STRING")],
        primary_keys=["id"],
        options={"bucket": "1", "num-levels": "4", "write-only": "true"},
    )
    model = {}
    for round_ in range(4):
        data = pa.table({"id": pa.array(range(round_, round_ + 10), pa.int64()),
                         "v": [f"r{round_}"] * 10})
        t.write(data)
        model.update({r["id"]: r for r in data.to_pylist()})
    before = t.levels().to_pylist()
    assert len(before) >= 4
    assert {r["level"] for r in before} == {0}

    report = t.compact(full=True)
    assert report["snapshot_id"] == t.latest_snapshot_id() == 5
    assert report["buckets"] == 1
    task = report["tasks"][0]
    assert task["bucket"] == 0
    assert task["output_level"] == 3
    assert task["input_files"] == len(before)
    assert task["output_rows"] == len(model)

    after = t.levels().to_pylist()
    assert {r["level"] for r in after} == {3}
    assert sum(r["record_count"] for r in after) == len(model)
    # the data did not change.
    assert rows(t.read(), "id") == [model[k] for k in sorted(model)]
    assert t.snapshots().to_pylist()[-1]["commit_kind"] == "COMPACT"
    # levels of an older snapshot are still the old picture.
    assert {r["level"] for r in t.levels(snapshot_id=4).to_pylist()} == {0}
    # nothing left to do.
    assert t.compact(full=True)["snapshot_id"] in (None, 5)


def test_compact_partition_and_bucket(partitioned_pk_table):
    t = partitioned_pk_table
    for i in range(2):
        t.write(pa.concat_tables([people([1, 2, 3], "2024-01-01", tag=str(i)),
                                  people([1], "2024-01-02", tag=str(i))]))
    report = t.compact(full=True, partition={"dt": "2024-01-02"})
    assert report["snapshot_id"] is not None
    assert report["tasks"]
    assert all("2024-01-02" in task["partition"] for task in report["tasks"])
    levels = t.levels().to_pylist()
    compacted = [r for r in levels if "2024-01-02" in r["partition"]]
    untouched = [r for r in levels if "2024-01-01" in r["partition"]]
    assert compacted and all(r["level"] > 0 for r in compacted)
    assert untouched and all(r["level"] == 0 for r in untouched)
    t.compact(full=True, bucket=0)
    assert rows(t.read(), "dt", "id") == rows(
        pa.concat_tables(
            [people([1, 2, 3], "2024-01-01", tag="1"), people([1], "2024-01-02", tag="1")]
        ),
        "dt", "id",
    )


def test_compact_append_table(append_table):
    """An append table compacts as Java's append compaction: full rewrites the small files."""
    for i in range(3):
        append_table.write(people([i * 10, i * 10 + 1]))
    before = rows(append_table.read(), "id")
    assert len(append_table.levels().to_pylist()) == 3
    report = append_table.compact(full=True)
    assert report["snapshot_id"] == append_table.latest_snapshot_id() == 4
    assert report["tasks"][0]["input_files"] == 3
    assert append_table.snapshots().to_pylist()[-1]["commit_kind"] == "COMPACT"
    assert len(append_table.levels().to_pylist()) == 1
    assert rows(append_table.read(), "id") == before


def test_expire_snapshots(append_table):
    for i in range(5):
        append_table.write(people([i]))
    # retain_max=3 keeps at most 3; older_than=0s makes every snapshot old enough, and
    # retain_min=2 keeps the newest 2 anyway.
    dry = append_table.expire_snapshots(retain_max=3, retain_min=2, older_than="0s", dry_run=True)
    assert dry["dry_run"] is True
    assert dry["expired"] == [1, 2, 3]
    assert isinstance(dry["files"], list)
    assert [s["snapshot_id"] for s in append_table.snapshots().to_pylist()] == [1, 2, 3, 4, 5]

    report = append_table.expire_snapshots(retain_max=3, retain_min=2, older_than="0s")
    assert report["dry_run"] is False
    assert report["expired"] == [1, 2, 3]
    assert report["earliest"] == 4
    assert isinstance(report["deleted_files"], int)
    assert [s["snapshot_id"] for s in append_table.snapshots().to_pylist()] == [4, 5]
    # the data of the retained snapshots is intact.
    assert rows(append_table.read(), "id") == rows(people(range(5)), "id")
    with pytest.raises(strata.NotFoundError):
        append_table.read(snapshot_id=1)
    # timedelta form: nothing more to expire with retain_min=2.
    again = append_table.expire_snapshots(retain_min=2, older_than=datetime.timedelta(0))
    assert again["expired"] == []
    # retain_max alone (the default time retention keeps these young snapshots otherwise).
    for i in range(5, 8):
        append_table.write(people([i]))
    capped = append_table.expire_snapshots(retain_max=2, retain_min=1)
    assert capped["expired"] == [4, 5, 6]
    assert [s["snapshot_id"] for s in append_table.snapshots().to_pylist()] == [7, 8]
    assert rows(append_table.read(), "id") == rows(people(range(8)), "id")
    with pytest.raises(strata.InvalidInputError):
        append_table.expire_snapshots(older_than="not a duration")
    with pytest.raises(strata.InvalidInputError):
        append_table.expire_snapshots(
            older_than=datetime.datetime.now() + datetime.timedelta(days=1)
        )


def test_tags(append_table):
    append_table.write(people([1]))
    append_table.write(people([2]))
    assert append_table.create_tag("v1", snapshot_id=1) == 1
    assert append_table.create_tag("latest") == 2
    assert append_table.create_tag("short", time_retained="1d") == 2
    tags = {r["tag_name"]: r["snapshot_id"] for r in append_table.tags().to_pylist()}
    assert tags == {"v1": 1, "latest": 2, "short": 2}
    with pytest.raises(ValueError, match="v1"):
        append_table.create_tag("v1")
    append_table.delete_tag("short")
    assert sorted(r["tag_name"] for r in append_table.tags().to_pylist()) == ["latest", "v1"]
    with pytest.raises(strata.NotFoundError, match="short"):
        append_table.delete_tag("short")
    with pytest.raises(strata.StrataError, match="42"):
        append_table.create_tag("x", snapshot_id=42)
    assert rows(append_table.read(tag="v1")) == rows(people([1]))
    assert append_table.system_table("$tags").num_rows == 2


def test_duplicate_tag_is_already_exists(append_table):
    append_table.write(people([1]))
    append_table.create_tag("v1")
    with pytest.raises(strata.AlreadyExistsError, match="v1"):
        append_table.create_tag("v1")


def test_missing_tag_is_not_found(append_table):
    append_table.write(people([1]))
    with pytest.raises(strata.NotFoundError, match="nope"):
        append_table.read(tag="nope")
    with pytest.raises(strata.NotFoundError, match="nope"):
        append_table.rollback_to(tag="nope")
    with pytest.raises(strata.NotFoundError, match="nope"):
        append_table.delete_tag("nope")


def test_rollback(append_table):
    for i in range(4):
        append_table.write(people([i]))
    append_table.create_tag("t2", snapshot_id=2)
    append_table.create_tag("t4", snapshot_id=4)
    assert append_table.rollback_to(snapshot_id=3) == 3
    assert append_table.latest_snapshot_id() == 3
    assert rows(append_table.read(), "id") == rows(people(range(3)), "id")
    # the newer tag went with the newer snapshots.
    assert [r["tag_name"] for r in append_table.tags().to_pylist()] == ["t2"]
    assert append_table.rollback_to(tag="t2") == 2
    assert rows(append_table.read(), "id") == rows(people(range(2)), "id")
    # writing continues after the rollback.
    assert append_table.write(people([9])) == 3
    assert rows(append_table.read(), "id") == rows(people([0, 1, 9]), "id")
    with pytest.raises(strata.InvalidInputError):
        append_table.rollback_to()
    with pytest.raises(strata.InvalidInputError):
        append_table.rollback_to(snapshot_id=1, tag="t2")
    with pytest.raises(strata.NotFoundError):
        append_table.rollback_to(snapshot_id=77)


def test_remove_orphan_files(append_table):
    append_table.write(people([1]))
    live = os.path.basename(append_table.files().to_pylist()[0]["file_path"])
    bucket_dir = next(d for d, _, fs in os.walk(append_table.location) if live in fs)
    orphan = os.path.join(bucket_dir, "data-orphan-0.parquet")
    with open(orphan, "wb") as f:
        f.write(b"not referenced")
    old = datetime.datetime.now().timestamp() - 3 * 86400
    os.utime(orphan, (old, old))
    # the default threshold is one day: the orphan is three days old.
    found = append_table.remove_orphan_files(dry_run=True)
    assert [os.path.basename(p) for p in found] == ["data-orphan-0.parquet"]
    assert os.path.exists(orphan)
    # a threshold above the file's age keeps it.
    assert append_table.remove_orphan_files(older_than="5d", dry_run=True) == []
    removed = append_table.remove_orphan_files()
    assert [os.path.basename(p) for p in removed] == ["data-orphan-0.parquet"]
    assert not os.path.exists(orphan)
    assert rows(append_table.read()) == rows(people([1]))


def test_system_tables(partitioned_pk_table):
    t = partitioned_pk_table
    t.write(pa.concat_tables([people([1, 2], "2024-01-01"), people([3], "2024-01-02")]))
    t.write(people([4], "2024-01-02"))
    snaps = t.snapshots()
    assert snaps.column("snapshot_id").to_pylist() == [1, 2]
    assert snaps.column("commit_kind").to_pylist() == ["APPEND", "APPEND"]
    assert "commit_time" in snaps.column_names
    files = t.files()
    assert sum(files.column("record_count").to_pylist()) == 4
    assert {"partition", "bucket", "file_path", "level"} <= set(files.column_names)
    assert sum(t.files(snapshot_id=1).column("record_count").to_pylist()) == 3
    levels = t.levels()
    assert {"partition", "bucket", "level", "file_name"} <= set(levels.column_names)
    assert levels.num_rows == files.num_rows
    schemas = t.system_table("schemas")
    assert schemas.num_rows == 1
    options = {r["key"]: r["value"] for r in t.system_table("options").to_pylist()}
    assert options["bucket"] == "2"
    parts = t.system_table("partitions")
    assert parts.num_rows == 2
    assert t.system_table("$snapshots").num_rows == 2
    assert t.system_table("manifests").num_rows >= 1
    with pytest.raises((strata.NotFoundError, strata.InvalidInputError, strata.UnsupportedError)):
        t.system_table("no_such_system_table")


def test_levels_svg(partitioned_pk_table):
    t = partitioned_pk_table
    t.write(pa.concat_tables([people([1, 2, 3], "2024-01-01"), people([4], "2024-01-02")]))
    t.write(pa.concat_tables([people([2, 3], "2024-01-01", tag="b"), people([5], "2024-01-02")]))
    assert t.compact(full=True)["snapshot_id"] == 3
    svg = t.levels_svg()
    # the file `strata levels --svg` writes: an XML declaration, then the <svg> element.
    assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    assert svg.endswith("</svg>\n")
    assert "data-level" in svg
    names = [os.path.basename(p) for p in t.files().column("file_path").to_pylist()]
    assert names
    for name in names:
        assert name in svg
    # one partition, one bucket, an older snapshot.
    one = t.levels_svg(partition={"dt": "2024-01-02"}, bucket=0, snapshot_id=1)
    assert "dt=2024-01-02" in one and "dt=2024-01-01" not in one
    with pytest.raises(strata.NotFoundError, match=r"snapshot 9 not found .*it has snapshots 1\.\.3"):
        t.levels_svg(snapshot_id=9)
    with pytest.raises(strata.InvalidInputError, match="bucket 7 is out of range"):
        t.levels_svg(bucket=7)
    with pytest.raises(strata.NotFoundError, match="partition dt=2030-01-01 not found"):
        t.levels_svg(partition={"dt": "2030-01-01"})
