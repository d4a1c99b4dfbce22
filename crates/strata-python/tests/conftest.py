"""Shared fixtures and helpers of the ``strata`` Python package's tests.

Every test gets its own warehouse under pytest's ``tmp_path``; ``catalog`` is a
:class:`strata.Catalog` over it with database ``db`` created.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import strata


@pytest.fixture
def warehouse(tmp_path):
    """A fresh, empty warehouse directory (a ``str`` path)."""
    path = tmp_path / "warehouse"
    path.mkdir()
    return str(path)


@pytest.fixture
def catalog(warehouse):
    """A catalog over ``warehouse`` holding an empty database ``db``."""
    c = strata.Catalog(warehouse)
    c.create_database("db")
    return c


def rows(table, *keys):
    """The rows of a pyarrow table (or anything ``pa.table`` takes) as dicts, sorted by
    ``keys`` (all columns when none are given; ``None`` sorts first)."""
    if not isinstance(table, pa.Table):
        table = pa.table(table)
    out = table.to_pylist()
    names = list(keys) or table.column_names

    def key(row):
        return tuple((row[k] is not None, row[k]) for k in names)

    return sorted(out, key=key)


PEOPLE_SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("name", pa.string()),
        ("score", pa.float64()),
        ("dt", pa.string()),
    ]
)


def people(ids, dt="2024-01-01", tag=""):
    """A pyarrow table of PEOPLE_SCHEMA rows with the given ids."""
    ids = list(ids)
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": pa.array([f"n{i}{tag}" for i in ids], pa.string()),
            "score": pa.array([i * 1.5 for i in ids], pa.float64()),
            "dt": pa.array([dt] * len(ids), pa.string()),
        },
        schema=PEOPLE_SCHEMA,
    )


@pytest.fixture
def append_table(catalog):
    """An unpartitioned append table ``db.append`` (PEOPLE_SCHEMA), empty."""
    return catalog.create_table("db.append", PEOPLE_SCHEMA)


@pytest.fixture
def pk_table(catalog):
    """A primary-key table ``db.pk`` (key ``id``, 2 buckets), empty."""
    return catalog.create_table(
        "db.pk", PEOPLE_SCHEMA, primary_keys=["id"], options={"bucket": "2"}
    )


@pytest.fixture
def partitioned_pk_table(catalog):
    """A primary-key table ``db.ppk`` partitioned by ``dt`` (key ``dt, id``, 2 buckets)."""
    return catalog.create_table(
        "db.ppk",
        PEOPLE_SCHEMA,
        partition_keys=["dt"],
        primary_keys=["dt", "id"],
        options={"bucket": "2"},
    )


@pytest.fixture
def partitioned_append_table(catalog):
    """An append table ``db.papp`` partitioned by ``dt``."""
    return catalog.create_table("db.papp", PEOPLE_SCHEMA, partition_keys=["dt"])
