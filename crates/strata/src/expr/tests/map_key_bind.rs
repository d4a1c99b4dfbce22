//! SQL parsing and binding of MAP key access `m['k']`.

use strata_spec::{DataField, DataType, Datum, RowType, TypeKind};

use crate::expr::{parse_sql_predicate, BoundPredicate, LeafOp, MapKeyColumn, Predicate};

fn row() -> RowType {
    let map = |k: TypeKind, v: TypeKind| {
        DataType::nullable(TypeKind::Map {
            key: Box::new(DataType::not_null(k)),
            value: Box::new(DataType::not_null(v)),
        })
    };
    let s = TypeKind::VarChar(strata_spec::types::MAX_LENGTH);
    RowType::new(vec![
        DataField::new(0, "id", DataType::not_null(TypeKind::BigInt)),
        DataField::new(1, "m", map(s.clone(), TypeKind::Double)),
        DataField::new(2, "My Map", map(s.clone(), TypeKind::Boolean)),
        DataField::new(3, "im", map(TypeKind::Int, TypeKind::Double)),
    ])
}

fn parse(sql: &str) -> Predicate {
    parse_sql_predicate(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn bind(sql: &str) -> (BoundPredicate, Vec<MapKeyColumn>) {
    let mut keys = Vec::new();
    let b = parse(sql)
        .bind_with_map_keys(&row(), "db.t", &mut keys)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    (b, keys)
}

#[test]
fn parses_subscripts_into_key_access_columns() {
    assert_eq!(
        parse("m['usage'] > 30"),
        Predicate::greater_than("m['usage']", Datum::BigInt(30))
    );
    assert_eq!(
        parse("30 < \"m\"['it''s']"),
        Predicate::greater_than("m['it''s']", Datum::BigInt(30))
    );
    assert_eq!(
        parse("\"My Map\"['x'] AND m['a'] IS NULL AND m['b'] IN (1, 2)"),
        Predicate::And(vec![
            Predicate::equal("\"My Map\"['x']", Datum::Boolean(true)),
            Predicate::is_null("m['a']"),
            Predicate::is_in("m['b']", vec![Datum::BigInt(1), Datum::BigInt(2)]),
        ])
    );
    assert_eq!(
        parse("m['a'] BETWEEN 1 AND 2"),
        Predicate::between("m['a']", Datum::BigInt(1), Datum::BigInt(2))
    );
    // Display writes key accesses back as subscripts, and they parse back the same.
    for sql in [
        "m['a'] > 1",
        "NOT (m['it''s'] IS NULL OR id = 3)",
        "\"My Map\"['k'] = TRUE",
    ] {
        let p = parse(sql);
        assert_eq!(parse(&p.to_string()), p, "{p}");
    }
    assert_eq!(parse("m['a'] > 1").to_string(), "m['a'] > 1");
    for bad in [
        "m[1] = 2",
        "m['a']['b'] = 1",
        "m[id] = 1",
        "m[1:2] = 1",
        "f(m)['a'] = 1",
    ] {
        let e = parse_sql_predicate(bad).unwrap_err().to_string();
        assert!(
            e.contains("column['key']") || e.contains("unsupported"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn binds_key_accesses_to_virtual_fields_after_the_row() {
    let (b, keys) = bind("m['usage'] > 30 AND id < 5 OR NOT (m['cpu'] IS NULL) OR m['usage'] = 1");
    assert_eq!(keys.len(), 2);
    assert_eq!(
        (keys[0].key.as_str(), keys[1].key.as_str()),
        ("usage", "cpu")
    );
    assert_eq!(keys[0].field.name, "m['usage']");
    assert_eq!(
        keys[0].field.data_type,
        DataType::nullable(TypeKind::Double)
    );
    // 4 table fields: usage = 4, cpu = 5; NOT pushed into the leaf; literals are DOUBLE.
    assert_eq!(b.referenced_columns(), vec![0, 4, 5]);
    let text = b.to_string();
    assert_eq!(
        text,
        "(m['usage'] > 30 AND id < 5) OR m['cpu'] IS NOT NULL OR m['usage'] = 1"
    );
    let BoundPredicate::Or(children) = &b else {
        panic!("{b}")
    };
    let BoundPredicate::Leaf(l) = &children[1] else {
        panic!("{b}")
    };
    assert_eq!((l.index, &l.op), (5, &LeafOp::IsNotNull));

    // Seeded keys keep their slots; a quoted column resolves too.
    let mut keys = vec![MapKeyColumn::new(&row().fields[1], "cpu").unwrap()];
    let b = parse("m['cpu'] = 1 AND \"My Map\"['x']")
        .bind_with_map_keys(&row(), "db.t", &mut keys)
        .unwrap();
    assert_eq!(b.referenced_columns(), vec![4, 5]);
    assert_eq!(keys[1].field.name, "\"My Map\"['x']");
}

#[test]
fn binding_errors_and_pruning() {
    let err = |sql: &str| {
        parse(sql)
            .bind_with_map_keys(&row(), "db.t", &mut Vec::new())
            .unwrap_err()
            .to_string()
    };
    assert!(
        err("id['a'] = 1").contains("not MAP"),
        "{}",
        err("id['a'] = 1")
    );
    assert!(err("im['a'] = 1").contains("STRING map keys"));
    assert!(err("zz['a'] = 1").contains("zz"));
    assert!(err("m['a'] = 'x'").contains("m['a']"));
    // Plain binding says where key accesses can be used.
    let e = parse("m['a'] = 1")
        .bind(&row(), "db.t")
        .unwrap_err()
        .to_string();
    assert!(e.contains("MAP key access"), "{e}");
    // Pruning weakens key tests to `map IS NOT NULL`, drops `IS NULL` ones (an OR with one
    // is dropped whole).
    let p = |sql: &str| parse(sql).bind_for_pruning(&row(), "db.t").unwrap();
    assert_eq!(
        p("m['a'] > 1 AND id < 5").unwrap().to_string(),
        "m IS NOT NULL AND id < 5"
    );
    assert_eq!(
        p("NOT (m['a'] > 1 OR id >= 5)").unwrap().to_string(),
        "m IS NOT NULL AND id < 5"
    );
    assert_eq!(
        p("m['a'] > 1 OR \"My Map\"['b']").unwrap().to_string(),
        "m IS NOT NULL OR \"My Map\" IS NOT NULL"
    );
    assert_eq!(
        p("m['a'] IS NULL AND id < 5").unwrap().to_string(),
        "id < 5"
    );
    assert_eq!(p("m['a'] IS NULL OR id < 5"), None);
    assert_eq!(p("id < 5").unwrap().to_string(), "id < 5");
}
