"""Building a table from a shape with one engine, and reading it back with all of them."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import engines
from .canonical import assert_same_rows, canonical_lines
from .datagen import Shape, shape_schema_json, write_input
from .strata_cli import Strata


def build_foreign(writer: str, wh: str, ident: str, shape: Shape) -> None:
    """Create ``ident`` with pypaimon and write each commit of ``shape`` with ``writer``."""
    engines.create_table(wh, ident, shape.table_schema, shape.partition_keys, shape.options)
    for data in shape.commits:
        engines.write(writer, wh, ident, data)


def build_strata(strata: Strata, ident: str, shape: Shape, fmt: str, inputs: Path,
                 with_ids: bool = False) -> None:
    """``strata create-table`` + one ``strata write`` per commit, input files of format ``fmt``."""
    strata.create_table(ident, shape_schema_json(shape, with_ids=with_ids))
    for n, data in enumerate(shape.commits):
        f = write_input(data, fmt, Path(inputs) / f"{shape.name}-{n}.{fmt}")
        strata.write(ident, [f])


def oracle_lines(reader: str, wh: str, ident: str, columns: Optional[Sequence[str]] = None,
                 snapshot: Optional[int] = None) -> List[str]:
    return canonical_lines(engines.read(reader, wh, ident, columns, snapshot))


def assert_oracles_read(wh: str, ident: str, expected: List[str], snapshot: Optional[int] = None,
                        columns: Optional[Sequence[str]] = None) -> None:
    """Both reference engines read exactly ``expected``."""
    for reader in engines.READERS:
        what = f"{reader} read of {ident}" + (f" at snapshot {snapshot}" if snapshot is not None else "")
        assert_same_rows(oracle_lines(reader, wh, ident, columns, snapshot), expected, what)


def assert_all_read(strata: Strata, ident: str, expected: List[str], snapshot: Optional[int] = None) -> None:
    """strata, pypaimon and pypaimon-rust all read exactly ``expected``."""
    assert_oracles_read(strata.warehouse, ident, expected, snapshot)
    what = f"strata read of {ident}" + (f" --snapshot {snapshot}" if snapshot is not None else "")
    assert_same_rows(strata.read_lines(ident, snapshot=snapshot), expected, what)


def partition_arg(values: Dict[str, object]) -> Dict[str, str]:
    return {k: str(v) for k, v in values.items()}
