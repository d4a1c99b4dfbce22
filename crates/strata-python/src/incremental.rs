//! Incremental reads from Python: a table carrying `incremental-between` (or
//! `incremental-between-timestamp`) options — `table.copy({"incremental-between": "3,7"})` —
//! plans an [`IncrementalScan`] instead of a snapshot scan, and its splits are read by an
//! [`strata::read::IncrementalRead`]: every row with its kind in a first `rowkind` column.
//!
//! strata's incremental and streaming reads take a projection but no filter or limit; [`Shape`]
//! adds them on the output batches (filter columns the projection lacks are read and dropped
//! again), and can drop the `rowkind` column.

use arrow::compute::filter_record_batch;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::stream::BoxStream;
use futures::StreamExt;
use serde_json::{json, Value};
use strata::expr::BoundPredicate;
use strata::scan::{DataSplit, IncrementalScan, IncrementalSplit};
use strata::table::Table;
use strata_spec::snapshot::Snapshot;

/// The incremental scan the table's options ask for, `None` for an ordinary table.
pub(crate) fn scan_from_options(table: &Table) -> strata::Result<Option<IncrementalScan>> {
    IncrementalScan::from_options(table)
}

/// Filter, column selection and limit applied to the batches of an incremental or streaming
/// read (which read a projection, nothing more).
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    /// What the strata read is asked for: the caller's projection plus the filter's columns.
    pub read_projection: Option<Vec<String>>,
    filter: Option<BoundPredicate>,
    /// Keep the `rowkind` column (always the first one read).
    row_kind: bool,
    /// Columns of the caller's projection (they come right after `rowkind`); `None`: all.
    user_columns: Option<usize>,
    limit: Option<usize>,
}

fn leaf_names(p: &BoundPredicate, out: &mut Vec<String>) {
    match p {
        BoundPredicate::Leaf(l) => {
            if !out.contains(&l.name) {
                out.push(l.name.clone())
            }
        }
        BoundPredicate::And(c) | BoundPredicate::Or(c) => c.iter().for_each(|c| leaf_names(c, out)),
        BoundPredicate::AlwaysTrue | BoundPredicate::AlwaysFalse => {}
    }
}

impl Shape {
    pub(crate) fn new(
        table: &Table,
        projection: Option<Vec<String>>,
        filter: Option<&str>,
        row_kind: bool,
        limit: Option<usize>,
    ) -> strata::Result<Shape> {
        let filter = match filter {
            None => None,
            Some(text) => {
                let p = strata::expr::parse_sql_predicate(text)?;
                Some(p.bind(&table.schema().row_type(), &table.identifier().to_string())?)
            }
        };
        let user_columns = projection.as_ref().map(Vec::len);
        let read_projection = projection.map(|mut cols| {
            let mut names = Vec::new();
            if let Some(f) = &filter {
                leaf_names(f, &mut names);
            }
            for n in names {
                if !cols.contains(&n) {
                    cols.push(n);
                }
            }
            cols
        });
        Ok(Shape {
            read_projection,
            filter,
            row_kind,
            user_columns,
            limit,
        })
    }

    /// Indices of the read's columns that are output.
    fn keep(&self, read_columns: usize) -> Option<Vec<usize>> {
        let last = self.user_columns.map_or(read_columns, |n| n + 1);
        if self.row_kind && last == read_columns {
            return None;
        }
        let first = if self.row_kind { 0 } else { 1 };
        Some((first..last).collect())
    }

    /// The output schema given the read's.
    pub(crate) fn output_schema(&self, read: &SchemaRef) -> strata::Result<SchemaRef> {
        match self.keep(read.fields().len()) {
            None => Ok(read.clone()),
            Some(idx) => Ok(std::sync::Arc::new(read.project(&idx).map_err(|e| {
                strata::Error::arrow("projecting the output of an incremental read", e)
            })?)),
        }
    }

