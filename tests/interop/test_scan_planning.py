"""``strata scan`` on tables written by pypaimon and pypaimon-rust: lazy manifest decoding and the
snapshot live manifest entry cache must read their manifests (each engine's Avro writer schema)
and plan exactly the files pypaimon plans, and a bucket derived from bucket-key equalities must be
the bucket the foreign writer hashed the row into.
"""
import pytest

from interop_support import engines
from interop_support.datagen import SHAPES
from interop_support.flows import build_foreign

pytestmark = pytest.mark.cli_scan

SHAPE = SHAPES["bucket_fixed_part"]   # dt p0/p1, bucket 3 on (id, name), two commits
CACHE = ("-o", "scan.manifest-entry-cache.max-snapshots=2")


@pytest.fixture(params=engines.WRITERS)
def table(request, wh):
    build_foreign(request.param, wh, "db.s", SHAPE)
    return "db.s"


def _oracle(wh, ident, dt, bucket):
    return sorted(f["fileName"] for f in engines.planned_files(wh, ident)
                  if f["partition"]["dt"] == dt and f["bucket"] == bucket)


@pytest.mark.parametrize("lazy", ["true", "false"])
def test_single_bucket_scans_match_pypaimon_and_hit_the_cache(table, strata, wh, lazy):
    for dt in ("p0", "p1"):
        for bucket in range(3):
            args = ["scan", table, "--where", f"dt = '{dt}'", "--bucket", str(bucket),
                    "-o", f"scan.manifest-entry.lazy-decode.enabled={lazy}", *CACHE]
            splits = strata.json_lines(*args)
            got = sorted(f["fileName"] for s in splits for f in s["files"])
            assert got == _oracle(wh, table, dt, bucket), f"dt={dt} bucket={bucket}"
            metrics = strata.json_lines(*args, "--repeat", "3", "--metrics")
            assert [m["cacheHit"] for m in metrics] == [False, True, True]
            assert metrics[1]["lastScannedManifests"] == 0
            assert all(m["files"] == len(got) for m in metrics)
            if lazy == "true":
                assert metrics[1]["entriesDecoded"] == len(got)
            else:
                assert metrics[1]["entriesDecoded"] == metrics[1]["entriesInspected"]


def test_bucket_derived_from_the_bucket_key_finds_every_foreign_row(table, strata, wh):
    rows = {(r["dt"], r["id"], r["name"]) for t in SHAPE.commits for r in t.to_pylist()}
    for dt, i, name in sorted(rows, key=lambda r: r[1])[::3]:
        if name is None:
            continue
        where = f"dt = '{dt}' AND id = {i} AND name = '{name}'"
        m = strata.json_lines("scan", table, "--where", where, "--metrics", *CACHE)[0]
        assert m["cacheHit"] is False, "one bucket derived: the scan is cache-eligible"
        assert m["splits"] == 1, where
        got = strata.read_lines(table, where=where, columns=["id"])
        assert len(got) == 1, f"{where}: the row is in the derived bucket"
