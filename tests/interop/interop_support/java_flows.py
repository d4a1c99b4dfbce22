"""Building tables with strata or the Java oracle, and what both must read: the helpers of the
``test_java_*`` modules.

A *writer* is ``"strata"`` or ``"java"`` (the ``JavaOracle`` of the test's version).  Expected rows
always come from the test's own model (the input rows, with INSERT OVERWRITE applied by
``apply_overwrite``, or ``pk.merge_model`` for primary-key tables), never from one of the engines.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from .canonical import assert_same_rows, canonical_lines
from .datagen import write_input
from .java_oracle import JavaOracle, rows_json
from .strata_cli import Strata

WRITERS = ("strata", "java")
_seq = itertools.count()

# keys both `strata files` and the oracle's `files` print with the same meaning
FILE_KEYS = ("partition", "bucket", "level", "fileName", "fileSize", "rowCount", "minKey", "maxKey",
             "minSequenceNumber", "maxSequenceNumber", "deleteRowCount", "schemaId", "fileSource")


def create(writer: str, strata: Strata, java: JavaOracle, ident: str, schema_doc: dict) -> None:
    if writer == "strata":
        strata.create_table(ident, schema_doc)
    else:
        java.create_table(strata.warehouse, ident, schema_doc)


def write(writer: str, strata: Strata, java: JavaOracle, ident: str, data: pa.Table, inputs: Path,
          overwrite=None, fmt: str = "parquet") -> None:
    """One commit of ``data``; ``overwrite``: None (append), True (INSERT OVERWRITE) or a static
    partition ``{key: value}``."""
    if writer == "strata":
        f = write_input(data, fmt, Path(inputs) / f"in-{next(_seq)}.{fmt}")
        partition = {k: str(v) for k, v in overwrite.items()} if isinstance(overwrite, dict) else None
        strata.write(ident, [f], overwrite=overwrite is not None, partition=partition)
    elif writer == "java":
        ow = {k: str(v) for k, v in overwrite.items()} if isinstance(overwrite, dict) else overwrite
        java.write(strata.warehouse, ident, rows_json(data), overwrite=ow)
    else:
        raise ValueError(f"unknown writer {writer!r}")


def apply_overwrite(current: Optional[pa.Table], new: pa.Table, partition_keys: Sequence[str],
                    overwrite, dynamic: bool = True) -> pa.Table:
    """The model of a commit: append, or Paimon's INSERT OVERWRITE (``overwrite`` True: the
    partitions present in ``new`` when partitioned and ``dynamic-partition-overwrite`` is on, else
    the whole table; a dict: the rows of that static partition spec)."""
    if current is None:
        return new
    if overwrite is None:
        return pa.concat_tables([current, new])
    if isinstance(overwrite, dict) and overwrite:
        mask = None
        for k, v in overwrite.items():
            m = pc.fill_null(pc.equal(pc.cast(current[k], pa.string()), str(v)), False)
            mask = m if mask is None else pc.and_(mask, m)
        return pa.concat_tables([current.filter(pc.invert(mask)), new])
    if partition_keys and dynamic:
        present = {tuple(r[k] for k in partition_keys) for r in new.select(list(partition_keys)).to_pylist()}
        keep = [tuple(r[k] for k in partition_keys) not in present
                for r in current.select(list(partition_keys)).to_pylist()]
        return pa.concat_tables([current.filter(pa.array(keep, pa.bool_())), new])
    return new


def assert_both_read(strata: Strata, java: JavaOracle, ident: str, expected: List[str],
                     snapshot: Optional[int] = None, what: str = "") -> None:
    """strata and Java read exactly ``expected`` (canonical lines)."""
    at = f" at snapshot {snapshot}" if snapshot is not None else ""
    assert_same_rows(java.read(strata.warehouse, ident, snapshot=snapshot), expected,
                     f"Java {java.version} read of {ident}{at}{what}")
    assert_same_rows(strata.read_lines(ident, snapshot=snapshot), expected, f"strata read of {ident}{at}{what}")


def file_rows(files: List[dict], keys: Sequence[str] = FILE_KEYS) -> List[dict]:
    """The files with only ``keys``, in a stable order."""
    rows = [{k: f.get(k) for k in keys} for f in files]
    return sorted(rows, key=lambda r: (repr(r["partition"]), r["bucket"], r["level"], r["fileName"]))


def assert_same_files(strata: Strata, java: JavaOracle, ident: str, snapshot: Optional[int] = None,
                      keys: Sequence[str] = FILE_KEYS) -> List[dict]:
    """``strata files`` and Java's live files (its ``FileStoreScan``) list the same files with the
    same metadata; returns them."""
    ours = file_rows(strata.files(ident, snapshot=snapshot), keys)
    theirs = file_rows(java.files(strata.warehouse, ident, snapshot=snapshot), keys)
    if ours != theirs:
        lines = [f"strata files and Java {java.version} files of {ident} differ:"]
        by_name = {r["fileName"]: r for r in theirs}
        for r in ours:
            j = by_name.pop(r["fileName"], None)
            if j is None:
                lines.append(f"  only strata: {r}")
            elif j != r:
                lines.append(f"  {r['fileName']}: " + ", ".join(
                    f"{k} strata={r[k]!r} java={j[k]!r}" for k in keys if r[k] != j[k]))
        lines += [f"  only Java: {j}" for j in by_name.values()]
        raise AssertionError("\n".join(lines))
    return ours


def lines_of(table: Optional[pa.Table]) -> List[str]:
    return [] if table is None else canonical_lines(table)


def partition_spec(values: Dict[str, object]) -> Dict[str, str]:
    return {k: str(v) for k, v in values.items()}
