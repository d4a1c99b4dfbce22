//! Merge-on-read of primary-key splits.
//!
//! A split that is not raw-convertible is cut into key-disjoint sections
//! ([`crate::lsm::interval_partition`]) read one after the other. A section with one sorted
//! run holds every key at most once, so its files are only stripped of delete records; a
//! section with several runs goes through the [`MergeSorter`] (each run a concatenation of its
//! files), reducing each key with the table's merge engine and dropping deletes. Every file is
//! decoded by its own task into a small bounded channel, so the files of a section decode in
//! parallel while the merge consumes them.
//!
//! Only the columns needed are decoded: the output and filter columns, the primary keys and
//! `sequence.field` columns — or every column when the merge engine needs whole rows
//! (partial-update, aggregation). MAP columns are read whole (no selected keys: merge engines
//! need whole values); MAP key columns are derived after the merge. The filter runs after the
//! merge: applying a value filter before it could hide the newest version of a key and
//! resurrect an older one.

use crate::error::ErrorDetail;
use std::sync::Arc;

use arrow_array::{Array, RecordBatch};
use futures::stream::{self, BoxStream};
use futures::StreamExt;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::DataFileMeta;
use strata_spec::DataField;

use super::batching::{receiver_stream, CHANNEL_BATCHES};
use super::deletion_vectors::DeletionVector;
use super::map_keys::pushed_filter;
use crate::expr::BoundPredicate;
use crate::format::page_pruning::StatsPruning;
use crate::lsm::interval_partition::{interval_partition, keyed, split_runs_by_level};
use crate::lsm::kv_file_reader::KvFileReader;
use crate::lsm::kv_layout::{drop_retracts, KvLayout};
use crate::lsm::merge::MergeFunction;
use crate::lsm::merge_sort::{DeletePolicy, MergeSorter, SortedRun};
use crate::scan::DataSplit;
use crate::table::Table;
use crate::{Error, Result};

/// Layout indices of the value columns.
fn layout_values(layout: &KvLayout) -> Vec<usize> {
    (0..layout.value_fields.len())
        .map(|i| layout.value_col(i))
        .collect()
}

/// What merge reads of one table share.
pub(super) struct KvReadContext {
    pub table: Table,
    pub layout: Arc<KvLayout>,
    pub merge: Arc<dyn MergeFunction>,
    /// The filter and projection over the layout's value fields (then MAP key columns,
    /// derived after the merge).
    pub plan: Arc<super::plan::ReadPlan>,
    /// The part of the filter on primary-key columns (safe to push below a merge).
    pub key_bound: Option<BoundPredicate>,
    pub batch_size: usize,
    /// Deletion vectors (tables with `deletion-vectors.enabled`).
    pub dv: Option<Arc<super::deletion_vectors::DvCache>>,
    /// Decodes the files into `layout`.
    pub files: KvFileReader,
    /// Keep deletes and output each row's kind first, as this schema (`None`: a plain read).
    pub kinds_schema: Option<arrow_schema::SchemaRef>,
    /// Merge as Java's `LookupMergeFunction` ([`crate::lsm::merge::lookup_merge_applies`]).
    pub lookup_merge: bool,
}

impl KvReadContext {
    /// Value fields a merge read needs besides `wanted`.
    pub(super) fn value_fields(
        table: &Table,
        wanted: &[DataField],
        merge_needs_values: bool,
    ) -> Vec<DataField> {
        let schema = table.schema();
        if merge_needs_values {
            return schema.fields.clone();
        }
        let mut ids: Vec<i32> = wanted.iter().map(|f| f.id).collect();
        for name in schema
            .trimmed_primary_keys()
            .iter()
            .chain(schema.options().sequence_field().iter())
        {
            if let Some(f) = schema.row_type().field(name) {
                ids.push(f.id);
            }
        }
        // Schema order keeps the layout stable across reads.
        schema
            .fields
            .iter()
            .filter(|f| ids.contains(&f.id))
            .cloned()
            .collect()
    }

