//! Cross-partition upsert: the global key index of `bucket = -1` primary-key tables whose
//! primary key lacks a partition key (Java's `KEY_DYNAMIC` bucket mode).
//!
//! [`GlobalIndexAssigner`] is Java's `GlobalIndexAssigner` with one assigner (strata writes
//! such a table with one writer, `WriterChannels` sends every row to writer 0):
//!
//! * **Bootstrap** (Java's `IndexBootstrap`): every live key of the latest snapshot is read —
//!   a merged read of the primary-key columns of each (partition, bucket), every level
//!   included (Java's `withLevelFilter(level -> true)`), deletion vectors applied — into a map
//!   key → (partition, bucket), and each bucket's key count (Java's
//!   `BucketAssigner.bootstrapBucket`). With `cross-partition-upsert.index-ttl`, buckets whose
//!   files are all older than the TTL are skipped (Java's `IndexBootstrap.filterSplit`).
//!   `cross-partition-upsert.bootstrap-parallelism` buckets are read at once. A key found in
//!   two partitions (a table written by two jobs at once) is refused, as Java's bulk load does.
//! * **Assignment**, row by row in input order (Java's `processInput`): a new key takes a
//!   bucket of its partition — the lowest bucket holding fewer than
//!   `dynamic-bucket.target-row-num` keys, else the lowest unused number (Java's
//!   `BucketAssigner.assignBucket`); a key in its partition keeps its bucket; a key arriving in
//!   another partition goes through the merge engine's `ExistingProcessor`: deduplicate
//!   (`DeleteExistingProcessor`) writes a DELETE of the row (partition columns set to the old
//!   partition) to the old bucket (unless `ignore-delete`, whose filter drops it in Java's
//!   writer) and the row to a bucket of the new partition; partial-update
//!   and aggregation (`UseOldExistingProcessor`) write the row into the old partition and
//!   bucket (partition columns rewritten); first-row (`SkipNewExistingProcessor`) drops it.
//!
//! The index keys are the whole primary key in Arrow's row format (Java's
//! `RowPartitionAllPrimaryKeyExtractor`), packed into 16 bytes when they fit (a BIGINT key
//! takes 9), in memory (not spilled): 52 MB for one million BIGINT keys
//! (`index_memory_for_a_million_keys`).
//! Entries do not expire during a writer's life (Java's state TTL forgets keys; strata keeps
//! them, which only avoids duplicates Java could write).

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use arrow::row::{RowConverter, SortField};
use arrow_array::{Array, ArrayRef, Int8Array, RecordBatch, UInt32Array};
use arrow_select::take::take_record_batch;
use futures::{StreamExt, TryStreamExt};
use strata_spec::binary_row::BinaryRow;
use strata_spec::kv::RowKind;
use strata_spec::manifest::DataFileMeta;
use strata_spec::options::MergeEngine;
use strata_spec::DataType;

use crate::error::ErrorDetail;
use crate::format::arrow_types::to_arrow_type;
use crate::format::datum::datums_to_array;
use crate::format::datum_at;
use crate::scan::DataSplit;
use crate::table::Table;
use crate::{Error, Result};

/// The live files of a snapshot per (partition, bucket), with the bucket count they were
/// written with: what a bootstrap reads.
pub(super) type LiveBuckets = HashMap<(BinaryRow, i32), (i32, Vec<DataFileMeta>)>;

/// What happens to a key that arrives in another partition than the one it lives in (Java's
/// `ExistingProcessor.create` by merge engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Existing {
    /// `DeleteExistingProcessor` (deduplicate).
    Delete,
    /// `UseOldExistingProcessor` (partial-update, aggregation).
    UseOld,
    /// `SkipNewExistingProcessor` (first-row).
    SkipNew,
}

/// Key → (partition id, bucket), the value packed as `partition << 32 | bucket`.
#[derive(Default)]
struct KeyIndex {
    /// Keys of at most 15 bytes: the bytes and their length in 16 bytes.
    packed: HashMap<[u64; 2], u64>,
    /// Longer keys.
    wide: HashMap<Box<[u8]>, u64>,
}

fn pack(key: &[u8]) -> Option<[u64; 2]> {
    if key.len() > 15 {
        return None;
    }
    let mut b = [0u8; 16];
    b[..key.len()].copy_from_slice(key);
    b[15] = key.len() as u8 + 1;
    let lo = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let hi = u64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
    Some([lo, hi])
}

