//! The write path of append tables: [`TableWrite`].
//!
//! Arrow batches come in (columns matched to the table schema by name and cast), rows are
//! routed to (partition, bucket) — bucket `0` for unaware-bucket tables (`bucket = -1`), or
//! Paimon's Murmur hash of the bucket-key BinaryRow for fixed-bucket tables — and each
//! (partition, bucket) has a [`bucket_writer::BucketWriter`] rolling Parquet files at
//! `target-file-size`. [`TableWrite::prepare_commit`] closes every open file and returns one
//! [`CommitMessage`] per (partition, bucket); [`TableWrite::abort`] deletes everything written
//! so a failed write leaves no trace in the table.

mod bucket_writer;
mod routing;
mod stats_options;

use std::collections::HashMap;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use strata_spec::binary_row::BinaryRow;

use crate::commit::CommitMessage;
use crate::format::arrow_types::to_arrow_schema;
use crate::format::convert::cast_batch_to_schema;
use crate::table::Table;
use crate::{Error, Result};

use bucket_writer::{BucketWriter, WriterConfig};
use routing::Router;

/// Writes Arrow batches into new data files of one table; commit them with
/// [`crate::commit::TableCommit`].
pub struct TableWrite {
    table: Table,
    arrow_schema: SchemaRef,
    router: Router,
    config: std::sync::Arc<WriterConfig>,
    writers: HashMap<(BinaryRow, i32), BucketWriter>,
    /// Max sequence number per (partition, bucket) in the latest snapshot, loaded on first use.
    restored_seq: Option<HashMap<(BinaryRow, i32), i64>>,
    /// Rows received so far.
    rows_written: u64,
}

impl TableWrite {
    pub(crate) fn new(table: Table) -> Result<Self> {
        if table.is_primary_key_table() {
            return Err(Error::Unsupported(format!(
                "writing primary-key table {} is not supported yet (append tables only)",
                table.identifier()
            )));
        }
        let schema = table.schema().clone();
        let arrow_schema = to_arrow_schema(&schema.row_type())?;
        let router = Router::new(&table)?;
        let config = std::sync::Arc::new(WriterConfig::from_table(&table)?);
        Ok(TableWrite {
            table,
            arrow_schema,
            router,
            config,
            writers: HashMap::new(),
            restored_seq: None,
            rows_written: 0,
        })
    }

    /// The Arrow schema input batches are converted to.
    pub fn arrow_schema(&self) -> &SchemaRef {
        &self.arrow_schema
    }

    /// Rows accepted so far.
    pub fn rows_written(&self) -> u64 {
        self.rows_written
    }

    /// Bytes of data files written so far (including files still open).
    pub fn bytes_written(&self) -> u64 {
        self.writers.values().map(|w| w.bytes_written()).sum()
    }

    /// Writes one batch. Columns are matched by name and cast to the table's types; a
    /// missing NOT NULL column, an extra column or an impossible cast is an error naming the
    /// column.
    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let batch = cast_batch_to_schema(
            batch,
            &self.arrow_schema,
            &self.table.identifier().to_string(),
        )?;
        if self.restored_seq.is_none() {
            self.restored_seq = Some(restore_sequence_numbers(&self.table).await?);
        }
        for (partition, bucket, part) in self.router.route(&batch)? {
            let key = (partition, bucket);
            if !self.writers.contains_key(&key) {
                let next_seq = self
                    .restored_seq
                    .as_ref()
                    .and_then(|m| m.get(&key))
                    .map(|s| s + 1)
                    .unwrap_or(0);
                let dir = self.table.partition_path(&key.0)?;
                let w = BucketWriter::new(
                    self.table.clone(),
                    self.config.clone(),
                    key.0.clone(),
                    dir,
                    bucket,
                    next_seq,
                );
                self.writers.insert(key.clone(), w);
            }
            let w = self
                .writers
                .get_mut(&key)
                .expect("writer was inserted just above");
            w.write(&part).await?;
        }
        self.rows_written += batch.num_rows() as u64;
        Ok(())
    }

    /// Closes all open files and returns the new files per (partition, bucket).
    pub async fn prepare_commit(&mut self) -> Result<Vec<CommitMessage>> {
        let mut out = Vec::new();
        let total_buckets = self.router.total_buckets();
        let mut keys: Vec<_> = self.writers.keys().cloned().collect();
        keys.sort_by(|a, b| (a.0.as_bytes(), a.1).cmp(&(b.0.as_bytes(), b.1)));
        for key in keys {
            let w = self
                .writers
                .get_mut(&key)
                .expect("key was taken from the map");
            let files = w.prepare_commit().await?;
            if !files.is_empty() {
                out.push(CommitMessage {
                    partition: key.0.clone(),
                    bucket: key.1,
                    total_buckets,
                    new_files: files,
                    index_changes: Vec::new(),
                });
            }
        }
        Ok(out)
    }

    /// Deletes every file this writer created (best effort) — for a failed write or commit.
    pub async fn abort(&mut self) {
        for w in self.writers.values_mut() {
            w.abort().await;
        }
        self.writers.clear();
    }
}

/// Max sequence number per (partition, bucket) among the live files of the latest snapshot
/// (a free function so the write future never holds `&TableWrite` across an await).
async fn restore_sequence_numbers(table: &Table) -> Result<HashMap<(BinaryRow, i32), i64>> {
    let mut out: HashMap<(BinaryRow, i32), i64> = HashMap::new();
    let Some(snapshot) = table.snapshot_manager().latest().await? else {
        return Ok(out);
    };
    let metas = table.manifest_store().data_manifests(&snapshot).await?;
    for e in crate::scan::live_entries(table, &snapshot, &metas).await? {
        let v = out.entry((e.partition, e.bucket)).or_insert(-1);
        *v = (*v).max(e.file.max_sequence_number);
    }
    Ok(out)
}
