//! Reading any data file of a table, whatever its format: Parquet (Paimon's default and the only
//! format strata writes) and the ORC and Avro files Java Paimon writes for tables with
//! `file.format` = `orc` / `avro`.
//!
//! Like Paimon (`DataFilePathFactory.formatIdentifier`), [`read_data_file`] picks the reader by
//! the file name's extension, not by the table's `file.format`: a table whose option was changed
//! holds files of several formats, and each is read as what it is.
//!
//! Every format yields the same batches: exactly the Arrow schema of the read fields, columns tied
//! to file columns by field id then name, cast and evolved by [`super::evolve`] (the column plan
//! of [`super::parquet_reader`] is shared). ORC and Avro files are fetched whole and decoded batch
//! by batch as the stream is polled ([`super::orc_reader`], [`super::avro_reader`]); of the
//! [`ParquetReadOptions`] they honour the batch size, the pushed row filter (evaluated on each
//! decoded batch, so it stays exact), string views and the read counters, and refuse a row
//! range. Row-group filters, page selection and
//! shredded-MAP hints concern Parquet footers and do not apply to them.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_select::filter::filter_record_batch;
use futures::stream::BoxStream;
use futures::StreamExt;
use object_store::path::Path;
use strata_spec::types::DataField;

use super::decoded_file::DecodedFile;
use super::map_shredding::FileShreddingMeta;
use super::parquet_reader::{
    evolve_batch, plan_columns, read_parquet_with, read_schema, ColumnPlan, Decode,
    ParquetReadOptions,
};
use super::read_hints::{ReadHints, ReadMetrics};
use crate::error::{ErrorDetail, ResultExt};
use crate::io::FileIO;
use crate::{Error, Result};

/// The format of a data file, from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DataFileFormat {
    Parquet,
    Orc,
    Avro,
}

impl DataFileFormat {
    /// The format of the data file at `path` by its extension (`data-<uuid>-0.orc`...). A name
    /// with another extension is an error naming the file.
    pub(crate) fn of(path: &Path, display: &str) -> Result<DataFileFormat> {
        let name = path.filename().unwrap_or_default();
        let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("parquet") => Ok(DataFileFormat::Parquet),
            Some("orc") => Ok(DataFileFormat::Orc),
            Some("avro") => Ok(DataFileFormat::Avro),
            _ => Err(ErrorDetail::Unsupported(format!(
                "data file {display}: unknown format (strata reads .parquet, .orc and .avro \
                 data files)"
            ))
            .into()),
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            DataFileFormat::Parquet => "Parquet",
            DataFileFormat::Orc => "ORC",
            DataFileFormat::Avro => "Avro",
        }
    }
}

/// Reads a data file of any format as batches of `read_fields`, where `data_fields` is the
/// schema the file was written with (see the module docs). Every error, opening or decoding,
/// names the file in its context ([`crate::Error::file`]).
pub(crate) async fn read_data_file(
    io: &FileIO,
    path: &Path,
    data_fields: &[DataField],
    read_fields: &[DataField],
    options: ParquetReadOptions,
) -> Result<BoxStream<'static, Result<RecordBatch>>> {
    let display = io.display(path);
    let batches = open_data_file(io, path, data_fields, read_fields, options)
        .await
        .with_file(&display)?;
    Ok(batches.map(move |b| b.with_file(&display)).boxed())
}

async fn open_data_file(
    io: &FileIO,
    path: &Path,
    data_fields: &[DataField],
    read_fields: &[DataField],
    options: ParquetReadOptions,
) -> Result<BoxStream<'static, Result<RecordBatch>>> {
    let display = io.display(path);
    let format = DataFileFormat::of(path, &display)?;
    if format == DataFileFormat::Parquet {
        return read_parquet_with(io, path, data_fields, read_fields, options).await;
    }
    if options.row_range.is_some() {
        return Err(ErrorDetail::Unsupported(format!(
            "data file {display}: reading a row range of a {} file (only Parquet files are read \
             in slices)",
            format.name()
        ))
        .into());
    }
    let bytes = io.get(path).await?;
    if let Some(m) = &options.hints.metrics {
        ReadMetrics::add(&m.bytes_read, bytes.len() as u64);
        ReadMetrics::add(&m.files_read, 1);
    }
    let file: Box<dyn DecodedFile> = match format {
        DataFileFormat::Orc => Box::new(super::orc_reader::OrcFile::open(
            bytes,
            data_fields,
            &display,
        )?),
        DataFileFormat::Avro => Box::new(super::avro_reader::AvroFile::open(
            bytes,
            data_fields,
            &display,
        )?),
        DataFileFormat::Parquet => unreachable!("returned above"),
    };
    read_decoded(file, data_fields, read_fields, options, display)
}

fn read_decoded(
    file: Box<dyn DecodedFile>,
    data_fields: &[DataField],
    read_fields: &[DataField],
    options: ParquetReadOptions,
    display: String,
) -> Result<BoxStream<'static, Result<RecordBatch>>> {
    let file_schema = file.schema();
    let target_schema = read_schema(read_fields, options.string_views)?;
    // No shredded MAP columns outside Parquet, and no MAP-key hints to honour.
    let shredding = FileShreddingMeta::default();
    let hints = ReadHints::default();
    let mut decode = Decode::default();
    let plans = plan_columns(
        &file_schema,
        data_fields,
        read_fields,
        &target_schema,
        &mut decode,
        &display,
        &shredding,
        &hints,
    )?;
    let filter = match &options.row_filter {
        Some(f) => {
            let schema = read_schema(&f.fields, options.string_views)?;
            let plans = plan_columns(
                &file_schema,
                data_fields,
                &f.fields,
                &schema,
                &mut decode,
                &display,
                &shredding,
                &hints,
            )?;
            Some((plans, schema, f.predicate.clone()))
        }
        None => None,
    };
    let columns: Vec<String> = decode
        .roots
        .iter()
        .map(|&i| file_schema.field(i).name().clone())
        .collect();
    let batches = file.decode(&columns, options.batch_size.max(1))?;
    let plans: Arc<Vec<ColumnPlan>> = Arc::new(plans);
    let out = batches.filter_map(move |batch| {
        let result = (|| {
            let batch = batch?;
            let mut out = evolve_batch(&batch, &plans, &target_schema)?;
            if let Some((plans, schema, predicate)) = &filter {
                let keep = predicate(&evolve_batch(&batch, plans, schema)?)?;
                out = filter_record_batch(&out, &keep)
                    .map_err(|e| Error::arrow("applying the row filter", e))?;
            }
            Ok(out)
        })();
        match result {
            Ok(b) if b.num_rows() == 0 => None,
            Ok(b) => Some(Ok(b)),
            Err(e) => Some(Err(in_file(e, &display))),
        }
    });
    Ok(futures::stream::iter(out).boxed())
}

fn in_file(e: Error, display: &str) -> Error {
    e.map_detail(|d| match d {
        ErrorDetail::SchemaMismatch { column, message } if !message.contains(display) => {
            ErrorDetail::SchemaMismatch {
                column,
                message: format!("reading {display}: {message}"),
            }
        }
        other => other,
    })
}
