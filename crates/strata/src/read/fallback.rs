//! Reading the splits of a table with `scan.fallback-branch` / `scan.primary-branch` (Java's
//! `FallbackReadFileStoreTable.Read`): a split planned on the other branch
//! ([`DataSplit::branch`], `crate::scan::fallback`) is read with that branch's table — its
//! schemas, which may differ from the own branch's — and its batches are given the own read's
//! output schema (field names and types are the same, `scan::fallback::validate_schema`).
//!
//! `scan.fallback-branch.read-fail-fast` (default false): as in Java, when opening the
//! fallback branch's read fails (the branch was deleted after planning, its schema no longer
//! matches), the split is read with the table's own branch instead; with `true` the error is
//! returned. With `scan.primary-branch` the other branch comes first and its errors are always
//! returned (Java catches only the second branch's).

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::stream::{self, BoxStream};
use futures::{StreamExt, TryStreamExt};

use super::limit::limit_rows;
use crate::error::ErrorDetail;
use crate::scan::fallback::{
    other_branch, other_table, validate_schema, FALLBACK_BRANCH, READ_FAIL_FAST,
};
use crate::scan::DataSplit;
use crate::table::Table;
use crate::Result;

/// Whether some of `splits` were planned on another branch than `table`'s.
pub(super) fn has_other_branch(table: &Table, splits: &[DataSplit]) -> bool {
    splits.iter().any(|s| is_other(table, s))
}

fn is_other(table: &Table, split: &DataSplit) -> bool {
    split.branch.as_deref().is_some_and(|b| b != table.branch())
}

/// Opens a read of splits with a table: the caller's `TableRead` (projection, filter,
/// settings, no limit) on that table.
pub(super) type OpenRead = Arc<
    dyn Fn(Table, Vec<DataSplit>) -> Result<BoxStream<'static, Result<RecordBatch>>> + Send + Sync,
>;

/// The rows of `splits`: the own branch's through `open` on `own_table`, each other branch's
/// through `open` on that branch's table, in that order, all with `schema` (the own read's
/// output schema); `limit` over all of them.
pub(super) fn to_stream(
    own_table: Table,
    splits: Vec<DataSplit>,
    schema: SchemaRef,
    limit: Option<usize>,
    open: OpenRead,
) -> Result<BoxStream<'static, Result<RecordBatch>>> {
    let fall_through = other_branch(&own_table).is_some_and(|(key, _, _)| key == FALLBACK_BRANCH)
        && !own_table
            .options()
            .get_bool(READ_FAIL_FAST)
            .map_err(|e| ErrorDetail::InvalidOption {
                key: READ_FAIL_FAST.into(),
                message: e.to_string(),
            })?
            .unwrap_or(false);
    let mut own = Vec::new();
    let mut others: BTreeMap<String, Vec<DataSplit>> = BTreeMap::new();
    for s in splits {
        match s.branch.clone().filter(|_| is_other(&own_table, &s)) {
            Some(b) => others.entry(b).or_default().push(s),
            None => own.push(s),
        }
    }
    let mut streams = Vec::new();
    if !own.is_empty() {
        streams.push(open(own_table.clone(), own)?);
    }
    for (branch, splits) in others {
        let (open, schema, own_table) = (open.clone(), schema.clone(), own_table.clone());
        let opened = async move {
            match open_branch(&own_table, &open, &branch, splits.clone()).await {
                Ok(s) => Ok(conform(s, schema)),
                Err(e) if !fall_through => Err(e),
                // Java logs the failure and reads the split with the current branch's read.
                Err(_) => open(
                    own_table,
                    splits
                        .into_iter()
                        .map(|mut s| {
                            s.branch = None;
                            s
                        })
                        .collect(),
                ),
            }
        };
        streams.push(stream::once(opened).try_flatten().boxed());
    }
    let all = stream::iter(streams).flatten().boxed();
    Ok(match limit {
        Some(n) => limit_rows(all, n),
        None => all,
    })
}

/// `splits` of branch `branch` read with that branch's table.
async fn open_branch(
    own: &Table,
    open: &OpenRead,
    branch: &str,
    splits: Vec<DataSplit>,
) -> Result<BoxStream<'static, Result<RecordBatch>>> {
    let Some(other) = other_table(own, branch).await? else {
        return Err(ErrorDetail::TableNotFound(format!(
            "{} (branch {branch}, which planned splits of this read, does not exist)",
            own.identifier().main()
        ))
        .into());
    };
    let key = other_branch(own).map_or(FALLBACK_BRANCH, |(k, _, _)| k);
    if let Err(e) = validate_schema(own, &other, key) {
        // A time-travel read: the other branch's snapshot may have another schema than its
        // latest (the plan read it with that one, as Java's `tryTimeTravel` does).
        let Some(at) = schema_at_split(&other, &splits).await else {
            return Err(e);
        };
        validate_schema(own, &at, key)?;
        return open(at, splits);
    }
    open(other, splits)
}

/// `other` at the schema of the snapshot its `splits` were planned at, when that snapshot
/// can be read and has another schema than `other`'s.
async fn schema_at_split(other: &Table, splits: &[DataSplit]) -> Option<Table> {
    let id = splits.first()?.snapshot_id;
    let snapshot = other.snapshot_manager().snapshot(id).await.ok()?;
    if snapshot.schema_id == other.schema().id {
        return None;
    }
    crate::scan::time_travel::table_at(other, &snapshot)
        .await
        .ok()
}

/// `batches` with `schema` (the own read's): the same columns, cast where a type differs in
/// nullability or field metadata inside nested types.
fn conform(
    batches: BoxStream<'static, Result<RecordBatch>>,
    schema: SchemaRef,
) -> BoxStream<'static, Result<RecordBatch>> {
    batches
        .map(move |b| {
            let b = b?;
            if b.schema() == schema {
                return Ok(b);
            }
            let columns = b
                .columns()
                .iter()
                .zip(schema.fields())
                .map(|(c, f)| match c.data_type() == f.data_type() {
                    true => Ok(c.clone()),
                    false => arrow_cast::cast(c, f.data_type()),
                })
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|e| crate::Error::arrow("casting a fallback branch's batch", e))?;
            let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(b.num_rows()));
            RecordBatch::try_new_with_options(schema.clone(), columns, &options)
                .map_err(|e| crate::Error::arrow("a fallback branch's batch", e))
        })
        .boxed()
}
