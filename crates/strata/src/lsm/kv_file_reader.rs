//! [`KvFileReader`]: reads one key-value data file as [`KvLayout`] batches (Java
//! `KeyValueFileReaderFactory`).
//!
//! A file stores `_KEY_…, _SEQUENCE_NUMBER, _VALUE_KIND, values…` in the schema it was
//! written with. Only `_SEQUENCE_NUMBER`, `_VALUE_KIND` and the value columns the layout needs
//! are decoded — the key columns are the primary-key value columns again, so
//! [`KvLayout::assemble`] rebuilds them from the values without a second decode. Columns are
//! matched by field id, so files of older schema versions read in the layout's (current)
//! schema. Used by merge-on-read and by compaction rewrites.

use std::sync::Arc;

use arrow_array::RecordBatch;
use futures::stream::BoxStream;
use futures::StreamExt;
use object_store::path::Path;
use strata_spec::kv::{key_value_fields, SEQUENCE_NUMBER_ID};
use strata_spec::manifest::DataFileMeta;

use super::kv_layout::KvLayout;
use crate::format::data_file_reader::read_data_file;
use crate::format::page_pruning::StatsPruning;
use crate::format::parquet_reader::{ParquetReadOptions, PushedRowFilter};
use crate::format::{ReadHints, ReadMetrics};
use crate::io::FileIO;
use crate::meta::SchemaManager;
use crate::Result;

/// Reads key-value files of one table into one [`KvLayout`].
#[derive(Clone)]
pub(crate) struct KvFileReader {
    io: FileIO,
    schemas: SchemaManager,
    layout: Arc<KvLayout>,
    batch_size: usize,
    /// Where the Parquet reader counts files, row groups and bytes.
    metrics: Option<Arc<ReadMetrics>>,
}

impl KvFileReader {
    pub(crate) fn new(
        io: FileIO,
        schemas: SchemaManager,
        layout: Arc<KvLayout>,
        batch_size: usize,
    ) -> Self {
        KvFileReader {
            io,
            schemas,
            layout,
            batch_size,
            metrics: None,
        }
    }

    /// Counts what this reader reads into `metrics`.
    pub(crate) fn with_metrics(mut self, metrics: Option<Arc<ReadMetrics>>) -> Self {
        self.metrics = metrics;
        self
    }

    pub(crate) fn layout(&self) -> &Arc<KvLayout> {
        &self.layout
    }

    /// The fields decoded from a file: `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then the layout's
    /// value fields. A row filter given to [`Self::read`] is bound to these fields.
    pub(crate) async fn read_fields(&self, file: &DataFileMeta) -> Result<ReadFields> {
        let data_schema = self.schemas.schema(file.schema_id).await?;
        let data_fields = key_value_fields(&data_schema)?;
        let seq_pos = data_fields
            .iter()
            .position(|f| f.id == SEQUENCE_NUMBER_ID)
            .expect("key_value_fields always holds _SEQUENCE_NUMBER followed by _VALUE_KIND");
        let mut read = vec![
            data_fields[seq_pos].clone(),
            data_fields[seq_pos + 1].clone(),
        ];
        read.extend(self.layout.value_fields.iter().cloned());
        Ok(ReadFields {
            data: data_fields,
            read,
        })
    }

    /// Streams the records of `file` at `path` in layout form, in file order.
    /// Reads `file` at `path`, or at the file's own external path when it has one.
    pub(crate) async fn read(
        &self,
        path: &Path,
        file: &DataFileMeta,
        fields: &ReadFields,
        row_filter: Option<PushedRowFilter>,
        stats_pruning: Option<Arc<StatsPruning>>,
    ) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        let options = ParquetReadOptions {
            file_size: Some(file.file_size as u64),
            batch_size: self.batch_size,
            row_filter,
            stats_pruning,
            hints: ReadHints {
                metrics: self.metrics.clone(),
                ..Default::default()
            },
            ..Default::default()
        };
        // A file another engine wrote outside the table directory is read where it is.
        let (io, path) = match &file.external_path {
            Some(uri) => self.io.resolve_external(uri)?,
            None => (self.io.clone(), path.clone()),
        };
        let stream = read_data_file(&io, &path, &fields.data, &fields.read, options).await?;
        let layout = self.layout.clone();
        Ok(stream
            .map(move |b| {
                b.and_then(|b| {
                    let cols = b.columns();
                    layout.assemble(cols[2..].to_vec(), cols[0].clone(), cols[1].clone())
                })
            })
            .boxed())
    }
}

/// The columns of a file and the columns decoded from it.
pub(crate) struct ReadFields {
    /// Every column of the file, in its own schema.
    pub data: Vec<strata_spec::DataField>,
    /// `_SEQUENCE_NUMBER`, `_VALUE_KIND`, value fields.
    pub read: Vec<strata_spec::DataField>,
}
