//! Batch scans of a table with `scan.fallback-branch` or `scan.primary-branch` (Java's
//! `FallbackReadFileStoreTable` and its `FallbackReadScan`): the table reads whole partitions
//! from two branches.
//!
//! * `scan.fallback-branch = b`: every partition that has a live file on the table's own
//!   branch (the partition filter alone decides, not the data filter) is read from it; the
//!   partitions only `b` has are read from `b`. A table without partition keys has one
//!   partition: it is read from `b` only while the own branch has no live file.
//! * `scan.primary-branch = b` (Java 2.0): the other way round — partitions `b` has are read
//!   from `b`, the rest from the own branch.
//!
//! Splits taken from the other branch carry its name ([`DataSplit::branch`], Java's
//! `FallbackDataSplit`); [`crate::read::TableRead`] reads them with that branch's table, whose
//! schemas may differ from the own branch's (`read::fallback`). As in Java, the two branches
//! must have the same row type (types by position, nullability ignored); strata also needs
//! the same column names (it binds filters and projections by name).
//!
//! What Java does not fall back on, strata does not either: streaming reads, incremental
//! reads, writes and the scans of writers (copy-on-write,
//! [`crate::scan::TableScan::with_latest`]) use the own branch only. A fallback branch that
//! does not exist is ignored (Java logs it and reads the own branch). Time travel of such a
//! table travels both branches as Java's `FallbackReadFileStoreTable.rewriteOtherOptions`
//! does (`super::fallback_travel`).

use std::collections::HashSet;

use strata_spec::options::StartupMode;
use strata_spec::schema::TableSchema;

use super::plan::{DataSplit, Plan};
use crate::error::ErrorDetail;
use crate::expr::Predicate;
use crate::table::Table;
use crate::{ErrorKind, Result};

/// `scan.fallback-branch` (Java `CoreOptions.SCAN_FALLBACK_BRANCH`).
pub(crate) const FALLBACK_BRANCH: &str = "scan.fallback-branch";
/// `scan.primary-branch` (Java `CoreOptions.SCAN_PRIMARY_BRANCH`).
pub(crate) const PRIMARY_BRANCH: &str = "scan.primary-branch";
/// `scan.fallback-branch.read-fail-fast` (Java `SCAN_FALLBACK_BRANCH_READ_FAIL_FAST`).
pub(crate) const READ_FAIL_FAST: &str = "scan.fallback-branch.read-fail-fast";

/// The other branch `table` reads through, with its option key and whether the table's own
/// branch comes first (fallback) or second (primary), as Java's `FileStoreTableFactory`
/// chooses: a non-blank `scan.fallback-branch` wins over `scan.primary-branch`.
pub(crate) fn other_branch(table: &Table) -> Option<(&'static str, String, bool)> {
    other_branch_of(table.schema())
}

/// [`other_branch`] of a schema's options.
pub(crate) fn other_branch_of(schema: &TableSchema) -> Option<(&'static str, String, bool)> {
    let set = |key: &str| {
        schema
            .options
            .get(key)
            .filter(|b| !b.trim().is_empty())
            .cloned()
    };
    if let Some(b) = set(FALLBACK_BRANCH) {
        return Some((FALLBACK_BRANCH, b, true));
    }
    set(PRIMARY_BRANCH).map(|b| (PRIMARY_BRANCH, b, false))
}

