"""Time travel: ``strata read --snapshot N`` against the reference readers' ``scan.snapshot-id``.

History of every table here: the oracle's append_t commits (3 APPEND snapshots), then an
INSERT OVERWRITE of partition dt=2024-01-01 (snapshot 4, OVERWRITE)."""
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from interop_support import engines, warehouse
from interop_support.canonical import canonical_lines
from interop_support.datagen import SHAPES, write_input
from interop_support.flows import assert_all_read, assert_oracles_read

pytestmark = pytest.mark.cli_snapshot

NEW = pa.table({"dt": ["2024-01-01"], "id": [100], "name": ["over"], "amount": [1.0]},
               schema=SHAPES["oracle_append"].schema)


def expected_by_snapshot():
    shape = SHAPES["oracle_append"]
    out = {n: shape.expected_after(n) for n in (1, 2, 3)}
    rest = shape.all_rows().filter(pc.not_equal(shape.all_rows()["dt"], "2024-01-01"))
    out[4] = canonical_lines(pa.concat_tables([rest, NEW]))
    return out


@pytest.mark.parametrize("writer", engines.WRITERS)
def test_strata_time_travel_on_foreign_table(writer, wh, strata):
    shape = SHAPES["oracle_append"]
    engines.create_table(wh, "db.t", shape.schema, shape.partition_keys, shape.options)
    for data in shape.commits:
        engines.write(writer, wh, "db.t", data)
    engines.write(writer, wh, "db.t", NEW, overwrite={"dt": "2024-01-01"})
    for sid, expected in expected_by_snapshot().items():
        assert_all_read(strata, "db.t", expected, snapshot=sid)
    assert_all_read(strata, "db.t", expected_by_snapshot()[4])


@pytest.mark.cli_write
@pytest.mark.cli_overwrite
def test_oracles_time_travel_on_strata_table(strata, inputs):
    shape = SHAPES["oracle_append"]
    from interop_support.datagen import shape_schema_json
    strata.create_table("db.t", shape_schema_json(shape))
    for n, data in enumerate(shape.commits):
        strata.write("db.t", [write_input(data, "jsonl", inputs / f"c{n}.jsonl")])
    strata.write("db.t", [write_input(NEW, "parquet", inputs / "new.parquet")], overwrite=True,
                 partition={"dt": "2024-01-01"})
    assert warehouse.snapshot_ids(strata.warehouse, "db.t") == [1, 2, 3, 4]
    for sid, expected in expected_by_snapshot().items():
        assert_all_read(strata, "db.t", expected, snapshot=sid)


def test_time_travel_to_missing_snapshot_fails(wh, strata):
    shape = SHAPES["plain"]
    engines.create_table(wh, "db.t", shape.schema)
    engines.write("pypaimon", wh, "db.t", shape.commits[0])
    p = strata.run("read", "db.t", "--snapshot", "7", "--format", "jsonl", check=False)
    assert p.returncode != 0, f"reading a missing snapshot must fail; stdout={p.stdout!r}"
    assert p.stderr.strip(), "the error must be reported on stderr"
    assert "panicked" not in p.stderr, p.stderr


def test_time_travel_projection(wh, strata):
    shape = SHAPES["oracle_append"]
    engines.create_table(wh, "db.t", shape.schema, shape.partition_keys, shape.options)
    for data in shape.commits:
        engines.write("pypaimon", wh, "db.t", data)
    for sid in (1, 2):
        want = canonical_lines(engines.read_pypaimon(wh, "db.t", ["name", "id"], sid))
        assert_oracles_read(wh, "db.t", want, snapshot=sid, columns=["name", "id"])
        got = strata.read_lines("db.t", columns=["name", "id"], snapshot=sid)
        assert got == want, (got, want)
