//! `ALTER TABLE` through the library (`FileSystemCatalog::alter_table`, `Table::alter`):
//! write, alter (add / rename / drop / widen columns, set / reset options), write again, and
//! read everything back — old files through the field-id evolution, new files in the new
//! schema — for an append table and a primary-key table (whose compaction after the alter
//! rewrites old files into the new schema). Also: refusals leave the table untouched, and
//! concurrent alters serialize.

use std::sync::Arc;

use arrow::util::display::{ArrayFormatter, FormatOptions};
use arrow_array::{
    Array, ArrayRef, Decimal128Array, Float32Array, Int32Array, Int64Array, RecordBatch,
    StringArray, StructArray,
};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema as ArrowSchema};
use strata::catalog::Identifier;
use strata::table::Table;
use strata::write::CompactRequest;
use strata::ErrorKind;
use strata_spec::schema::{ColumnMove, SchemaChange};
use strata_spec::types::json::parse_type_text;
use strata_spec::DataType;

use crate::common::*;

fn ty(text: &str) -> DataType {
    parse_type_text(text).unwrap()
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(
        Arc::new(ArrowSchema::new(fields)),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap()
}

/// Every row as `col=value, …` in column order (NULL as `null`), sorted; plus the column
/// names and Arrow types of the result.
async fn read_rows(t: &Table, filter: Option<&str>) -> (Vec<String>, Vec<String>) {
    read_rows_at(t, filter, None).await
}

async fn read_rows_at(
    t: &Table,
    filter: Option<&str>,
    snapshot: Option<i64>,
) -> (Vec<String>, Vec<String>) {
    read_rows_with(t, filter, snapshot, false).await
}

/// [`read_rows_at`], with top-level strings read as `Utf8View` when `views`.
async fn read_rows_with(
    t: &Table,
    filter: Option<&str>,
    snapshot: Option<i64>,
    views: bool,
) -> (Vec<String>, Vec<String>) {
    let mut scan = t.new_scan();
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    let mut read = t.new_read();
    if views {
        read = read.with_string_views();
    }
    if let Some(f) = filter {
        let p = strata::expr::parse_sql_predicate(f).unwrap();
        scan = scan.with_filter(p.clone());
        read = read.with_filter(p);
    }
    let plan = scan.plan().await.unwrap();
    let batches = read.to_batches(plan.splits).await.unwrap();
    let mut rows = Vec::new();
    let mut columns = Vec::new();
    let options = FormatOptions::default().with_null("null");
    for b in &batches {
        columns = b
            .schema()
            .fields()
            .iter()
            .map(|f| format!("{}:{}", f.name(), f.data_type()))
            .collect();
        let formatters: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            let cells: Vec<String> = b
                .schema()
                .fields()
                .iter()
                .zip(&formatters)
                .map(|(f, fmt)| format!("{}={}", f.name(), fmt.value(i)))
                .collect();
            rows.push(cells.join(", "));
        }
    }
    rows.sort();
    (rows, columns)
}

async fn schema_ids(t: &Table) -> Vec<i64> {
    t.schema_manager().list_ids().await.unwrap()
}

// ---- append table ---------------------------------------------------------------------------

const APPEND_SCHEMA: &str = r#"{"fields": [
    {"name": "id", "type": "BIGINT"},
    {"name": "dt", "type": "STRING"},
    {"name": "name", "type": "STRING"},
    {"name": "amount", "type": "INT"},
    {"name": "price", "type": "FLOAT"},
    {"name": "code", "type": "VARCHAR(5)"},
    {"name": "dec", "type": "DECIMAL(5, 2)"},
    {"name": "r", "type": "ROW<x INT>"},
    {"name": "gone", "type": "STRING"}
  ], "partitionKeys": ["dt"], "options": {"bucket": "-1", "metadata.stats-mode": "full"}}"#;