fn slot(part: u32, bucket: i32) -> u64 {
    (u64::from(part) << 32) | u64::from(bucket as u32)
}

fn unslot(v: u64) -> (u32, i32) {
    ((v >> 32) as u32, v as u32 as i32)
}

impl KeyIndex {
    fn get(&self, key: &[u8]) -> Option<(u32, i32)> {
        match pack(key) {
            Some(p) => self.packed.get(&p).copied().map(unslot),
            None => self.wide.get(key).copied().map(unslot),
        }
    }

    /// Puts the key, returning the slot it had.
    fn put(&mut self, key: &[u8], part: u32, bucket: i32) -> Option<(u32, i32)> {
        match pack(key) {
            Some(p) => self.packed.insert(p, slot(part, bucket)).map(unslot),
            None => self
                .wide
                .insert(key.to_vec().into_boxed_slice(), slot(part, bucket))
                .map(unslot),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.packed.len() + self.wide.len()
    }

    /// Heap bytes of the maps (hashbrown: one control byte per slot, capacity rounded up).
    #[cfg(test)]
    fn memory_bytes(&self) -> usize {
        // hashbrown keeps 8 slots per 7 items of capacity.
        let table = |cap: usize, entry: usize| cap.div_ceil(7) * 8 * (entry + 1);
        table(self.packed.capacity(), 24)
            + table(self.wide.capacity(), 24)
            + self.wide.keys().map(|k| k.len()).sum::<usize>()
    }
}

/// One row's destination.
struct Emit {
    row: u32,
    /// `Some(DELETE)` for a retraction from the old partition.
    kind: Option<i8>,
}

/// The global key index and bucket assigner of one cross-partition-upsert write.
pub(super) struct GlobalIndexAssigner {
    table_name: String,
    key_idx: Vec<usize>,
    key_names: Vec<String>,
    key_types: Vec<arrow_schema::DataType>,
    partition_idx: Vec<usize>,
    partition_types: Vec<DataType>,
    index: KeyIndex,
    /// Java's `IDMapping<BinaryRow>`: partitions by id.
    partitions: Vec<BinaryRow>,
    part_ids: HashMap<Vec<u8>, u32>,
    /// Java's `BucketAssigner` statistics: keys per bucket of each partition id.
    buckets: Vec<BTreeMap<i32, i64>>,
    target_row_num: i64,
    existing: Existing,
    /// `ignore-delete`: Java's writer drops the assigner's retractions with the input's
    /// deletes (`TableWriteImpl`'s `RowKindFilter` runs after the assigner); so does strata.
    drop_retractions: bool,
}

impl GlobalIndexAssigner {
    fn empty(table: &Table) -> Result<Self> {
        let schema = table.schema();
        let row_type = schema.row_type();
        let column = |name: &String| {
            row_type.index_of(name).ok_or_else(|| {
                Error::from(ErrorDetail::ColumnNotFound {
                    column: name.clone(),
                    table: table.identifier().to_string(),
                    available: row_type.names().join(", "),
                })
            })
        };
        let key_idx = schema
            .primary_keys
            .iter()
            .map(column)
            .collect::<Result<Vec<_>>>()?;
        let key_types = key_idx
            .iter()
            .map(|i| to_arrow_type(&row_type.fields[*i].data_type))
            .collect::<Result<Vec<_>>>()?;
        let partition_idx = schema
            .partition_keys
            .iter()
            .map(column)
            .collect::<Result<Vec<_>>>()?;
        let opts = table.options();
        let existing = match opts.merge_engine()? {
            MergeEngine::Deduplicate => Existing::Delete,
            MergeEngine::PartialUpdate | MergeEngine::Aggregation => Existing::UseOld,
            MergeEngine::FirstRow => Existing::SkipNew,
        };
        Ok(GlobalIndexAssigner {
            table_name: table.identifier().to_string(),
            key_idx,
            key_names: schema.primary_keys.clone(),
            key_types,
            partition_idx,
            partition_types: schema.partition_type().types(),
            index: KeyIndex::default(),
            partitions: Vec::new(),
            part_ids: HashMap::new(),
            buckets: Vec::new(),
            target_row_num: opts.dynamic_bucket_target_row_num()?,
            existing,
            drop_retractions: opts.ignore_delete()?,
        })
    }

