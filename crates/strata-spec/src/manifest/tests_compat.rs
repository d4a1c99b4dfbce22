//! Reading the variants other writers produce: pypaimon's record names and extra/missing
//! fields, pypaimon-rust's union-wrapped top level and nullable stats, Paimon ≤0.8's
//! union-wrapped records; `_VERSION` checks; missing fields.
//!
//! Files are written with apache-avro's own `Writer` from a schema derived from Java's by
//! editing its JSON, so the reader sees a container and schema text it did not produce.

use apache_avro::types::Value;
use apache_avro::Schema;
use serde_json::{json, Value as Json};

use super::codec::{ENTRY_SCHEMA, LIST_SCHEMA};
use super::entry_codec::entry_to_value;
use super::testkit::*;
use super::tests::entry_fixture;
use super::*;
use crate::error::SpecError;

/// Reshapes `v` to fit `s`: wraps values in `["null", T]` unions, drops fields the schema
/// lacks, fills missing nullable fields with null.
fn conform(v: Value, s: &Schema) -> Value {
    match (v, s) {
        (Value::Union(i, inner), Schema::Union(_)) => Value::Union(i, inner),
        (Value::Union(_, inner), s) => conform(*inner, s),
        (Value::Null, Schema::Union(_)) => Value::Union(0, Box::new(Value::Null)),
        (v, Schema::Union(u)) => {
            let (i, branch) = u
                .variants()
                .iter()
                .enumerate()
                .find(|(_, b)| !matches!(b, Schema::Null))
                .unwrap();
            Value::Union(i as u32, Box::new(conform(v, branch)))
        }
        (Value::Record(fields), Schema::Record(r)) => Value::Record(
            r.fields
                .iter()
                .map(|f| {
                    let v = fields
                        .iter()
                        .find(|(n, _)| *n == f.name)
                        .map(|(_, v)| v.clone())
                        .unwrap_or(Value::Null);
                    (f.name.clone(), conform(v, &f.schema))
                })
                .collect(),
        ),
        (Value::Array(items), Schema::Array(a)) => {
            Value::Array(items.into_iter().map(|x| conform(x, &a.items)).collect())
        }
        (v, _) => v,
    }
}

fn write_with(schema_json: &Json, values: Vec<Value>) -> Vec<u8> {
    let schema = Schema::parse(schema_json).unwrap();
    let mut w = apache_avro::Writer::with_codec(
        &schema,
        Vec::new(),
        apache_avro::Codec::Zstandard(apache_avro::ZstandardSettings::new(3)),
    );
    for v in values {
        w.append(conform(v, &schema)).unwrap();
    }
    w.into_inner().unwrap()
}

fn java_json(s: &str) -> Json {
    serde_json::from_str(s).unwrap()
}

fn fields_mut(record: &mut Json) -> &mut Vec<Json> {
    record["fields"].as_array_mut().unwrap()
}

fn field_type_mut<'a>(record: &'a mut Json, name: &str) -> &'a mut Json {
    fields_mut(record)
        .iter_mut()
        .find(|f| f["name"] == name)
        .map(|f| &mut f["type"])
        .unwrap()
}

/// Java's entry schema with pypaimon's record names (no namespace).
fn pypaimon_entry_schema(with_write_cols_sequences: bool) -> Json {
    let mut s = java_json(ENTRY_SCHEMA.json());
    s["name"] = json!("ManifestEntry");
    s.as_object_mut().unwrap().remove("namespace");
    let file = field_type_mut(&mut s, "_FILE");
    file["name"] = json!("DataFileMeta");
    field_type_mut(file, "_KEY_STATS")["name"] = json!("record_KEY_STATS");
    field_type_mut(file, "_VALUE_STATS")["name"] = json!("record_VALUE_STATS");
    if !with_write_cols_sequences {
        fields_mut(file).retain(|f| f["name"] != "_WRITE_COLS_SEQUENCES");
    }
    s
}

#[test]
fn reads_pypaimon_manifest_entries() {
    let e = entry_fixture();
    for with_seq in [false, true] {
        let schema = pypaimon_entry_schema(with_seq);
        let mut v = entry_to_value(&e);
        if with_seq {
            // pypaimon 2.1.0 writes the field; a non-null value is ignored by strata.
            let Value::Record(top) = &mut v else {
                unreachable!()
            };
            let Value::Record(file) = &mut top[5].1 else {
                unreachable!()
            };
            let seq = file
                .iter_mut()
                .find(|(n, _)| n == "_WRITE_COLS_SEQUENCES")
                .unwrap();
            seq.1 = Value::Array(vec![Value::Long(4)]);
        }
        let bytes = write_with(&schema, vec![v.clone(), v]);
        super::tests_lazy::assert_lazy_agrees(&bytes);
        assert_eq!(
            decode_manifest_entries(&bytes).unwrap(),
            vec![e.clone(), e.clone()]
        );
    }
}

#[test]
fn reads_union_wrapped_top_level_and_nullable_stats() {
    // pypaimon-rust / Paimon ≤0.8: ["null", record] at the top, nested records nullable.
    let mut record = java_json(ENTRY_SCHEMA.json());
    {
        let file = field_type_mut(&mut record, "_FILE");
        for stats in ["_KEY_STATS", "_VALUE_STATS"] {
            let t = field_type_mut(file, stats);
            *t = json!(["null", t.clone()]);
        }
        let f = fields_mut(&mut record)
            .iter_mut()
            .find(|f| f["name"] == "_FILE")
            .unwrap();
        f["type"] = json!(["null", f["type"].clone()]);
    }
    let schema = json!(["null", record]);

    let e = entry_fixture();
    let mut no_stats = entry(FileKind::Delete, 2, 1, "data-x.orc");
    no_stats.file.key_stats = crate::stats::SimpleStats::empty();
    let mut v_no_stats = entry_to_value(&no_stats);
    {
        let Value::Record(top) = &mut v_no_stats else {
            unreachable!()
        };
        let Value::Record(file) = &mut top[5].1 else {
            unreachable!()
        };
        file.iter_mut().find(|(n, _)| n == "_KEY_STATS").unwrap().1 = Value::Null;
    }
    let bytes = write_with(&schema, vec![entry_to_value(&e), v_no_stats]);
    super::tests_lazy::assert_lazy_agrees(&bytes);
    assert_eq!(decode_manifest_entries(&bytes).unwrap(), vec![e, no_stats]);
}

