//! Property tests of the range-bitmap codec: every answer equals a scan of the values, across
//! chunk sizes that split the dictionary into many chunks; corrupt bodies are errors.

use proptest::prelude::*;
use roaring::RoaringBitmap;
use strata_spec::{Datum, TypeKind};

use super::*;

fn rows(values: &[Option<Datum>], f: &dyn Fn(&Datum) -> bool) -> RoaringBitmap {
    values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.as_ref().is_some_and(f))
        .map(|(i, _)| i as u32)
        .collect()
}

fn check_all(kind: &TypeKind, values: &[Option<Datum>], probe: &Datum, chunk: Option<usize>) {
    let mut w = RangeBitmapWriter::new(kind.clone(), chunk).unwrap();
    for v in values {
        w.write(v.as_ref());
    }
    let bytes = w.finish();
    let idx = RangeBitmapIndex::parse(&bytes, kind).unwrap();
    let k = |d: &Datum| key_of(kind, d).unwrap();
    let p = k(probe);
    let check = |op: LeafOp, f: &dyn Fn(&Datum) -> bool| {
        assert_eq!(
            idx.evaluate(kind, &op),
            IndexResult::Bitmap(rows(values, f)),
            "{op:?} over {values:?}"
        );
    };
    check(LeafOp::Equal(probe.clone()), &|v| k(v) == p);
    check(LeafOp::NotEqual(probe.clone()), &|v| k(v) != p);
    check(LeafOp::LessThan(probe.clone()), &|v| k(v) < p);
    check(LeafOp::LessOrEqual(probe.clone()), &|v| k(v) <= p);
    check(LeafOp::GreaterThan(probe.clone()), &|v| k(v) > p);
    check(LeafOp::GreaterOrEqual(probe.clone()), &|v| k(v) >= p);
    check(LeafOp::In(vec![probe.clone()]), &|v| k(v) == p);
    check(LeafOp::NotIn(vec![probe.clone()]), &|v| k(v) != p);
    check(LeafOp::IsNotNull, &|_| true);
    let nulls: RoaringBitmap = values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_none())
        .map(|(i, _)| i as u32)
        .collect();
    assert_eq!(
        idx.evaluate(kind, &LeafOp::IsNull),
        IndexResult::Bitmap(nulls)
    );
}

proptest! {
    #[test]
    fn bigint_answers_exactly(values in proptest::collection::vec(proptest::option::of(-300i64..300), 0..200),
                              probe in -320i64..320, chunk in prop_oneof![Just(None), Just(Some(0usize)), Just(Some(8)), Just(Some(40))]) {
        let values: Vec<Option<Datum>> = values.into_iter().map(|v| v.map(Datum::BigInt)).collect();
        check_all(&TypeKind::BigInt, &values, &Datum::BigInt(probe), chunk);
    }

    #[test]
    fn strings_answer_exactly(values in proptest::collection::vec(proptest::option::of("[a-dé]{0,4}"), 0..120),
                              probe in "[a-dé]{0,4}", chunk in prop_oneof![Just(None), Just(Some(0usize)), Just(Some(12)), Just(Some(30))]) {
        let values: Vec<Option<Datum>> = values.into_iter().map(|v| v.map(Datum::String)).collect();
        check_all(&TypeKind::VarChar(100), &values, &Datum::String(probe), chunk);
    }

    #[test]
    fn smallints_and_doubles_answer_exactly(values in proptest::collection::vec(proptest::option::of(-20i16..20), 0..80),
                                            probe in -25i16..25) {
        let shorts: Vec<Option<Datum>> = values.iter().map(|v| v.map(Datum::SmallInt)).collect();
        check_all(&TypeKind::SmallInt, &shorts, &Datum::SmallInt(probe), None);
        let doubles: Vec<Option<Datum>> = values.iter().map(|v| v.map(|v| Datum::Double(v as f64 / 4.0))).collect();
        check_all(&TypeKind::Double, &doubles, &Datum::Double(probe as f64 / 4.0), None);
    }
}

#[test]
fn java_float_order_and_empty_index() {
    assert!(Key::Double(-0.0) < Key::Double(0.0));
    assert!(Key::Double(f64::INFINITY) < Key::Double(f64::NAN));
    assert_eq!(Key::Float(f32::NAN), Key::Float(-f32::NAN));
    // Only NULLs: Java's appender still writes 64 empty slices (max code -1).
    let mut w = RangeBitmapWriter::new(TypeKind::Int, None).unwrap();
    w.write(None);
    w.write(None);
    let bytes = w.finish();
    let idx = RangeBitmapIndex::parse(&bytes, &TypeKind::Int).unwrap();
    assert_eq!(idx.slices.len(), 64);
    assert!(!idx
        .evaluate(&TypeKind::Int, &LeafOp::Equal(Datum::Int(1)))
        .remains());
    assert!(idx.evaluate(&TypeKind::Int, &LeafOp::IsNull).remains());
}

#[test]
fn unsupported_types_and_corrupt_bodies() {
    assert!(RangeBitmapWriter::new(TypeKind::Timestamp(9), None).is_err());
    assert!(RangeBitmapWriter::new(TypeKind::VarBinary(3), None).is_err());
    assert!(supports(&TypeKind::Decimal {
        precision: 18,
        scale: 2
    }));
    assert!(!supports(&TypeKind::Decimal {
        precision: 19,
        scale: 2
    }));
    let mut w = RangeBitmapWriter::new(TypeKind::Int, Some(8)).unwrap();
    for v in 0..50 {
        w.write(Some(&Datum::Int(v % 17)));
    }
    let bytes = w.finish();
    for cut in [0, 3, 10, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            RangeBitmapIndex::parse(&bytes[..cut], &TypeKind::Int).is_err(),
            "{cut}"
        );
    }
}