    /// Java's `IndexBootstrap` + `bootstrapKey`: the index of every live key of the buckets
    /// `files` (the latest snapshot's live files per (partition, bucket), `snapshot_id`).
    pub(super) async fn bootstrap(
        table: &Table,
        snapshot_id: Option<i64>,
        files: &LiveBuckets,
    ) -> Result<Self> {
        let mut this = Self::empty(table)?;
        let Some(snapshot_id) = snapshot_id else {
            return Ok(this);
        };
        let opts = table.options();
        let ttl = opts.get_duration("cross-partition-upsert.index-ttl")?;
        let parallelism = opts
            .get_i64("cross-partition-upsert.bootstrap-parallelism")?
            .unwrap_or(10)
            .max(1) as usize;
        let now = table.clock().now_millis();
        let mut splits: Vec<DataSplit> = Vec::new();
        for ((partition, bucket), (total, metas)) in files {
            if metas.is_empty() || !within_ttl(metas, ttl, now) {
                continue;
            }
            splits.push(DataSplit {
                snapshot_id,
                partition: partition.clone(),
                bucket: *bucket,
                total_buckets: *total,
                files: metas.clone(),
                raw_convertible: false,
                row_range: None,
                branch: None,
            });
        }
        splits.sort_by(|a, b| {
            (a.partition.as_bytes(), a.bucket).cmp(&(b.partition.as_bytes(), b.bucket))
        });
        let read = table.new_read().with_projection(this.key_names.clone());
        let mut reads = futures::stream::iter(splits.into_iter().map(|split| {
            let read = read.clone();
            async move {
                let (partition, bucket) = (split.partition.clone(), split.bucket);
                let batches: Vec<RecordBatch> = read.to_stream(vec![split])?.try_collect().await?;
                Ok::<_, Error>((partition, bucket, batches))
            }
        }))
        .buffer_unordered(parallelism);
        while let Some(done) = reads.next().await {
            let (partition, bucket, batches) = done?;
            let part = this.part_id(&partition);
            for batch in batches {
                let cols: Vec<ArrayRef> = (0..this.key_idx.len())
                    .map(|i| batch.column(i).clone())
                    .collect();
                let rows = this.key_rows(cols)?;
                for row in rows.iter() {
                    if let Some((p, _)) = this.index.put(row.as_ref(), part, bucket) {
                        if p != part {
                            return Err(this.duplicate_key(p, part));
                        }
                    }
                    *this.buckets[part as usize].entry(bucket).or_insert(0) += 1;
                }
            }
        }
        Ok(this)
    }

    fn duplicate_key(&self, a: u32, b: u32) -> Error {
        ErrorDetail::CommitConflict {
            table: self.table_name.clone(),
            message: format!(
                "a primary key lives in two partitions ({:?} and {:?}) of this \
             cross-partition-upsert table; it was written by two jobs at once, which Paimon \
             does not support (Java's GlobalIndexAssigner refuses it as duplicated data). \
             Delete one of the rows, then write again",
                self.partitions[a as usize]
                    .to_datums(&self.partition_types)
                    .ok(),
                self.partitions[b as usize]
                    .to_datums(&self.partition_types)
                    .ok(),
            ),
        }
        .into()
    }

    fn part_id(&mut self, partition: &BinaryRow) -> u32 {
        if let Some(id) = self.part_ids.get(partition.as_bytes()) {
            return *id;
        }
        let id = self.partitions.len() as u32;
        self.partitions.push(partition.clone());
        self.part_ids.insert(partition.as_bytes().to_vec(), id);
        self.buckets.push(BTreeMap::new());
        id
    }