fn append_batch_0() -> RecordBatch {
    let r = StructArray::new(
        Fields::from(vec![Field::new("x", ArrowType::Int32, true)]),
        vec![Arc::new(Int32Array::from(vec![Some(10), None, Some(30)])) as ArrayRef],
        None,
    );
    batch(vec![
        ("id", Arc::new(Int64Array::from(vec![1, 2, 3]))),
        ("dt", Arc::new(StringArray::from(vec!["a", "b", "a"]))),
        (
            "name",
            Arc::new(StringArray::from(vec![Some("n1"), None, Some("n3")])),
        ),
        (
            "amount",
            Arc::new(Int32Array::from(vec![Some(100), Some(-7), None])),
        ),
        (
            "price",
            Arc::new(Float32Array::from(vec![Some(1.5), Some(0.1), None])),
        ),
        (
            "code",
            Arc::new(StringArray::from(vec![Some("abcde"), Some("xy"), None])),
        ),
        (
            "dec",
            Arc::new(
                Decimal128Array::from(vec![Some(12345), Some(-5), None])
                    .with_precision_and_scale(5, 2)
                    .unwrap(),
            ),
        ),
        ("r", Arc::new(r)),
        ("gone", Arc::new(StringArray::from(vec!["g1", "g2", "g3"]))),
    ])
}

