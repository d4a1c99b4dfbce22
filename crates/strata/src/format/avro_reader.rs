//! Avro data files, as Java Paimon writes them for tables with `file.format` = `avro`
//! (`AvroFileFormat`, schema by `AvroSchemaConverter`): object container files decoded with
//! [`arrow_avro`].
//!
//! Why arrow-avro: it is arrow-rs's own Avro reader, released in step with the arrow version
//! strata uses, and decodes container blocks (deflate, snappy, zstd) straight into Arrow arrays
//! with Avro's logical types (decimal, date, time-millis, timestamp-millis/micros,
//! local-timestamp-millis/micros). apache-avro, which strata uses for manifests, yields one
//! generic value per datum: building Arrow arrays from those is what arrow-avro already does,
//! column-wise. Container files compressed with bzip2 or xz (not Paimon's defaults) are refused
//! with an error naming the codec and the file.
//!
//! Paimon's Avro schema and what is undone here ([`normalize`]): a nullable field is the union
//! `["null", T]`; TINYINT/SMALLINT are `int` (cast back by the column plan); TIMESTAMP(p) is
//! `timestamp-millis`/`-micros` and TIMESTAMP_LTZ `local-timestamp-*` — the values are Paimon's
//! own (epoch-based wall clock and instant), kept as they are whatever zone label arrow-avro
//! attaches; a MAP whose key is not a string is an array of `{key, value}` records (Avro maps
//! have string keys only), rebuilt here as a MAP column (through [`super::nested_rewrite`]).
//! Java Paimon 1.0 declares the top-level record as the union `["null", record]`, which
//! arrow-avro does not decode: its header is rewritten by [`super::avro_container`] so the
//! union's branch is read as a first `int` column, checked (every row the record) and dropped.

use std::io::{Cursor, Read};
use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, MapArray, RecordBatch, StructArray};
use arrow_avro::reader::ReaderBuilder;
use arrow_schema::{DataType as ArrowType, Field, Fields, SchemaRef};
use bytes::Bytes;
use strata_spec::types::{DataField, DataType, TypeKind};

use super::avro_container::{read_header, unwrap_top_level_union, UnionBranch};
use super::decoded_file::DecodedFile;
use super::nested_rewrite::rewrite_batch;
use crate::error::ErrorDetail;
use crate::{Error, Result};

/// An Avro container file in memory with its header read.
pub(super) struct AvroFile {
    /// The header arrow-avro reads: the file's own, or one rewritten by
    /// [`unwrap_top_level_union`] (then `union` says which column holds each row's branch).
    header: Bytes,
    /// The data blocks (everything after the header).
    blocks: Bytes,
    union: Option<UnionBranch>,
    /// The file's columns (without `union`'s).
    schema: SchemaRef,
    data_fields: Vec<DataField>,
    display: String,
}

fn avro_error(display: &str, e: impl std::fmt::Display) -> Error {
    ErrorDetail::DataFile {
        format: "Avro",
        path: display.to_string(),
        message: e.to_string(),
    }
    .into()
}

/// The container file `header` + `blocks` as one reader.
type Container = std::io::Chain<Cursor<Bytes>, Cursor<Bytes>>;

fn container(header: &Bytes, blocks: &Bytes) -> Container {
    Cursor::new(header.clone()).chain(Cursor::new(blocks.clone()))
}

impl AvroFile {
    /// Reads the header of the Avro file `bytes` written with the columns `data_fields`.
    pub(super) fn open(bytes: Bytes, data_fields: &[DataField], display: &str) -> Result<Self> {
        let mut parsed = read_header(&bytes).map_err(|e| avro_error(display, e))?;
        let union = unwrap_top_level_union(&mut parsed).map_err(|e| avro_error(display, e))?;
        let (header, blocks) = match &union {
            Some(_) => (Bytes::from(parsed.encode()), bytes.slice(parsed.len..)),
            None => (bytes.slice(..parsed.len), bytes.slice(parsed.len..)),
        };
        let reader = ReaderBuilder::new()
            .build(container(&header, &blocks))
            .map_err(|e| avro_error(display, e))?;
        let mut schema = reader.schema();
        if union.is_some() {
            let fields: Vec<_> = schema.fields().iter().skip(1).cloned().collect();
            schema = Arc::new(arrow_schema::Schema::new_with_metadata(
                fields,
                schema.metadata().clone(),
            ));
        }
        Ok(AvroFile {
            header,
            blocks,
            union,
            schema,
            data_fields: data_fields.to_vec(),
            display: display.to_string(),
        })
    }
}

