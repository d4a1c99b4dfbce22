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

use std::io::Cursor;
use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, MapArray, RecordBatch, StructArray};
use arrow_avro::reader::ReaderBuilder;
use arrow_schema::{DataType as ArrowType, Field, Fields, SchemaRef};
use bytes::Bytes;
use strata_spec::types::{DataField, DataType, TypeKind};

use super::data_file_reader::DecodedFile;
use super::nested_rewrite::rewrite_batch;
use crate::{Error, Result};

/// An Avro container file in memory with its header read.
pub(super) struct AvroFile {
    bytes: Bytes,
    schema: SchemaRef,
    data_fields: Vec<DataField>,
    display: String,
}

fn avro_error(display: &str, e: impl std::fmt::Display) -> Error {
    Error::DataFile {
        format: "Avro",
        path: display.to_string(),
        message: e.to_string(),
    }
}

impl AvroFile {
    /// Reads the header of the Avro file `bytes` written with the columns `data_fields`.
    pub(super) fn open(bytes: Bytes, data_fields: &[DataField], display: &str) -> Result<Self> {
        let reader = ReaderBuilder::new()
            .build(Cursor::new(bytes.clone()))
            .map_err(|e| avro_error(display, e))?;
        Ok(AvroFile {
            bytes,
            schema: reader.schema(),
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
            bytes,
            schema,
            data_fields,
            display,
        } = *self;
        let projection: Vec<usize> = schema
            .fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| columns.contains(f.name()))
            .map(|(i, _)| i)
            .collect();
        let reader = ReaderBuilder::new()
            .with_batch_size(batch_size)
            .with_projection(projection)
            .build(Cursor::new(bytes))
            .map_err(|e| avro_error(&display, e))?;
        Ok(Box::new(reader.map(move |batch| {
            let batch = batch.map_err(|e| avro_error(&display, e))?;
            normalize_batch(&batch, &data_fields).map_err(|e| match e {
                Error::SchemaMismatch { column, message } => Error::SchemaMismatch {
                    column,
                    message: format!("reading {display}: {message}"),
                },
                other => other,
            })
        })))
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
    Error::SchemaMismatch {
        column: path.to_string(),
        message,
    }
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