#[tokio::test]
async fn append_table_write_alter_write_read() {
    let wh = Warehouse::new();
    let id: Identifier = "db.ev".parse().unwrap();
    let t0 = wh.create("db.ev", APPEND_SCHEMA).await;
    t0.write_batches([append_batch_0()], None).await.unwrap();

    let new_schema = wh
        .catalog
        .alter_table(
            &id,
            vec![
                SchemaChange::add_nested_column(
                    vec!["extra".into()],
                    ty("STRING"),
                    Some("added later".into()),
                    Some(ColumnMove::after("extra", "name")),
                ),
                SchemaChange::rename_column("name", "full_name"),
                SchemaChange::update_column_type("amount", ty("BIGINT")),
                SchemaChange::update_column_type("price", ty("DOUBLE")),
                SchemaChange::update_column_type("code", ty("VARCHAR(20)")),
                SchemaChange::update_column_type("dec", ty("DECIMAL(10, 3)")),
                SchemaChange::add_nested_column(
                    vec!["r".into(), "y".into()],
                    ty("STRING"),
                    None,
                    None,
                ),
                SchemaChange::drop_column("gone"),
                SchemaChange::set_option("snapshot.num-retained.min", "3"),
                SchemaChange::remove_option("metadata.stats-mode"),
            ],
            false,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(new_schema.id, 1);
    assert_eq!(schema_ids(&t0).await, [0, 1]);
    // The schema file is what the table loads afterwards.
    let t1 = wh.catalog.get_table(&id).await.unwrap();
    assert_eq!(t1.schema().as_ref(), new_schema.as_ref());
    assert_eq!(t1.options().snapshot_num_retained_min().unwrap(), 3);
    assert!(!t1.schema().options.contains_key("metadata.stats-mode"));
    assert_eq!(
        t1.schema().field_names(),
        [
            "id",
            "dt",
            "full_name",
            "extra",
            "amount",
            "price",
            "code",
            "dec",
            "r"
        ]
    );

    // Write with the new schema (new column, widened types, nested field).
    let r = StructArray::new(
        Fields::from(vec![
            Field::new("x", ArrowType::Int32, true),
            Field::new("y", ArrowType::Utf8, true),
        ]),
        vec![
            Arc::new(Int32Array::from(vec![Some(40)])) as ArrayRef,
            Arc::new(StringArray::from(vec![Some("why")])),
        ],
        None,
    );
    t1.write_batches(
        [batch(vec![
            ("id", Arc::new(Int64Array::from(vec![4]))),
            ("dt", Arc::new(StringArray::from(vec!["b"]))),
            ("full_name", Arc::new(StringArray::from(vec!["n4"]))),
            ("extra", Arc::new(StringArray::from(vec!["e4"]))),
            ("amount", Arc::new(Int64Array::from(vec![5_000_000_000]))),
            (
                "price",
                Arc::new(arrow_array::Float64Array::from(vec![2.25])),
            ),
            ("code", Arc::new(StringArray::from(vec!["a-longer-code"]))),
            (
                "dec",
                Arc::new(
                    Decimal128Array::from(vec![Some(1234567)])
                        .with_precision_and_scale(10, 3)
                        .unwrap(),
                ),
            ),
            ("r", Arc::new(r)),
        ])],
        None,
    )
    .await
    .unwrap();
    let snap = t1.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(snap.schema_id, 1);

    let expected = [
        "id=1, dt=a, full_name=n1, extra=null, amount=100, price=1.5, code=abcde, dec=123.450, r={x: 10, y: null}",
        "id=2, dt=b, full_name=null, extra=null, amount=-7, price=0.10000000149011612, code=xy, dec=-0.050, r={x: null, y: null}",
        "id=3, dt=a, full_name=n3, extra=null, amount=null, price=null, code=null, dec=null, r={x: 30, y: null}",
        "id=4, dt=b, full_name=n4, extra=e4, amount=5000000000, price=2.25, code=a-longer-code, dec=1234.567, r={x: 40, y: why}",
    ];
    let (rows, columns) = read_rows(&t1, None).await;
    assert_eq!(rows, expected);
    assert_eq!(
        columns,
        [
            "id:Int64",
            "dt:Utf8",
            "full_name:Utf8",
            "extra:Utf8",
            "amount:Int64",
            "price:Float64",
            "code:Utf8",
            "dec:Decimal128(10, 3)",
            "r:Struct(\"x\": Int32, metadata: {\"PARQUET:field_id\": \"8\"}, \"y\": Utf8, \
             metadata: {\"PARQUET:field_id\": \"11\"})"
        ]
    );
    // Filters on renamed, widened and added columns see both files correctly.
    let ids = |rows: Vec<String>| -> Vec<String> {
        rows.iter()
            .map(|r| r.split(", ").next().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ids(read_rows(&t1, Some("amount > 50")).await.0),
        ["id=1", "id=4"]
    );
    assert_eq!(
        ids(read_rows(&t1, Some("full_name = 'n3'")).await.0),
        ["id=3"]
    );
    assert_eq!(
        ids(read_rows(&t1, Some("extra IS NULL")).await.0),
        ["id=1", "id=2", "id=3"]
    );
    assert_eq!(ids(read_rows(&t1, Some("price < 1.0")).await.0), ["id=2"]);
    // Time travel reads snapshot 1 with the schema it was committed with.
    let (old_rows, old_columns) =
        read_rows_at(&t1.at_snapshot(1).await.unwrap(), None, Some(1)).await;
    assert_eq!(old_rows.len(), 3);
    assert!(old_columns.contains(&"gone:Utf8".to_string()));
    assert!(old_rows[0].contains("name=n1") && old_rows[0].contains("gone=g1"));

    // A second alter narrows the string (Java's cast cuts values to the new length on read)
    // and drops then re-adds `extra` (a new field id: old values never come back).
    let t2 = t1
        .alter(&[
            SchemaChange::update_column_type("code", ty("VARCHAR(3)")),
            SchemaChange::drop_column("extra"),
        ])
        .await
        .unwrap();
    let t3 = t2
        .alter(&[SchemaChange::add_column("extra", ty("STRING"))])
        .await
        .unwrap();
    assert_eq!(t3.schema().id, 3);
    let (rows, _) = read_rows(&t3, None).await;
    let codes: Vec<&str> = rows
        .iter()
        .map(|r| r.split(", ").find(|c| c.starts_with("code=")).unwrap())
        .collect();
    assert_eq!(codes, ["code=abc", "code=xy", "code=null", "code=a-l"]);
    assert!(rows.iter().all(|r| r.contains("extra=null")), "{rows:?}");

    // Strings read as views: the same rows from files of every schema (renamed, added, cut
    // to a shorter VARCHAR), top-level strings as Utf8View, nested ones as Utf8.
    let (view_rows, view_columns) = read_rows_with(&t3, None, None, true).await;
    assert_eq!(view_rows, rows);
    assert!(
        view_columns.contains(&"code:Utf8View".to_string()),
        "{view_columns:?}"
    );
    assert!(view_columns.contains(&"full_name:Utf8View".to_string()));
    assert!(view_columns
        .iter()
        .any(|c| c.starts_with("r:") && c.contains("Utf8") && !c.contains("Utf8View")));
    let filtered = read_rows_with(&t3, Some("full_name = 'n3' OR code LIKE 'a-%'"), None, true);
    assert_eq!(ids(filtered.await.0), ["id=3", "id=4"]);
}

#[tokio::test]
async fn refused_alters_name_the_column_or_option_and_write_nothing() {
    let wh = Warehouse::new();
    let id: Identifier = "db.ev".parse().unwrap();
    let t = wh.create("db.ev", APPEND_SCHEMA).await;
    t.write_batches([append_batch_0()], None).await.unwrap();
    let alter = |changes: Vec<SchemaChange>| {
        let catalog = wh.catalog.clone();
        let id = id.clone();
        async move { catalog.alter_table(&id, changes, false).await.unwrap_err() }
    };
    let cases: Vec<(Vec<SchemaChange>, ErrorKind, &[&str])> = vec![
        (
            vec![SchemaChange::drop_column("ghost")],
            ErrorKind::NotFound,
            &["ghost", "db.ev", "amount"],
        ),
        (
            vec![SchemaChange::add_column("name", ty("INT"))],
            ErrorKind::AlreadyExists,
            &["name", "db.ev"],
        ),
        (
            vec![SchemaChange::rename_column("dt", "day")],
            ErrorKind::Unsupported,
            &["partition column", "dt"],
        ),
        (
            vec![SchemaChange::add_column("n", ty("INT NOT NULL"))],
            ErrorKind::InvalidInput,
            &["`n`", "NOT NULL"],
        ),
        // Java allows BIGINT → INT (explicit cast), strata cannot read old files like Java.
        (
            vec![SchemaChange::update_column_type("id", ty("INT"))],
            ErrorKind::Unsupported,
            &["`id`", "BIGINT", "INT", "strata cannot yet read"],
        ),
        (
            vec![SchemaChange::update_column_type(
                "price",
                ty("DECIMAL(10, 2)"),
            )],
            ErrorKind::Unsupported,
            &["`price`", "FLOAT"],
        ),
        (
            vec![SchemaChange::update_column_type("amount", ty("DATE"))],
            ErrorKind::InvalidInput,
            &["amount[INT]", "DATE"],
        ),
        // An option strata does not implement is refused at ALTER as at CREATE.
        (
            vec![SchemaChange::set_option("chain-table.enabled", "true")],
            ErrorKind::Unsupported,
            &["chain-table.enabled", "db.ev"],
        ),
        (
            vec![SchemaChange::set_option("file.format", "orc")],
            ErrorKind::InvalidInput,
            &["file.format", "parquet"],
        ),
        (
            vec![SchemaChange::set_option("bucket", "4")],
            ErrorKind::Unsupported,
            &["bucket", "-1"],
        ),
        (
            vec![SchemaChange::set_option("no-such-option", "1")],
            ErrorKind::InvalidInput,
            &["no-such-option"],
        ),
        // A refusal anywhere in the list refuses the whole list.
        (
            vec![
                SchemaChange::add_column("fine", ty("INT")),
                SchemaChange::drop_column("dt"),
            ],
            ErrorKind::Unsupported,
            &["dt"],
        ),
    ];
    for (changes, kind, needles) in cases {
        let e = alter(changes.clone()).await;
        let text = e.to_string();
        assert_eq!(e.kind(), kind, "{changes:?}: {text}");
        for n in needles {
            assert!(text.contains(n), "{changes:?}: `{text}` lacks `{n}`");
        }
    }
    assert_eq!(schema_ids(&t).await, [0]);
    // A missing table.
    let missing: Identifier = "db.nope".parse().unwrap();
    let e = wh
        .catalog
        .alter_table(
            &missing,
            vec![SchemaChange::add_column("c", ty("INT"))],
            false,
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(wh
        .catalog
        .alter_table(&missing, vec![], true)
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn options_checked_against_data_only_once_there_are_snapshots() {
    let wh = Warehouse::new();
    let t = wh.create("db.ev", APPEND_SCHEMA).await;
    // No snapshot yet: `bucket` may still change (Java skips checkAlterTableOption).
    let t = t
        .alter(&[
            SchemaChange::set_option("bucket", "2"),
            SchemaChange::set_option("bucket-key", "id"),
        ])
        .await
        .unwrap();
    assert_eq!(t.options().bucket().unwrap(), 2);
    t.write_batches([append_batch_0()], None).await.unwrap();
    let e = t
        .alter(&[SchemaChange::set_option("bucket-key", "amount")])
        .await
        .unwrap_err();
    assert!(e.to_string().contains("bucket-key"), "{e}");
    // A rename follows into bucket-key.
    let t = t
        .alter(&[SchemaChange::rename_column("id", "ident")])
        .await
        .unwrap();
    assert_eq!(t.schema().options["bucket-key"], "ident");
    assert_eq!(read_rows(&t, None).await.0.len(), 3);
}

#[tokio::test]
async fn concurrent_alters_serialize_and_none_is_lost() {
    let wh = Warehouse::new();
    let id: Identifier = "db.ev".parse().unwrap();
    let t = wh.create("db.ev", APPEND_SCHEMA).await;
    let mut tasks = Vec::new();
    for i in 0..8 {
        let catalog = wh.catalog.clone();
        let id = id.clone();
        tasks.push(tokio::spawn(async move {
            catalog
                .alter_table(
                    &id,
                    vec![SchemaChange::add_column(format!("c{i}"), ty("INT"))],
                    false,
                )
                .await
                .unwrap()
                .unwrap()
        }));
    }
    let mut ids = Vec::new();
    for task in tasks {
        ids.push(task.await.unwrap().id);
    }
    ids.sort();
    assert_eq!(ids, (1..=8).collect::<Vec<i64>>());
    let latest = t.schema_manager().latest().await.unwrap().unwrap();
    for i in 0..8 {
        assert!(latest.field(&format!("c{i}")).is_some(), "c{i} lost");
    }
    // Every column got its own field id.
    let mut field_ids: Vec<i32> = latest.fields.iter().map(|f| f.id).collect();
    field_ids.sort();
    field_ids.dedup();
    assert_eq!(field_ids.len(), latest.fields.len());
}

// ---- primary-key table ----------------------------------------------------------------------

const PK_SCHEMA: &str = r#"{"fields": [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "v", "type": "INT"},
    {"name": "name", "type": "STRING"},
    {"name": "gone", "type": "STRING"}
  ], "primaryKeys": ["id"], "options": {"bucket": "1", "write-only": "true"}}"#;

fn pk_batch_0() -> RecordBatch {
    batch(vec![
        ("id", Arc::new(Int64Array::from(vec![1, 2, 3, 4]))),
        (
            "v",
            Arc::new(Int32Array::from(vec![Some(10), Some(20), None, Some(40)])),
        ),
        (
            "name",
            Arc::new(StringArray::from(vec!["a", "b", "c", "d"])),
        ),
        (
            "gone",
            Arc::new(StringArray::from(vec!["g1", "g2", "g3", "g4"])),
        ),
    ])
}

#[tokio::test]
async fn primary_key_table_write_alter_write_merge_and_compact() {
    let wh = Warehouse::new();
    let id: Identifier = "db.pk".parse().unwrap();
    let t0 = wh.create("db.pk", PK_SCHEMA).await;
    t0.write_batches([pk_batch_0()], None).await.unwrap();

    wh.catalog
        .alter_table(
            &id,
            vec![
                SchemaChange::update_column_type("v", ty("BIGINT")),
                SchemaChange::rename_column("name", "label"),
                // Java allows renaming a primary-key column: the key follows.
                SchemaChange::rename_column("id", "key"),
                SchemaChange::drop_column("gone"),
                SchemaChange::add_column("note", ty("STRING")),
                SchemaChange::set_option("num-sorted-run.compaction-trigger", "10"),
            ],
            false,
        )
        .await
        .unwrap();
    let t1 = wh.catalog.get_table(&id).await.unwrap();
    assert_eq!(t1.schema().primary_keys, ["key"]);
    assert_eq!(t1.schema().field_names(), ["key", "v", "label", "note"]);

    // Updates of old keys, a new key, in the new schema: merged with the old file by key.
    t1.write_batches(
        [batch(vec![
            ("key", Arc::new(Int64Array::from(vec![2, 3, 5]))),
            (
                "v",
                Arc::new(Int64Array::from(vec![Some(9_000_000_000), Some(33), None])),
            ),
            ("label", Arc::new(StringArray::from(vec!["B", "C", "E"]))),
            (
                "note",
                Arc::new(StringArray::from(vec![Some("n2"), None, Some("n5")])),
            ),
        ])],
        None,
    )
    .await
    .unwrap();
    let expected = [
        "key=1, v=10, label=a, note=null",
        "key=2, v=9000000000, label=B, note=n2",
        "key=3, v=33, label=C, note=null",
        "key=4, v=40, label=d, note=null",
        "key=5, v=null, label=E, note=n5",
    ];
    let (rows, columns) = read_rows(&t1, None).await;
    assert_eq!(rows, expected);
    assert_eq!(columns, ["key:Int64", "v:Int64", "label:Utf8", "note:Utf8"]);
    assert_eq!(
        read_rows(&t1, Some("v > 30")).await.0,
        [expected[1], expected[2], expected[3]]
    );
    assert_eq!(read_rows(&t1, Some("key = 4")).await.0, [expected[3]]);

    // Reset the option, then compact everything: old files are rewritten into the new schema.
    let t2 = t1
        .alter(&[SchemaChange::remove_option(
            "num-sorted-run.compaction-trigger",
        )])
        .await
        .unwrap();
    assert_eq!(t2.schema().id, 2);
    let report = t2
        .compact(
            &CompactRequest {
                partitions: vec![],
                bucket: None,
                full: true,
            },
            &|_, _| {},
        )
        .await
        .unwrap();
    assert!(report.snapshot.is_some());
    let plan = t2.new_scan().plan().await.unwrap();
    let files: Vec<_> = plan.splits.iter().flat_map(|s| s.files.iter()).collect();
    assert!(!files.is_empty());
    assert!(
        files.iter().all(|f| f.schema_id == 2),
        "compaction rewrote every file in schema 2: {:?}",
        files
            .iter()
            .map(|f| (&f.file_name, f.schema_id))
            .collect::<Vec<_>>()
    );
    assert_eq!(read_rows(&t2, None).await.0, expected);

    // And the compacted table keeps evolving: one more write after another alter.
    let t3 = t2
        .alter(&[SchemaChange::add_column("later", ty("INT"))])
        .await
        .unwrap();
    t3.write_batches(
        [batch(vec![
            ("key", Arc::new(Int64Array::from(vec![1]))),
            ("v", Arc::new(Int64Array::from(vec![11]))),
            ("label", Arc::new(StringArray::from(vec!["A"]))),
            ("note", Arc::new(StringArray::from(vec![None::<&str>]))),
            ("later", Arc::new(Int32Array::from(vec![7]))),
        ])],
        None,
    )
    .await
    .unwrap();
    let (rows, _) = read_rows(&t3, None).await;
    assert_eq!(rows[0], "key=1, v=11, label=A, note=null, later=7");
    assert_eq!(rows[4], "key=5, v=null, label=E, note=n5, later=null");
}

#[tokio::test]
async fn primary_key_columns_cannot_be_dropped_or_retyped() {
    let wh = Warehouse::new();
    let t = wh.create("db.pk", PK_SCHEMA).await;
    t.write_batches([pk_batch_0()], None).await.unwrap();
    for (c, needle) in [
        (SchemaChange::drop_column("id"), "primary key"),
        (
            SchemaChange::update_column_type("id", ty("DECIMAL(20, 0)")),
            "primary key",
        ),
        (
            SchemaChange::update_column_nullability(vec!["id".into()], true),
            "primary key",
        ),
        (
            SchemaChange::set_option("merge-engine", "first-row"),
            "merge-engine",
        ),
    ] {
        let e = t.alter(&[c]).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
        assert!(e.to_string().contains(needle), "{e}");
    }
    assert_eq!(schema_ids(&t).await, [0]);
}

#[tokio::test]
async fn bucket_count_changes_then_the_partitions_are_rescaled() {
    let wh = Warehouse::new();
    let t = wh.create("db.pk", PK_SCHEMA).await;
    let t = t
        .alter(&[SchemaChange::set_option("bucket", "2")])
        .await
        .unwrap();
    assert_eq!(t.options().bucket().unwrap(), 2);
    t.write_batches([pk_batch_0()], None).await.unwrap();
    // Java allows 2 -> 3 on a table with data; writes into the old layout are refused until
    // a rescale (or INSERT OVERWRITE) rewrites it.
    let t = t
        .alter(&[SchemaChange::set_option("bucket", "3")])
        .await
        .unwrap();
    let e = t.write_batches([pk_batch_0()], None).await.unwrap_err();
    assert!(e.to_string().contains("new bucket num 3"), "{e}");
    let report = t
        .rescale(&strata::write::RescaleRequest::default())
        .await
        .unwrap();
    assert_eq!((report.bucket_num, report.rows), (3, 4));
    t.write_batches([pk_batch_0()], None).await.unwrap();
    assert_eq!(read_rows(&t, None).await.0.len(), 4);
    // Leaving -1 stays refused, as in Java.
    let e = t
        .alter(&[SchemaChange::set_option("bucket", "-1")])
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
}

// ---- shared-shredding MAP column ------------------------------------------------------------

fn float_map_batch(rows: &[(i64, Vec<(&str, f32)>)]) -> RecordBatch {
    use arrow_array::builder::{Float32Builder, MapBuilder, MapFieldNames, StringBuilder};
    let names = MapFieldNames {
        entry: "key_value".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let mut b = MapBuilder::new(Some(names), StringBuilder::new(), Float32Builder::new());
    for (_, entries) in rows {
        for (k, v) in entries {
            b.keys().append_value(k);
            b.values().append_value(*v);
        }
        b.append(true).unwrap();
    }
    batch(vec![
        (
            "id",
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
        ),
        ("m", Arc::new(b.finish())),
    ])
}

#[tokio::test]
async fn shredded_map_value_widened_and_renamed() {
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.maps",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
                {"name":"m","type":"MAP<STRING NOT NULL, FLOAT>"}],
                "options":{"fields.m.map.storage-layout":"shared-shredding"}}"#,
        )
        .await;
    t.write_batches(
        [float_map_batch(&[
            (1, vec![("a", 0.5), ("b", 2.0)]),
            (2, vec![("a", 3.0)]),
        ])],
        None,
    )
    .await
    .unwrap();
    let t = t
        .alter(&[
            SchemaChange::update_nested_column_type(
                vec!["m".into(), "value".into()],
                ty("DOUBLE"),
                false,
            ),
            SchemaChange::rename_column("m", "attrs"),
        ])
        .await
        .unwrap();
    assert_eq!(
        t.schema().options["fields.attrs.map.storage-layout"],
        "shared-shredding"
    );
    let mut b = crate::maps::batch(&[(3, Some(vec![("a".into(), Some(1e300))]))]);
    b = RecordBatch::try_new(
        Arc::new(ArrowSchema::new(vec![
            b.schema().field(0).clone(),
            b.schema().field(1).as_ref().clone().with_name("attrs"),
        ])),
        b.columns().to_vec(),
    )
    .unwrap();
    t.write_batches([b], None).await.unwrap();
    let (rows, _) = read_rows(&t, None).await;
    assert_eq!(
        rows,
        [
            "id=1, attrs={a: 0.5, b: 2.0}",
            "id=2, attrs={a: 3.0}",
            "id=3, attrs={a: 1e300}",
        ]
    );
    // Key access and key filters across the old (FLOAT) and new (DOUBLE) files.
    let plan = |f: &str| {
        let p = strata::expr::parse_sql_predicate(f).unwrap();
        (
            t.new_scan().with_filter(p.clone()),
            t.new_read().with_filter(p),
        )
    };
    let (scan, read) = plan("attrs['a'] > 1.0");
    let splits = scan.plan().await.unwrap().splits;
    let out = read
        .with_projection(vec!["id".into(), "attrs['a']".into()])
        .to_batches(splits)
        .await
        .unwrap();
    let mut got: Vec<(i64, f64)> = Vec::new();
    for b in out {
        let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let vs = b
            .column(1)
            .as_any()
            .downcast_ref::<arrow_array::Float64Array>()
            .unwrap();
        for i in 0..b.num_rows() {
            got.push((ids.value(i), vs.value(i)));
        }
    }
    got.sort_by_key(|g| g.0);
    assert_eq!(got, [(2, 3.0), (3, 1e300)]);
}

#[tokio::test]
async fn narrowed_map_strings_are_cut_on_read_and_not_pruned_by_old_statistics() {
    use arrow_array::builder::{MapBuilder, MapFieldNames, StringBuilder};
    let wh = Warehouse::new();
    let t = wh
        .create(
            "db.tags",
            r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
                {"name":"m","type":"MAP<STRING NOT NULL, VARCHAR(10)>"}],
                "options":{"fields.m.map.storage-layout":"shared-shredding"}}"#,
        )
        .await;
    let names = MapFieldNames {
        entry: "key_value".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let mut b = MapBuilder::new(Some(names), StringBuilder::new(), StringBuilder::new());
    for v in ["abcdef", "xyz"] {
        b.keys().append_value("a");
        b.values().append_value(v);
        b.append(true).unwrap();
    }
    t.write_batches(
        [batch(vec![
            ("id", Arc::new(Int64Array::from(vec![1, 2]))),
            ("m", Arc::new(b.finish())),
        ])],
        None,
    )
    .await
    .unwrap();
    let t = t
        .alter(&[SchemaChange::update_nested_column_type(
            vec!["m".into(), "value".into()],
            ty("VARCHAR(3)"),
            false,
        )])
        .await
        .unwrap();
    assert_eq!(
        read_rows(&t, None).await.0,
        ["id=1, m={a: abc}", "id=2, m={a: xyz}"]
    );
    // The file's statistics say "abcdef"; the value read is "abc" and must be found.
    assert_eq!(
        read_rows(&t, Some("m['a'] = 'abc'")).await.0,
        ["id=1, m={a: abc}"]
    );
}