/// The other branch's table, or `None` when it does not exist (Java's
/// `createOtherBranchTable` returning null: the table reads its own branch).
pub(crate) async fn other_table(table: &Table, branch: &str) -> Result<Option<Table>> {
    match table.switch_to_branch(branch).await {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Java's `FallbackReadFileStoreTable.validateSchema`: the same field types by position,
/// nullability ignored; strata also needs the same names.
pub(crate) fn validate_schema(own: &Table, other: &Table, key: &str) -> Result<()> {
    let (a, b) = (own.schema().row_type(), other.schema().row_type());
    let same = a.fields.len() == b.fields.len()
        && a.fields.iter().zip(&b.fields).all(|(x, y)| {
            x.name == y.name && x.data_type.with_nullable(true) == y.data_type.with_nullable(true)
        });
    if same {
        return Ok(());
    }
    let names = |t: &Table| {
        t.schema()
            .row_type()
            .fields
            .iter()
            .map(|f| format!("{} {}", f.name, f.data_type))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(ErrorDetail::InvalidArgument(format!(
        "Branch {} and {} does not have the same row type. This validation is triggered \
         because '{key}' is configured to '{}'. The fallback branch must have the same schema \
         as the main branch. Row type of branch {} is ({}). Row type of branch {} is ({}).",
        own.branch(),
        other.branch(),
        other.branch(),
        own.branch(),
        names(own),
        other.branch(),
        names(other)
    ))
    .into())
}

/// Whether the table's own `scan.mode` reads the latest snapshot (no time travel).
pub(crate) fn reads_latest(table: &Table) -> Result<bool> {
    Ok(matches!(
        table.options().startup_mode()?,
        StartupMode::Default | StartupMode::LatestFull | StartupMode::Full | StartupMode::Latest
    ))
}

/// Java's `FallbackReadScan.plan`: the first side's splits, then the second side's splits
/// of the partitions not in `complete` (the first side's partitions); the other branch's
/// splits named `branch`. The plan's snapshot and metrics are the own branch's.
pub(crate) fn combine(
    first: Plan,
    second: Plan,
    complete: &HashSet<Vec<u8>>,
    own_first: bool,
    branch: &str,
) -> Plan {
    let mark = |splits: Vec<DataSplit>, is_other: bool| -> Vec<DataSplit> {
        splits
            .into_iter()
            .map(|mut s| {
                if is_other {
                    s.branch = Some(branch.to_string());
                }
                s
            })
            .collect()
    };
    let (own, mut splits, rest) = match own_first {
        true => (
            first.clone(),
            mark(first.splits, false),
            mark(second.splits, true),
        ),
        false => (
            second.clone(),
            mark(first.splits, true),
            mark(second.splits, false),
        ),
    };
    splits.extend(
        rest.into_iter()
            .filter(|s| !complete.contains(s.partition.as_bytes())),
    );
    let mut metrics = own.metrics;
    metrics.splits = splits.len();
    metrics.files = splits.iter().map(|s| s.files.len()).sum();
    Plan {
        snapshot: own.snapshot,
        splits,
        metrics,
    }
}

/// The part of `p` that tests only `keys` (names as a filter binds them: exact, else
/// case-insensitive), as `BoundPredicate::extract_for_columns` extracts it: conjuncts on
/// other columns dropped, an `Or` kept only whole. `None`: nothing constrains the keys.
pub(crate) fn partition_part(p: &Predicate, keys: &[String]) -> Option<Predicate> {
    let is_key = |c: &str| keys.iter().any(|k| k == c || k.eq_ignore_ascii_case(c));
    fn only(p: &Predicate, is_key: &dyn Fn(&str) -> bool) -> bool {
        match p {
            Predicate::AlwaysTrue | Predicate::AlwaysFalse => true,
            Predicate::Leaf(l) => is_key(&l.column),
            Predicate::And(c) | Predicate::Or(c) => c.iter().all(|c| only(c, is_key)),
            Predicate::Not(c) => only(c, is_key),
        }
    }
    match p {
        Predicate::AlwaysTrue => None,
        Predicate::And(children) => {
            let kept: Vec<Predicate> = children
                .iter()
                .filter_map(|c| partition_part(c, keys))
                .collect();
            (!kept.is_empty()).then_some(Predicate::And(kept))
        }
        Predicate::Or(children) => {
            let kept = children
                .iter()
                .map(|c| partition_part(c, keys))
                .collect::<Option<Vec<_>>>()?;
            Some(Predicate::Or(kept))
        }
        other => only(other, &is_key).then(|| other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_spec::Datum;

    #[test]
    fn partition_part_keeps_only_partition_conjuncts() {
        let keys = vec!["dt".to_string()];
        let dt = Predicate::equal("dt", Datum::String("a".into()));
        let v = Predicate::greater_than("v", Datum::Int(1));
        let both = Predicate::and([dt.clone(), v.clone()]);
        assert_eq!(
            partition_part(&both, &keys),
            Some(Predicate::And(vec![dt.clone()]))
        );
        assert_eq!(partition_part(&v, &keys), None);
        assert_eq!(partition_part(&Predicate::or([dt.clone(), v]), &keys), None);
        let upper = Predicate::equal("DT", Datum::String("a".into()));
        assert_eq!(partition_part(&upper, &keys), Some(upper));
    }
}