    /// The stream of one split's merged rows (filtered and projected).
    pub(super) fn split_stream(
        self: &Arc<Self>,
        split: DataSplit,
    ) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        let key_types: Vec<_> = self
            .layout
            .key_fields
            .iter()
            .map(|f| f.data_type.clone())
            .collect();
        let dir = self.table.partition_path(&split.partition)?;
        let sections = interval_partition(keyed(&split.files, &key_types)?);
        let ctx = self.clone();
        let bucket = split.bucket;
        let snapshot_id = split.snapshot_id;
        let partition = split.partition.clone();
        let stream = stream::iter(sections)
            .map(move |runs| {
                let ctx = ctx.clone();
                let dir = dir.clone();
                let partition = partition.clone();
                async move {
                    let single = runs.len() == 1;
                    let (runs, levels) = if single || !ctx.lookup_merge {
                        (runs, Vec::new())
                    } else {
                        split_runs_by_level(runs)
                    };
                    let mut run_streams: Vec<SortedRun> = Vec::with_capacity(runs.len());
                    for run in runs {
                        let files: Vec<DataFileMeta> = run.into_iter().map(|k| k.file).collect();
                        run_streams.push(ctx.run_stream(
                            &dir,
                            (snapshot_id, &partition, bucket),
                            files,
                            single,
                        ));
                    }
                    let keep_kinds = ctx.kinds_schema.is_some();
                    let mut projection = layout_values(&ctx.layout);
                    if keep_kinds {
                        projection.insert(0, ctx.layout.kind_col());
                    }
                    let merged: SortedRun = if single && keep_kinds {
                        run_streams
                            .pop()
                            .expect("a section has at least one run")
                            .map(move |b| {
                                b.and_then(|b| {
                                    b.project(&projection)
                                        .map_err(|e| Error::arrow("value columns", e))
                                })
                            })
                            .boxed()
                    } else if single {
                        let layout = ctx.layout.clone();
                        run_streams
                            .pop()
                            .expect("a section has at least one run")
                            .map(move |b| {
                                b.and_then(|b| drop_retracts(&layout, b)).and_then(|b| {
                                    b.project(&layout_values(&layout))
                                        .map_err(|e| Error::arrow("value columns", e))
                                })
                            })
                            .boxed()
                    } else {
                        let deletes = if keep_kinds {
                            DeletePolicy::Keep
                        } else {
                            DeletePolicy::Drop
                        };
                        let mut sorter = MergeSorter::new(
                            ctx.layout.clone(),
                            ctx.merge.clone(),
                            deletes,
                            ctx.batch_size,
                        );
                        if ctx.lookup_merge {
                            sorter = sorter.with_levels(levels, true);
                        }
                        sorter.with_projection(projection).merge(run_streams)?
                    };
                    let ctx2 = ctx.clone();
                    Ok::<_, Error>(merged.map(move |b| b.and_then(|b| ctx2.finish(b))).boxed())
                }
            })
            .buffered(1)
            .map(|r| match r {
                Ok(s) => s,
                Err(e) => stream::once(async move { Err(e) }).boxed(),
            })
            .flatten()
            .filter(|r| {
                let keep = !matches!(r, Ok(b) if b.num_rows() == 0);
                async move { keep }
            });
        Ok(stream.boxed())
    }

    /// A sorted run: its files one after the other, each decoded by its own task.
    fn run_stream(
        self: &Arc<Self>,
        dir: &str,
        (snapshot_id, partition, bucket): (i64, &BinaryRow, i32),
        files: Vec<DataFileMeta>,
        push_all: bool,
    ) -> SortedRun {
        let ctx = self.clone();
        let dir = dir.to_string();
        let partition = partition.clone();
        stream::iter(files)
            .map(move |file| {
                let ctx = ctx.clone();
                let dir = dir.clone();
                let partition = partition.clone();
                let (tx, rx) = tokio::sync::mpsc::channel(CHANNEL_BATCHES);
                let what = format!("reading data file {}", file.file_name);
                let feed = tx.clone();
                crate::io::producer::spawn_producer(what, feed.clone(), async move {
                    let tx = feed;
                    let dv = match &ctx.dv {
                        Some(cache) => {
                            cache
                                .get(&ctx.table, snapshot_id, &partition, bucket, &file.file_name)
                                .await
                        }
                        None => Ok(None),
                    };
                    match dv {
                        Ok(dv) => ctx.read_file(&dir, bucket, &file, push_all, dv, &tx).await,
                        Err(e) => Err(e),
                    }
                });
                receiver_stream(rx)
            })
            .flatten()
            .boxed()
    }

    async fn read_file(
        &self,
        dir: &str,
        bucket: i32,
        file: &DataFileMeta,
        push_all: bool,
        dv: Option<Arc<DeletionVector>>,
        tx: &tokio::sync::mpsc::Sender<Result<RecordBatch>>,
    ) -> Result<()> {
        // An external path is resolved by the file reader.
        let path = self.table.paths().data_file(dir, bucket, &file.file_name);
        let fields = self.files.read_fields(file).await?;
        // Sections with one run hold each key once: every predicate can go below the read.
        // Overlapping runs only take key predicates (a value predicate could hide the newest
        // version of a key and let an older one win).
        let pushed = if push_all {
            &self.plan.bound
        } else {
            &self.key_bound
        };
        // Bound over the value fields (then key columns), which sit after the two system
        // columns. With a deletion vector row positions must stay intact: nothing is pushed.
        let shifted = pushed
            .as_ref()
            .filter(|_| dv.is_none())
            .filter(|b| !matches!(b, BoundPredicate::AlwaysTrue))
            .and_then(|b| b.remap(|i| Some(i + 2)).ok());
        let row_filter = shifted
            .as_ref()
            .and_then(|b| pushed_filter(b, &fields.read, &self.plan.keys));
        // The same predicate prunes row groups and pages by the file's statistics: a key
        // outside the predicate's range is outside it in every run, so skipping its pages in
        // one run cannot let an older version of the key win in another.
        let pruning = shifted.map(|predicate| {
            Arc::new(StatsPruning {
                fields: fields.read.clone(),
                predicate,
            })
        });
        let mut stream = self
            .files
            .read(&path, file, &fields, row_filter, pruning)
            .await?;
        let mut position = 0u64;
        while let Some(batch) = stream.next().await {
            let mut batch = batch?;
            if let Some(dv) = &dv {
                let n = batch.num_rows() as u64;
                batch = super::deletion_vectors::apply(batch, position, dv)?;
                position += n;
            }
            if tx.send(Ok(batch)).await.is_err() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Filters merged rows (value columns only) and projects them to the output columns
    /// (deriving MAP key columns).
    fn finish(&self, values: RecordBatch) -> Result<RecordBatch> {
        let n = values.num_rows();
        let Some(schema) = &self.kinds_schema else {
            return self.plan.finish(values.columns().to_vec(), n);
        };
        // The kind column first, then the value columns (a read with kinds has no filter).
        let kinds = values
            .column(0)
            .as_any()
            .downcast_ref::<arrow_array::Int8Array>()
            .ok_or_else(|| ErrorDetail::InvalidArgument("_VALUE_KIND is not TINYINT".into()))?;
        let kinds = super::row_kinds::kind_strings(kinds)?;
        let rows = self.plan.finish(values.columns()[1..].to_vec(), n)?;
        super::row_kinds::prepend(schema, kinds, &rows)
    }
}
