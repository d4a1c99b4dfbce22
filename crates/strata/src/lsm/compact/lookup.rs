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
//!
//! Why no local key-value store (RocksDB, redb, sled were the candidates): the keys come in
//! sorted order and every level is a sorted run, so a merge-join needs no index at all, and a
//! store would copy each upper-level file to local disk, need invalidation whenever a file is
//! rewritten or gets a deletion vector, and bound nothing that the join does not already bound
//! (one batch per level). Its cost shows when a small commit touches a huge level: the join
//! reads every upper file whose key range overlaps the commit's keys, where Java's cached
//! lookup files answer point lookups. Pruning that read by the keys' page statistics is the
//! next step if that workload matters.
//!
//! The same pass produces changelogs ([`LookupChangelog`]): `changelog-producer = lookup`
//! (Java `LookupChangelogMergeFunctionWrapper`, `FirstRowMergeFunctionWrapper`), and in
//! [`LookupMode::FullCompaction`] the full-compaction producer's, whose before-image is the
//! key's record at the max level among the inputs (Java `FullChangelogMergeFunctionWrapper`).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use futures::stream::BoxStream;
use futures::StreamExt;
use object_store::path::Path;
use strata_spec::manifest::DataFileMeta;
use strata_spec::Datum;

use crate::format::datum::datum_at;
use crate::lsm::interval_partition::{compare_keys, keyed, KeyedFile};
use crate::lsm::kv_file_reader::KvFileReader;
use crate::lsm::kv_layout::{interleave_shared, is_retract_byte, kind_column, KvLayout};
use crate::lsm::merge::MergeFunction;
use crate::lsm::merge_sort::{AnnotatedBatch, DeletePolicy, MergeSorter, SortedRun};
use crate::lsm::sort_key::{compare, EncodedKeys, KeyEncoder, KeyRef};
use crate::{Error, Result};
use strata_spec::kv::RowKind;

/// Maps a data file to its path in the bucket directory.
pub(crate) type FilePath = Arc<dyn Fn(&DataFileMeta) -> Path + Send + Sync>;

/// Whether a row position of a data file is already deleted (its deletion vector).
pub(crate) type DeletedRows = Arc<dyn Fn(u64) -> bool + Send + Sync>;

/// What a lookup does with a key found in a higher level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LookupMode {
    /// Delete the older record by deletion vector (merging it in first when the engine needs).
    DeletionVectors,
    /// Keep the older record: drop the new ones (first-row).
    FirstRow,
    /// No lookup: a full compaction into the max level derives the changelog of every key it
    /// changes from the key's record at that level (`changelog-producer = full-compaction`,
    /// Java `FullChangelogMergeTreeCompactRewriter`).
    FullCompaction,
    /// Leave the older record in place (`changelog-producer = lookup` without deletion
    /// vectors): it is only the changelog's before-image, and it is merged in first when the
    /// engine needs it. Readers merge with Java's `LookupMergeFunction`, which takes only a
    /// key's record of the lowest level above 0.
    Plain,
}

/// The changelog a lookup compaction produces (`changelog-producer = lookup`).
pub(crate) struct LookupChangelog {
    /// Writes the changelog files (`changelog-file.*`).
    pub config: Arc<crate::lsm::kv_file_writer::KvWriterConfig>,
    /// `changelog-producer.row-deduplicate`: the value fields compared to skip a `-U`/`+U`
    /// pair whose before and after are equal (every field but
    /// `changelog-producer.row-deduplicate-ignore-fields`); `None` compares nothing.
    pub equal_fields: Option<Vec<usize>>,
}

/// What a compaction task looks keys up in.
#[derive(Clone)]
pub(crate) struct LookupContext {
    pub mode: LookupMode,
    /// The sorted runs of the levels above the task's output level, lowest level first.
    pub upper_levels: Vec<Vec<DataFileMeta>>,
    /// Deletion vectors of the bucket's files (inputs and upper levels).
    pub deleted: HashMap<String, DeletedRows>,
    /// The changelog to produce, if any.
    pub changelog: Option<Arc<LookupChangelog>>,
}

impl LookupContext {}

