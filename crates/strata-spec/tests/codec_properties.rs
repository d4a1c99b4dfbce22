//! Round-trip properties of the JSON codecs and hints (the Avro codecs and BinaryRow have
//! theirs next to the code): any value strata can hold is written and read back unchanged,
//! and re-writing what was read gives the same bytes.

use std::collections::BTreeMap;

use proptest::prelude::*;
use strata_spec::schema::TableSchema;
use strata_spec::snapshot::{format_hint, parse_hint, CommitKind, Snapshot};
use strata_spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};

fn text() -> impl Strategy<Value = String> {
    // Quotes, backslashes, control characters and non-ASCII exercise the JSON escaping.
    prop::string::string_regex("[a-zA-Z0-9_ \"\\\\\u{1}\u{7f}é\u{1F600}-]{0,12}").unwrap()
}

fn commit_kind() -> impl Strategy<Value = CommitKind> {
    prop_oneof![
        Just(CommitKind::Append),
        Just(CommitKind::Compact),
        Just(CommitKind::Overwrite),
        Just(CommitKind::Analyze),
    ]
}

prop_compose! {
    fn snapshot()(
        version in 1i32..=3,
        uuid in proptest::option::of(text()),
        id in any::<i64>(),
        schema_id in any::<i64>(),
        lists in (text(), proptest::option::of(any::<i64>()), text(), proptest::option::of(any::<i64>())),
        changelog in (proptest::option::of(text()), proptest::option::of(any::<i64>())),
        index_manifest in proptest::option::of(text()),
        commit_user in text(),
        writer_version in proptest::option::of(text()),
        commit_identifier in any::<i64>(),
        commit_kind in commit_kind(),
        counts in (any::<i64>(), any::<i64>(), any::<i64>(), proptest::option::of(any::<i64>())),
        watermark in proptest::option::of(any::<i64>()),
        statistics in proptest::option::of(text()),
        properties in prop::collection::btree_map(text(), text(), 0..3),
        next_row_id in proptest::option::of(any::<i64>()),
        operation in proptest::option::of(text()),
    ) -> Snapshot {
        Snapshot {
            version,
            uuid,
            id,
            schema_id,
            base_manifest_list: lists.0,
            base_manifest_list_size: lists.1,
            delta_manifest_list: lists.2,
            delta_manifest_list_size: lists.3,
            changelog_manifest_list: changelog.0,
            changelog_manifest_list_size: changelog.1,
            index_manifest,
            commit_user,
            writer_version,
            commit_identifier,
            commit_kind,
            time_millis: counts.0,
            total_record_count: counts.1,
            delta_record_count: counts.2,
            changelog_record_count: counts.3,
            watermark,
            statistics,
            properties,
            next_row_id,
            operation,
        }
    }
}

fn primitive() -> impl Strategy<Value = TypeKind> {
    prop_oneof![
        Just(TypeKind::Boolean),
        Just(TypeKind::TinyInt),
        Just(TypeKind::SmallInt),
        Just(TypeKind::Int),
        Just(TypeKind::BigInt),
        Just(TypeKind::Float),
        Just(TypeKind::Double),
        (1u32..=38)
            .prop_flat_map(|p| (Just(p), 0..=p))
            .prop_map(|(precision, scale)| TypeKind::Decimal { precision, scale }),
        (1u32..=255).prop_map(TypeKind::Char),
        prop_oneof![Just(MAX_LENGTH), 1u32..=1000].prop_map(TypeKind::VarChar),
        (1u32..=64).prop_map(TypeKind::Binary),
        prop_oneof![Just(MAX_LENGTH), 1u32..=1000].prop_map(TypeKind::VarBinary),
        Just(TypeKind::Date),
        (0u32..=3).prop_map(TypeKind::Time),
        (0u32..=9).prop_map(TypeKind::Timestamp),
        (0u32..=9).prop_map(TypeKind::LocalZonedTimestamp),
    ]
}

