"""strata.Predicate / strata.PredicateBuilder: the SQL text they produce, and that strata's
reads filter rows by it exactly as a Python model does."""

from __future__ import annotations

import datetime
import decimal
import pickle

import pyarrow as pa
import pytest

import strata
from strata import Predicate, PredicateBuilder

pb = PredicateBuilder()


# --------------------------------------------------------------------------------------------
# the SQL text (no table needed)


@pytest.mark.parametrize(
    "pred, sql",
    [
        (pb.equal("a", 1), '"a" = 1'),
        (pb.not_equal("a", -1), '"a" <> -1'),
        (pb.less_than("a", 1.5), '"a" < 1.5'),
        (pb.less_or_equal("a", decimal.Decimal("1.50")), '"a" <= 1.50'),
        (pb.greater_than("a", True), '"a" > TRUE'),
        (pb.greater_or_equal("a", "x'y"), "\"a\" >= 'x''y'"),
        (pb.is_null("a"), '"a" IS NULL'),
        (pb.is_not_null("a"), '"a" IS NOT NULL'),
        (pb.is_in("a", [1, 2]), '"a" IN (1, 2)'),
        (pb.is_not_in("a", ["x"]), "\"a\" NOT IN ('x')"),
        (pb.between("a", 1, 5), '"a" BETWEEN 1 AND 5'),
        (pb.not_between("a", 1, 5), '"a" NOT BETWEEN 1 AND 5'),
        (pb.startswith("a", "ab"), "\"a\" LIKE 'ab%'"),
        (pb.equal('we"ird col', 1), '"we""ird col" = 1'),
        (pb.equal("m['k']", 1), "\"m\"['k'] = 1"),
        (pb.equal("\"My Map\"['it''s']", 1), "\"My Map\"['it''s'] = 1"),
        (pb.equal("b", b"\x00\xff"), "\"b\" = X'00FF'"),
        (pb.equal("d", datetime.date(2024, 1, 2)), "\"d\" = DATE '2024-01-02'"),
        (
            pb.equal("t", datetime.datetime(2024, 1, 2, 3, 4, 5, 6000)),
            "\"t\" = TIMESTAMP '2024-01-02 03:04:05.006000'",
        ),
        (
            pb.equal(
                "t",
                datetime.datetime(
                    2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone(datetime.timedelta(hours=2))
                ),
            ),
            "\"t\" = TIMESTAMP WITH TIME ZONE '2024-01-02 03:04:05+02:00'",
        ),
        (pb.equal("tm", datetime.time(1, 2, 3, 4000)), "\"tm\" = TIME '01:02:03.004'"),
        (pb.is_in("a", []), "FALSE"),
        (pb.is_not_in("a", []), "TRUE"),
    ],
)
def test_sql_text(pred, sql):
    assert isinstance(pred, Predicate)
    assert pred.to_sql() == sql
    assert str(pred) == sql
    assert repr(pred) == f"Predicate({sql!r})"


def test_combinators():
    a, b = pb.equal("a", 1), pb.is_null("b")
    assert (a & b).to_sql() == '("a" = 1) AND ("b" IS NULL)'
    assert (a | b).to_sql() == '("a" = 1) OR ("b" IS NULL)'
    assert (~a).to_sql() == 'NOT ("a" = 1)'
    assert pb.and_predicates([a, b]) == a & b
    assert pb.or_predicates([a, b]) == a | b
    assert pb.and_predicates([a, b, a]).to_sql() == '("a" = 1) AND ("b" IS NULL) AND ("a" = 1)'
    assert pb.and_predicates([a]) is a
    assert pb.and_predicates([]) is None
    assert pb.or_predicates([]) is None
    assert a == pb.equal("a", 1)
    assert a != b
    assert len({a, pb.equal("a", 1), b}) == 2
    assert pickle.loads(pickle.dumps(a & b)) == a & b
    with pytest.raises(TypeError):
        pb.and_predicates(["a = 1"])
    with pytest.raises(TypeError):
        a & "b = 1"


def test_refusals():
    with pytest.raises(ValueError, match="is_null"):
        pb.equal("a", None)
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError):
            pb.equal("a", bad)
    with pytest.raises(ValueError):
        pb.equal("a", decimal.Decimal("NaN"))
    with pytest.raises(ValueError):
        pb.is_in("a", [1, None])
    with pytest.raises(ValueError):
        pb.between("a", None, 1)
    with pytest.raises(ValueError):
        pb.equal("t", datetime.time(1, 2, 3, 1))  # Paimon TIME has milliseconds
    with pytest.raises(TypeError):
        pb.equal("a", object())
    with pytest.raises(TypeError):
        pb.is_in("a", "abc")
    with pytest.raises(TypeError):
        pb.startswith("a", 1)
    with pytest.raises(NotImplementedError, match="strata.sql"):
        pb.endswith("a", "x")
    with pytest.raises(NotImplementedError, match="after reading"):
        pb.contains("a", "x")
    with pytest.raises(NotImplementedError):
        pb.like("a", "%x")
    assert pb.like("a", "x%").to_sql() == "\"a\" LIKE 'x%'"


