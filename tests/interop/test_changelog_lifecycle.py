"""Decoupled changelog lifecycle against Java Paimon: a primary-key table whose
``changelog.time-retained`` outlives its snapshots keeps each expired snapshot as
``changelog/changelog-N`` (Java ``ExpireSnapshotsImpl`` writes it, ``ExpireChangelogImpl``
expires it), and streams find an expired snapshot's changes there (``NextSnapshotFetcher``).

* strata writes and expires (``strata expire-snapshots``): the ``changelog/`` directory has Java's
  shape (``changelog-N`` = the snapshot's JSON byte for byte, ``LATEST`` hint) and Java's
  streaming read from snapshot 1 reads those changelogs and returns what Java's incremental read
  returned before the expiry; Java then expires the changelogs strata wrote.
* Java writes and expires: strata's ``tail --from 1`` reads Java's ``changelog/`` files, equal to
  Java's own stream; ``strata expire-changelogs`` then expires them, and Java still reads the
  table.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Dict

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interop_support.datagen import paimon_schema_json

from interop_support.java_oracle import java, rows_json  # noqa: F401  (fixture)

pytestmark = pytest.mark.java

SCHEMA = pa.schema([pa.field("k", pa.int32(), nullable=False), pa.field("v", pa.string())])
OPTIONS = {
    "bucket": "1",
    "changelog-producer": "input",
    # Snapshots: only the last 2 stay; changelogs: 100 or a week.
    "snapshot.num-retained.min": "2",
    "snapshot.num-retained.max": "2",
    "changelog.time-retained": "7d",
    "changelog.num-retained.max": "100",
    "write-only": "true",
}
COMMITS = [
    [(range(0, 10), "a", "+I")],
    [(range(3, 6), "b", "+U"), (range(8, 10), "a", "-D")],
    [(range(10, 14), "c", "+I"), (range(0, 2), "a", "-D")],
    [(range(4, 12), "d", "+U")],
    [(range(14, 16), "e", "+I"), (range(12, 13), "c", "-D")],
]


def batch(keys, tag: str) -> pa.Table:
    keys = list(keys)
    return pa.table({"k": pa.array(keys, pa.int32()), "v": [f"{tag}-{k}" for k in keys]},
                    schema=SCHEMA)


def kind_table(parts) -> pa.Table:
    """The rows of ``parts`` with their row kinds in a ``kind`` column (``rowkind.field``)."""
    data = pa.concat_tables([batch(keys, tag) for keys, tag, _ in parts])
    kinds = [kind for keys, _, kind in parts for _ in keys]
    return data.append_column("kind", pa.array(kinds, pa.string()))


def schema_doc() -> dict:
    doc = paimon_schema_json(SCHEMA, [], {**OPTIONS, "rowkind.field": "kind"})
    doc["fields"].append({"name": "kind", "type": "STRING"})
    doc["primaryKeys"] = ["k"]
    return doc


def replay(lines) -> Dict[int, str]:
    """Row-kinded change lines applied to an empty table: k -> v."""
    model: Dict[int, str] = {}
    for line in lines:
        row = json.loads(line) if isinstance(line, str) else line
        if row["rowkind"] in ("+I", "+U"):
            model[row["k"]] = row["v"]
        else:
            model.pop(row["k"], None)
    return model


def table_rows(strata, ident: str) -> Dict[int, str]:
    t = strata.read_arrow(ident, columns=["k", "v"])
    return dict(zip(t.column("k").to_pylist(), t.column("v").to_pylist()))


def java_commits(java, wh: str, ident: str) -> None:
    for parts in COMMITS:
        java.write(wh, ident, rows_json(kind_table(parts), row_kind_column="kind"))


def strata_commits(strata, ident: str, scratch: Path) -> None:
    for i, parts in enumerate(COMMITS):
        path = scratch / f"commit-{i}.parquet"
        pq.write_table(kind_table(parts), path)
        strata.write(ident, [str(path)])


def table_dir(wh: str, ident: str) -> Path:
    db, t = ident.split(".")
    return Path(wh) / f"{db}.db" / t


def java_stream(java, wh: str, ident: str, until: int) -> dict:
    return java.call("streamRead", warehouse=os.path.abspath(wh), table=ident, until=until,
                     options={"scan.mode": "from-snapshot", "scan.snapshot-id": "1"})


def test_java_streams_changelogs_strata_wrote(java, strata, tmp_path):
    ident = "db.t"
    wh = strata.warehouse
    strata.create_table(ident, schema_doc())
    strata_commits(strata, ident, tmp_path)
    last = len(COMMITS)
    before = java.incremental_read(wh, ident, {"incremental-between": f"0,{last}",
                                               "incremental-between-scan-mode": "changelog"})
    d = table_dir(wh, ident)
    jsons = {i: (d / "snapshot" / f"snapshot-{i}").read_text() for i in range(1, last + 1)}
    time.sleep(0.01)
    out = strata.json_lines("expire-snapshots", ident, "--older-than", "0s")
    assert out[0]["expiredSnapshots"] == list(range(1, last - 1)), out
    names = sorted(p.name for p in (d / "changelog").iterdir())
    # The changelog expiry that follows (as after a commit) expires none and writes EARLIEST.
    assert names == ["EARLIEST", "LATEST"] + [f"changelog-{i}" for i in range(1, last - 1)], names
    assert (d / "changelog" / "EARLIEST").read_text() == "1"
    assert (d / "changelog" / "LATEST").read_text() == str(last - 2)
    for i in range(1, last - 1):
        assert (d / "changelog" / f"changelog-{i}").read_text() == jsons[i]

    streamed = java_stream(java, wh, ident, last)
    assert streamed["snapshots"] == list(range(1, last + 1)), streamed["snapshots"]
    assert sorted(streamed["rows"]) == before
    final = table_rows(strata, ident)
    assert replay(streamed["rows"]) == final

    # Java expires the changelogs strata wrote (table options: 7 days, nothing goes), then
    # with a retention of 1 all but the latest changelog go.
    assert java.call("expireChangelogs", warehouse=os.path.abspath(wh), table=ident)["expired"] == 0
    n = java.call("expireChangelogs", warehouse=os.path.abspath(wh), table=ident,
                  options={"changelog.time-retained": "1ms", "changelog.num-retained.min": "1",
                           "changelog.num-retained.max": "2"})["expired"]
    assert n > 0
    assert sorted(p.name for p in (d / "changelog").iterdir())[:2] == ["EARLIEST", "LATEST"]
    assert table_rows(strata, ident) == final


def test_strata_streams_and_expires_changelogs_java_wrote(java, strata, tmp_path):
    ident = "db.j"
    wh = strata.warehouse
    java.create_table(wh, ident, schema_doc())
    java_commits(java, wh, ident)
    last = len(COMMITS)
    time.sleep(0.01)
    java.expire_snapshots(wh, ident)
    d = table_dir(wh, ident)
    assert sorted(p.name for p in (d / "snapshot").iterdir() if p.name.startswith("snapshot-")) \
        == [f"snapshot-{last - 1}", f"snapshot-{last}"]
    ids = sorted(int(p.name.split("-")[1]) for p in (d / "changelog").iterdir()
                 if p.name.startswith("changelog-"))
    assert ids == list(range(1, last - 1)), ids

    expected = java_stream(java, wh, ident, last)
    assert expected["snapshots"] == list(range(1, last + 1)), expected["snapshots"]
    got = strata.json_lines("tail", ident, "--from", "1", "--until", str(last), "--poll-ms", "10")
    assert len(got) == len(expected["rows"])
    assert replay(got) == replay(expected["rows"]) == table_rows(strata, ident)

    # strata expires Java's changelogs with a one-changelog retention: the latest changelog
    # stays, Java still streams from it and reads the table.
    out = strata.json_lines("expire-changelogs", ident, "--retain-max", "1", "--retain-min", "1",
                            "--older-than", "0s")
    assert out[0]["expiredChangelogs"] == list(range(1, last - 2)), out
    assert sorted(p.name for p in (d / "changelog").iterdir()) == \
        ["EARLIEST", "LATEST", f"changelog-{last - 2}"]
    assert (d / "changelog" / "EARLIEST").read_text() == str(last - 2)
    streamed = java.call("streamRead", warehouse=os.path.abspath(wh), table=ident, until=last,
                         options={"scan.mode": "from-snapshot", "scan.snapshot-id": "1"})
    assert streamed["snapshots"][0] == last - 2
    assert sorted(java.read(wh, ident)) == sorted(strata.read_lines(ident))