    /// One batch of the read as output: filtered, its columns selected.
    pub(crate) fn apply(&self, batch: RecordBatch) -> strata::Result<RecordBatch> {
        let batch = match &self.filter {
            None | Some(BoundPredicate::AlwaysTrue) => batch,
            Some(f) => {
                let mask = f.evaluate_by_name(&batch)?;
                filter_record_batch(&batch, &mask)
                    .map_err(|e| strata::Error::arrow("filtering an incremental read", e))?
            }
        };
        match self.keep(batch.num_columns()) {
            None => Ok(batch),
            Some(idx) => batch
                .project(&idx)
                .map_err(|e| strata::Error::arrow("projecting an incremental read", e)),
        }
    }

    /// `stream` shaped: filtered, projected, empty batches dropped, cut at the limit.
    pub(crate) fn stream(
        self,
        stream: BoxStream<'static, strata::Result<RecordBatch>>,
    ) -> BoxStream<'static, strata::Result<RecordBatch>> {
        let limit = self.limit;
        let filtered = self.filter.is_some();
        let shaped = stream.map(move |b| b.and_then(|b| self.apply(b)));
        let shaped = if filtered {
            shaped
                .filter(|b| futures::future::ready(!matches!(b, Ok(b) if b.num_rows() == 0)))
                .boxed()
        } else {
            shaped.boxed()
        };
        match limit {
            None => shaped,
            Some(limit) => strata::read::limit_rows(shaped, limit),
        }
    }
}

/// Rows of an incremental split's files (before merging and filters).
pub(crate) fn row_count(split: &IncrementalSplit) -> i64 {
    match split {
        IncrementalSplit::Records(s) => s.row_count(),
        IncrementalSplit::Diff { before, after, .. } => before.row_count() + after.row_count(),
    }
}

/// Delta and changelog splits one file each (each file is read on its own anyway), so that
/// Ray or a thread pool can spread them; diffs unchanged.
pub(crate) fn per_file(split: IncrementalSplit) -> Vec<IncrementalSplit> {
    match split {
        IncrementalSplit::Records(s) if s.files.len() > 1 => s
            .files
            .iter()
            .map(|f| {
                IncrementalSplit::Records(DataSplit {
                    files: vec![f.clone()],
                    ..s.clone()
                })
            })
            .collect(),
        other => vec![other],
    }
}

macro_rules! to_value {
    ($v:expr) => {
        serde_json::to_value($v).map_err(|e| e.to_string())?
    };
}

/// An incremental split in strata's wire form: `{"incremental": "records" | "diff", ...}`
/// around the JSON of its data splits (and, for a diff, its two snapshots).
pub(crate) fn to_json(split: &IncrementalSplit) -> Result<Vec<u8>, String> {
    let v = match split {
        IncrementalSplit::Records(s) => json!({"incremental": "records", "split": to_value!(s)}),
        IncrementalSplit::Diff {
            before,
            after,
            snapshots,
        } => json!({
            "incremental": "diff",
            "before": to_value!(before),
            "after": to_value!(after),
            "snapshots": to_value!(snapshots),
        }),
    };
    serde_json::to_vec(&v).map_err(|e| e.to_string())
}

/// The incremental split of [`to_json`]'s form, `None` when `v` is not one.
pub(crate) fn from_json(mut v: Value) -> Option<Result<IncrementalSplit, String>> {
    let kind = v.get("incremental")?.as_str()?.to_string();
    let mut take = |k: &str| v.get_mut(k).map(Value::take).unwrap_or(Value::Null);
    let split = |v: Value| serde_json::from_value::<DataSplit>(v).map_err(|e| e.to_string());
    Some(match kind.as_str() {
        "records" => split(take("split")).map(IncrementalSplit::Records),
        "diff" => (|| {
            let before = split(take("before"))?;
            let after = split(take("after"))?;
            let snapshots = serde_json::from_value::<Vec<Snapshot>>(take("snapshots"))
                .map_err(|e| e.to_string())?;
            Ok(IncrementalSplit::Diff {
                before,
                after,
                snapshots,
            })
        })(),
        other => Err(format!("unknown incremental split kind {other:?}")),
    })
}
