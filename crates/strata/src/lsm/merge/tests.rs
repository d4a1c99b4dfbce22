//! Tests of [`create_merge_function`]: engine choice and the option checks Paimon applies
//! when a table is created or opened.

use std::collections::BTreeMap;

use strata_spec::kv::RowKind;
use strata_spec::types::{DataField, DataType, TypeKind};

use super::*;

fn schema(opts: &[(&str, &str)]) -> TableSchema {
    TableSchema {
        version: 3,
        id: 0,
        fields: vec![
            DataField::new(0, "id", DataType::not_null(TypeKind::Int)),
            DataField::new(1, "v", DataType::nullable(TypeKind::Int)),
            DataField::new(2, "ts", DataType::nullable(TypeKind::BigInt)),
        ],
        highest_field_id: 2,
        partition_keys: vec![],
        primary_keys: vec!["id".into()],
        options: opts
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        comment: None,
        time_millis: 0,
    }
}

fn err(opts: &[(&str, &str)]) -> String {
    create_merge_function(&schema(opts))
        .unwrap_err()
        .to_string()
}

#[test]
fn engines_by_option() {
    let dedup = create_merge_function(&schema(&[])).unwrap();
    assert!(!dedup.needs_values());
    assert!(format!("{dedup:?}").contains("Deduplicate"));
    let first = create_merge_function(&schema(&[("merge-engine", "first-row")])).unwrap();
    assert!(format!("{first:?}").contains("FirstRow"));
    let pu = create_merge_function(&schema(&[("merge-engine", "partial-update")])).unwrap();
    assert!(pu.needs_values());
    let agg = create_merge_function(&schema(&[("merge-engine", "aggregation")])).unwrap();
    assert!(format!("{agg:?}").contains("Aggregate"));
    // Legacy ignore-delete keys are honoured.
    let d = create_merge_function(&schema(&[("deduplicate.ignore-delete", "true")])).unwrap();
    let metas = [
        KvMeta {
            sequence: 1,
            kind: RowKind::Delete,
        },
        KvMeta {
            sequence: 2,
            kind: RowKind::Delete,
        },
    ];
    assert_eq!(d.merge(&metas, None).unwrap(), MergeResult::Drop);
}

#[test]
fn paimon_validation_messages() {
    assert!(err(&[("merge-engine", "nope")]).contains("merge-engine"));
    assert!(err(&[("sequence.field", "x")]).contains("Sequence field: 'x' can not be found"));
    assert!(err(&[("sequence.field", "ts,ts")]).contains("defined repeatedly"));
    assert!(err(&[
        ("sequence.field", "ts"),
        ("fields.ts.aggregate-function", "max")
    ])
    .contains("Should not define aggregation on sequence field"));
    assert!(
        err(&[("merge-engine", "first-row"), ("sequence.field", "ts")])
            .contains("Do not support use sequence field on FIRST_ROW")
    );
    assert!(err(&[
        ("merge-engine", "first-row"),
        ("changelog-producer", "input")
    ])
    .contains("Only support 'none' and 'lookup'"));
    assert!(create_merge_function(&schema(&[
        ("merge-engine", "first-row"),
        ("changelog-producer", "lookup")
    ]))
    .is_ok());
    assert!(err(&[
        ("merge-engine", "aggregation"),
        ("fields.v.aggregate-function", "count")
    ])
    .contains("identifier 'count'"));
    assert!(err(&[
        ("merge-engine", "partial-update"),
        ("fields.id.aggregate-function", "avg")
    ])
    .contains("identifier 'avg'"));
    assert!(err(&[
        ("merge-engine", "aggregation"),
        ("fields.v.aggregate-function", "rbm64")
    ])
    .contains("VarBinaryType"));
    // Deduplicate ignores aggregate options, like Java.
    assert!(create_merge_function(&schema(&[("fields.v.aggregate-function", "count")])).is_ok());
}
