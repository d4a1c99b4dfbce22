//! Writes of postpone-bucket tables (`bucket = -2`): every row goes to the partition's postpone
//! bucket (`bucket-postpone`), as Java's `PostponeBucketFileStoreWrite` and
//! `PostponeBucketWriter` write it.
//!
//! Java's postpone writer neither sorts nor merges: records go to level-0 files in arrival
//! order (a `DirectSinkWriter`), each with the unknown sequence number (`-1`,
//! `KeyValue.UNKNOWN_SEQUENCE`) and its row kind, so the file's min/max key are its first and
//! last records' keys and its sequence range is `[-1, -1]`. Files carry no statistics
//! (`metadata.stats-mode = none` for keys and values) and are named
//! `<data-file.prefix>-u-<commitUser>-s-<writeId>-w-<uuid>-<n>`, the prefix telling the
//! compaction which files one writer wrote (`PostponeBucketFileStoreWrite.getWriterPrefix`).
//! Commit messages have bucket `-2` and `totalBuckets = -2`. The records reach real buckets
//! only when the table is compacted (`super::postpone_compact`).
//!
//! Java writes postpone files in Avro when the schema converts to Avro, else in the table's
//! `file.format`; strata writes Parquet only, so its postpone files are Parquet (Java's
//! fallback shape, which every Paimon reader reads by the file's extension).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use arrow_array::{ArrayRef, Int64Array, Int8Array};
use strata_spec::binary_row::BinaryRow;
use strata_spec::kv::RowKind;
use strata_spec::manifest::FileSource;
use strata_spec::options::POSTPONE_BUCKET;

use crate::commit::CommitMessage;
use crate::lsm::kv_file_writer::{KvWriterConfig, RollingKvWriter};
use crate::lsm::kv_layout::{is_retract_byte, KvLayout};
use crate::lsm::merge::function::{KvMeta, MergeFunction};
use crate::lsm::merge::value::value_at;
use crate::meta::FileNamer;
use crate::table::Table;
use crate::Result;

/// Java's `KeyValue.UNKNOWN_SEQUENCE`: the sequence number of every postponed record.
const UNKNOWN_SEQUENCE: i64 = -1;

/// The postpone-bucket writers of one write, one per partition.
pub(super) struct PostponeWrite {
    table: Table,
    config: Arc<KvWriterConfig>,
    layout: Arc<KvLayout>,
    /// The table's merge engine, asked once whether it takes a retraction (Java
    /// `PostponeBucketWriter.validateRetract`): a `-U` / `-D` it refuses fails the write, not
    /// a later compaction.
    merge: Arc<dyn MergeFunction>,
    retract_validated: bool,
    /// The open writer of each partition. Behind a mutex only so that `PostponeWrite` is
    /// `Sync` (an open Parquet writer is not); each writer is taken out while it writes.
    writers: Mutex<HashMap<BinaryRow, (RollingKvWriter, FileNamer)>>,
}

/// The file-name prefix of one postpone writer (Java sets `data-file.prefix` to
/// `<prefix>-u-<commitUser>-s-<writeId>-w-`; `writeId` a random non-negative `int` when the
/// writer has no task id). strata's writes have no commit user yet, so a fresh UUID stands in:
/// readers only need the prefix to be one writer's.
fn writer_prefix(table: &Table) -> Result<String> {
    let user = uuid::Uuid::new_v4();
    let write_id = u32::from_le_bytes(
        uuid::Uuid::new_v4().as_bytes()[..4]
            .try_into()
            .expect("a UUID has 16 bytes"),
    ) & 0x7fff_ffff;
    Ok(format!(
        "{}-u-{user}-s-{write_id}-w-",
        table.options().data_file_prefix()
    ))
}

impl PostponeWrite {
    pub(super) fn new(table: Table) -> Result<Self> {
        let config = KvWriterConfig::for_postpone(table.schema(), writer_prefix(&table)?)?;
        let layout = config.layout.clone();
        let merge = crate::lsm::merge::create_merge_function(table.schema())?;
        Ok(PostponeWrite {
            merge,
            retract_validated: false,
            table,
            config,
            layout,
            writers: Mutex::new(HashMap::new()),
        })
    }

