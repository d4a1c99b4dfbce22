"""Table lifecycle across engines: after strata expires snapshots, creates tags and rolls back,
pypaimon and pypaimon-rust read the same rows as strata (pypaimon also reads strata's tags, and
strata reads tags pypaimon creates); pypaimon keeps writing to a table strata rolled back, and
strata's orphan cleanup deletes nothing any engine references."""
import json

import pyarrow as pa
import pytest

from interop_support import engines, warehouse
from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.flows import assert_all_read, assert_oracles_read

pytestmark = [pytest.mark.cli_lifecycle, pytest.mark.cli_write]

SCHEMA = {"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}],
          "primaryKeys": ["id"], "options": {"bucket": "1"}}
ARROW = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])


def rows(ids, tag):
    return [{"id": i, "v": f"{tag}-{i}"} for i in ids]


def write_jsonl(strata, inputs, name, records):
    f = inputs / f"{name}.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in records))
    strata.write("db.t", [str(f)])


def lines_of(records):
    return canonical_lines(pa.Table.from_pylist(records, schema=ARROW))


def merged(*batches):
    out = {}
    for b in batches:
        for r in b:
            out[r["id"]] = r
    return list(out.values())


def strata_tag_lines(strata, tag):
    out = strata.scratch / f"tag-{tag}.parquet"
    strata.run("read", "db.t", "--tag", tag, "--format", "parquet", "--output", str(out))
    import pyarrow.parquet as pq
    return canonical_lines(pq.ParquetFile(out).read())


def pypaimon_lines(wh, options):
    t = engines.catalog(wh).get_table("db.t").copy(options)
    rb = t.new_read_builder()
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return canonical_lines(out if out is not None else ARROW.empty_table())


def build(strata, inputs):
    strata.create_table("db.t", SCHEMA)
    b1, b2, b3, b4 = rows(range(0, 40), "a"), rows(range(20, 60), "b"), rows(range(50, 70), "c"), \
        rows(range(0, 5), "d")
    write_jsonl(strata, inputs, "b1", b1)
    strata.run("compact", "db.t", "--full")          # snapshot 2: upgrade to the max level
    write_jsonl(strata, inputs, "b2", b2)             # 3
    strata.run("compact", "db.t", "--full")          # 4: rewrite
    write_jsonl(strata, inputs, "b3", b3)             # 5
    write_jsonl(strata, inputs, "b4", b4)             # 6
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == [1, 2, 3, 4, 5, 6]
    return {2: lines_of(b1), 4: lines_of(merged(b1, b2)), 6: lines_of(merged(b1, b2, b3, b4))}


def test_engines_read_strata_tables_after_expiry_tags_and_rollback(strata, inputs):
    expected = build(strata, inputs)
    strata.run("create-tag", "db.t", "upgraded", "--snapshot", "2")
    strata.run("create-tag", "db.t", "retained", "--snapshot", "4", "--time-retained", "7d")
    tag_json = json.loads((warehouse.table_dir(strata.warehouse, "db.t") / "tag" / "tag-retained").read_text())
    assert tag_json["tagTimeRetained"] == 604800.0 and len(tag_json["tagCreateTime"]) >= 5

    strata.run("expire-snapshots", "db.t", "--retain-max", "2", "--retain-min", "1")
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == [5, 6]
    assert_all_read(strata, "db.t", expected[6])
    # Tags outlive their snapshots, for strata and pypaimon alike.
    for tag, sid in (("upgraded", 2), ("retained", 4)):
        assert_same_rows(strata_tag_lines(strata, tag), expected[sid], f"strata read --tag {tag}")
        assert_same_rows(pypaimon_lines(strata.warehouse, {"scan.tag-name": tag}), expected[sid],
                         f"pypaimon scan.tag-name={tag}")

    # Roll back to the tag whose snapshot expired: every engine sees snapshot 2 as the latest.
    strata.run("rollback", "db.t", "--to-tag", "upgraded")
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == [2]
    assert_all_read(strata, "db.t", expected[2])
    assert_oracles_read(strata.warehouse, "db.t", expected[2], snapshot=2)

    # pypaimon goes on writing on top of the rolled-back table; strata reads its commit.
    more = rows(range(100, 110), "p")
    engines.write("pypaimon", strata.warehouse, "db.t", pa.Table.from_pylist(more, schema=ARROW))
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == [2, 3]
    after = sorted(expected[2] + lines_of(more))
    assert_all_read(strata, "db.t", after)

    # Orphan cleanup with no age threshold keeps everything that is referenced.
    strata.run("remove-orphan-files", "db.t", "--older-than", "0s")
    assert_all_read(strata, "db.t", after)
    assert_same_rows(strata_tag_lines(strata, "upgraded"), expected[2], "tag after orphan cleanup")


def test_strata_reads_and_expires_around_pypaimon_tags(wh, strata):
    engines.create_table(wh, "db.t", ARROW)          # an append table, written by pypaimon
    batches = [rows(range(0, 10), "x"), rows(range(5, 15), "y"), rows(range(20, 25), "z")]
    for b in batches:
        engines.write("pypaimon", wh, "db.t", pa.Table.from_pylist(b, schema=ARROW))
    sids = warehouse.snapshot_ids(wh, "db.t")
    engines.catalog(wh).get_table("db.t").create_tag("py", sids[0], time_retained="1d")
    first = canonical_lines(engines.read("pypaimon", wh, "db.t", snapshot=sids[0]))
    assert_same_rows(strata_tag_lines(strata, "py"), first, "strata read --tag of a pypaimon tag")
    tags = strata.json_lines("tags", "db.t")
    assert [t["name"] for t in tags] == ["py"] and tags[0]["timeRetained"] == "1 d"

    latest = canonical_lines(engines.read("pypaimon", wh, "db.t"))
    strata.run("expire-snapshots", "db.t", "--retain-max", "1", "--retain-min", "1")
    assert warehouse.snapshot_ids(wh, "db.t") == [sids[-1]]
    assert_all_read(strata, "db.t", latest)
    assert_same_rows(pypaimon_lines(wh, {"scan.tag-name": "py"}), first, "pypaimon tag after strata expiry")
    assert_same_rows(strata_tag_lines(strata, "py"), first, "strata tag after expiry")