def test_known_fields():
    b = PredicateBuilder(["id", "m"])
    assert b.equal("m['k']", 1).to_sql() == "\"m\"['k'] = 1"
    with pytest.raises(ValueError, match="nope"):
        b.equal("nope", 1)


def test_startswith_with_wildcards_is_a_range():
    p = pb.startswith("s", "a_%")
    assert p.to_sql() == "\"s\" >= 'a_%' AND \"s\" < 'a_&'"


# --------------------------------------------------------------------------------------------
# filtering real rows against a Python model


ROWS = [
    {"id": 1, "s": "apple", "f": 1.5, "d": datetime.date(2024, 1, 1), "flag": True,
     "dec": decimal.Decimal("1.10"), "b": b"\x01", "ts": datetime.datetime(2024, 1, 1, 12)},
    {"id": 2, "s": "apricot", "f": -2.0, "d": datetime.date(2024, 1, 2), "flag": False,
     "dec": decimal.Decimal("2.20"), "b": b"\x02", "ts": datetime.datetime(2024, 1, 2, 12)},
    {"id": 3, "s": "a_b%c", "f": None, "d": datetime.date(2024, 2, 1), "flag": None,
     "dec": None, "b": None, "ts": None},
    {"id": 4, "s": "a_bz", "f": 10.0, "d": None, "flag": True,
     "dec": decimal.Decimal("-5.00"), "b": b"\x01\x02", "ts": datetime.datetime(2023, 12, 31)},
    {"id": 5, "s": None, "f": 0.0, "d": datetime.date(2023, 1, 1), "flag": False,
     "dec": decimal.Decimal("0.00"), "b": b"", "ts": datetime.datetime(2024, 6, 1)},
    {"id": 6, "s": "it's", "f": 3.25, "d": datetime.date(2024, 1, 1), "flag": True,
     "dec": decimal.Decimal("3.30"), "b": b"\xff", "ts": datetime.datetime(2024, 1, 1, 12)},
]

SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        ("s", pa.string()),
        ("f", pa.float64()),
        ("d", pa.date32()),
        ("flag", pa.bool_()),
        ("dec", pa.decimal128(10, 2)),
        ("b", pa.binary()),
        ("ts", pa.timestamp("us")),
    ]
)


@pytest.fixture
def typed_table(catalog):
    t = catalog.create_table("db.typed", SCHEMA)
    # two commits so that file statistics can prune.
    t.write(pa.Table.from_pylist(ROWS[:3], schema=SCHEMA))
    t.write(pa.Table.from_pylist(ROWS[3:], schema=SCHEMA))
    return t


def _ids(table, pred):
    got = table.read(where=pred)["id"].to_pylist()
    rb = table.new_read_builder().with_filter(pred)
    via_builder = rb.new_read().to_arrow(rb.new_scan().plan().splits())["id"].to_pylist()
    assert sorted(got) == sorted(via_builder)
    return sorted(got)


def _model(fn):
    out = []
    for r in ROWS:
        try:
            if fn(r):
                out.append(r["id"])
        except (TypeError, AttributeError):  # an operation on None: SQL NULL, no match
            pass
    return sorted(out)


