"""Errors: every strata error is a strata.StrataError with the builtin base ordinary code
catches, and a message naming what is wrong; bad input never crashes the interpreter."""

from __future__ import annotations

import pyarrow as pa
import pytest

import strata
from conftest import PEOPLE_SCHEMA, people


def test_hierarchy():
    assert issubclass(strata.NotFoundError, LookupError)
    assert issubclass(strata.InvalidInputError, ValueError)
    assert issubclass(strata.AlreadyExistsError, ValueError)
    assert issubclass(strata.UnsupportedError, NotImplementedError)
    assert issubclass(strata.StorageError, OSError)
    for cls in (
        strata.NotFoundError,
        strata.AlreadyExistsError,
        strata.ConflictError,
        strata.CommitOutcomeUnknownError,
        strata.CorruptFileError,
        strata.UnsupportedError,
        strata.InvalidInputError,
        strata.StorageError,
        strata.InternalError,
    ):
        assert issubclass(cls, strata.StrataError)
        assert cls.__module__ == "strata"
    assert issubclass(strata.StrataError, Exception)


def test_not_found_is_lookup_error(catalog):
    with pytest.raises(LookupError, match="nope"):
        catalog.get_table("db.nope")
    with pytest.raises(strata.NotFoundError):
        catalog.list_tables("no_such_db")
    try:
        catalog.get_table("db.nope")
    except KeyError:  # pragma: no cover
        pytest.fail("a missing table is a LookupError, not a KeyError")
    except LookupError as e:
        assert isinstance(e, strata.StrataError)


def test_invalid_input_is_value_error(append_table):
    with pytest.raises(ValueError):
        append_table.read(where="id <")
    with pytest.raises(strata.InvalidInputError, match="LIKE"):
        append_table.read(where="name LIKE '%x'")
    with pytest.raises(strata.InvalidInputError):
        append_table.new_read_builder().with_filter("id = id")
    with pytest.raises(strata.InvalidInputError):
        append_table.new_read_builder().with_filter(42)
    with pytest.raises(strata.InvalidInputError):
        strata.Catalog({"no": "warehouse"})


def test_bad_identifier(catalog):
    with pytest.raises(strata.StrataError):
        catalog.get_table("no_dot")
    with pytest.raises(strata.NotFoundError):
        catalog.get_table("nodb.t")


def test_unknown_column_in_filter_names_it(append_table):
    append_table.write(people([1]))
    with pytest.raises(strata.StrataError, match="no_such_col"):
        append_table.read(where="no_such_col = 1")
    with pytest.raises(strata.StrataError, match="no_such_col"):
        append_table.read(columns=["id", "no_such_col"])
    with pytest.raises(strata.StrataError, match="no_such_map"):
        append_table.read(columns=["no_such_map['k']"])
    with pytest.raises(strata.StrataError, match="name"):
        # key access on a STRING column
        append_table.read(columns=["name['k']"])


def test_literal_type_mismatch(append_table):
    append_table.write(people([1]))
    with pytest.raises(strata.InvalidInputError, match="id"):
        append_table.read(where="id = 'abc'")


def test_unsupported_option_refused(catalog):
    with pytest.raises(NotImplementedError, match="clustering.columns"):
        catalog.create_table(
            "db.t", PEOPLE_SCHEMA, primary_keys=["id"], options={"clustering.columns": "name"}
        )
    with pytest.raises(strata.UnsupportedError, match="sequence.snapshot-ordering"):
        catalog.create_table(
            "db.t", PEOPLE_SCHEMA, primary_keys=["id"], options={"sequence.snapshot-ordering": "true"}
        )
    assert catalog.list_tables("db") == []
    t = catalog.create_table("db.t", PEOPLE_SCHEMA)
    with pytest.raises(strata.UnsupportedError, match="batch-scan-mode"):
        t.copy({"batch-scan-mode": "compact"})
    # implemented options are taken.
    t2 = t.copy({"write-buffer-size": "64 mb"})
    t2.write(people([1]))
    assert t.read().num_rows == 1


def test_bad_option_value(catalog):
    with pytest.raises(strata.InvalidInputError, match="bucket"):
        catalog.create_table("db.t", PEOPLE_SCHEMA, primary_keys=["id"], options={"bucket": "many"})


def test_missing_not_null_column_is_named(catalog):
    t = catalog.create_table(
        "db.nn", [("id", "BIGINT NOT NULL"), ("must", "STRING NOT NULL"), ("opt", "STRING")]
    )
    with pytest.raises(strata.InvalidInputError, match="must"):
        t.write(pa.table({"id": pa.array([1], pa.int64()), "opt": ["x"]}))
    with pytest.raises(strata.InvalidInputError, match="must"):
        t.write(pa.table({"id": pa.array([1], pa.int64()), "must": pa.array([None], pa.string())}))
    assert t.latest_snapshot_id() is None
    # a missing nullable column is written as NULL.
    t.write(pa.table({"id": pa.array([1], pa.int64()), "must": ["m"]}))
    assert t.read().to_pylist() == [{"id": 1, "must": "m", "opt": None}]


def test_bad_data_type_named(append_table):
    with pytest.raises(strata.InvalidInputError, match="id"):
        append_table.write(
            pa.table({"id": ["not a number"], "name": ["x"], "score": [1.0], "dt": ["d"]})
        )
    assert append_table.latest_snapshot_id() is None


def test_bad_travel_arguments(append_table):
    append_table.write(people([1]))
    with pytest.raises(strata.InvalidInputError):
        append_table.read(timestamp=object())
    with pytest.raises(strata.InvalidInputError):
        append_table.read(timestamp="yesterday-ish")
    with pytest.raises(strata.InvalidInputError):
        append_table.new_read_builder().with_travel(snapshot_id=1, tag="x")


def test_corrupt_split_bytes():
    from strata import _native

    with pytest.raises(strata.InvalidInputError):
        _native.split_from_bytes(b"garbage")
    with pytest.raises(strata.InvalidInputError):
        _native.commit_message_from_bytes(b"{}")


def test_storage_error_is_os_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("not a directory")
    with pytest.raises((OSError, strata.StrataError)):
        strata.Catalog(str(f / "wh")).create_database("db")
