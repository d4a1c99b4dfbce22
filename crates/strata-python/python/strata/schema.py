"""``strata.Schema``: a table definition in pypaimon's shape (an Arrow schema plus keys,
options and comment), for code moving over from pypaimon::

    schema = strata.Schema.from_pyarrow_schema(pa_schema, primary_keys=["id"])
    catalog.create_table("db.t", schema)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class Schema:
    """Columns (any object with ``__arrow_c_schema__``, e.g. a ``pyarrow.Schema``) with the
    table's partition keys, primary keys, options and comment."""

    pa_schema: Any
    partition_keys: List[str] = field(default_factory=list)
    primary_keys: List[str] = field(default_factory=list)
    options: Dict[str, str] = field(default_factory=dict)
    comment: Optional[str] = None

    @staticmethod
    def from_pyarrow_schema(
        pa_schema: Any,
        partition_keys: Optional[List[str]] = None,
        primary_keys: Optional[List[str]] = None,
        options: Optional[Dict[str, str]] = None,
        comment: Optional[str] = None,
    ) -> "Schema":
        if not hasattr(pa_schema, "__arrow_c_schema__"):
            raise TypeError(
                f"expected an Arrow schema (e.g. pyarrow.Schema), got {type(pa_schema).__name__}"
            )
        return Schema(
            pa_schema,
            list(partition_keys or []),
            list(primary_keys or []),
            {str(k): str(v) for k, v in (options or {}).items()},
            comment,
        )
