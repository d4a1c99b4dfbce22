//! [`MergeSorter`]: k-way merge of key-sorted runs of key-value batches, reducing each key
//! with the table's merge engine.
//!
//! Used by every path that meets several sorted runs: flushing the write buffer (in-memory
//! run plus spilled runs), and merge-on-read of overlapping sections. Inputs are streams of
//! batches in a [`KvLayout`], each sorted by key then by `(sequence.field, _SEQUENCE_NUMBER)`;
//! a run may hold a key several times (write-buffer runs do; data-file runs do not).
//!
//! Keys are compared as `arrow-row` encodings (one `memcmp` per comparison, Paimon's order
//! with NULLs first), so the merge never touches typed values. The runs are kept in a small
//! binary heap ordered by their current key. Records of one key are gathered from all runs,
//! ordered like Paimon (`sequence.field` values, then `_SEQUENCE_NUMBER`, then retract before
//! add — the last is the newest) and reduced: a lone record passes through untouched
//! (`ReducerMergeFunctionWrapper`), two or more go to the [`MergeFunction`]. Output batches are
//! assembled with `interleave` from row positions, so deduplicate and first-row never copy a
//! value they do not output; only merged rows of partial-update and aggregation are built
//! from [`Value`]s.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::{Int64Array, Int8Array, RecordBatch};
use futures::stream::BoxStream;
use futures::StreamExt;
use strata_spec::kv::RowKind;

use super::kv_layout::{kind_column, seq_column, KvLayout};
use super::merge::{KvMeta, MergeFunction, MergeResult, Value};
use super::sort_key::{EncodedKeys, KeyEncoder, KeyRef, OwnedKey};
use crate::error::ErrorDetail;
use crate::{Error, Result};
use group::{build_merged, row_values, Member};

/// A key-sorted stream of key-value batches.
pub(crate) type SortedRun = BoxStream<'static, Result<RecordBatch>>;

/// Marker source id of rows built by the merge function (remapped at emission).
const MERGED: usize = usize::MAX;

/// What to do with the reduced records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeletePolicy {
    /// Keep retract results (flushing level 0, compacting to a non-max level).
    Keep,
    /// Drop retract results (batch reads, compaction into the max level).
    Drop,
}

/// Merges sorted runs into one key-unique sorted stream.
pub(crate) struct MergeSorter {
    layout: Arc<KvLayout>,
    merge: Arc<dyn MergeFunction>,
    deletes: DeletePolicy,
    batch_size: usize,
    /// Output only these columns of the layout (`None`: all). Reads that drop deletes only
    /// need the value columns, so the key and system columns are never copied.
    projection: Option<Vec<usize>>,
    /// Output every record instead of one per key (see [`MergeSorter::keep_all_records`]).
    keep_all: bool,
    /// The level of each input run (see [`MergeSorter::with_levels`]).
    levels: Option<Vec<i32>>,
    /// Java `LookupMergeFunction`: of a key's records in levels above 0, only the one of the
    /// lowest level is merged (with every level-0 record).
    lookup_merge: bool,
    /// Annotate against this level instead (see [`MergeSorter::annotate_against`]).
    annotate_level: Option<i32>,
}

/// A merged batch with, per output row, what a changelog-producing compaction needs to know
/// of the key's input records ([`MergeSorter::merge_annotated`]): the record that is the key's
/// before-image, and whether newer records came with it.
pub(crate) struct AnnotatedBatch {
    /// The merged records (retracts included).
    pub batch: RecordBatch,
    /// Whether the key had new records among the inputs: a level-0 record (lookup), a record
    /// below the annotation level (full compaction).
    pub changed: Vec<bool>,
    /// The key's before-image among the inputs, as a row of `befores`: its record of the
    /// lowest level above 0 (Java `LookupMergeFunction.pickHighLevel`), or its record at the
    /// annotation level (Java `FullChangelogMergeFunctionWrapper`'s top-level record).
    pub before: Vec<Option<usize>>,
    /// The rows `before` points at.
    pub befores: Option<RecordBatch>,
}

