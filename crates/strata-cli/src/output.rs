//! Output formats of `strata read`: a text table, JSON lines, CSV or Parquet, to stdout or
//! a file. JSON lines and CSV stream batch by batch; the text table is rendered at the end.

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

use crate::commands::{msg, Result};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Jsonl,
    Csv,
    Parquet,
}

fn sink(output: Option<&Path>) -> Result<Box<dyn Write + Send>> {
    match output {
        Some(p) => Ok(Box::new(std::io::BufWriter::new(File::create(p).map_err(|e| {
            msg(format!("cannot create output file {}: {e}", p.display()))
        })?))),
        None => Ok(Box::new(std::io::BufWriter::new(std::io::stdout()))),
    }
}

fn werr(e: impl std::fmt::Display) -> crate::commands::CliError {
    msg(format!("cannot write output: {e}"))
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
            let out = sink(output)?;
            let mut w = arrow_json::WriterBuilder::new()
                .with_explicit_nulls(true)
                .build::<_, arrow_json::writer::LineDelimited>(out);
            while let Some(b) = stream.next().await {
                w.write(&b?).map_err(werr)?;
            }
            w.finish().map_err(werr)?;
            w.into_inner().flush().map_err(werr)
        }
        Format::Csv => {
            let out = sink(output)?;
            let mut w = arrow_csv::WriterBuilder::new().with_header(true).build(out);
            let mut any = false;
            while let Some(b) = stream.next().await {
                w.write(&b?).map_err(werr)?;
                any = true;
            }
            if !any {
                w.write(&RecordBatch::new_empty(schema)).map_err(werr)?;
            }
            w.into_inner().flush().map_err(werr)
        }
        Format::Parquet => {
            if output.is_none() && std::io::stdout().is_terminal() {
                return Err(msg("--format parquet writes binary data: give --output FILE or redirect stdout"));
            }
            let out = sink(output)?;
            let props = WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).map_err(werr)?))
                .build();
            let mut w = ArrowWriter::try_new(out, schema, Some(props)).map_err(werr)?;
            while let Some(b) = stream.next().await {
                w.write(&b?).map_err(werr)?;
            }
            w.close().map_err(werr)?;
            Ok(())
        }
    }
}
