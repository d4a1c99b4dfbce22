//! Unit tests of [`super`]: Java's `InferVariantShreddingSchemaTest` adaptive cases, by hand.

use super::*;
use crate::format::variant_json::variant_from_json;
use crate::format::variant_shred_infer::analyze_column;
use arrow::buffer::NullBuffer;
use arrow_array::{ArrayRef, BinaryArray, StructArray};
use arrow_schema::{DataType as ArrowType, Field, Fields};
use serde_json::{json, Value};

fn column(docs: &[Option<Value>]) -> StructArray {
    let (v, m): (Vec<_>, Vec<_>) = docs
        .iter()
        .map(|d| variant_from_json(d.as_ref().unwrap_or(&Value::Null)))
        .unzip();
    StructArray::new(
        Fields::from(vec![
            Field::new("value", ArrowType::Binary, false),
            Field::new("metadata", ArrowType::Binary, false),
        ]),
        vec![
            Arc::new(BinaryArray::from_iter_values(v)) as ArrayRef,
            Arc::new(BinaryArray::from_iter_values(m)),
        ],
        Some(NullBuffer::from_iter(docs.iter().map(Option::is_some))),
    )
}

fn evidence(columns: &[Vec<Option<Value>>]) -> Vec<ColumnEvidence> {
    columns
        .iter()
        .map(|docs| {
            let (count, observed) = analyze_column(&column(docs), 50).unwrap();
            ColumnEvidence { count, observed }
        })
        .collect()
}

fn options(width: i64, admission: f64, sample: usize, retention: f64) -> InferOptions {
    InferOptions {
        buffer_rows: 4096,
        max_width: width,
        max_depth: 50,
        min_ratio: admission,
        adaptive: Some(AdaptiveOptions {
            buffer_rows: sample,
            retention_ratio: retention,
        }),
    }
}

fn infer(session: &mut InferenceSession, columns: &[Vec<Option<Value>>]) -> Vec<String> {
    let types = session.infer(evidence(columns)).unwrap();
    types.iter().map(|t| t.to_string()).collect()
}

/// Java's `testAdaptiveInferenceUsesAdmissionAndRetentionThresholds`.
#[test]
fn admission_and_retention_thresholds() {
    let mut session = InferenceSession::new(&options(300, 0.4, 10, 0.2)).unwrap();
    assert_eq!(session.buffer_rows(), 4096);
    let first: Vec<_> = (0..10)
        .map(|i| {
            Some(if i < 5 {
                json!({"legacy": "v", "stable": 1})
            } else {
                json!({"stable": 1})
            })
        })
        .collect();
    assert_eq!(
        infer(&mut session, &[first]),
        ["ROW<`legacy` STRING, `stable` BIGINT>"]
    );
    session.commit_pending();
    assert_eq!(session.buffer_rows(), 10);
    // Combined: 20 values scaled to 10 (emerging 4.5, legacy 2.5): emerging admitted at
    // 0.45 >= 0.4, legacy retained at 0.25 >= 0.2.
    let second: Vec<_> = (0..10)
        .map(|i| {
            Some(if i < 9 {
                json!({"emerging": true, "stable": 2})
            } else {
                json!({"stable": 2})
            })
        })
        .collect();
    assert_eq!(
        infer(&mut session, &[second]),
        ["ROW<`emerging` BOOLEAN, `legacy` STRING, `stable` BIGINT>"]
    );
    session.commit_pending();
    // emerging 2.25 / 10 >= 0.2 stays; legacy 1.25 / 10 < 0.2 leaves.
    let third: Vec<_> = (0..10).map(|_| Some(json!({"stable": 3}))).collect();
    assert_eq!(
        infer(&mut session, std::slice::from_ref(&third)),
        ["ROW<`emerging` BOOLEAN, `stable` BIGINT>"]
    );
    // Not committed: inferring again starts from the same evidence.
    assert_eq!(
        infer(&mut session, &[third]),
        ["ROW<`emerging` BOOLEAN, `stable` BIGINT>"]
    );
}