impl MergeSorter {
    pub(crate) fn new(
        layout: Arc<KvLayout>,
        merge: Arc<dyn MergeFunction>,
        deletes: DeletePolicy,
        batch_size: usize,
    ) -> Self {
        MergeSorter {
            layout,
            merge,
            deletes,
            batch_size: batch_size.max(1),
            projection: None,
            keep_all: false,
            levels: None,
            lookup_merge: false,
            annotate_level: None,
        }
    }

    /// Annotates against `level` (the max level of a full compaction): a key's before-image is
    /// its record at that level, and it changed when it has records of other levels.
    pub(crate) fn annotate_against(mut self, level: i32) -> Self {
        self.annotate_level = Some(level);
        self
    }

    /// Tells the sorter the level of each input run (level 0 runs hold one file each; the
    /// write buffer is below 0). With `lookup_merge` a key's records in levels above 0 are
    /// reduced to the one of the lowest level before merging, as Java's `LookupMergeFunction`
    /// does for tables compacted with lookups: that record already holds the merged value of
    /// the older ones, which a lookup compaction without deletion vectors leaves in place.
    pub(crate) fn with_levels(mut self, levels: Vec<i32>, lookup_merge: bool) -> Self {
        self.levels = Some(levels);
        self.lookup_merge = lookup_merge;
        self
    }

    /// Outputs every record of the runs, sorted by key and, within a key, in Paimon's
    /// record order (`sequence.field` values, `_SEQUENCE_NUMBER`), without reducing them: the
    /// records a `changelog-producer = input` changelog file holds (Java
    /// `SortBufferWriteBuffer.forEach`'s raw consumer). The merge function and delete policy
    /// are not used.
    pub(crate) fn keep_all_records(mut self) -> Self {
        self.keep_all = true;
        self
    }

    /// Outputs only `columns` (indices into the layout) instead of whole key-value batches.
    pub(crate) fn with_projection(mut self, columns: Vec<usize>) -> Self {
        self.projection = Some(columns);
        self
    }

    /// The merged stream of `runs`.
    pub(crate) fn merge(self, runs: Vec<SortedRun>) -> Result<SortedRun> {
        Ok(self
            .merge_inner(runs, false)?
            .map(|r| r.map(|a| a.batch))
            .boxed())
    }

    /// The merged stream of `runs` with, per row, whether its key had a level-0 record and
    /// its record of the lowest level above 0 (needs [`MergeSorter::with_levels`]).
    pub(crate) fn merge_annotated(
        self,
        runs: Vec<SortedRun>,
    ) -> Result<BoxStream<'static, Result<AnnotatedBatch>>> {
        if self.levels.is_none() || self.projection.is_some() || self.keep_all {
            return Err(ErrorDetail::Invariant(
                "an annotated merge needs run levels, whole records and one record per key".into(),
            )
            .into());
        }
        self.merge_inner(runs, true)
    }

    fn merge_inner(
        self,
        runs: Vec<SortedRun>,
        annotate: bool,
    ) -> Result<BoxStream<'static, Result<AnnotatedBatch>>> {
        if let Some(levels) = &self.levels {
            if levels.len() != runs.len() {
                return Err(ErrorDetail::Invariant(format!(
                    "merge of {} runs given {} run levels",
                    runs.len(),
                    levels.len()
                ))
                .into());
            }
        }
        let types: Vec<_> = self
            .layout
            .schema
            .fields()
            .iter()
            .take(self.layout.num_keys())
            .map(|f| f.data_type().clone())
            .collect();
        let converter = KeyEncoder::new(&types)?;
        let levels = self.levels.clone().unwrap_or_else(|| vec![0; runs.len()]);
        let state = MergeState {
            cursors: runs
                .into_iter()
                .zip(levels)
                .map(|(r, l)| Cursor::new(r, l))
                .collect(),
            annotate,
            heap: Vec::new(),
            started: false,
            sources: Vec::new(),
            converter,
            sorter: self,
            group_key: OwnedKey::default(),
            finished: false,
        };
        Ok(futures::stream::unfold(state, |mut st| async move {
            if st.finished {
                return None;
            }
            match st.next_batch().await {
                Ok(Some(b)) => Some((Ok(b), st)),
                Ok(None) => None,
                Err(e) => {
                    st.finished = true;
                    Some((Err(e), st))
                }
            }
        })
        .boxed())
    }
}