fn data_type() -> impl Strategy<Value = DataType> {
    let leaf = (primitive(), any::<bool>()).prop_map(|(k, n)| DataType::new(k, n));
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            (inner.clone(), any::<bool>())
                .prop_map(|(t, n)| DataType::new(TypeKind::Array(Box::new(t)), n)),
            (inner.clone(), any::<bool>()).prop_map(|(v, n)| DataType::new(
                TypeKind::Map {
                    key: Box::new(DataType::not_null(TypeKind::VarChar(MAX_LENGTH))),
                    value: Box::new(v),
                },
                n
            )),
            (prop::collection::vec(inner, 1..3), any::<bool>()).prop_map(|(ts, n)| {
                // Ids of nested fields are fixed up below to stay unique.
                let fields = ts
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| DataField::new(0, format!("f{i}"), t))
                    .collect();
                DataType::new(TypeKind::Row(fields), n)
            }),
        ]
    })
}

/// Gives every field (nested ones too, depth first as Java's parser counts) a unique id.
fn assign_ids(t: &mut DataType, next: &mut i32) {
    match &mut t.kind {
        TypeKind::Array(e) | TypeKind::Multiset(e) => assign_ids(e, next),
        TypeKind::Map { key, value } => {
            assign_ids(key, next);
            assign_ids(value, next);
        }
        TypeKind::Row(fields) => {
            for f in fields {
                f.id = *next;
                *next += 1;
                assign_ids(&mut f.data_type, next);
            }
        }
        _ => {}
    }
}

prop_compose! {
    fn table_schema()(
        id in 0i64..1000,
        columns in prop::collection::vec(
            (data_type(), proptest::option::of(text()), proptest::option::of(text())), 1..6),
        keys in (any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<bool>(), any::<bool>()),
        highest_extra in 0i32..10,
        options in prop::collection::btree_map("[a-z.-]{1,12}", text(), 0..4),
        comment in proptest::option::of(text()),
        time_millis in any::<i64>(),
    ) -> TableSchema {
        let mut next = 0;
        let mut fields = Vec::new();
        for (i, (mut t, description, default_value)) in columns.into_iter().enumerate() {
            let id = next;
            next += 1;
            assign_ids(&mut t, &mut next);
            let mut f = DataField::new(id, format!("c{i}"), t);
            f.description = description;
            f.default_value = default_value;
            fields.push(f);
        }
        let name = |ix: &prop::sample::Index| fields[ix.index(fields.len())].name.clone();
        let partition_keys = if keys.2 { vec![name(&keys.0)] } else { vec![] };
        let primary_keys = if keys.3 { vec![name(&keys.1)] } else { vec![] };
        TableSchema {
            version: 3,
            id,
            highest_field_id: next - 1 + highest_extra,
            fields,
            partition_keys,
            primary_keys,
            options: options.into_iter().collect::<BTreeMap<_, _>>(),
            comment,
            time_millis,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn snapshot_json_round_trips(s in snapshot()) {
        let json = s.to_json().unwrap();
        let back = Snapshot::from_json(&json).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(back.to_json().unwrap(), json);
    }

    #[test]
    fn table_schema_json_round_trips(s in table_schema()) {
        let json = s.to_json().unwrap();
        let back = TableSchema::from_json(&json).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(back.to_json().unwrap(), json);
    }

    #[test]
    fn hints_round_trip(id in any::<i64>()) {
        prop_assert_eq!(parse_hint(&format_hint(id)), Some(id));
    }

    #[test]
    fn hints_are_exact_decimal_longs(text in "[ +\\-0-9a-z\n]{0,21}") {
        // Java's Long.parseLong: no whitespace, no garbage; a leading '+' or '-' is fine.
        let java_like = {
            let digits = text.strip_prefix(['+', '-']).unwrap_or(&text);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        };
        match parse_hint(&text) {
            Some(id) => {
                prop_assert!(java_like, "{text:?} parsed as {id}");
                prop_assert_eq!(Some(id), text.parse::<i64>().ok());
            }
            None => prop_assert!(!java_like || text.parse::<i64>().is_err(), "{text:?}"),
        }
    }
}
