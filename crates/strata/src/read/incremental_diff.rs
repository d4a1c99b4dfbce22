//! The diff of two merged sides of one primary-key bucket (Java
//! `IncrementalDiffSplitRead.DiffMerger`, with deletes kept as `t$audit_log` reads it).
//!
//! Both inputs are audit-log merge reads of one bucket — `rowkind`, then every table column —
//! in key order. They are walked together by primary key (the LSM's byte-comparable
//! encoding, [`crate::lsm::sort_key`], the order the merge produced):
//!
//! * a key only START has: `-D` of its row when that row is an insert or update after,
//!   nothing when START already held it as a retraction;
//! * a key only END has: its row with its kind;
//! * a key both have: nothing when the values (every column) and whether the row is an
//!   addition are equal, else END's row with its kind.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::SchemaRef;
use futures::stream::{self, BoxStream};
use futures::StreamExt;
use strata_spec::kv::RowKind;

use crate::error::ErrorDetail;
use crate::lsm::sort_key::{compare, EncodedKeys, KeyEncoder};
use crate::table::Table;
use crate::{Error, Result};

/// One side: its stream and the batch being walked.
struct Side {
    stream: BoxStream<'static, Result<RecordBatch>>,
    batch: Option<(RecordBatch, EncodedKeys)>,
    pos: usize,
}

impl Side {
    /// A current batch with rows left; `false` at the end of the side.
    async fn fill(&mut self, keys: &Keys) -> Result<bool> {
        loop {
            if let Some((b, _)) = &self.batch {
                if self.pos < b.num_rows() {
                    return Ok(true);
                }
            }
            self.batch = None;
            self.pos = 0;
            match self.stream.next().await {
                None => return Ok(false),
                Some(b) => {
                    let b = b?;
                    if b.num_rows() > 0 {
                        let encoded = keys.encode(&b)?;
                        self.batch = Some((b, encoded));
                    }
                }
            }
        }
    }

    fn has_row(&self) -> bool {
        self.batch
            .as_ref()
            .is_some_and(|(b, _)| self.pos < b.num_rows())
    }

    fn kind(&self) -> Result<&str> {
        let (b, _) = self.batch.as_ref().expect("a current row");
        let kinds = b
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .ok_or_else(|| ErrorDetail::Invariant("rowkind is not a string column".into()))?;
        Ok(kinds.value(self.pos))
    }
}

/// The primary-key columns of the merged batches and their encoder.
struct Keys {
    columns: Vec<usize>,
    encoder: KeyEncoder,
}

impl Keys {
    fn encode(&self, batch: &RecordBatch) -> Result<EncodedKeys> {
        let cols: Vec<ArrayRef> = self
            .columns
            .iter()
            .map(|&i| batch.column(i).clone())
            .collect();
        self.encoder.encode(&cols)
    }
}

fn is_add(kind: &str) -> bool {
    kind == RowKind::Insert.short_string() || kind == RowKind::UpdateAfter.short_string()
}

/// Whether row `i` of `a` and row `j` of `b` hold equal values (every column after the kind).
fn values_equal(a: &RecordBatch, i: usize, b: &RecordBatch, j: usize) -> bool {
    (1..a.num_columns())
        .all(|c| a.column(c).slice(i, 1).to_data() == b.column(c).slice(j, 1).to_data())
}

/// The diff of `before` and `after` (audit-log merge reads of one bucket, as `schema`).
pub(super) fn diff_stream(
    table: &Table,
    schema: SchemaRef,
    before: BoxStream<'static, Result<RecordBatch>>,
    after: BoxStream<'static, Result<RecordBatch>>,
    batch_size: usize,
) -> Result<BoxStream<'static, Result<RecordBatch>>> {
    let pk = table.schema().trimmed_primary_keys();
    let mut columns = Vec::with_capacity(pk.len());
    let mut types = Vec::with_capacity(pk.len());
    for name in &pk {
        let i = schema.index_of(name).map_err(|_| {
            Error::from(ErrorDetail::Invariant(format!(
                "primary key {name} missing from a merged read"
            )))
        })?;
        columns.push(i);
        types.push(schema.field(i).data_type().clone());
    }
    let keys = Arc::new(Keys {
        columns,
        encoder: KeyEncoder::new(&types)?,
    });
    let state = Diff {
        before: Side {
            stream: before,
            batch: None,
            pos: 0,
        },
        after: Side {
            stream: after,
            batch: None,
            pos: 0,
        },
        keys,
        schema,
        batch_size,
        failed: false,
    };
    Ok(stream::unfold(state, |mut d| async move {
        if d.failed {
            return None;
        }
        match d.next_batch().await {
            Ok(Some(b)) => Some((Ok(b), d)),
            Ok(None) => None,
            Err(e) => {
                d.failed = true;
                Some((Err(e), d))
            }
        }
    })
    .boxed())
}