    fn writers(&self) -> MutexGuard<'_, HashMap<BinaryRow, (RollingKvWriter, FileNamer)>> {
        self.writers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends rows (all table columns, cast) with their row kinds to the partition's
    /// postpone file, in arrival order.
    pub(super) async fn write(
        &mut self,
        partition: BinaryRow,
        values: Vec<ArrayRef>,
        kinds: Vec<i8>,
    ) -> Result<()> {
        if !self.retract_validated {
            self.validate_retract(&values, &kinds)?;
        }
        let n = kinds.len();
        let batch = self.layout.assemble(
            values,
            Arc::new(Int64Array::from(vec![UNKNOWN_SEQUENCE; n])),
            Arc::new(Int8Array::from(kinds)),
        )?;
        let taken = self.writers().remove(&partition);
        let (mut writer, namer) = match taken {
            Some(w) => w,
            None => {
                let dir = self.table.partition_path(&partition)?;
                let paths = self.table.paths().clone();
                let writer = RollingKvWriter::new(
                    self.table.file_io().clone(),
                    self.config.clone(),
                    Box::new(move |name| paths.data_file(&dir, POSTPONE_BUCKET, name)),
                    0,
                    FileSource::Append,
                );
                (writer, FileNamer::new())
            }
        };
        let result = writer.write(&batch, &namer).await;
        // Back in the map even after a failure, so that an abort deletes its files.
        self.writers().insert(partition, (writer, namer));
        result
    }

    /// The first retraction written goes through the merge engine alone (Java's
    /// `validateRetract`: `reset`, `add`, `getResult`), so an engine that refuses retractions
    /// (first-row without `ignore-delete`, ...) fails this write as Java's does.
    fn validate_retract(&mut self, values: &[ArrayRef], kinds: &[i8]) -> Result<()> {
        let Some(row) = kinds.iter().position(|k| is_retract_byte(*k)) else {
            return Ok(());
        };
        let kind = RowKind::from_byte(kinds[row]).map_err(crate::Error::from)?;
        let meta = [KvMeta {
            sequence: UNKNOWN_SEQUENCE,
            kind,
        }];
        let row_values = if self.merge.needs_values() {
            Some(vec![values
                .iter()
                .map(|c| value_at(c.as_ref(), row))
                .collect::<Result<Vec<_>>>()?])
        } else {
            None
        };
        self.merge.merge(&meta, row_values.as_deref())?;
        self.retract_validated = true;
        Ok(())
    }

    /// Closes every file: one commit message per partition, bucket and totalBuckets `-2`.
    pub(super) async fn prepare_commit(&mut self) -> Result<Vec<CommitMessage>> {
        let mut writers = std::mem::take(&mut *self.writers());
        let mut partitions: Vec<BinaryRow> = writers.keys().cloned().collect();
        partitions.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        let mut out = Vec::new();
        let mut failure = None;
        for partition in partitions {
            let (writer, _) = writers
                .get_mut(&partition)
                .expect("key was taken from the map");
            match writer.close().await {
                Ok(files) if !files.is_empty() => out.push(CommitMessage {
                    new_files: files,
                    ..CommitMessage::new(partition, POSTPONE_BUCKET, POSTPONE_BUCKET)
                }),
                Ok(_) => {}
                Err(e) => {
                    failure = Some(self.table.error_in_bucket(e, &partition, POSTPONE_BUCKET));
                    break;
                }
            }
        }
        // Kept (closed, reusable) so that an abort after a failed commit deletes the files.
        *self.writers() = writers;
        match failure {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Deletes every file written.
    pub(super) async fn abort(&mut self) {
        let writers = std::mem::take(&mut *self.writers());
        for (_, (mut writer, _)) in writers {
            writer.abort().await;
        }
    }
}