struct Cursor {
    input: SortedRun,
    level: i32,
    /// Index into `MergeState::sources` of the current batch.
    source: usize,
    batch: Option<RecordBatch>,
    rows: Option<EncodedKeys>,
    seq: Option<Int64Array>,
    kind: Option<Int8Array>,
    pos: usize,
    len: usize,
    done: bool,
}

impl Cursor {
    fn new(input: SortedRun, level: i32) -> Self {
        Cursor {
            input,
            level,
            source: 0,
            batch: None,
            rows: None,
            seq: None,
            kind: None,
            pos: 0,
            len: 0,
            done: false,
        }
    }

    #[inline]
    fn key(&self) -> KeyRef<'_> {
        self.rows
            .as_ref()
            .expect("a cursor in the heap always holds a batch")
            .get(self.pos)
    }
}

struct MergeState {
    cursors: Vec<Cursor>,
    /// Output [`AnnotatedBatch::level0`] and [`AnnotatedBatch::before`].
    annotate: bool,
    /// Min-heap (by current key) of cursor indices.
    heap: Vec<usize>,
    started: bool,
    /// Batches referenced by pending output positions.
    sources: Vec<RecordBatch>,
    converter: KeyEncoder,
    sorter: MergeSorter,
    group_key: OwnedKey,
    finished: bool,
}

impl MergeState {
    /// Loads the next non-empty batch of cursor `c`; returns false at its end.
    async fn advance_batch(&mut self, c: usize) -> Result<bool> {
        loop {
            let next = self.cursors[c].input.next().await;
            match next {
                None => {
                    let cur = &mut self.cursors[c];
                    cur.done = true;
                    cur.batch = None;
                    cur.rows = None;
                    return Ok(false);
                }
                Some(Err(e)) => return Err(e),
                Some(Ok(batch)) => {
                    if batch.num_rows() == 0 {
                        continue;
                    }
                    let rows = self
                        .converter
                        .encode(&batch.columns()[..self.sorter.layout.num_keys()])?;
                    let seq = seq_column(&self.sorter.layout, &batch)?.clone();
                    let kind = kind_column(&self.sorter.layout, &batch)?.clone();
                    self.sources.push(batch.clone());
                    let cur = &mut self.cursors[c];
                    cur.source = self.sources.len() - 1;
                    cur.len = batch.num_rows();
                    cur.pos = 0;
                    cur.batch = Some(batch);
                    cur.rows = Some(rows);
                    cur.seq = Some(seq);
                    cur.kind = Some(kind);
                    return Ok(true);
                }
            }
        }
    }

    fn less(&self, a: usize, b: usize) -> bool {
        let (ca, cb) = (&self.cursors[a], &self.cursors[b]);
        match ca.key().cmp(&cb.key()) {
            Ordering::Less => true,
            Ordering::Greater => false,
            // Same key: the older run first keeps gathering order stable.
            Ordering::Equal => a < b,
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let m = if r < n && self.less(self.heap[r], self.heap[l]) {
                r
            } else {
                l
            };
            if self.less(self.heap[m], self.heap[i]) {
                self.heap.swap(m, i);
                i = m;
            } else {
                break;
            }
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.less(self.heap[i], self.heap[p]) {
                self.heap.swap(i, p);
                i = p;
            } else {
                break;
            }
        }
    }

    /// Moves the top cursor one record on, refilling or removing it from the heap.
    async fn pop_advance(&mut self) -> Result<()> {
        let c = self.heap[0];
        self.cursors[c].pos += 1;
        if self.cursors[c].pos >= self.cursors[c].len && !self.advance_batch(c).await? {
            let last = self.heap.pop().expect("heap is non-empty here");
            if !self.heap.is_empty() {
                self.heap[0] = last;
                self.sift_down(0);
            }
            return Ok(());
        }
        self.sift_down(0);
        Ok(())
    }