/// New deletions found by a rewrite: data file name → deleted row positions.
pub(crate) type LookupOutcome = HashMap<String, Vec<u64>>;

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
    changelog: Option<Arc<LookupChangelog>>,
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
            changelog: ctx.changelog.clone(),
            deletions: HashMap::new(),
        })
    }

    /// Applies the lookup to one batch of compaction output (key order, one record per key,
    /// continuing the key order of earlier batches; Java `LookupChangelogMergeFunctionWrapper`
    /// and `FirstRowMergeFunctionWrapper`). A key whose inputs hold a record above level 0
    /// is not looked up (that record is its older value, and it is being rewritten); any other
    /// key is looked up in the levels above the output level. Returns the records to write
    /// (retracts included) and, with a changelog, the key's changes when it had a level-0
    /// record.
    pub(super) async fn apply(&mut self, a: AnnotatedBatch) -> Result<LookupOutput> {
        let batch = a.batch;
        let nk = self.layout.num_keys();
        let keys = self.encoder.encode(&batch.columns()[..nk])?;
        // Rows whose key was found above, with the record found.
        let mut found: Vec<(usize, RecordBatch)> = Vec::new();
        for row in 0..batch.num_rows() {
            if a.before[row].is_some() || self.levels.is_empty() {
                continue;
            }
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
        if self.mode == LookupMode::FirstRow {
            return self.first_row(batch, &a.before, &a.changed, &found);
        }
        // The older records found are merged with the new ones when their values can matter.
        let batch = if self.remerge && !found.is_empty() {
            self.merge_found(batch, &found).await?
        } else {
            batch
        };
        let Some(changelog) = &self.changelog else {
            return Ok(LookupOutput {
                records: batch,
                changelog: None,
            });
        };
        // Changelog rows are picked from: 0 = the records, 1 = inputs' high-level records,
        // 2 = the records found above.
        let olds = concat_found(&batch, &found)?;
        let mut found_at = vec![None; batch.num_rows()];
        for (i, (row, _)) in found.iter().enumerate() {
            found_at[*row] = Some(i);
        }
        let kinds = kind_column(&self.layout, &batch)?;
        let mut picks: Vec<(usize, usize)> = Vec::new();
        let mut out_kinds: Vec<RowKind> = Vec::new();
        for (row, level0) in a.changed.iter().enumerate() {
            if !level0 {
                continue;
            }
            let before = match (a.before[row], found_at[row]) {
                (Some(i), _) => Some((1, i)),
                (None, Some(i)) => Some((2, i)),
                (None, None) => None,
            };
            let after_add = !is_retract_byte(kinds.value(row));
            let before_add = before.is_some_and(|(src, i)| {
                let b = if src == 1 {
                    a.befores.as_ref()
                } else {
                    olds.as_ref()
                };
                b.and_then(|b| kind_column(&self.layout, b).ok())
                    .is_some_and(|k| !is_retract_byte(k.value(i)))
            });
            match before.filter(|_| before_add) {
                None => {
                    if after_add {
                        picks.push((0, row));
                        out_kinds.push(RowKind::Insert);
                    }
                }
                Some(b) => {
                    if !after_add {
                        picks.push(b);
                        out_kinds.push(RowKind::Delete);
                    } else {
                        let same = match &changelog.equal_fields {
                            None => false,
                            Some(fields) => {
                                let src = if b.0 == 1 {
                                    a.befores.as_ref()
                                } else {
                                    olds.as_ref()
                                };
                                let src = src.expect("a before row has its batch");
                                self.same_values(src, b.1, &batch, row, fields)?
                            }
                        };
                        if !same {
                            picks.push(b);
                            out_kinds.push(RowKind::UpdateBefore);
                            picks.push((0, row));
                            out_kinds.push(RowKind::UpdateAfter);
                        }
                    }
                }
            }
        }
        let changelog = if picks.is_empty() {
            None
        } else {
            let empty = batch.slice(0, 0);
            let sources: [&RecordBatch; 3] = [
                &batch,
                a.befores.as_ref().unwrap_or(&empty),
                olds.as_ref().unwrap_or(&empty),
            ];
            Some(with_kinds(&self.layout, &sources, &picks, &out_kinds)?)
        };
        Ok(LookupOutput {
            records: batch,
            changelog,
        })
    }

    /// First-row: a key found above keeps its first row there, so its new records go; a key
    /// with no record above level 0 anywhere is new, and its first row is its `+I`.
    fn first_row(
        &self,
        batch: RecordBatch,
        before: &[Option<usize>],
        level0: &[bool],
        found: &[(usize, RecordBatch)],
    ) -> Result<LookupOutput> {
        let mut keep = vec![true; batch.num_rows()];
        for (row, _) in found {
            keep[*row] = false;
        }
        let mut picks = Vec::new();
        if self.changelog.is_some() {
            let kinds = kind_column(&self.layout, &batch)?;
            for row in 0..batch.num_rows() {
                if keep[row]
                    && level0[row]
                    && before[row].is_none()
                    && !is_retract_byte(kinds.value(row))
                {
                    picks.push((0, row));
                }
            }
        }
        let changelog = if picks.is_empty() {
            None
        } else {
            let kinds = vec![RowKind::Insert; picks.len()];
            Some(with_kinds(&self.layout, &[&batch], &picks, &kinds)?)
        };
        let records = if found.is_empty() {
            batch
        } else {
            let keep = arrow_array::BooleanArray::from(keep);
            arrow_select::filter::filter_record_batch(&batch, &keep)
                .map_err(|e| Error::arrow("dropping rows a lookup found", e))?
        };
        Ok(LookupOutput { records, changelog })
    }

    /// Merges each found older record with the new record of its key (Java
    /// `LookupMergeFunction.insertInto`); one record per key stays, in the batch's order.
    fn merge_found(
        &self,
        batch: RecordBatch,
        found: &[(usize, RecordBatch)],
    ) -> impl std::future::Future<Output = Result<RecordBatch>> + Send + 'static {
        let sorter = MergeSorter::new(
            self.layout.clone(),
            self.merge.clone(),
            DeletePolicy::Keep,
            self.batch_size,
        );
        let olds = concat_found(&batch, found);
        async move {
            let olds = olds?.expect("found is not empty");
            let runs: Vec<SortedRun> = vec![
                futures::stream::iter([Ok(olds)]).boxed(),
                futures::stream::iter([Ok(batch.clone())]).boxed(),
            ];
            let merged: Vec<RecordBatch> = sorter
                .merge(runs)?
                .collect::<Vec<_>>()
                .await
                .into_iter()
                .collect::<Result<_>>()?;
            arrow_select::concat::concat_batches(&batch.schema(), &merged)
                .map_err(|e| Error::arrow("merging looked-up records", e))
        }
    }

    /// Whether two records have the same values in `fields` (row-deduplicate).
    fn same_values(
        &self,
        a: &RecordBatch,
        ra: usize,
        b: &RecordBatch,
        rb: usize,
        fields: &[usize],
    ) -> Result<bool> {
        for f in fields {
            let col = self.layout.value_col(*f);
            let x = crate::lsm::merge::value_at(a.column(col).as_ref(), ra)?;
            let y = crate::lsm::merge::value_at(b.column(col).as_ref(), rb)?;
            if x != y {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// What [`Lookup::apply`] hands on.
pub(super) struct LookupOutput {
    /// The records to write (retracts included; the caller drops them where it must).
    pub records: RecordBatch,
    /// The changelog records of the batch's keys, in key order.
    pub changelog: Option<RecordBatch>,
}

/// The found records as one batch (key order), `None` when none were found.
fn concat_found(
    batch: &RecordBatch,
    found: &[(usize, RecordBatch)],
) -> Result<Option<RecordBatch>> {
    if found.is_empty() {
        return Ok(None);
    }
    let olds: Vec<&RecordBatch> = found.iter().map(|(_, b)| b).collect();
    arrow_select::concat::concat_batches(&batch.schema(), olds)
        .map(Some)
        .map_err(|e| Error::arrow("collecting looked-up records", e))
}

/// Rows picked from `sources`, with their `_VALUE_KIND` set to `kinds`.
fn with_kinds(
    layout: &KvLayout,
    sources: &[&RecordBatch],
    picks: &[(usize, usize)],
    kinds: &[RowKind],
) -> Result<RecordBatch> {
    let rows = interleave_shared(sources, picks)?;
    let mut columns = rows.columns().to_vec();
    columns[layout.kind_col()] = Arc::new(arrow_array::Int8Array::from(
        kinds.iter().map(|k| k.to_byte()).collect::<Vec<_>>(),
    ));
    RecordBatch::try_new(rows.schema(), columns)
        .map_err(|e| Error::arrow("building changelog records", e))
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
