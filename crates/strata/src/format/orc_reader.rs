//! ORC data files, as Java Paimon writes them for tables with `file.format` = `orc`
//! (`OrcFileFormat`, types by `OrcTypeUtil`), decoded with the [`orc_rust`] crate.
//!
//! Why orc-rust: it is the ORC reader of the Arrow Rust ecosystem (datafusion-contrib), decoding
//! stripes straight into Arrow arrays, with ORC's integer/byte/boolean RLE, direct and dictionary
//! strings, decimals and timestamps, and its codecs (zstd — Paimon's default `file.compression` —,
//! zlib, snappy, lz4, lzo). The Apache ORC project has no Rust reader, and writing one would mean
//! re-implementing all those encodings. Its 0.9 release decodes into arrow 59, the arrow strata
//! (and DataFusion 55) is built on, so its batches are used as they come.
//!
//! Types as Paimon writes them: TINYINT/SMALLINT/INT/BIGINT as `byte`/`short`/`int`/`long`,
//! CHAR/VARCHAR/STRING as `char`/`varchar`/`string`, BINARY/VARBINARY as `binary`, TIME as `int`
//! (milliseconds), DECIMAL, DATE, ROW/ARRAY/MAP as `struct`/`list`/`map`. TIMESTAMP is an ORC
//! `timestamp`: a wall-clock reading in the writer's time zone, which orc-rust takes from the
//! stripe footer, so the reading comes back as written; TIMESTAMP_LTZ is `timestamp with local
//! time zone`, an instant. CHAR(n) values are stored blank-padded; trailing blanks are stripped
//! on reading, as Java's ORC reader does. Timestamps are decoded in microseconds (Arrow nanoseconds only span
//! the years 1677–2262) unless the file has a timestamp column of precision 7–9.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::SchemaRef;
use bytes::Bytes;
use orc_rust::projection::ProjectionMask;
use orc_rust::{ArrowReaderBuilder, TimestampPrecision};
use strata_spec::types::{DataField, DataType, TypeKind};

use super::decoded_file::DecodedFile;
use super::nested_rewrite::rewrite_batch;
use crate::error::ErrorDetail;
use crate::{Error, Result};

/// An ORC file in memory with its footer read.
pub(super) struct OrcFile {
    builder: ArrowReaderBuilder<Bytes>,
    schema: SchemaRef,
    data_fields: Vec<DataField>,
    display: String,
}

fn orc_error(display: &str, e: impl std::fmt::Display) -> Error {
    ErrorDetail::DataFile {
        format: "ORC",
        path: display.to_string(),
        message: e.to_string(),
    }
    .into()
}

fn has_nanos(t: &DataType) -> bool {
    match &t.kind {
        TypeKind::Timestamp(precision) | TypeKind::LocalZonedTimestamp(precision) => *precision > 6,
        TypeKind::Array(e) | TypeKind::Multiset(e) => has_nanos(e),
        TypeKind::Map { key, value } => has_nanos(key) || has_nanos(value),
        TypeKind::Row(fields) => fields.iter().any(|f| has_nanos(&f.data_type)),
        _ => false,
    }
}

impl OrcFile {
    /// Reads the footer of the ORC file `bytes` written with the columns `data_fields`.
    pub(super) fn open(bytes: Bytes, data_fields: &[DataField], display: &str) -> Result<Self> {
        let precision = if data_fields.iter().any(|f| has_nanos(&f.data_type)) {
            TimestampPrecision::Nanosecond
        } else {
            TimestampPrecision::Microsecond
        };
        let builder = ArrowReaderBuilder::try_new(bytes)
            .map_err(|e| orc_error(display, e))?
            .with_timestamp_precision(precision);
        let schema = builder.schema();
        Ok(OrcFile {
            builder,
            schema,
            data_fields: data_fields.to_vec(),
            display: display.to_string(),
        })
    }
}

impl DecodedFile for OrcFile {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn decode(
        self: Box<Self>,
        columns: &[String],
        batch_size: usize,
    ) -> Result<Box<dyn Iterator<Item = Result<RecordBatch>> + Send>> {
        let OrcFile {
            builder,
            display,
            data_fields,
            ..
        } = *self;
        let mask = ProjectionMask::named_roots(builder.file_metadata().root_data_type(), columns);
        let reader = builder
            .with_projection(mask)
            .with_batch_size(batch_size)
            .build();
        Ok(Box::new(reader.map(move |batch| {
            let batch = batch.map_err(|e| orc_error(&display, e))?;
            rewrite_batch(&batch, &data_fields, &is_char, &trim_char)
        })))
    }
}

fn is_char(t: &DataType) -> bool {
    matches!(t.kind, TypeKind::Char(_))
}

/// The [`rewrite`](super::nested_rewrite::rewrite) hook for CHAR(n): ORC stores the values
/// blank-padded to n characters and Java's ORC reader (`CharTreeReader`) strips the trailing
/// blanks again, so a CHAR value reads back as Java reads it.
fn trim_char(array: &ArrayRef, t: &DataType, _path: &str) -> Result<Option<ArrayRef>> {
    if !is_char(t) {
        return Ok(None);
    }
    let Some(strings) = array.as_string_opt::<i32>() else {
        return Ok(None);
    };
    let trimmed: StringArray = strings
        .iter()
        .map(|v| v.map(|s| s.trim_end_matches(' ')))
        .collect();
    Ok(Some(Arc::new(trimmed)))
}
