use super::*;
use crate::TypeKind;

fn int() -> DataType {
    DataType::nullable(TypeKind::Int)
}

fn s(v: &str) -> Datum {
    Datum::String(v.to_string())
}

fn col(min: Option<Datum>, max: Option<Datum>, nulls: Option<i64>) -> ColumnStats {
    ColumnStats {
        min,
        max,
        null_count: nulls,
    }
}

#[test]
fn empty_stats_bytes() {
    let e = SimpleStats::empty();
    assert!(e.is_empty());
    assert_eq!(e.min_values.to_serialized(), vec![0u8; 12]);
    assert_eq!(e.max_values.to_serialized(), vec![0u8; 12]);
    assert!(e.null_counts.is_empty());
    assert_eq!(SimpleStats::from_columns(&[], &[]).unwrap(), e);
}

#[test]
fn columns_round_trip() {
    let types = [int(), DataType::string()];
    let cols = vec![
        col(Some(Datum::Int(1)), Some(Datum::Int(9)), Some(0)),
        col(None, None, None),
    ];
    let stats = SimpleStats::from_columns(&cols, &types).unwrap();
    assert_eq!(
        stats.min_values.to_serialized(),
        vec![0, 0, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(stats.null_counts, vec![Some(0), None]);
    assert_eq!(stats.to_columns(&types).unwrap(), cols);
}

#[test]
fn mismatched_columns_are_unknown() {
    let stats = SimpleStats::from_columns(
        &[col(Some(Datum::Int(1)), Some(Datum::Int(2)), Some(3))],
        &[int()],
    )
    .unwrap();
    // Read with two types: neither bounds nor counts can be trusted.
    let cols = stats.to_columns(&[int(), int()]).unwrap();
    assert_eq!(cols, vec![ColumnStats::default(); 2]);

    // Null counts shorter than the columns: bounds kept, counts unknown.
    let mut short = stats.clone();
    short.null_counts.clear();
    assert_eq!(
        short.to_columns(&[int()]).unwrap(),
        vec![col(Some(Datum::Int(1)), Some(Datum::Int(2)), None)]
    );

    // Empty stats over real columns.
    assert_eq!(
        SimpleStats::empty().to_columns(&[int()]).unwrap(),
        vec![ColumnStats::default()]
    );
}

#[test]
fn corrupt_bounds_are_an_error() {
    let types = [DataType::string()];
    let stats = SimpleStats::from_columns(
        &[col(
            Some(s("long enough value")),
            Some(s("long enough value!")),
            Some(0),
        )],
        &types,
    )
    .unwrap();
    let mut bytes = stats.max_values.as_bytes().to_vec();
    bytes[12] = 0x7f; // offset far past the end
    let corrupt = SimpleStats {
        max_values: BinaryRow::from_row_bytes(1, bytes).unwrap(),
        ..stats
    };
    assert!(corrupt.to_columns(&types).is_err());
}

#[test]
fn from_columns_checks_types() {
    let err = SimpleStats::from_columns(&[col(Some(Datum::BigInt(1)), None, None)], &[int()])
        .unwrap_err();
    assert!(err.to_string().contains("SimpleStats min"), "{err}");
    assert!(SimpleStats::from_columns(&[], &[int()]).is_err());
}

#[test]
fn truncate_strings() {
    assert_eq!(truncate_min(&s("abcdef"), 3), Some(s("abc")));
    assert_eq!(truncate_max(&s("abcdef"), 3), Some(s("abd")));
    assert_eq!(truncate_min(&s("abc"), 3), Some(s("abc")));
    assert_eq!(truncate_max(&s("abc"), 3), Some(s("abc")));
    // Code points, not bytes: 本 U+672C becomes 札 U+672D.
    assert_eq!(truncate_min(&s("日本語テキスト"), 2), Some(s("日本")));
    assert_eq!(truncate_max(&s("日本語テキスト"), 2), Some(s("日札")));
    // The last code point cannot grow: bump the one before and drop the rest.
    assert_eq!(truncate_max(&s("a\u{10FFFF}\u{10FFFF}x"), 3), Some(s("b")));
    assert_eq!(truncate_max(&s("\u{10FFFF}\u{10FFFF}x"), 2), None);
    assert_eq!(truncate_max(&s("\u{D7FF}xx"), 1), Some(s("\u{E000}")));
    assert_eq!(truncate_max(&s("\u{FFFF}xx"), 1), Some(s("\u{10000}")));
}

#[test]
fn truncate_bytes() {
    let b = |v: &[u8]| Datum::Bytes(v.to_vec());
    assert_eq!(
        truncate_min(&b(&[1, 2, 0xff, 5]), 3),
        Some(b(&[1, 2, 0xff]))
    );
    assert_eq!(truncate_max(&b(&[1, 2, 0xff, 5]), 3), Some(b(&[1, 3])));
    assert_eq!(truncate_max(&b(&[1, 2]), 3), Some(b(&[1, 2])));
    assert_eq!(truncate_max(&b(&[0xff, 0xff, 1]), 2), None);
}

#[test]
fn truncate_other_values_unchanged() {
    assert_eq!(truncate_min(&Datum::Int(7), 1), Some(Datum::Int(7)));
    assert_eq!(truncate_max(&Datum::Int(7), 1), Some(Datum::Int(7)));
}

#[test]
fn stats_mode_convert() {
    let exact = col(Some(s("apple pie")), Some(s("zebra crossing")), Some(2));
    assert_eq!(StatsMode::None.convert(&exact), ColumnStats::default());
    assert_eq!(StatsMode::Counts.convert(&exact), col(None, None, Some(2)));
    assert_eq!(StatsMode::Full.convert(&exact), exact);
    assert_eq!(
        StatsMode::Truncate(4).convert(&exact),
        col(Some(s("appl")), Some(s("zebs")), Some(2))
    );
    // No upper bound possible: both bounds dropped.
    let hopeless = col(Some(s("a")), Some(s("\u{10FFFF}\u{10FFFF}")), Some(0));
    assert_eq!(
        StatsMode::Truncate(1).convert(&hopeless),
        col(None, None, Some(0))
    );
}
