"""Self-checks of the Java oracle (no strata binary): its canonical lines are byte-identical to
``canonical_lines`` (the golden files, the shapes' expected rows, pypaimon's reads of the same
tables), its float printing is Python's ``repr`` on random bit patterns, and tables it writes read
back in pypaimon.  If one of these fails, the oracle is broken, not strata.
"""
from __future__ import annotations

import random
import struct
from pathlib import Path

import pyarrow as pa
import pytest

from interop_support import engines
from interop_support.canonical import assert_same_rows, canonical_lines
from interop_support.datagen import SHAPES, shape_schema_json
from interop_support.java_oracle import java, rows_json  # noqa: F401  (fixture)

GOLDEN = Path(__file__).parent / "golden"
pytestmark = pytest.mark.java


def _golden(name):
    return (GOLDEN / name).read_text(encoding="utf-8").splitlines()


def _build_java(java, wh, ident, shape):
    java.create_table(wh, ident, shape_schema_json(shape))
    for data in shape.commits:
        java.write(wh, ident, rows_json(data))


def test_versions(java):
    """The JVM runs the Paimon jar of its version."""
    jar = java.info["jar"]
    want = {"1.4.2": "paimon-bundle-1.4.2.jar", "2.0.0": "paimon-flink-2.0-2.0.0.jar"}[java.version]
    assert jar.endswith(want), jar


@pytest.mark.parametrize("shape_name,golden", [("types", "types_t.jsonl"), ("oracle_append", "append_t.jsonl")])
def test_golden(java, wh, shape_name, golden):
    """Java writes the golden tables' rows and reads exactly the golden lines; pypaimon agrees."""
    shape = SHAPES[shape_name]
    _build_java(java, wh, "db.t", shape)
    assert_same_rows(java.read(wh, "db.t"), _golden(golden), f"Java {java.version} read")
    assert_same_rows(canonical_lines(engines.read_pypaimon(wh, "db.t")), _golden(golden), "pypaimon read")


@pytest.mark.parametrize("shape_name", ["special_values", "flat_types", "nested_types", "part_two_keys",
                                        "part_date", "bucket_fixed_part"])
def test_shapes_match_python_canonical(java, wh, shape_name):
    """Java's lines equal the Python canonical lines of the input, and pypaimon's of the table."""
    shape = SHAPES[shape_name]
    _build_java(java, wh, "db.t", shape)
    assert_same_rows(java.read(wh, "db.t"), shape.expected_lines(), f"Java {java.version} read")
    assert_same_rows(canonical_lines(engines.read_pypaimon(wh, "db.t")), shape.expected_lines(), "pypaimon read")


def test_pypaimon_written_table_reads_the_same(java, wh):
    shape = SHAPES["types"]
    engines.create_table(wh, "db.t", shape.table_schema, shape.partition_keys, shape.options)
    for data in shape.commits:
        engines.write("pypaimon", wh, "db.t", data)
    assert_same_rows(java.read(wh, "db.t"), shape.expected_lines(), f"Java {java.version} read")


def _random_floats(n, seed):
    rnd = random.Random(seed)
    doubles, floats = [], []
    while len(doubles) < n:
        d = struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0]
        if d == d and abs(d) != float("inf"):
            doubles.append(d)
    while len(floats) < n:
        f = struct.unpack("<f", struct.pack("<I", rnd.getrandbits(32)))[0]
        if f == f and abs(f) != float("inf"):
            floats.append(f)
    # decimal-looking values, powers of ten around the fixed/exponent switch, subnormals
    extra_d = [0.1, 0.2, 0.3, 1 / 3, 1e15, 1e16, 1e17, 123456789012345678.0, 1e-4, 1e-5, 9.999e-5,
               5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 2.0 ** 60, 1.5, -2.5, 100.0]
    extra_f = [0.1, 1e-45, 3.4028235e38, 1.17549435e-38, 16777216.0, 0.3, 1e7, 1.0e-5, 123.456]
    return doubles + extra_d, floats + extra_f


def test_float_printing_is_python_repr(java, wh):
    """2000 random DOUBLE and FLOAT bit patterns (and edge values) print as canonical.py prints them."""
    doubles, floats = _random_floats(1000, 15)
    n = max(len(doubles), len(floats))
    schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("d", pa.float64()), ("f", pa.float32())])
    data = pa.table({"id": list(range(n)),
                     "d": doubles + [None] * (n - len(doubles)),
                     "f": pa.array(floats + [None] * (n - len(floats)), pa.float32())}, schema=schema)
    java.create_table(wh, "db.t", {"fields": [{"name": "id", "type": "INT NOT NULL"},
                                               {"name": "d", "type": "DOUBLE"}, {"name": "f", "type": "FLOAT"}],
                                    "partitionKeys": [], "primaryKeys": [], "options": {}})
    java.write(wh, "db.t", rows_json(data))
    assert_same_rows(java.read(wh, "db.t"), canonical_lines(data), f"Java {java.version} floats")


def test_errors_carry_the_java_trace(java, wh):
    from interop_support.java_oracle import JavaOracleError
    with pytest.raises(JavaOracleError) as e:
        java.read(wh, "db.missing")
    assert "TableNotExistException" in str(e.value) and "at org.apache.paimon" in str(e.value)
    # the JVM keeps serving after a failure
    assert java.call("ping")["paimon"] == java.version