    async fn next_batch(&mut self) -> Result<Option<AnnotatedBatch>> {
        if !self.started {
            self.started = true;
            for c in 0..self.cursors.len() {
                if self.advance_batch(c).await? {
                    self.heap.push(c);
                    let i = self.heap.len() - 1;
                    self.sift_up(i);
                }
            }
        }
        // Keep only the batches cursors still stand on.
        self.compact_sources();
        let batch_size = self.sorter.batch_size;
        let drop_deletes = self.sorter.deletes == DeletePolicy::Drop;
        let mut out: Vec<(usize, usize)> = Vec::with_capacity(batch_size);
        let mut merged: Vec<(RowKind, i64, Vec<Value>)> = Vec::new();
        let mut group: Vec<Member> = Vec::new();
        // Per output row: level 0 seen, the high-level record (annotated merges only).
        let mut ann: Vec<(bool, Option<(usize, usize)>)> = Vec::new();
        while out.len() < batch_size && !self.heap.is_empty() {
            let top = self.heap[0];
            self.group_key.set(self.cursors[top].key());
            group.clear();
            loop {
                let c = self.heap[0];
                let cur = &self.cursors[c];
                let seq = cur
                    .seq
                    .as_ref()
                    .expect("cursor holds a batch")
                    .value(cur.pos);
                let kind_byte = cur
                    .kind
                    .as_ref()
                    .expect("cursor holds a batch")
                    .value(cur.pos);
                group.push(Member {
                    source: cur.source,
                    row: cur.pos,
                    level: cur.level,
                    meta: KvMeta {
                        sequence: seq,
                        kind: RowKind::from_byte(kind_byte)?,
                    },
                });
                self.pop_advance().await?;
                if self.heap.is_empty() || !self.group_key.matches(self.cursors[self.heap[0]].key())
                {
                    break;
                }
            }
            if self.sorter.keep_all {
                if group.len() > 1 {
                    self.order_group(&mut group)?;
                }
                out.extend(group.iter().map(|m| (m.source, m.row)));
                continue;
            }
            let emitted = out.len();
            let mut note = (false, None);
            if self.annotate || self.sorter.lookup_merge {
                let high = group
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.level > 0)
                    .min_by_key(|(_, m)| m.level)
                    .map(|(i, _)| i);
                note = match self.sorter.annotate_level {
                    None => (
                        group.iter().any(|m| m.level == 0),
                        high.map(|h| (group[h].source, group[h].row)),
                    ),
                    Some(top) => (
                        group.iter().any(|m| m.level != top),
                        group
                            .iter()
                            .find(|m| m.level == top)
                            .map(|m| (m.source, m.row)),
                    ),
                };
                if let (true, Some(h)) = (self.sorter.lookup_merge, high) {
                    let mut i = 0;
                    group.retain(|m| {
                        let keep = m.level <= 0 || i == h;
                        i += 1;
                        keep
                    });
                }
            }
            if group.len() == 1 {
                let m = &group[0];
                if !(drop_deletes && m.meta.kind.is_retract()) {
                    out.push((m.source, m.row));
                }
            } else {
                self.reduce_group(&mut group, drop_deletes, &mut out, &mut merged)?;
            }
            if self.annotate && out.len() > emitted {
                ann.push(note);
            }
        }
        self.emit(out, merged, ann)
    }

    /// Merges a group of two or more records with the merge function.
    fn reduce_group(
        &self,
        group: &mut [Member],
        drop_deletes: bool,
        out: &mut Vec<(usize, usize)>,
        merged: &mut Vec<(RowKind, i64, Vec<Value>)>,
    ) -> Result<()> {
        let layout = &self.sorter.layout;
        {
            self.order_group(group)?;
            let metas: Vec<KvMeta> = group.iter().map(|m| m.meta).collect();
            let values = if self.sorter.merge.needs_values() {
                Some(
                    group
                        .iter()
                        .map(|m| row_values(layout, &self.sources[m.source], m.row))
                        .collect::<Result<Vec<_>>>()?,
                )
            } else {
                None
            };
            match self.sorter.merge.merge(&metas, values.as_deref())? {
                MergeResult::Pick(i) => {
                    let m = group.get(i).ok_or_else(|| {
                        Error::from(ErrorDetail::InvalidArgument(format!(
                            "merge function picked record {i} of a group of {}",
                            group.len()
                        )))
                    })?;
                    if !(drop_deletes && m.meta.kind.is_retract()) {
                        out.push((m.source, m.row));
                    }
                }
                MergeResult::Row { kind, values } => {
                    if !(drop_deletes && kind.is_retract()) {
                        let seq = metas.last().map(|m| m.sequence).unwrap_or(0);
                        out.push((MERGED, merged.len()));
                        merged.push((kind, seq, values));
                    }
                }
                MergeResult::Drop => {}
            }
        }
        Ok(())
    }

    /// Assembles the output rows of one `next_batch` call.
    fn emit(
        &self,
        mut out: Vec<(usize, usize)>,
        merged: Vec<(RowKind, i64, Vec<Value>)>,
        ann: Vec<(bool, Option<(usize, usize)>)>,
    ) -> Result<Option<AnnotatedBatch>> {
        let layout = self.sorter.layout.clone();
        if out.is_empty() {
            return Ok(None);
        }
        let (changed, before, befores) = if self.annotate {
            let picks: Vec<(usize, usize)> = ann.iter().filter_map(|a| a.1).collect();
            let befores = if picks.is_empty() {
                None
            } else {
                let refs: Vec<&RecordBatch> = self.sources.iter().collect();
                Some(super::kv_layout::interleave_shared(&refs, &picks)?)
            };
            let mut next = 0;
            let before = ann
                .iter()
                .map(|a| {
                    a.1.map(|_| {
                        next += 1;
                        next - 1
                    })
                })
                .collect();
            (ann.iter().map(|a| a.0).collect(), before, befores)
        } else {
            (Vec::new(), Vec::new(), None)
        };
        let mut refs: Vec<&RecordBatch> = self.sources.iter().collect();
        let merged_batch;
        if !merged.is_empty() {
            merged_batch = build_merged(&layout, merged)?;
            refs.push(&merged_batch);
            let idx = refs.len() - 1;
            for o in out.iter_mut() {
                if o.0 == MERGED {
                    o.0 = idx;
                }
            }
        }
        let batch = match &self.sorter.projection {
            None => super::kv_layout::interleave_shared(&refs, &out)?,
            Some(cols) => {
                let schema = Arc::new(
                    layout
                        .schema
                        .project(cols)
                        .map_err(|e| Error::arrow("projecting merged batch", e))?,
                );
                let arrays = cols
                    .iter()
                    .map(|c| {
                        let inputs: Vec<&dyn arrow_array::Array> =
                            refs.iter().map(|b| b.column(*c).as_ref()).collect();
                        arrow_select::interleave::interleave(&inputs, &out)
                            .map_err(|e| Error::arrow("assembling merged batch", e))
                    })
                    .collect::<Result<Vec<_>>>()?;
                let options =
                    arrow_array::RecordBatchOptions::new().with_row_count(Some(out.len()));
                RecordBatch::try_new_with_options(schema, arrays, &options)
                    .map_err(|e| Error::arrow("assembling merged batch", e))?
            }
        };
        Ok(Some(AnnotatedBatch {
            batch,
            changed,
            before,
            befores,
        }))
    }

    /// Paimon's order within a key ([`group::order_group`]).
    fn order_group(&self, group: &mut [Member]) -> Result<()> {
        group::order_group(&self.sorter.layout, &self.sources, group)
    }

    fn compact_sources(&mut self) {
        let mut keep: Vec<RecordBatch> = Vec::new();
        for c in self.cursors.iter_mut() {
            if let Some(b) = &c.batch {
                keep.push(b.clone());
                c.source = keep.len() - 1;
            }
        }
        self.sources = keep;
    }
}

#[path = "merge_sort_group.rs"]
mod group;

#[cfg(test)]
#[path = "merge_sort_tests.rs"]
mod tests;
