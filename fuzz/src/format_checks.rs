//! The check behind the `parquet_file` fuzz target: arbitrary bytes as a data file, read
//! through strata's own Parquet reader (`strata::unstable::format`), the way a scan reads a data file.
//!
//! The file is put into an in-memory store; its footer is read, the shredded-MAP footer
//! metadata is parsed, and the file is read whole with the Paimon row type inferred from its
//! Arrow schema (shredded columns read back as MAPs), once more with a pushed filter that
//! keeps every row (page index, row selection), and once selecting only two keys of each
//! shredded map; the footer statistics are read as row-group pruning reads them. Every step may fail, but only with an error that names the file;
//! none may panic.
//!
//! Compiled into the `strata_fuzz` crate and, by `#[path]`, into
//! `crates/strata/tests/it/fuzz_corpus.rs` (stable replay of the corpus).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use arrow_array::{BooleanArray, RecordBatch};
use futures::StreamExt;
use object_store::path::Path;
use strata::io::FileIO;
use strata::unstable::format::file_shredding_meta;
use strata::unstable::format::PushedRowFilter;
use strata::unstable::format::{
    from_arrow_schema, read_parquet_metadata, read_parquet_with, row_group_stats,
    ParquetReadOptions, ReadHints,
};
use strata_spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};

/// The file name every error must mention.
const FILE_NAME: &str = "data-fuzz-0.parquet";

/// Rows per batch: small, so multi-batch paths run on small files.
const BATCH_SIZE: usize = 7;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime always builds")
    })
}

fn assert_names_file(step: &str, err: &strata::Error) {
    let text = err.to_string();
    assert!(
        text.contains(FILE_NAME),
        "{step}: the error does not name the file: {text}"
    );
}

/// The Paimon type a shredded column reads as: `MAP<STRING NOT NULL, T>` with `T` the type of
/// its `__col_0` (or of the `__overflow` values when the file has no columns).
fn shredded_map_type(physical: &DataType) -> Option<DataType> {
    let TypeKind::Row(children) = &physical.kind else {
        return None;
    };
    let value = children
        .iter()
        .find(|f| f.name == "__col_0")
        .map(|f| f.data_type.clone())
        .or_else(|| {
            children
                .iter()
                .find(|f| f.name == "__overflow")
                .and_then(|f| match &f.data_type.kind {
                    TypeKind::Map { value, .. } => Some((**value).clone()),
                    _ => None,
                })
        })?;
    Some(DataType::new(
        TypeKind::Map {
            key: Box::new(DataType::not_null(TypeKind::VarChar(MAX_LENGTH))),
            value: Box::new(value),
        },
        physical.nullable,
    ))
}

async fn read_all(
    io: &FileIO,
    path: &Path,
    size: u64,
    fields: &[DataField],
    hints: ReadHints,
    row_filter: Option<PushedRowFilter>,
) -> Result<usize, strata::Error> {
    let options = ParquetReadOptions {
        file_size: Some(size),
        batch_size: BATCH_SIZE,
        hints,
        row_filter,
        ..Default::default()
    };
    let mut stream = read_parquet_with(io, path, fields, fields, options).await?;
    let mut rows = 0;
    while let Some(batch) = stream.next().await {
        let batch = batch?;
        assert_eq!(
            batch.num_columns(),
            fields.len(),
            "one column per read field"
        );
        rows += batch.num_rows();
    }
    Ok(rows)
}

/// strata's reader catches decoder panics (`format::decode_guard`) and returns them as
/// errors; libFuzzer's panic hook would abort on them before they are caught. The default hook
/// only prints; a panic that escapes strata still fails the run (libfuzzer-sys aborts on it).
fn allow_caught_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| drop(std::panic::take_hook()));
}

/// A data file's bytes through strata's Parquet reader.
pub fn parquet_file(data: &[u8]) {
    allow_caught_panics();
    runtime().block_on(async {
        let io = FileIO::memory();
        let path = Path::from(format!("db.db/t/bucket-0/{FILE_NAME}"));
        io.put(&path, data.to_vec())
            .await
            .expect("the in-memory store accepts any bytes");
        let size = data.len() as u64;
        let meta = match read_parquet_metadata(&io, &path, Some(size)).await {
            Ok(m) => m,
            Err(e) => return assert_names_file("footer", &e),
        };
        let shredded = match file_shredding_meta(&meta, &io.display(&path)) {
            Ok(s) => s,
            Err(e) => return assert_names_file("shredding metadata", &e),
        };
        // Without the embedded `ARROW:schema`, as strata's reader (`with_skip_arrow_metadata`):
        // arrow-ipc 59 panics on some corrupt ones.
        let arrow = match parquet::arrow::parquet_to_arrow_schema(
            meta.file_metadata().schema_descr(),
            None,
        ) {
            Ok(a) => a,
            // Not a file strata wrote or could read; the reader itself rejects it below.
            Err(_) => arrow_schema::Schema::empty(),
        };
        let Ok(row_type) = from_arrow_schema(&arrow) else {
            return;
        };
        let fields: Vec<DataField> = row_type
            .fields
            .iter()
            .map(|f| match shredded.contains_key(&f.name) {
                true => match shredded_map_type(&f.data_type) {
                    Some(t) => DataField::new(f.id, f.name.clone(), t),
                    None => f.clone(),
                },
                false => f.clone(),
            })
            .collect();
        // Footer statistics as the scan's row-group pruning reads them.
        for rg in meta.row_groups() {
            let _ = row_group_stats(rg, &fields);
        }
        let whole = read_all(&io, &path, size, &fields, ReadHints::default(), None).await;
        if let Err(e) = &whole {
            assert_names_file("read", e);
        }
        // A pushed filter that keeps every row: the page index is loaded and the other
        // columns are decoded through a row selection; every row must still come back.
        if let Some(first) = fields.first() {
            let keep_all = PushedRowFilter {
                fields: vec![first.clone()],
                predicate: Arc::new(|b: &RecordBatch| {
                    Ok(BooleanArray::from(vec![true; b.num_rows()]))
                }),
            };
            match read_all(
                &io,
                &path,
                size,
                &fields,
                ReadHints::default(),
                Some(keep_all),
            )
            .await
            {
                Ok(rows) => {
                    if let Ok(all) = &whole {
                        assert_eq!(rows, *all, "a keep-all pushed filter reads every row");
                    }
                }
                Err(e) => assert_names_file("read with a pushed filter", &e),
            }
        }
        // Selected keys of every shredded map: two keys of its dictionary.
        let mut selected = HashMap::new();
        for f in &fields {
            if let Some(m) = shredded.get(&f.name) {
                let keys: Vec<String> = m.dictionary.keys().take(2).cloned().collect();
                selected.insert(f.id, Arc::from(keys));
            }
        }
        if selected.is_empty() {
            return;
        }
        let hints = ReadHints {
            selected_map_keys: selected,
            ..Default::default()
        };
        match read_all(&io, &path, size, &fields, hints, None).await {
            Ok(rows) => {
                if let Ok(all) = whole {
                    assert_eq!(rows, all, "a key selection reads every row");
                }
            }
            Err(e) => assert_names_file("read with selected keys", &e),
        }
    });
}