#[test]
fn reads_union_wrapped_manifest_list_and_pypaimon_extras() {
    let meta = ManifestFileMeta {
        file_name: "manifest-a-0".into(),
        file_size: 10,
        num_added_files: 2,
        num_deleted_files: 0,
        partition_stats: stats(&[Some(1)], &[Some(2)], &[Some(0)]),
        schema_id: 0,
        min_bucket: Some(0),
        max_bucket: Some(1),
        min_level: Some(0),
        max_level: Some(0),
        min_row_id: None,
        max_row_id: None,
    };
    let value = |m: &ManifestFileMeta| {
        let bytes =
            encode_manifest_list(std::slice::from_ref(m), ManifestCompression::Null).unwrap();
        apache_avro::Reader::new(&bytes[..])
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
    };

    // pypaimon 2.1.0: record names, plus _TOTAL_BUCKETS and _EXTRA_FILES.
    let mut s = java_json(LIST_SCHEMA.json());
    s["name"] = json!("ManifestFileMeta");
    s.as_object_mut().unwrap().remove("namespace");
    field_type_mut(&mut s, "_PARTITION_STATS")["name"] = json!("record_PARTITION_STATS");
    fields_mut(&mut s).push(json!({"name":"_TOTAL_BUCKETS","type":["null","int"],"default":null}));
    fields_mut(&mut s).push(json!({"name":"_EXTRA_FILES","type":["null",{"type":"array","items":"string"}],"default":null}));
    let bytes = write_with(&s, vec![value(&meta)]);
    assert_eq!(decode_manifest_list(&bytes).unwrap(), vec![meta.clone()]);

    // pypaimon master source / Paimon < 1.1: no bucket and level fields ⇒ None.
    let mut s2 = s.clone();
    fields_mut(&mut s2).retain(|f| {
        !["_MIN_BUCKET", "_MAX_BUCKET", "_MIN_LEVEL", "_MAX_LEVEL"]
            .contains(&f["name"].as_str().unwrap())
    });
    let bytes = write_with(&s2, vec![value(&meta)]);
    let mut want = meta.clone();
    want.min_bucket = None;
    want.max_bucket = None;
    want.min_level = None;
    want.max_level = None;
    assert_eq!(decode_manifest_list(&bytes).unwrap(), vec![want]);

    // ≤0.8 shape: top-level and nested record wrapped in ["null", record].
    let mut s3 = java_json(LIST_SCHEMA.json());
    let t = field_type_mut(&mut s3, "_PARTITION_STATS");
    *t = json!(["null", t.clone()]);
    let wrapped = json!(["null", s3]);
    let bytes = write_with(&wrapped, vec![value(&meta), value(&meta)]);
    assert_eq!(
        decode_manifest_list(&bytes).unwrap(),
        vec![meta.clone(), meta]
    );
}

fn with_version(mut v: Value, version: i32) -> Value {
    let Value::Record(fields) = &mut v else {
        unreachable!()
    };
    fields[0].1 = Value::Int(version);
    v
}

#[test]
fn version_1_is_a_clear_unsupported_error() {
    let schema = java_json(ENTRY_SCHEMA.json());
    let bytes = write_with(
        &schema,
        vec![with_version(entry_to_value(&entry_fixture()), 1)],
    );
    match decode_manifest_entries(&bytes) {
        Err(SpecError::Unsupported(msg)) => {
            assert!(msg.contains("manifest entry #0"), "{msg}");
            assert!(msg.contains("version 1"), "{msg}");
            assert!(msg.contains("recreate the table"), "{msg}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    let bytes = write_with(
        &schema,
        vec![with_version(entry_to_value(&entry_fixture()), 3)],
    );
    assert!(matches!(
        decode_manifest_entries(&bytes),
        Err(SpecError::Unsupported(m)) if m.contains("version 3")
    ));
}

#[test]
fn missing_required_field_names_the_field() {
    let mut s = java_json(ENTRY_SCHEMA.json());
    fields_mut(field_type_mut(&mut s, "_FILE")).retain(|f| f["name"] != "_FILE_SIZE");
    let bytes = write_with(&s, vec![entry_to_value(&entry_fixture())]);
    match decode_manifest_entries(&bytes) {
        Err(SpecError::Invalid { context, message }) => {
            assert_eq!(context, "manifest entry #0 field _FILE._FILE_SIZE");
            assert!(message.contains("missing"), "{message}");
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn unknown_kind_is_invalid() {
    let schema = java_json(ENTRY_SCHEMA.json());
    let mut v = entry_to_value(&entry_fixture());
    let Value::Record(fields) = &mut v else {
        unreachable!()
    };
    fields[1].1 = Value::Int(7);
    let bytes = write_with(&schema, vec![v]);
    assert!(matches!(
        decode_manifest_entries(&bytes),
        Err(SpecError::Invalid { context, .. }) if context == "manifest entry #0 field _KIND"
    ));
}
