//! Reading an incremental plan ([`crate::scan::IncrementalScan`]) into Arrow batches whose
//! first column is each row's kind, `rowkind` (`+I`, `-U`, `+U`, `-D`), as Java's
//! `t$audit_log` returns an incremental read (its read keeps deletes: `forceKeepDelete`).
//!
//! * Delta and changelog splits ([`IncrementalSplit::Records`]): every record of every file
//!   as written, with its `_VALUE_KIND` — files are read one by one and never merged, and no
//!   deletion vectors are applied (Java reads them with `MergeFileSplitRead.createNoMergeReader`
//!   for primary-key tables, its raw reader without deletion files for append tables). Rows of
//!   append tables are `+I`.
//! * Diff splits ([`IncrementalSplit::Diff`]) of primary-key tables: each side is merged with
//!   the table's merge engine as of its snapshot (deletes kept, its deletion vectors applied),
//!   then the two sides are compared key by key (`incremental_diff`, Java
//!   `IncrementalDiffSplitRead.DiffMerger`). Append tables return the rows of the files only
//!   END holds (Java ignores the files only START holds).

use crate::error::ErrorDetail;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::stream::{self, BoxStream};
use futures::StreamExt;

use super::batching::DEFAULT_BATCH_SIZE;
use super::incremental_diff;
use super::table_read::TableRead;
use crate::scan::{DataSplit, IncrementalSplit};
use crate::table::Table;
use crate::{Error, Result};

impl Table {
    /// A reader of incremental plans ([`IncrementalRead`]).
    pub fn new_incremental_read(&self) -> IncrementalRead {
        IncrementalRead {
            table: self.clone(),
            projection: None,
            batch_size: DEFAULT_BATCH_SIZE,
        }
    }
}

/// Reads [`IncrementalSplit`]s: every row with its kind in a first `rowkind` column.
///
/// ```no_run
/// # async fn f(table: strata::table::Table) -> strata::Result<()> {
/// use strata::scan::{IncrementalBetween, IncrementalMode};
/// let plan = table
///     .new_incremental_scan(IncrementalBetween::ids(3, 7))
///     .with_mode(IncrementalMode::Delta)
///     .plan()
///     .await?;
/// let batches = table.new_incremental_read().to_batches(plan.splits).await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct IncrementalRead {
    table: Table,
    projection: Option<Vec<String>>,
    batch_size: usize,
}

impl IncrementalRead {
    /// Output only these columns (after `rowkind`), in this order. A diff still compares
    /// whole rows, as Java does.
    pub fn with_projection(mut self, columns: Vec<String>) -> Self {
        self.projection = Some(columns);
        self
    }

    /// Rows per output batch at most (default [`crate::read::DEFAULT_BATCH_SIZE`]; 0 counts as 1).
    pub fn with_batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// The audit-log read of the projection.
    fn table_read(&self) -> TableRead {
        let mut read = self
            .table
            .new_read()
            .with_row_kinds()
            .with_batch_size(self.batch_size);
        if let Some(p) = &self.projection {
            read = read.with_projection(p.clone());
        }
        read
    }

    /// The output schema: `rowkind STRING NOT NULL`, then the projected columns.
    pub fn output_schema(&self) -> Result<SchemaRef> {
        self.table_read().output_schema()
    }

    /// Streams the rows of `splits`.
    pub fn to_stream(
        &self,
        splits: Vec<IncrementalSplit>,
    ) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        let pk = self.table.is_primary_key_table();
        let out_schema = self.output_schema()?;
        let mut streams: Vec<BoxStream<'static, Result<RecordBatch>>> = Vec::new();
        for split in splits {
            match split {
                IncrementalSplit::Records(split) => {
                    let read = self.table_read().without_deletion_vectors();
                    // One file per split: the merge path reads a lone file without merging.
                    streams.push(read.to_stream(one_file_splits(split))?);
                }
                IncrementalSplit::Diff {
                    after, snapshots, ..
                } if !pk => {
                    let read = self.table_read().with_snapshot_metas(snapshots);
                    streams.push(read.to_stream(vec![after])?);
                }
                IncrementalSplit::Diff {
                    before,
                    after,
                    snapshots,
                } => {
                    // Whole rows on both sides: Java compares whole values.
                    let whole = self
                        .table
                        .new_read()
                        .with_row_kinds()
                        .with_batch_size(self.batch_size)
                        .with_snapshot_metas(snapshots);
                    let merged = incremental_diff::diff_stream(
                        &self.table,
                        whole.output_schema()?,
                        whole.to_stream(vec![before])?,
                        whole.to_stream(vec![after])?,
                        self.batch_size,
                    )?;
                    let schema = out_schema.clone();
                    streams.push(
                        merged
                            .map(move |b| b.and_then(|b| project(&schema, &b)))
                            .boxed(),
                    );
                }
            }
        }
        Ok(stream::iter(streams).flatten().boxed())
    }

    /// Reads `splits` into memory.
    pub async fn to_batches(&self, splits: Vec<IncrementalSplit>) -> Result<Vec<RecordBatch>> {
        let mut s = self.to_stream(splits)?;
        let mut out = Vec::new();
        while let Some(b) = s.next().await {
            out.push(b?);
        }
        Ok(out)
    }
}

/// `split` as one split per file, each read on its own.
fn one_file_splits(split: DataSplit) -> Vec<DataSplit> {
    let DataSplit { files, .. } = &split;
    files
        .iter()
        .map(|f| DataSplit {
            files: vec![f.clone()],
            raw_convertible: false,
            ..split.clone()
        })
        .collect()
}

/// The columns of `schema` taken by name from `batch` (whole rows of a diff).
fn project(schema: &SchemaRef, batch: &RecordBatch) -> Result<RecordBatch> {
    let mut columns = Vec::with_capacity(schema.fields().len());
    for f in schema.fields() {
        let i = batch.schema().index_of(f.name()).map_err(|_| {
            Error::from(ErrorDetail::Unsupported(format!(
                "column {:?} in an incremental diff read: project table columns only",
                f.name()
            )))
        })?;
        columns.push(batch.column(i).clone());
    }
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(Arc::clone(schema), columns, &options)
        .map_err(|e| Error::arrow("projecting an incremental diff", e))
}