struct Diff {
    before: Side,
    after: Side,
    keys: Arc<Keys>,
    schema: SchemaRef,
    batch_size: usize,
    failed: bool,
}

/// Which side an output row comes from.
const BEFORE: usize = 0;
const AFTER: usize = 1;

impl Diff {
    /// The next output batch: rows picked from the two current batches until one of them is
    /// used up (or `batch_size` rows), `None` at the end.
    async fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            let more_before = self.before.fill(&self.keys).await?;
            let more_after = self.after.fill(&self.keys).await?;
            if !more_before && !more_after {
                return Ok(None);
            }
            let mut picks: Vec<(usize, usize)> = Vec::new();
            let mut kinds: Vec<&'static str> = Vec::new();
            while picks.len() < self.batch_size {
                let (b, a) = (self.before.has_row(), self.after.has_row());
                // A side whose batch is used up must be refilled before comparing again.
                if (more_before && !b) || (more_after && !a) {
                    break;
                }
                let order = match (b, a) {
                    (true, true) => {
                        let (_, bk) = self.before.batch.as_ref().expect("row");
                        let (_, ak) = self.after.batch.as_ref().expect("row");
                        compare(bk.get(self.before.pos), ak.get(self.after.pos))
                    }
                    (true, false) => std::cmp::Ordering::Less,
                    (false, true) => std::cmp::Ordering::Greater,
                    (false, false) => break,
                };
                match order {
                    std::cmp::Ordering::Less => {
                        if is_add(self.before.kind()?) {
                            picks.push((BEFORE, self.before.pos));
                            kinds.push(RowKind::Delete.short_string());
                        }
                        self.before.pos += 1;
                    }
                    std::cmp::Ordering::Greater => {
                        picks.push((AFTER, self.after.pos));
                        kinds.push(kind_str(self.after.kind()?)?);
                        self.after.pos += 1;
                    }
                    std::cmp::Ordering::Equal => {
                        let (bb, _) = self.before.batch.as_ref().expect("row");
                        let (ab, _) = self.after.batch.as_ref().expect("row");
                        let same = values_equal(bb, self.before.pos, ab, self.after.pos)
                            && is_add(self.before.kind()?) == is_add(self.after.kind()?);
                        if !same {
                            picks.push((AFTER, self.after.pos));
                            kinds.push(kind_str(self.after.kind()?)?);
                        }
                        self.before.pos += 1;
                        self.after.pos += 1;
                    }
                }
            }
            if !picks.is_empty() {
                return self.gather(&picks, kinds).map(Some);
            }
        }
    }

    /// The picked rows of the current batches, with `kinds` as their row kinds.
    fn gather(&self, picks: &[(usize, usize)], kinds: Vec<&'static str>) -> Result<RecordBatch> {
        let sides = [&self.before.batch, &self.after.batch];
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.schema.fields().len());
        columns.push(Arc::new(StringArray::from(kinds)));
        for c in 1..self.schema.fields().len() {
            // A side without a current batch contributes no rows; use the other's column.
            let arrays: Vec<&dyn Array> = sides
                .iter()
                .map(|s| s.as_ref().or(sides[0].as_ref()).or(sides[1].as_ref()))
                .map(|s| s.expect("a side has a batch").0.column(c).as_ref())
                .collect();
            columns.push(
                arrow_select::interleave::interleave(&arrays, picks)
                    .map_err(|e| Error::arrow("gathering an incremental diff", e))?,
            );
        }
        RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(|e| Error::arrow("building an incremental diff batch", e))
    }
}

/// The static spelling of a row kind read from a batch.
fn kind_str(kind: &str) -> Result<&'static str> {
    [
        RowKind::Insert,
        RowKind::UpdateBefore,
        RowKind::UpdateAfter,
        RowKind::Delete,
    ]
    .into_iter()
    .map(RowKind::short_string)
    .find(|k| *k == kind)
    .ok_or_else(|| {
        ErrorDetail::Invariant(format!("unknown row kind {kind:?} in a merged read")).into()
    })
}