    /// The primary-key columns in Arrow's row format, after casting them to the table's types.
    fn key_rows(&self, cols: Vec<ArrayRef>) -> Result<arrow::row::Rows> {
        let cols = cols
            .into_iter()
            .zip(&self.key_types)
            .map(|(c, t)| {
                if c.data_type() == t {
                    Ok(c)
                } else {
                    arrow_cast::cast(&c, t).map_err(|e| Error::arrow("casting a primary key", e))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let conv = RowConverter::new(
            self.key_types
                .iter()
                .map(|t| SortField::new(t.clone()))
                .collect(),
        )
        .map_err(|e| Error::arrow("primary key encoding", e))?;
        conv.convert_columns(&cols)
            .map_err(|e| Error::arrow("primary key encoding", e))
    }

    /// Java's `BucketAssigner.assignBucket` (one assigner: every bucket is this one's).
    fn assign_bucket(&mut self, part: u32) -> i32 {
        let map = &mut self.buckets[part as usize];
        for (bucket, count) in map.iter_mut() {
            if *count < self.target_row_num {
                *count += 1;
                return *bucket;
            }
        }
        let mut i = 0;
        while map.contains_key(&i) {
            i += 1;
        }
        map.insert(i, 1);
        i
    }

    /// Assigns every row of `batch` (cast to the table's schema, the row kinds as its last
    /// Int8 column) in input order: (partition, bucket, rows) groups, rows in input order
    /// within each, retractions and moved rows with their partition columns rewritten.
    pub(super) fn assign(
        &mut self,
        batch: &RecordBatch,
    ) -> Result<Vec<(BinaryRow, i32, RecordBatch)>> {
        let parts = self.row_partitions(batch)?;
        let keys = self.key_rows(
            self.key_idx
                .iter()
                .map(|i| batch.column(*i).clone())
                .collect(),
        )?;
        let mut order: Vec<(u32, i32)> = Vec::new();
        let mut groups: HashMap<(u32, i32), (Vec<Emit>, bool)> = HashMap::new();
        let mut emit = |part: u32, bucket: i32, e: Emit, moved: bool| {
            let g = groups.entry((part, bucket)).or_insert_with(|| {
                order.push((part, bucket));
                (Vec::new(), false)
            });
            g.0.push(e);
            g.1 |= moved;
        };
        for (row, &part) in parts.iter().enumerate() {
            let key = keys.row(row);
            match self.index.get(key.as_ref()) {
                Some((old_part, old_bucket)) if old_part == part => emit(
                    part,
                    old_bucket,
                    Emit {
                        row: row as u32,
                        kind: None,
                    },
                    false,
                ),
                Some((old_part, old_bucket)) => match self.existing {
                    Existing::Delete => {
                        let retract = Emit {
                            row: row as u32,
                            kind: Some(RowKind::Delete.to_byte()),
                        };
                        if !self.drop_retractions {
                            emit(old_part, old_bucket, retract, true);
                        }
                        if let Some(c) = self.buckets[old_part as usize].get_mut(&old_bucket) {
                            *c -= 1;
                        }
                        let bucket = self.assign_bucket(part);
                        self.index.put(key.as_ref(), part, bucket);
                        emit(
                            part,
                            bucket,
                            Emit {
                                row: row as u32,
                                kind: None,
                            },
                            false,
                        );
                    }
                    Existing::UseOld => emit(
                        old_part,
                        old_bucket,
                        Emit {
                            row: row as u32,
                            kind: None,
                        },
                        true,
                    ),
                    Existing::SkipNew => {}
                },
                None => {
                    let bucket = self.assign_bucket(part);
                    self.index.put(key.as_ref(), part, bucket);
                    emit(
                        part,
                        bucket,
                        Emit {
                            row: row as u32,
                            kind: None,
                        },
                        false,
                    );
                }
            }
        }
        let mut out = Vec::with_capacity(order.len());
        for key in order {
            let (rows, moved) = groups.remove(&key).expect("every ordered group exists");
            let (part, bucket) = key;
            out.push((
                self.partitions[part as usize].clone(),
                bucket,
                self.group_batch(batch, part, &rows, moved)?,
            ));
        }
        Ok(out)
    }

    /// The partition id of every row.
    fn row_partitions(&mut self, batch: &RecordBatch) -> Result<Vec<u32>> {
        let cols: Vec<ArrayRef> = self
            .partition_idx
            .iter()
            .map(|i| batch.column(*i).clone())
            .collect();
        let conv = RowConverter::new(
            cols.iter()
                .map(|c| SortField::new(c.data_type().clone()))
                .collect(),
        )
        .map_err(|e| Error::arrow("partition key encoding", e))?;
        let rows = conv
            .convert_columns(&cols)
            .map_err(|e| Error::arrow("partition key encoding", e))?;
        let mut local: HashMap<&[u8], u32> = HashMap::new();
        let mut out = Vec::with_capacity(batch.num_rows());
        for i in 0..batch.num_rows() {
            let bytes = rows.row(i);
            let bytes: &[u8] = bytes.data();
            if let Some(id) = local.get(bytes) {
                out.push(*id);
                continue;
            }
            let values = self
                .partition_idx
                .iter()
                .map(|c| datum_at(batch.column(*c).as_ref(), i))
                .collect::<Result<Vec<_>>>()?;
            let partition = BinaryRow::from_datums(&values, &self.partition_types)?;
            let id = self.part_id(&partition);
            local.insert(bytes, id);
            out.push(id);
        }
        Ok(out)
    }

    /// The rows of one (partition, bucket) group; with `moved`, the partition columns are set
    /// to the group's partition (Java's `ProjectToRowFunction` `setPartition`).
    fn group_batch(
        &self,
        batch: &RecordBatch,
        part: u32,
        rows: &[Emit],
        moved: bool,
    ) -> Result<RecordBatch> {
        let indices = UInt32Array::from(rows.iter().map(|e| e.row).collect::<Vec<_>>());
        let taken = take_record_batch(batch, &indices)
            .map_err(|e| Error::arrow("routing rows to buckets", e))?;
        let overrides = rows.iter().any(|e| e.kind.is_some());
        if !moved && !overrides {
            return Ok(taken);
        }
        let mut cols = taken.columns().to_vec();
        let kinds_at = cols.len() - 1;
        if overrides {
            let old = cols[kinds_at]
                .as_any()
                .downcast_ref::<Int8Array>()
                .ok_or_else(|| {
                    Error::from(ErrorDetail::Invariant(
                        "the row-kind column is not Int8".into(),
                    ))
                })?;
            let kinds: Int8Array = rows
                .iter()
                .zip(old.values().iter())
                .map(|(e, k)| Some(e.kind.unwrap_or(*k)))
                .collect();
            cols[kinds_at] = std::sync::Arc::new(kinds);
        }
        if moved {
            let values = self.partitions[part as usize].to_datums(&self.partition_types)?;
            for ((col, value), ty) in self
                .partition_idx
                .iter()
                .zip(values)
                .zip(&self.partition_types)
            {
                let array = datums_to_array(&vec![value; rows.len()], ty)?;
                let target = cols[*col].data_type().clone();
                cols[*col] = if array.data_type() == &target {
                    array
                } else {
                    arrow_cast::cast(&array, &target)
                        .map_err(|e| Error::arrow("setting the partition of a moved key", e))?
                };
            }
        }
        RecordBatch::try_new(taken.schema(), cols)
            .map_err(|e| Error::arrow("routing rows to buckets", e))
    }
}

/// Java's `IndexBootstrap.filterSplit`: a bucket is bootstrapped when one of its files was
/// created within the TTL.
fn within_ttl(files: &[DataFileMeta], ttl: Option<Duration>, now: i64) -> bool {
    let Some(ttl) = ttl else {
        return true;
    };
    let ttl = ttl.as_millis() as i64;
    files.iter().any(|f| match f.creation_time {
        Some(t) => now <= crate::scan::creation_epoch_millis(t).saturating_add(ttl),
        None => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_keeps_lengths_apart() {
        assert_ne!(pack(b"ab"), pack(b"ab\0"));
        assert!(pack(&[1u8; 15]).is_some());
        assert!(pack(&[1u8; 16]).is_none());
        assert_eq!(unslot(slot(7, 3)), (7, 3));
        assert_eq!(unslot(slot(u32::MAX, -1)), (u32::MAX, -1));
    }

    /// The index of one million BIGINT keys (Arrow row format: 9 bytes, packed): reported in
    /// docs/cross-partition-upsert.md.
    #[test]
    fn index_memory_for_a_million_keys() {
        let mut index = KeyIndex::default();
        let conv = RowConverter::new(vec![SortField::new(arrow_schema::DataType::Int64)]).unwrap();
        let keys: ArrayRef =
            std::sync::Arc::new(arrow_array::Int64Array::from_iter_values(0..1_000_000i64));
        let rows = conv.convert_columns(&[keys]).unwrap();
        for (i, r) in rows.iter().enumerate() {
            index.put(r.as_ref(), (i % 4) as u32, (i % 7) as i32);
        }
        assert_eq!(index.len(), 1_000_000);
        assert!(index.wide.is_empty());
        let bytes = index.memory_bytes();
        println!("cross-partition key index: {bytes} bytes for 1M BIGINT keys");
        assert!(bytes < 64 << 20, "{bytes} bytes for 1M keys");
        assert_eq!(index.get(rows.row(12).as_ref()), Some((0, 5)));
    }
}