CASES = [
    (pb.equal("s", "apple"), lambda r: r["s"] == "apple"),
    (pb.not_equal("s", "apple"), lambda r: r["s"] is not None and r["s"] != "apple"),
    (pb.equal("s", "it's"), lambda r: r["s"] == "it's"),
    (pb.less_than("f", 1.5), lambda r: r["f"] < 1.5),
    (pb.less_or_equal("f", 1.5), lambda r: r["f"] <= 1.5),
    (pb.greater_than("f", 0), lambda r: r["f"] > 0),
    (pb.greater_or_equal("id", 4), lambda r: r["id"] >= 4),
    (pb.is_null("f"), lambda r: r["f"] is None),
    (pb.is_not_null("s"), lambda r: r["s"] is not None),
    (pb.is_in("id", [1, 3, 5, 99]), lambda r: r["id"] in (1, 3, 5, 99)),
    (
        pb.is_not_in("s", ["apple", "a_bz"]),
        lambda r: r["s"] is not None and r["s"] not in ("apple", "a_bz"),
    ),
    (pb.between("f", 0, 3.25), lambda r: 0 <= r["f"] <= 3.25),
    (pb.not_between("f", 0, 3.25), lambda r: not (0 <= r["f"] <= 3.25)),
    (pb.startswith("s", "ap"), lambda r: r["s"].startswith("ap")),
    (pb.startswith("s", "a_b"), lambda r: r["s"].startswith("a_b")),
    (pb.startswith("s", "a_b%"), lambda r: r["s"].startswith("a_b%")),
    (~pb.startswith("s", "ap"), lambda r: not r["s"].startswith("ap")),
    (pb.equal("d", datetime.date(2024, 1, 1)), lambda r: r["d"] == datetime.date(2024, 1, 1)),
    (pb.greater_than("d", datetime.date(2024, 1, 1)), lambda r: r["d"] > datetime.date(2024, 1, 1)),
    (pb.equal("flag", True), lambda r: r["flag"] is True),
    (pb.equal("flag", False), lambda r: r["flag"] is False),
    (pb.greater_than("dec", decimal.Decimal("1.1")), lambda r: r["dec"] > decimal.Decimal("1.1")),
    (pb.equal("dec", decimal.Decimal("2.2")), lambda r: r["dec"] == decimal.Decimal("2.2")),
    (pb.equal("b", b"\x01"), lambda r: r["b"] == b"\x01"),
    (pb.greater_than("b", b"\x01"), lambda r: r["b"] > b"\x01"),
    (
        pb.equal("ts", datetime.datetime(2024, 1, 1, 12)),
        lambda r: r["ts"] == datetime.datetime(2024, 1, 1, 12),
    ),
    (
        pb.less_than("ts", datetime.datetime(2024, 1, 1, 12)),
        lambda r: r["ts"] < datetime.datetime(2024, 1, 1, 12),
    ),
    (
        pb.equal("id", 1) | pb.is_null("f"),
        lambda r: r["id"] == 1 or r["f"] is None,
    ),
    (
        pb.and_predicates([pb.is_not_null("f"), pb.greater_than("f", 1), ~pb.equal("id", 6)]),
        lambda r: r["f"] is not None and r["f"] > 1 and r["id"] != 6,
    ),
    (pb.is_in("id", []), lambda r: False),
    (pb.is_not_in("id", []), lambda r: True),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_filters_match_model(typed_table, i):
    pred, fn = CASES[i]
    assert _ids(typed_table, pred) == _model(fn), pred.to_sql()


def test_not_of_null_rows_excluded(typed_table):
    # NOT (f > 1): rows where f IS NULL are neither in f > 1 nor in its negation.
    assert _ids(typed_table, ~pb.greater_than("f", 1)) == _model(lambda r: not r["f"] > 1)


def test_timezone_aware_literal(catalog):
    t = catalog.create_table("db.ltz", [("id", "INT"), ("ts", "TIMESTAMP_LTZ(6)")])
    utc = datetime.timezone.utc
    t.write(
        pa.table(
            {
                "id": pa.array([1, 2], pa.int32()),
                "ts": pa.array(
                    [datetime.datetime(2024, 1, 1, 10, tzinfo=utc),
                     datetime.datetime(2024, 1, 1, 12, tzinfo=utc)],
                    pa.timestamp("us", tz="UTC"),
                ),
            }
        )
    )
    plus2 = datetime.timezone(datetime.timedelta(hours=2))
    # 12:00+02:00 is 10:00 UTC.
    assert t.read(where=pb.equal("ts", datetime.datetime(2024, 1, 1, 12, tzinfo=plus2)))[
        "id"
    ].to_pylist() == [1]


def test_predicate_in_map_filter(catalog):
    t = catalog.create_table("db.m", [("id", "INT"), ("attrs", "MAP<STRING, STRING>")])
    t.write(
        pa.table(
            {
                "id": pa.array([1, 2, 3], pa.int32()),
                "attrs": pa.array(
                    [[("color", "red")], [("color", "blue"), ("it's", "x")], []],
                    pa.map_(pa.string(), pa.string()),
                ),
            }
        )
    )
    assert sorted(t.read(where=pb.equal("attrs['color']", "red"))["id"].to_pylist()) == [1]
    assert sorted(t.read(where=pb.is_null("attrs['color']"))["id"].to_pylist()) == [3]
    assert t.read(where=pb.equal("attrs['it''s']", "x"))["id"].to_pylist() == [2]
    assert t.read(where=pb.startswith("attrs['color']", "bl"))["id"].to_pylist() == [2]


def test_unknown_column_in_predicate(typed_table):
    with pytest.raises(strata.StrataError, match="nope"):
        typed_table.read(where=pb.equal("nope", 1))
    with pytest.raises(strata.StrataError, match="nope"):
        typed_table.new_read_builder().with_filter(pb.equal("nope", 1)).new_scan().plan()
