//! Example-based tests of SQL parsing, binding and error messages.

use strata_spec::{DataField, DataType, Datum, RowType, TypeKind};

use super::support::row_type;
use crate::error::Error;
use crate::error::ErrorDetail;
use crate::expr::{parse_sql_predicate, BoundPredicate, LeafOp, Predicate};

fn parse(text: &str) -> Predicate {
    parse_sql_predicate(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn parse_err(text: &str) -> String {
    match parse_sql_predicate(text) {
        Ok(p) => panic!("{text} parsed as {p:?}"),
        Err(e) => e.to_string(),
    }
}

fn bind(text: &str) -> BoundPredicate {
    parse(text)
        .bind(&row_type(), "db.t")
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn bind_err(text: &str) -> Error {
    match parse(text).bind(&row_type(), "db.t") {
        Ok(p) => panic!("{text} bound as {p}"),
        Err(e) => e,
    }
}

fn dec(unscaled: i128, precision: u32, scale: u32) -> Datum {
    Datum::Decimal {
        unscaled,
        precision,
        scale,
    }
}

#[test]
fn comparisons_and_flipped_literals() {
    assert_eq!(parse("i = 5"), Predicate::equal("i", Datum::BigInt(5)));
    assert_eq!(
        parse("5 < i"),
        Predicate::greater_than("i", Datum::BigInt(5))
    );
    assert_eq!(
        parse("5 >= i"),
        Predicate::less_or_equal("i", Datum::BigInt(5))
    );
    assert_eq!(
        parse("i != -5"),
        Predicate::not_equal("i", Datum::BigInt(-5))
    );
    assert_eq!(
        parse("(i <> 5)"),
        Predicate::not_equal("i", Datum::BigInt(5))
    );
    assert_eq!(parse("d < 1.25"), Predicate::less_than("d", dec(125, 3, 2)));
    assert_eq!(
        parse("d < -1e3"),
        Predicate::less_than("d", dec(-1000, 4, 0))
    );
    assert_eq!(
        parse("s = 'it''s'"),
        Predicate::equal("s", Datum::String("it's".into()))
    );
    assert_eq!(
        parse("flag = TRUE"),
        Predicate::equal("flag", Datum::Boolean(true))
    );
    assert_eq!(
        parse("flag"),
        Predicate::equal("flag", Datum::Boolean(true))
    );
    assert_eq!(
        parse("s = X'0aFF'"),
        Predicate::equal("s", Datum::Bytes(vec![10, 255]))
    );
}

#[test]
fn boolean_structure() {
    let a = Predicate::equal("i", Datum::BigInt(1));
    let b = Predicate::equal("b", Datum::BigInt(2));
    let c = Predicate::is_null("s");
    assert_eq!(
        parse("i = 1 AND b = 2 AND s IS NULL"),
        Predicate::And(vec![a.clone(), b.clone(), c.clone()])
    );
    assert_eq!(
        parse("i = 1 OR (b = 2 AND s IS NULL)"),
        Predicate::Or(vec![a.clone(), Predicate::And(vec![b.clone(), c.clone()])])
    );
    assert_eq!(parse("NOT (i = 1)"), Predicate::Not(Box::new(a.clone())));
    assert_eq!(parse("NOT NOT i = 1"), a);
    assert_eq!(parse("TRUE"), Predicate::AlwaysTrue);
    // A long chain does not recurse per operand.
    let long = (0..5000)
        .map(|k| format!("i <> {k}"))
        .collect::<Vec<_>>()
        .join(" AND ");
    match parse(&long) {
        Predicate::And(c) => assert_eq!(c.len(), 5000),
        other => panic!("{other:?}"),
    }
}

#[test]
fn in_between_null_like_and_typed_literals() {
    assert_eq!(
        parse("i IN (1, 2)"),
        Predicate::is_in("i", vec![Datum::BigInt(1), Datum::BigInt(2)])
    );
    assert_eq!(
        parse("i NOT IN (1)"),
        Predicate::is_not_in("i", vec![Datum::BigInt(1)])
    );
    assert_eq!(
        parse("i BETWEEN 1 AND 3"),
        Predicate::between("i", Datum::BigInt(1), Datum::BigInt(3))
    );
    assert_eq!(
        parse("i NOT BETWEEN 1 AND 3"),
        Predicate::not_between("i", Datum::BigInt(1), Datum::BigInt(3))
    );
    assert_eq!(parse("s IS NOT NULL"), Predicate::is_not_null("s"));
    assert_eq!(parse("s LIKE 'ab%'"), Predicate::starts_with("s", "ab"));
    assert_eq!(
        parse("s NOT LIKE 'ab%'"),
        Predicate::Leaf(crate::expr::LeafPredicate {
            column: "s".into(),
            op: LeafOp::NotStartsWith("ab".into())
        })
    );
    assert_eq!(
        parse("dt = DATE '2024-01-01'"),
        Predicate::equal("dt", Datum::Date(19723))
    );
    assert_eq!(
        parse("ts >= TIMESTAMP '1970-01-01 00:00:01.5'"),
        Predicate::greater_or_equal(
            "ts",
            Datum::Timestamp {
                millis: 1500,
                nanos: 0
            }
        )
    );
    assert_eq!(
        parse("\"My Col\" = 1"),
        Predicate::equal("My Col", Datum::BigInt(1))
    );
    assert_eq!(
        parse("`x y` = 1"),
        Predicate::equal("x y", Datum::BigInt(1))
    );
}

#[test]
fn parse_errors_quote_the_offending_text() {
    let e = parse_err("i = NULL");
    assert!(e.contains("`i = NULL`") && e.contains("i IS NULL"), "{e}");
    assert!(parse_err("i <> NULL").contains("i IS NOT NULL"));
    let e = parse_err("s LIKE '%ab'");
    assert!(
        e.contains("LIKE supports only 'prefix%'") && e.contains("'%ab'"),
        "{e}"
    );
    assert!(parse_err("s LIKE 'a_b%'").contains("LIKE supports only 'prefix%'"));
    assert!(parse_err("s LIKE 'a%b%'").contains("LIKE supports only 'prefix%'"));
    assert!(parse_err("s LIKE 'ab'").contains("LIKE supports only 'prefix%'"));
    let e = parse_err("i + 1 > 2");
    assert!(e.contains("`i + 1`"), "{e}");
    assert!(parse_err("i = b").contains("two columns"));
    assert!(parse_err("1 = 2").contains("two literals"));
    assert!(parse_err("i IN (1, NULL)").contains("i IS NULL"));
    assert!(parse_err("t.i = 1").contains("`t.i`"));
    assert!(parse_err("i = 1 b").contains("unexpected `b`"));
    assert!(parse_err("i = ").contains("cannot parse"));
    assert!(parse_err("dt = DATE '2024-02-30'").contains("DATE '2024-02-30'"));
    assert!(parse_err("i IN (SELECT 1)").contains("literal lists"));
    assert!(parse_err("upper(s) = 'A'").contains("upper(s)"));
}

#[test]
fn binding_resolves_columns_and_converts_literals() {
    let rt = row_type();
    match bind("I = 5") {
        BoundPredicate::Leaf(l) => {
            assert_eq!((l.index, l.name.as_str()), (0, "i"));
            assert_eq!(l.op, LeafOp::Equal(Datum::Int(5)));
            assert_eq!(l.data_type, rt.fields[0].data_type);
        }
        other => panic!("{other:?}"),
    }
    let leaf_op = |text: &str| match bind(text) {
        BoundPredicate::Leaf(l) => l.op,
        other => panic!("{other:?}"),
    };
    assert_eq!(leaf_op("b = 5"), LeafOp::Equal(Datum::BigInt(5)));
    assert_eq!(
        leaf_op("\"My Col\" = -3"),
        LeafOp::Equal(Datum::SmallInt(-3))
    );
    assert_eq!(leaf_op("dec = 1.5"), LeafOp::Equal(dec(150, 10, 2)));
    assert_eq!(leaf_op("dec = 2"), LeafOp::Equal(dec(200, 10, 2)));
    assert_eq!(leaf_op("d = 2"), LeafOp::Equal(Datum::Double(2.0)));
    assert_eq!(leaf_op("d = 0.1"), LeafOp::Equal(Datum::Double(0.1)));
    assert_eq!(
        leaf_op("dt = '2024-01-01'"),
        LeafOp::Equal(Datum::Date(19723))
    );
    assert_eq!(leaf_op("i = '7'"), LeafOp::Equal(Datum::Int(7)));
    assert_eq!(
        leaf_op("ts < '1970-01-01 00:00:00.000001'"),
        LeafOp::LessThan(Datum::Timestamp {
            millis: 0,
            nanos: 1000
        })
    );
    assert_eq!(
        leaf_op("ts < DATE '1970-01-02'"),
        LeafOp::LessThan(Datum::Timestamp {
            millis: 86_400_000,
            nanos: 0
        })
    );
}

#[test]
fn binding_pushes_not_into_the_leaves() {
    assert_eq!(
        bind("NOT (i < 1 OR s IS NULL)").to_string(),
        "i >= 1 AND s IS NOT NULL"
    );
    assert_eq!(
        bind("NOT (i IN (1, 2) AND s LIKE 'a%')").to_string(),
        "i NOT IN (1, 2) OR s NOT LIKE 'a%'"
    );
    assert_eq!(bind("i NOT BETWEEN 1 AND 3").to_string(), "i < 1 OR i > 3");
    assert_eq!(bind("i = 1 AND TRUE").to_string(), "i = 1");
    assert_eq!(bind("i = 1 AND NOT TRUE"), BoundPredicate::AlwaysFalse);
    assert_eq!(bind("i = 1 OR NOT FALSE"), BoundPredicate::AlwaysTrue);
    assert_eq!(
        Predicate::is_in("i", vec![])
            .bind(&row_type(), "t")
            .unwrap(),
        BoundPredicate::AlwaysFalse
    );
    assert_eq!(
        (!Predicate::is_in("i", vec![]))
            .bind(&row_type(), "t")
            .unwrap(),
        BoundPredicate::AlwaysTrue
    );
    // `flag IS NOT TRUE` is true on NULL.
    assert_eq!(
        bind("flag IS NOT TRUE").to_string(),
        "flag IS NULL OR flag <> TRUE"
    );
}

#[test]
fn binding_errors_name_column_type_and_literal() {
    match bind_err("nope = 1").detail() {
        ErrorDetail::ColumnNotFound {
            table,
            column,
            available,
        } => {
            assert_eq!((table.as_str(), column.as_str()), ("db.t", "nope"));
            assert_eq!(available, "i, b, s, d, dec, dt, ts, flag, My Col");
        }
        other => panic!("{other}"),
    }
    let msg = |text: &str| bind_err(text).to_string();
    let e = msg("\"My Col\" = 40000");
    assert!(
        e.contains("My Col")
            && e.contains("SMALLINT")
            && e.contains("40000")
            && e.contains("out of range"),
        "{e}"
    );
    let e = msg("dec = 1.234");
    assert!(
        e.contains("DECIMAL(10, 2)") && e.contains("1.234") && e.contains("fractional"),
        "{e}"
    );
    assert!(msg("dec = 123456789").contains("out of range"));
    let e = msg("i = 'abc'");
    assert!(
        e.contains("column i of type INT") && e.contains("'abc'"),
        "{e}"
    );
    assert!(msg("i = 1.5").contains("not an integer"));
    assert!(msg("dt = '2024-1-x'").contains("not a date"));
    assert!(msg("s = 1").contains("column s of type STRING"));
    assert!(msg("flag = 1").contains("BOOLEAN"));
    assert!(msg("i LIKE 'a%'").contains("LIKE needs a string column"));
    assert!(msg("dt = TIMESTAMP '2024-01-01 10:00:00'").contains("DATE"));

    let nested = RowType::new(vec![DataField::new(
        0,
        "tags",
        DataType::nullable(TypeKind::Array(Box::new(DataType::string()))),
    )]);
    let e = parse("tags = 'a'")
        .bind(&nested, "t")
        .unwrap_err()
        .to_string();
    assert!(e.contains("tags") && e.contains("ARRAY<STRING>"), "{e}");
    assert!(parse("tags IS NULL").bind(&nested, "t").is_ok());
}

#[test]
fn referenced_columns_project_and_remap() {
    let p = bind("(dt = '2024-01-01' OR dt = '2024-01-02') AND i > 3 AND (s = 'x' OR dt IS NULL)");
    assert_eq!(p.referenced_columns(), vec![0, 2, 5]);
    // Partition predicate on dt: the OR of dt tests survives, `i > 3` and the mixed OR do not.
    let part = p.extract_for_columns(&[5]).expect("dt is constrained");
    assert_eq!(
        part.to_string(),
        "dt = DATE '2024-01-01' OR dt = DATE '2024-01-02'"
    );
    assert_eq!(part.referenced_columns(), vec![5]);
    let projected = p.project(&[5]).expect("dt is constrained");
    assert_eq!(projected.referenced_columns(), vec![0]);
    assert_eq!(
        projected.test_values(&[Some(Datum::Date(19723))]),
        Some(true)
    );
    assert_eq!(
        projected.test_values(&[Some(Datum::Date(19725))]),
        Some(false)
    );
    assert_eq!(projected.test_values(&[None]), None);
    assert_eq!(p.extract_for_columns(&[1]), None);

    let remapped = p.remap(|i| Some(i + 10)).unwrap();
    assert_eq!(remapped.referenced_columns(), vec![10, 12, 15]);
    let e = p.remap(|i| (i != 2).then_some(i)).unwrap_err().to_string();
    assert!(e.contains("column s"), "{e}");

    // Partial values: the unknown column makes an AND unknown unless another part is false.
    let both = bind("i = 1 AND dt = '2024-01-01'");
    let row = |i: Option<Datum>, dt: Option<Datum>| {
        let mut r = vec![None; 9];
        r[0] = i;
        r[5] = dt;
        r
    };
    assert_eq!(
        both.test_values(&row(None, Some(Datum::Date(1)))),
        Some(false)
    );
    assert_eq!(both.test_values(&row(None, Some(Datum::Date(19723)))), None);
    assert_eq!(
        both.test_values(&row(Some(Datum::Int(1)), Some(Datum::Date(19723)))),
        Some(true)
    );
    // Fields past the end of the values are unknown, even for IS NULL.
    assert_eq!(both.test_values(&[Some(Datum::Int(2))]), Some(false));
    assert_eq!(both.test_values(&[Some(Datum::Int(1))]), None);
    assert_eq!(bind("dt IS NULL").test_values(&[None]), None);
}

#[test]
fn display_round_trips_through_the_parser() {
    for text in [
        "i = 1 AND (s LIKE 'a''b%' OR s IS NULL)",
        "NOT (d >= 2.5 OR \"My Col\" IN (1, -2))",
        "ts < TIMESTAMP '2024-01-01 10:00:00.123456' AND dt <> DATE '1969-12-31'",
        "d = 'NaN' OR d < '-inf'",
    ] {
        let p = parse(text);
        let again = parse(&p.to_string());
        assert_eq!(
            p.bind(&row_type(), "t").unwrap().to_string(),
            again.bind(&row_type(), "t").unwrap().to_string(),
            "{text}"
        );
    }
}