/// Java's `testAdaptiveInferenceWidensScalarSelectedFromPriorEvidence`.
#[test]
fn widens_scalar_selected_from_prior_evidence() {
    let mut session = InferenceSession::new(&options(6, 0.1, 10, 0.05)).unwrap();
    assert_eq!(
        infer(
            &mut session,
            &[
                vec![Some(json!({"a": 1, "b": 2}))],
                vec![Some(json!({"historical": 12345}))]
            ]
        ),
        ["ROW<`a` BIGINT, `b` BIGINT>", "VARIANT"]
    );
    session.commit_pending();
    // `first` changes family (ROW to a number): the current shape wins, widened; `second` has
    // no value now, so the prior evidence selects its ROW.
    assert_eq!(
        infer(&mut session, &[vec![Some(json!(1))], vec![None]]),
        ["BIGINT", "ROW<`historical` BIGINT>"]
    );
}

#[test]
fn keeps_previous_scalar_and_merges_decimals() {
    let ctx = Ctx {
        root: 1.0,
        admission: 0.1,
        retention: 0.05,
    };
    // DECIMAL(18, 2) selected before, DECIMAL(4, 3) now: merged, not widened again.
    let t = finalize_adaptive(
        Some(Shape::Decimal(4, 3)),
        Some(Shape::Decimal(4, 3)),
        Some(Shape::Decimal(18, 2)),
        &ctx,
        &mut 300,
    );
    assert_eq!(t, Shape::Decimal(19, 3));
    // No current value: the previous selection stays as it was.
    let t = finalize_adaptive(
        Some(Shape::Decimal(2, 0)),
        None,
        Some(Shape::BigInt),
        &ctx,
        &mut 300,
    );
    assert_eq!(t, Shape::BigInt);
    // Only evidence: widened as the per-file finalization.
    let t = finalize_adaptive(Some(Shape::Decimal(20, 2)), None, None, &ctx, &mut 300);
    assert_eq!(t, Shape::Decimal(38, 2));

    let mut session = InferenceSession::new(&options(300, 0.1, 4, 0.05)).unwrap();
    assert_eq!(
        infer(&mut session, &[vec![Some(json!({"d": 1}))]]),
        ["ROW<`d` BIGINT>"]
    );
    session.commit_pending();
    // A string now: incompatible with the selected BIGINT, the current shape wins.
    assert_eq!(
        infer(&mut session, &[vec![Some(json!({"d": "x"}))]]),
        ["ROW<`d` STRING>"]
    );
    session.commit_pending();
    // Evidence merged to VARIANT, the current number selected again.
    assert_eq!(
        infer(&mut session, &[vec![Some(json!({"d": 5}))]]),
        ["ROW<`d` BIGINT>"]
    );
}

#[test]
fn scales_nested_counts() {
    let e = ColumnEvidence {
        count: 8.0,
        observed: Some(Shape::Row(vec![(
            "a".into(),
            6.0,
            Some(Shape::Array(Box::new(Shape::Row(vec![(
                "b".into(),
                4.0,
                Some(Shape::BigInt),
            )])))),
        )])),
    };
    let scaled = scale_to_at_most(e.clone(), 2.0);
    assert_eq!(scaled.count, 2.0);
    assert_eq!(
        scaled.observed,
        Some(Shape::Row(vec![(
            "a".into(),
            1.5,
            Some(Shape::Array(Box::new(Shape::Row(vec![(
                "b".into(),
                1.0,
                Some(Shape::BigInt),
            )])))),
        )]))
    );
    assert_eq!(scale_to_at_most(e.clone(), 8.0), e);
}

#[test]
fn options_follow_java_preconditions() {
    let parse = |pairs: &[(&str, &str)]| {
        let map: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        InferOptions::from_options(|k| map.get(k).map(String::as_str))
    };
    let base = [
        ("variant.inferShreddingSchema", "true"),
        ("variant.shredding.inferenceMode", "adaptive"),
    ];
    let o = parse(&base).unwrap().unwrap();
    assert_eq!(
        o.adaptive,
        Some(AdaptiveOptions {
            buffer_rows: 256,
            retention_ratio: 0.05
        })
    );
    let mut bad = base.to_vec();
    bad.push(("variant.shredding.adaptive.retentionRatio", "0.2"));
    let err = parse(&bad).unwrap_err().to_string();
    assert!(err.contains("Retention ratio"), "{err}");
    let mut bad = base.to_vec();
    bad.push(("variant.shredding.adaptive.maxInferBufferRow", "0"));
    assert!(parse(&bad).is_err());
    let per_file = parse(&[("variant.inferShreddingSchema", "true")])
        .unwrap()
        .unwrap();
    assert!(InferenceSession::new(&per_file).is_none());
}
