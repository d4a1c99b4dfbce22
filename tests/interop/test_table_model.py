"""Model-based runs of a primary-key table through the strata CLI, checked by pypaimon.

Seeded random sequences of upserts and deletes (``rowkind.field``), partition overwrites,
compactions (normal and ``--full``), snapshot expiries and pairs of concurrent ``strata write``
processes on disjoint keys, applied to a dynamic- or fixed-bucket table and to a dict model.
After every step strata and pypaimon must both read exactly the model.  (The Rust
``crates/strata/tests/it/table_model.rs`` runs many more random cases in process, and a soak
mode; this one proves the other engine agrees after each step.)
"""
from __future__ import annotations

import json
import random
import subprocess

import pytest

from interop_support import engines

pytestmark = pytest.mark.cli_write

IDENT = "db.model"
PARTS = ("a", "b")


def _schema(bucket: str) -> dict:
    return {
        "fields": [{"name": "k", "type": "BIGINT NOT NULL"}, {"name": "dt", "type": "STRING NOT NULL"},
                   {"name": "v", "type": "INT"}, {"name": "op", "type": "STRING"}],
        "partitionKeys": ["dt"], "primaryKeys": ["k", "dt"],
        "options": {"bucket": bucket, "rowkind.field": "op", "write-buffer-size": "4kb",
                    "dynamic-bucket.target-row-num": "10", "num-sorted-run.compaction-trigger": "3",
                    "snapshot.num-retained.max": "1000"},
    }


def _rows_file(tmp, n, rows) -> str:
    f = tmp / f"step-{n}.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(f)


def _read(rows) -> dict:
    out = {}
    for r in rows:
        key = (r["k"], r["dt"])
        assert key not in out, f"{key} read twice"
        out[key] = r["v"]
    return out


@pytest.mark.parametrize("bucket,seed", [("-1", 1), ("-1", 2), ("2", 3)])
def test_random_steps_match_the_model_in_strata_and_pypaimon(strata, strata_bin, wh, tmp_path, bucket, seed):
    rnd = random.Random(seed)
    strata.create_table(IDENT, _schema(bucket))
    model: dict = {}
    for n in range(14):
        step = rnd.choices(["write", "overwrite", "concurrent", "compact", "expire"], [6, 1, 2, 1, 1])[0]
        if step == "write":
            rows = []
            for _ in range(rnd.randint(1, 40)):
                k, dt = rnd.randrange(40), rnd.choice(PARTS)
                if rnd.random() < 0.2:
                    rows.append({"k": k, "dt": dt, "v": None, "op": "-D"})
                    model.pop((k, dt), None)
                else:
                    v = rnd.randrange(-100, 100)
                    rows.append({"k": k, "dt": dt, "v": v, "op": "+I"})
                    model[(k, dt)] = v
            strata.run("write", IDENT, _rows_file(tmp_path, n, rows))
        elif step == "overwrite":
            dt = rnd.choice(PARTS)
            rows = [{"k": k, "dt": dt, "v": rnd.randrange(100), "op": "+I"}
                    for k in rnd.sample(range(40), rnd.randint(1, 15))]
            strata.run("write", IDENT, _rows_file(tmp_path, n, rows), "--overwrite", "--partition", f"dt={dt}")
            model = {key: v for key, v in model.items() if key[1] != dt}
            model.update({(r["k"], dt): r["v"] for r in rows})
        elif step == "concurrent":
            files = []
            for parity in (0, 1):
                rows = [{"k": k, "dt": rnd.choice(PARTS), "v": rnd.randrange(100), "op": "+I"}
                        for k in range(parity, 40, 2) if rnd.random() < 0.4]
                rows = list({(r["k"], r["dt"]): r for r in rows}.values())
                for r in rows:
                    model[(r["k"], r["dt"])] = r["v"]
                files.append(_rows_file(tmp_path, f"{n}-{parity}", rows))
            procs = [subprocess.Popen([strata_bin, "--warehouse", wh, "write", IDENT, f],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for f in files]
            for p in procs:
                _, err = p.communicate(timeout=300)
                assert p.returncode == 0, err
        elif step == "compact":
            strata.run("compact", IDENT, *(["--full"] if rnd.random() < 0.5 else []))
        else:
            strata.run("expire-snapshots", IDENT, "--retain-max", str(rnd.randint(1, 3)), "--retain-min", "1")
        got = _read(strata.read_arrow(IDENT).to_pylist())
        assert got == model, f"strata after step {n} ({step})"
        got_py = _read(engines.read("pypaimon", wh, IDENT).to_pylist())
        assert got_py == model, f"pypaimon after step {n} ({step})"
