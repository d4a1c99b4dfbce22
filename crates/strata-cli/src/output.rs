//! Output formats of `strata read`: a text table, JSON lines, CSV or Parquet, to stdout or
//! a file. JSON lines and CSV stream batch by batch; the text table is rendered at the end.
//! Also [`println_json`], the one-JSON-object-per-line output of the metadata commands.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::Path;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use futures::stream::BoxStream;
use futures::StreamExt;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::error::{msg, write_error as werr, Result};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Jsonl,
    Csv,
    Parquet,
}

fn sink(output: Option<&Path>) -> Result<Box<dyn Write + Send>> {
    match output {
        Some(p) => Ok(Box::new(std::io::BufWriter::new(File::create(p).map_err(
            |e| msg(format!("cannot create output file {}: {e}", p.display())),
        )?))),
        None => Ok(Box::new(std::io::BufWriter::new(std::io::stdout()))),
    }
}

/// Writes `v` as one JSON line (the metadata commands' output).
pub fn println_json(out: &mut impl Write, v: &serde_json::Value) -> Result<()> {
    writeln!(out, "{v}").map_err(werr)
}

/// Drains `stream` into `output` (stdout when `None`) in `format`.
pub async fn write_stream(
    mut stream: BoxStream<'static, strata::Result<RecordBatch>>,
    schema: SchemaRef,
    format: Format,
    output: Option<&Path>,
) -> Result<()> {
    match format {
        Format::Table => {
            let mut batches = Vec::new();
            while let Some(b) = stream.next().await {
                batches.push(b?);
            }
            let text = if batches.is_empty() {
                arrow::util::pretty::pretty_format_batches(&[RecordBatch::new_empty(schema)])
            } else {
                arrow::util::pretty::pretty_format_batches(&batches)
            }
            .map_err(werr)?;
            let mut out = sink(output)?;
            writeln!(out, "{text}").map_err(werr)?;
            out.flush().map_err(werr)
        }
        Format::Jsonl => {
            let mut out = sink(output)?;
            while let Some(b) = stream.next().await {
                let b = b?;
                for row in 0..b.num_rows() {
                    let v = crate::json_values::row_to_json(&b, row)?;
                    writeln!(out, "{v}").map_err(werr)?;
                }
            }
            out.flush().map_err(werr)
        }
        Format::Csv => {
            let out = sink(output)?;
            let mut w = arrow_csv::WriterBuilder::new().with_header(true).build(out);
            let mut any = false;
            while let Some(b) = stream.next().await {
                w.write(&csv_safe(&b?)?).map_err(werr)?;
                any = true;
            }
            if !any {
                w.write(&csv_safe(&RecordBatch::new_empty(schema))?)
                    .map_err(werr)?;
            }
            w.into_inner().flush().map_err(werr)
        }
        Format::Parquet => {
            if output.is_none() && std::io::stdout().is_terminal() {
                return Err(msg(
                    "--format parquet writes binary data: give --output FILE or redirect stdout",
                ));
            }
            let out = sink(output)?;
            let props = WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).map_err(werr)?))
                .build();
            let schema = plain_schema(&schema);
            let mut w = ArrowWriter::try_new(out, schema.clone(), Some(props)).map_err(werr)?;
            while let Some(b) = stream.next().await {
                w.write(&plain_strings(&b?, &schema)?).map_err(werr)?;
            }
            w.close().map_err(werr)?;
            Ok(())
        }
    }
}

/// `schema` with string and binary views as plain strings and binaries: the Arrow schema
/// stored in a Parquet file names the view types, which older readers (pyarrow before 16,
/// Spark) do not know.
fn plain_schema(schema: &SchemaRef) -> SchemaRef {
    use arrow::datatypes::{DataType, Schema};
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Utf8View => f.as_ref().clone().with_data_type(DataType::Utf8),
            DataType::BinaryView => f.as_ref().clone().with_data_type(DataType::Binary),
            _ => f.as_ref().clone(),
        })
        .collect();
    std::sync::Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` cast to `schema` (its [`plain_schema`]).
fn plain_strings(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| match c.data_type() == f.data_type() {
            true => Ok(c.clone()),
            false => arrow::compute::cast(c, f.data_type()).map_err(werr),
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(schema.clone(), columns).map_err(werr)
}

/// CSV cannot carry nested or binary values: those columns become text in the JSON encoding
/// of `--format jsonl` (binary as `0x…`, nested values as JSON).
fn csv_safe(batch: &RecordBatch) -> Result<RecordBatch> {
    use arrow::array::{Array, ArrayRef, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    let needs_text = |t: &DataType| {
        t.is_nested()
            || matches!(
                t,
                DataType::Binary
                    | DataType::LargeBinary
                    | DataType::BinaryView
                    | DataType::FixedSizeBinary(_)
            )
    };
    if !batch
        .schema()
        .fields()
        .iter()
        .any(|f| needs_text(f.data_type()))
    {
        return Ok(batch.clone());
    }
    let mut fields = Vec::new();
    let mut cols: Vec<ArrayRef> = Vec::new();
    for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
        if needs_text(f.data_type()) {
            let mut v: Vec<Option<String>> = Vec::with_capacity(c.len());
            for row in 0..c.len() {
                v.push(match crate::json_values::cell_to_json(c.as_ref(), row)? {
                    serde_json::Value::Null => None,
                    serde_json::Value::String(s) => Some(s),
                    other => Some(other.to_string()),
                });
            }
            fields.push(Field::new(f.name(), DataType::Utf8, true));
            cols.push(std::sync::Arc::new(StringArray::from(v)));
        } else {
            fields.push(f.as_ref().clone());
            cols.push(c.clone());
        }
    }
    RecordBatch::try_new(std::sync::Arc::new(Schema::new(fields)), cols).map_err(werr)
}