impl DecodedFile for AvroFile {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn decode(
        self: Box<Self>,
        columns: &[String],
        batch_size: usize,
    ) -> Result<Box<dyn Iterator<Item = Result<RecordBatch>> + Send>> {
        let AvroFile {
            header,
            blocks,
            union,
            schema,
            data_fields,
            display,
        } = *self;
        // Indices into the file's record: with a rewritten union its branch column comes first.
        let shift = usize::from(union.is_some());
        let projection: Vec<usize> = union
            .as_ref()
            .map(|_| 0)
            .into_iter()
            .chain(
                schema
                    .fields()
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| columns.contains(f.name()))
                    .map(|(i, _)| i + shift),
            )
            .collect();
        let reader = ReaderBuilder::new()
            .with_batch_size(batch_size)
            .with_projection(projection)
            .build(container(&header, &blocks))
            .map_err(|e| avro_error(&display, e))?;
        let mut rows_before = 0usize;
        Ok(Box::new(reader.map(move |batch| {
            let mut batch = batch.map_err(|e| avro_error(&display, e))?;
            if let Some(union) = &union {
                check_record_branch(&batch, union, rows_before)
                    .map_err(|e| avro_error(&display, e))?;
                rows_before += batch.num_rows();
                batch.remove_column(0);
            }
            normalize_batch(&batch, &data_fields).map_err(|e| {
                e.map_detail(|d| match d {
                    ErrorDetail::SchemaMismatch { column, message } => {
                        ErrorDetail::SchemaMismatch {
                            column,
                            message: format!("reading {display}: {message}"),
                        }
                    }
                    other => other,
                })
            })
        })))
    }
}

/// Every row of `batch` (whose first column is `union`'s branch column) took the record branch:
/// a row that is the union's null is no row of the table, and Java's `AvroRowDatumReader` fails
/// on it ("Cannot read a null row") as this does.
fn check_record_branch(
    batch: &RecordBatch,
    union: &UnionBranch,
    rows_before: usize,
) -> std::result::Result<(), String> {
    let branches = batch
        .column(0)
        .as_primitive_opt::<arrow_array::types::Int32Type>()
        .ok_or_else(|| format!("the {} column did not decode as int", union.column))?;
    match branches.iter().position(|b| b != Some(union.record_branch)) {
        None => Ok(()),
        Some(i) => Err(format!(
            "row {} is a null row (branch {:?} of the top-level union [\"null\", record]); \
             Paimon writes none, and Java's AvroRowDatumReader fails on it too",
            rows_before + i,
            branches.iter().nth(i).flatten()
        )),
    }
}

fn is_map(t: &DataType) -> bool {
    matches!(t.kind, TypeKind::Map { .. })
}

/// Undoes Paimon's Avro-only layout in `batch`: each MAP stored as an array of `{key, value}`
/// records becomes a MAP again, at any depth.
fn normalize_batch(batch: &RecordBatch, data_fields: &[DataField]) -> Result<RecordBatch> {
    rewrite_batch(batch, data_fields, &is_map, &map_from_records)
}

fn mismatch(path: &str, message: String) -> Error {
    ErrorDetail::SchemaMismatch {
        column: path.to_string(),
        message,
    }
    .into()
}

/// The [`rewrite`](super::nested_rewrite::rewrite) hook: a MAP column that arrow-avro decoded as
/// a list of records becomes a [`MapArray`] of the same entries.
fn map_from_records(array: &ArrayRef, t: &DataType, path: &str) -> Result<Option<ArrayRef>> {
    if !is_map(t) || !matches!(array.data_type(), ArrowType::List(_)) {
        return Ok(None);
    }
    let list = array.as_list::<i32>();
    let records = list.values().as_struct_opt().ok_or_else(|| {
        mismatch(
            path,
            format!(
                "a MAP column stored as an Avro array must hold {{key, value}} records, got {}",
                list.values().data_type()
            ),
        )
    })?;
    if records.num_columns() != 2 {
        return Err(mismatch(
            path,
            format!(
                "a MAP column stored as an Avro array must hold {{key, value}} records, got {} \
                 fields",
                records.num_columns()
            ),
        ));
    }
    map_array(
        records.column(0).clone(),
        records.column(1).clone(),
        list.offsets().clone(),
        list.nulls().cloned(),
        path,
    )
    .map(Some)
}

