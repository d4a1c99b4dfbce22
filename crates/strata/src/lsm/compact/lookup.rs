//! Lookup compaction: a compaction that looks up each key it writes in the levels above its
//! output level (Java `LookupMergeTreeCompactRewriter`, `LookupLevels`,
//! `LookupChangelogMergeFunctionWrapper`, `FirstRowMergeFunctionWrapper`).
//!
//! Tables whose readers do not merge need every key live in at most one file of the levels
//! `≥ 1`: deletion-vector tables (`deletion-vectors.enabled`) and first-row tables. When
//! level-0 files are compacted up, each key they hold is looked up in the higher levels:
//!
//! * [`LookupMode::DeletionVectors`]: the older record found there is marked deleted in its
//!   file's deletion vector (a new position of [`LookupOutcome::deletions`]), and when the
//!   merge engine needs it (partial-update, aggregation, a `sequence.field`) it is merged with
//!   the new records first, so the output holds the key's whole merged value;
//! * [`LookupMode::FirstRow`]: a key found there keeps its first row, so the new records of
//!   the key are dropped.
//!
//! The lookup is a streaming merge-join: compaction output comes in key order and every level
//! is a sorted run, so one cursor per level walks forward through the level's files, opening
//! only files whose key range can hold the next key. Memory stays at one batch per level and
//! nothing is spilled to local disk; the cost is reading the overlapping files of the higher
//! levels (Java builds local lookup files per data file and caches them between compactions,
//! `lookup.cache-max-disk-size`; strata reads the files again at each compaction). Rows a
//! deletion vector already marks are not live and never match.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use futures::stream::BoxStream;
use futures::StreamExt;
use strata_spec::manifest::DataFileMeta;
use strata_spec::Datum;

use super::rewriter::FilePath;
use crate::format::datum::datum_at;
use crate::lsm::interval_partition::{compare_keys, keyed, KeyedFile};
use crate::lsm::kv_file_reader::KvFileReader;
use crate::lsm::kv_layout::KvLayout;
use crate::lsm::merge::MergeFunction;
use crate::lsm::merge_sort::{DeletePolicy, MergeSorter, SortedRun};
use crate::lsm::sort_key::{compare, EncodedKeys, KeyEncoder, KeyRef};
use crate::{Error, Result};

/// Whether a row position of a data file is already deleted (its deletion vector).
pub type DeletedRows = Arc<dyn Fn(u64) -> bool + Send + Sync>;

/// What a lookup does with a key found in a higher level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookupMode {
    /// Delete the older record by deletion vector (merging it in first when the engine needs).
    DeletionVectors,
    /// Keep the older record: drop the new ones (first-row).
    FirstRow,
}

/// What a compaction task looks keys up in.
#[derive(Clone)]
pub struct LookupContext {
    pub mode: LookupMode,
    /// The sorted runs of the levels above the task's output level, lowest level first.
    pub upper_levels: Vec<Vec<DataFileMeta>>,
    /// Deletion vectors of the bucket's files (inputs and upper levels).
    pub deleted: HashMap<String, DeletedRows>,
}

impl LookupContext {
    pub fn deleted_rows(&self, file: &str) -> Option<DeletedRows> {
        self.deleted.get(file).cloned()
    }
}

/// New deletions found by a rewrite: data file name → deleted row positions.
pub type LookupOutcome = HashMap<String, Vec<u64>>;

/// The lookup side of one rewrite call.
pub(super) struct Lookup {
    mode: LookupMode,
    levels: Vec<LevelCursor>,
    encoder: KeyEncoder,
    layout: Arc<KvLayout>,
    merge: Arc<dyn MergeFunction>,
    /// Whether a found older record must be merged with the new ones (its value can matter).
    remerge: bool,
    batch_size: usize,
    pub(super) deletions: LookupOutcome,
}

impl Lookup {
    pub(super) fn new(
        ctx: &LookupContext,
        reader: &KvFileReader,
        file_path: &FilePath,
        merge: Arc<dyn MergeFunction>,
        key_types: &[strata_spec::DataType],
        batch_size: usize,
    ) -> Result<Self> {
        let layout = reader.layout().clone();
        let mut levels = Vec::new();
        for run in &ctx.upper_levels {
            let mut files = keyed(run, key_types)?;
            files.sort_by(|a, b| compare_keys(&a.min_key, &b.min_key));
            levels.push(LevelCursor {
                files,
                next_file: 0,
                open: None,
                reader: reader.clone(),
                file_path: file_path.clone(),
                deleted: ctx.deleted.clone(),
            });
        }
        let remerge = merge.needs_values() || !layout.sequence_fields.is_empty();
        let arrow_key_types: Vec<_> = layout
            .schema
            .fields()
            .iter()
            .take(layout.num_keys())
            .map(|f| f.data_type().clone())
            .collect();
        Ok(Lookup {
            mode: ctx.mode,
            levels,
            encoder: KeyEncoder::new(&arrow_key_types)?,
            layout,
            merge,
            remerge,
            batch_size,
            deletions: HashMap::new(),
        })
    }