fn map_array(
    keys: ArrayRef,
    values: ArrayRef,
    offsets: OffsetBuffer<i32>,
    nulls: Option<NullBuffer>,
    path: &str,
) -> Result<ArrayRef> {
    if keys.null_count() > 0 {
        return Err(mismatch(path, "a MAP key is NULL".to_string()));
    }
    let entry_fields = Fields::from(vec![
        Field::new("key", keys.data_type().clone(), false),
        Field::new("value", values.data_type().clone(), true),
    ]);
    let entries = StructArray::try_new(entry_fields.clone(), vec![keys, values], None)
        .map_err(|e| Error::arrow(format!("rebuilding MAP column {path}"), e))?;
    let field = Arc::new(Field::new(
        "entries",
        ArrowType::Struct(entry_fields),
        false,
    ));
    Ok(Arc::new(
        MapArray::try_new(field, offsets, entries, nulls, false)
            .map_err(|e| Error::arrow(format!("rebuilding MAP column {path}"), e))?,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::nested_rewrite::rewrite;
    use super::*;
    use arrow_array::ListArray;
    use arrow_array::{Int32Array, StringArray};

    #[test]
    fn array_of_key_value_records_becomes_a_map() {
        let records = StructArray::from(vec![
            (
                Arc::new(Field::new("key", ArrowType::Int32, false)),
                Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef,
            ),
            (
                Arc::new(Field::new("value", ArrowType::Utf8, true)),
                Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])) as ArrayRef,
            ),
        ]);
        let item = Arc::new(Field::new("item", records.data_type().clone(), false));
        let list: ArrayRef = Arc::new(ListArray::new(
            item,
            OffsetBuffer::new(vec![0, 2, 2, 3].into()),
            Arc::new(records),
            Some(vec![true, false, true].into()),
        ));
        let t = DataType::nullable(TypeKind::Map {
            key: Box::new(DataType::not_null(TypeKind::Int)),
            value: Box::new(DataType::nullable(TypeKind::VarChar(10))),
        });
        let out = rewrite(&list, &t, "m", &map_from_records).unwrap();
        let map = out.as_map();
        assert_eq!(map.len(), 3);
        assert!(map.is_null(1));
        assert_eq!(map.value_offsets(), &[0, 2, 2, 3]);
        let keys = map.keys().as_primitive::<arrow_array::types::Int32Type>();
        assert_eq!(keys.values(), &[1, 2, 3]);
        assert_eq!(map.values().as_string::<i32>().value(2), "c");
    }

    /// `crates/strata/tests/fixtures/java_1_0_avro/pk.avro`: a primary-key table's data file
    /// written by Java Paimon 1.0.1 (`make.py` there), whose schema is `["null", record]`.
    const JAVA_1_0_PK: &[u8] = include_bytes!("../../tests/fixtures/java_1_0_avro/pk.avro");

    fn java_1_0_fields() -> Vec<DataField> {
        let int = || DataType::not_null(TypeKind::Int);
        vec![
            DataField::new(strata_spec::kv::KEY_FIELD_ID_START, "_KEY_id", int()),
            DataField::new(
                strata_spec::kv::SEQUENCE_NUMBER_ID,
                "_SEQUENCE_NUMBER",
                DataType::not_null(TypeKind::BigInt),
            ),
            DataField::new(
                strata_spec::kv::SEQUENCE_NUMBER_ID - 1,
                "_VALUE_KIND",
                DataType::not_null(TypeKind::TinyInt),
            ),
            DataField::new(0, "id", int()),
            DataField::new(1, "v", DataType::string()),
            DataField::new(
                2,
                "m",
                DataType::nullable(TypeKind::Map {
                    key: Box::new(int()),
                    value: Box::new(DataType::string()),
                }),
            ),
            DataField::new(3, "ts", DataType::nullable(TypeKind::Timestamp(3))),
        ]
    }

    fn decode_all(bytes: &[u8], columns: &[&str]) -> Result<Vec<RecordBatch>> {
        let file = AvroFile::open(Bytes::copy_from_slice(bytes), &java_1_0_fields(), "f.avro")?;
        let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
        Box::new(file).decode(&columns, 1024)?.collect()
    }

    #[test]
    fn a_java_1_0_file_whose_record_is_a_nullable_union_reads_as_its_record() {
        let file = AvroFile::open(
            Bytes::from_static(JAVA_1_0_PK),
            &java_1_0_fields(),
            "f.avro",
        )
        .unwrap();
        let names: Vec<_> = file
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(
            names,
            [
                "_KEY_id",
                "_SEQUENCE_NUMBER",
                "_VALUE_KIND",
                "id",
                "v",
                "m",
                "ts"
            ]
        );
        let batches = decode_all(JAVA_1_0_PK, &["id", "v", "m", "ts", "_SEQUENCE_NUMBER"]).unwrap();
        let batch = arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap();
        assert_eq!(batch.num_rows(), 2);
        let col = |n: &str| batch.column(batch.schema().index_of(n).unwrap()).clone();
        let ids = col("id");
        assert_eq!(
            ids.as_primitive::<arrow_array::types::Int32Type>().values(),
            &[1, 2]
        );
        let v = col("v");
        let v = v.as_string::<i32>();
        assert_eq!((v.value(0), v.is_null(1)), ("a", true));
        let m = col("m");
        let m = m.as_map();
        assert!(m.is_null(1));
        assert_eq!(m.values().as_string::<i32>().value(0), "x");
        let ts = col("ts");
        let ts = ts.as_primitive::<arrow_array::types::TimestampMillisecondType>();
        // 2024-01-02 03:04:05.678 as Paimon's epoch-based wall clock
        assert_eq!(ts.value(0), 1_704_164_645_678);
        assert!(ts.is_null(1));
        let seq = col("_SEQUENCE_NUMBER");
        assert_eq!(
            seq.as_primitive::<arrow_array::types::Int64Type>().values(),
            &[0, 1]
        );
    }

    /// A hand-built container file: `schema` in the header, uncompressed, one block of `rows`
    /// datums already encoded.
    fn container(schema: &str, rows: usize, datums: &[u8]) -> Vec<u8> {
        fn long(out: &mut Vec<u8>, v: i64) {
            let mut z = ((v << 1) ^ (v >> 63)) as u64;
            while z >= 0x80 {
                out.push((z as u8) | 0x80);
                z >>= 7;
            }
            out.push(z as u8);
        }
        fn bytes(out: &mut Vec<u8>, b: &[u8]) {
            long(out, b.len() as i64);
            out.extend_from_slice(b);
        }
        let sync = [7u8; 16];
        let mut out = b"Obj\x01".to_vec();
        long(&mut out, 2);
        bytes(&mut out, b"avro.schema");
        bytes(&mut out, schema.as_bytes());
        bytes(&mut out, b"avro.codec");
        bytes(&mut out, b"null");
        long(&mut out, 0);
        out.extend_from_slice(&sync);
        long(&mut out, rows as i64);
        bytes(&mut out, datums);
        out.extend_from_slice(&sync);
        out
    }

    const UNION_OF_ID: &str =
        r#"["null",{"type":"record","name":"record","fields":[{"name":"id","type":"int"}]}]"#;

    #[test]
    fn a_null_top_level_row_is_an_error_naming_the_file() {
        // Row 0: branch 1, id 5. Row 1: branch 0, a null row, which no Paimon writer produces
        // (Java's AvroRowDatumReader fails with "Cannot read a null row"); its datum has no
        // record, so the next byte is decoded as an id: caught by the branch check (a null row
        // that leaves the block misaligned fails in decoding instead, also naming the file).
        let bytes = container(UNION_OF_ID, 2, &[2, 10, 0, 4]);
        let err = decode_all(&bytes, &["id"]).unwrap_err().to_string();
        assert!(
            err.contains("f.avro") && err.contains("row 1 is a null row"),
            "{err}"
        );
        let err = decode_all(&container(UNION_OF_ID, 2, &[2, 10, 0]), &["id"]).unwrap_err();
        assert!(err.to_string().contains("f.avro"), "{err}");
    }

    #[test]
    fn a_top_level_union_other_than_null_and_a_record_is_refused() {
        let bytes = container(r#"["null","int"]"#, 1, &[2, 10]);
        let err = AvroFile::open(Bytes::from(bytes), &[], "f.avro")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("f.avro"), "{err}");
    }

    #[test]
    fn a_map_stored_as_an_array_of_something_else_is_an_error_naming_the_column() {
        let list: ArrayRef = Arc::new(ListArray::new(
            Arc::new(Field::new("item", ArrowType::Int32, true)),
            OffsetBuffer::new(vec![0, 1].into()),
            Arc::new(Int32Array::from(vec![7])),
            None,
        ));
        let t = DataType::nullable(TypeKind::Map {
            key: Box::new(DataType::not_null(TypeKind::Int)),
            value: Box::new(DataType::nullable(TypeKind::Int)),
        });
        let err = rewrite(&list, &t, "props", &map_from_records)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("props") && err.contains("{key, value}"),
            "{err}"
        );
    }
}