    /// Applies the lookup to one batch of compaction output (key order, one record per key,
    /// continuing the key order of earlier batches).
    pub(super) async fn apply(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>> {
        if self.levels.is_empty() || batch.num_rows() == 0 {
            return Ok(vec![batch]);
        }
        let nk = self.layout.num_keys();
        let keys = self.encoder.encode(&batch.columns()[..nk])?;
        let mut found: Vec<(usize, RecordBatch)> = Vec::new();
        for row in 0..batch.num_rows() {
            let mut datums: Option<Vec<Option<Datum>>> = None;
            for level in self.levels.iter_mut() {
                let hit = level
                    .seek(keys.get(row), &self.encoder, nk, || {
                        if datums.is_none() {
                            let mut d = Vec::with_capacity(nk);
                            for c in 0..nk {
                                d.push(datum_at(batch.column(c).as_ref(), row)?);
                            }
                            datums = Some(d);
                        }
                        Ok(datums.clone().expect("set above"))
                    })
                    .await?;
                if let Some((file, position, old)) = hit {
                    if self.mode == LookupMode::DeletionVectors {
                        self.deletions.entry(file).or_default().push(position);
                    }
                    found.push((row, old));
                    break;
                }
            }
        }
        if found.is_empty() {
            return Ok(vec![batch]);
        }
        match self.mode {
            LookupMode::FirstRow => {
                let mut keep = vec![true; batch.num_rows()];
                for (row, _) in &found {
                    keep[*row] = false;
                }
                let keep = arrow_array::BooleanArray::from(keep);
                Ok(vec![arrow_select::filter::filter_record_batch(
                    &batch, &keep,
                )
                .map_err(|e| {
                    Error::arrow("dropping rows a lookup found", e)
                })?])
            }
            LookupMode::DeletionVectors if !self.remerge => Ok(vec![batch]),
            LookupMode::DeletionVectors => {
                // The older records (key order, as found) merged with the new ones.
                let olds: Vec<RecordBatch> = found.into_iter().map(|(_, b)| b).collect();
                let schema = batch.schema();
                let olds = arrow_select::concat::concat_batches(&schema, &olds)
                    .map_err(|e| Error::arrow("collecting looked-up records", e))?;
                let runs: Vec<SortedRun> = vec![
                    futures::stream::iter([Ok(olds)]).boxed(),
                    futures::stream::iter([Ok(batch)]).boxed(),
                ];
                let merged = MergeSorter::new(
                    self.layout.clone(),
                    self.merge.clone(),
                    DeletePolicy::Keep,
                    self.batch_size,
                )
                .merge(runs)?;
                merged.collect::<Vec<_>>().await.into_iter().collect()
            }
        }
    }
}

/// A forward-only cursor over one level's files.
struct LevelCursor {
    files: Vec<KeyedFile>,
    next_file: usize,
    open: Option<OpenFile>,
    reader: KvFileReader,
    file_path: FilePath,
    deleted: HashMap<String, DeletedRows>,
}

struct OpenFile {
    name: String,
    stream: BoxStream<'static, Result<RecordBatch>>,
    batch: Option<(RecordBatch, EncodedKeys)>,
    /// Row of `batch` the cursor stands on.
    row: usize,
    /// File position of the first row of `batch`.
    first: u64,
    deleted: Option<DeletedRows>,
}

impl LevelCursor {
    /// Moves to `key` (never backwards) and returns the live record there: its file, row
    /// position and the record as a one-row batch. `datums` gives the key's values, needed
    /// only to skip files by their key ranges.
    async fn seek(
        &mut self,
        key: KeyRef<'_>,
        encoder: &KeyEncoder,
        num_keys: usize,
        mut datums: impl FnMut() -> Result<Vec<Option<Datum>>>,
    ) -> Result<Option<(String, u64, RecordBatch)>> {
        loop {
            if self.open.is_none() {
                if self.next_file >= self.files.len() {
                    return Ok(None);
                }
                let key_datums = datums()?;
                while self.next_file < self.files.len()
                    && compare_keys(&self.files[self.next_file].max_key, &key_datums).is_lt()
                {
                    self.next_file += 1;
                }
                let Some(f) = self.files.get(self.next_file) else {
                    return Ok(None);
                };
                if compare_keys(&f.min_key, &key_datums).is_gt() {
                    return Ok(None);
                }
                let file = f.file.clone();
                self.next_file += 1;
                let fields = self.reader.read_fields(&file).await?;
                let path = (self.file_path)(&file);
                let stream = self.reader.read(&path, &file, &fields, None, None).await?;
                self.open = Some(OpenFile {
                    deleted: self.deleted.get(&file.file_name).cloned(),
                    name: file.file_name,
                    stream,
                    batch: None,
                    row: 0,
                    first: 0,
                });
            }
            let open = self.open.as_mut().expect("opened above");
            loop {
                if open
                    .batch
                    .as_ref()
                    .is_none_or(|(b, _)| open.row >= b.num_rows())
                {
                    let consumed = open.batch.as_ref().map_or(0, |(b, _)| b.num_rows() as u64);
                    match open.stream.next().await {
                        Some(b) => {
                            let b = b?;
                            let keys = encoder.encode(&b.columns()[..num_keys])?;
                            open.first += consumed;
                            open.batch = Some((b, keys));
                            open.row = 0;
                            continue;
                        }
                        None => {
                            // The file ends before `key`: on to the next file of the level.
                            self.open = None;
                            break;
                        }
                    }
                }
                let (b, keys) = open.batch.as_ref().expect("loaded above");
                match compare(keys.get(open.row), key) {
                    std::cmp::Ordering::Less => open.row += 1,
                    std::cmp::Ordering::Greater => return Ok(None),
                    std::cmp::Ordering::Equal => {
                        let position = open.first + open.row as u64;
                        if open.deleted.as_ref().is_some_and(|d| d(position)) {
                            return Ok(None);
                        }
                        return Ok(Some((open.name.clone(), position, b.slice(open.row, 1))));
                    }
                }
            }
        }
    }
}
