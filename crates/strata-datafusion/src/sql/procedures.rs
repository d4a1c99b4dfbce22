//! `CALL sys.<procedure>(…)`: Paimon's procedures with Paimon's names and arguments (Spark's
//! `org.apache.paimon.spark.procedure.*`), named (`table => 'db.t'`) or positional, each
//! returning a result table:
//!
//! | procedure | arguments | result |
//! |---|---|---|
//! | `sys.compact` | `table`, `partitions` (`'dt=1,hh=2;dt=2'`), `compact_strategy` (`'full'`, the default as in Paimon's Spark and Flink batch procedures, or `'minor'`: the table's own strategy) | `result BOOLEAN`, `snapshot_id BIGINT` (NULL when nothing needed compaction), `buckets BIGINT` (buckets visited), `compact_strategy STRING` (what was done), `input_files BIGINT` (files compacted, upgrades included), `output_files BIGINT` (files written) |
//! | `sys.expire_snapshots` | `table`, `retain_max`, `retain_min`, `older_than` (`'yyyy-MM-dd HH:mm:ss'`), `max_deletes` | `deleted_snapshots_num INT` |
//! | `sys.create_tag` | `table`, `tag`, `snapshot`, `time_retained` (`'1 d'`) | `result BOOLEAN` |
//! | `sys.delete_tag` | `table`, `tag` (comma-separated names) | `result BOOLEAN` |
//! | `sys.rollback` | `table`, `version` (snapshot id or tag name), or `snapshot` / `tag` | `previous_snapshot_id BIGINT`, `current_snapshot_id BIGINT` |
//! | `sys.remove_orphan_files` | `table`, `older_than`, `dry_run` | `deleted_file_count BIGINT`, `deleted_file_total_len_in_bytes BIGINT` |
//! | `sys.create_branch` | `table`, `branch`, `tag` (empty branch without it), `ignoreIfExists` | `result BOOLEAN` |
//! | `sys.delete_branch` | `table`, `branch` (comma-separated names) | `result BOOLEAN` |
//! | `sys.fast_forward` | `table` (`db.t` or `db.t$branch_x`), `branch` | `result BOOLEAN` |
//! | `sys.rescale` | `table`, `bucket_num` (default: the table's `bucket`; required for `bucket = -2`), `partitions` or Flink's `partition` (one spec `'dt=1,hh=2'`; default: every partition) | `result BOOLEAN` |
//!
//! An argument a procedure does not know is an error naming it (never ignored). One that
//! Paimon's procedure takes but strata does not implement (below) is refused as such, naming it
//! and the procedure; positionally, Paimon's order continues with them.
//!
//! | procedure | Paimon's arguments strata does not implement |
//! |---|---|
//! | `sys.compact` | `order_strategy`, `order_by`, `where`, `options`, `partition_idle_time` |
//! | `sys.expire_snapshots` | `options` |
//! | `sys.remove_orphan_files` | `parallelism`, `mode` |
//! | `sys.rescale` | `where` |

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use arrow_array::{
    Array, ArrayRef, BooleanArray, Int32Array, Int64Array, RecordBatch, StringArray,
};
use arrow_schema::{Field, Schema};
use datafusion::common::Result;
use datafusion::dataframe::DataFrame;
use datafusion::sql::sqlparser::ast::{Function, FunctionArg, FunctionArgExpr, FunctionArguments};
use strata::maintenance::expire::{ExpireConfig, ExpireSnapshots};
use strata::maintenance::orphans::OrphanFilesClean;
use strata::maintenance::{rollback, tag_ops};
use strata::table::branches::BranchStart;
use strata::table::Table;
use strata::write::{CompactRequest, RescaleRequest};

use super::ast::{name_parts, option_text};
use super::context::SqlContext;
use crate::error::{plan_error, to_df};

/// The arguments of one call: named ones by name, positional ones by the procedure's order.
struct Args {
    procedure: String,
    values: BTreeMap<String, String>,
}

/// The arguments of a procedure: `takes`, the ones strata implements, in Paimon's positional
/// order, then `paimon_only`, the ones Paimon's procedure also takes and strata does not
/// implement, which are refused (never ignored). Both lists are Paimon's Spark procedure's
/// `PARAMETERS`, the same in 1.4 and 2.0 (`CompactProcedure`, `ExpireSnapshotsProcedure`,
/// `CreateOrReplaceTagBaseProcedure`, `DeleteTagProcedure`, `RollbackProcedure`,
/// `RemoveOrphanFilesProcedure` in `org.apache.paimon.spark.procedure`).
struct Signature {
    takes: &'static [&'static str],
    paimon_only: &'static [&'static str],
}

const COMPACT: Signature = Signature {
    takes: &["table", "partitions", "compact_strategy"],
    // Sort compaction (order / zorder / hilbert), a partition predicate, dynamic table
    // options, and compacting only partitions idle for a while.
    paimon_only: &[
        "order_strategy",
        "order_by",
        "where",
        "options",
        "partition_idle_time",
    ],
};
/// Spark's `RewriteFileIndexProcedure` takes `table` and `where`; Flink's takes `partitions`.
const REWRITE_FILE_INDEX: Signature = Signature {
    takes: &["table", "partitions"],
    // A partition predicate.
    paimon_only: &["where"],
};
const EXPIRE_SNAPSHOTS: Signature = Signature {
    takes: &[
        "table",
        "retain_max",
        "retain_min",
        "older_than",
        "max_deletes",
    ],
    // Dynamic table options for the run.
    paimon_only: &["options"],
};
const CREATE_TAG: Signature = Signature {
    takes: &["table", "tag", "snapshot", "time_retained"],
    paimon_only: &[],
};
const DELETE_TAG: Signature = Signature {
    takes: &["table", "tag"],
    paimon_only: &[],
};
const ROLLBACK: Signature = Signature {
    takes: &["table", "version", "snapshot", "tag"],
    paimon_only: &[],
};
/// Spark's `CreateBranchProcedure`, `DeleteBranchProcedure`, `FastForwardProcedure`.
const CREATE_BRANCH: Signature = Signature {
    takes: &["table", "branch", "tag", "ignoreifexists"],
    paimon_only: &[],
};
const DELETE_BRANCH: Signature = Signature {
    takes: &["table", "branch"],
    paimon_only: &[],
};
const FAST_FORWARD: Signature = Signature {
    takes: &["table", "branch"],
    paimon_only: &[],
};
/// Spark's `RescaleProcedure` (`table`, `bucket_num`, `partitions`, `where`), with Flink's
/// name `partition` for the spec as well.
const RESCALE: Signature = Signature {
    takes: &["table", "bucket_num", "partitions", "partition"],
    // A partition predicate instead of a spec.
    paimon_only: &["where"],
};
const REMOVE_ORPHAN_FILES: Signature = Signature {
    takes: &["table", "older_than", "dry_run"],
    // How Spark runs the clean: its parallelism and LOCAL / DISTRIBUTED execution.
    paimon_only: &["parallelism", "mode"],
};

impl Args {
    fn parse(procedure: &str, f: &Function, signature: &Signature) -> Result<Args> {
        let order = signature.takes;
        let mut values = BTreeMap::new();
        let list = match &f.args {
            FunctionArguments::List(l) => l.args.clone(),
            FunctionArguments::None => vec![],
            FunctionArguments::Subquery(_) => {
                return Err(plan_error(format!(
                    "CALL {procedure}: a subquery is not an argument"
                )))
            }
        };
        let positions = order.len() + signature.paimon_only.len();
        if list
            .iter()
            .skip(positions)
            .any(|a| matches!(a, FunctionArg::Unnamed(_)))
        {
            return Err(plan_error(format!(
                "CALL {procedure}: too many arguments (it takes {})",
                order.join(", ")
            )));
        }
        for (i, a) in list.iter().enumerate() {
            let (name, e) = match a {
                FunctionArg::Named { name, arg, .. } => (name.value.to_ascii_lowercase(), arg),
                FunctionArg::ExprNamed { name, arg, .. } => {
                    (name.to_string().to_ascii_lowercase(), arg)
                }
                FunctionArg::Unnamed(arg) => {
                    match order.iter().chain(signature.paimon_only).nth(i) {
                        Some(n) => (n.to_string(), arg),
                        None => {
                            return Err(plan_error(format!(
                                "CALL {procedure}: too many arguments (it takes {})",
                                order.join(", ")
                            )))
                        }
                    }
                }
            };
            if signature.paimon_only.contains(&name.as_str()) {
                return Err(to_df(strata::Error::unsupported(format!(
                    "CALL {procedure}: argument {name} of Paimon's {procedure} is not supported \
                     by strata (strata's {procedure} takes {})",
                    order.join(", ")
                ))));
            }
            if !order.contains(&name.as_str()) {
                return Err(plan_error(format!(
                    "CALL {procedure}: unknown argument {name} (expected one of {})",
                    order.join(", ")
                )));
            }
            if values.contains_key(&name) {
                return Err(plan_error(format!(
                    "CALL {procedure}: argument {name} is given twice"
                )));
            }
            let FunctionArgExpr::Expr(e) = e else {
                return Err(plan_error(format!(
                    "CALL {procedure}: argument {name} must be a literal"
                )));
            };
            values.insert(name, option_text(e)?);
        }
        Ok(Args {
            procedure: procedure.to_string(),
            values,
        })
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    fn required(&self, name: &str) -> Result<&str> {
        self.get(name).ok_or_else(|| {
            plan_error(format!(
                "CALL {}: argument {name} is required",
                self.procedure
            ))
        })
    }

    fn int(&self, name: &str) -> Result<Option<i64>> {
        self.get(name)
            .map(|v| {
                v.trim().parse::<i64>().map_err(|_| {
                    plan_error(format!(
                        "CALL {}: argument {name} = '{v}': expected an integer",
                        self.procedure
                    ))
                })
            })
            .transpose()
    }

    fn bool(&self, name: &str) -> Result<Option<bool>> {
        self.get(name)
            .map(|v| match v.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(plan_error(format!(
                    "CALL {}: argument {name} = '{v}': expected true or false",
                    self.procedure
                ))),
            })
            .transpose()
    }
}

/// A one-row result; a column holding NULL (`snapshot_id` of a compaction with nothing to do)
/// is nullable.
fn batch(columns: Vec<(&str, ArrayRef)>) -> Result<RecordBatch> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), a.null_count() > 0))
        .collect();
    Ok(RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns.into_iter().map(|(_, a)| a).collect(),
    )?)
}

async fn table_arg(session: &SqlContext, args: &Args) -> Result<Table> {
    let name = args.required("table")?;
    let parts: Vec<String> = name.split('.').map(|p| p.trim().to_string()).collect();
    let id = session.identifier(&parts)?;
    session.catalog().get_table(&id).await.map_err(to_df)
}

pub(crate) async fn call(session: &SqlContext, f: &Function) -> Result<DataFrame> {
    let parts = name_parts(&f.name);
    let name = match parts.as_slice() {
        [sys, p] if sys.eq_ignore_ascii_case("sys") => p.to_ascii_lowercase(),
        _ => {
            return Err(plan_error(format!(
                "CALL {}: procedures are called as sys.<name>",
                f.name
            )))
        }
    };
    let result = match name.as_str() {
        "compact" => compact(session, f).await?,
        "expire_snapshots" => expire_snapshots(session, f).await?,
        "create_tag" => create_tag(session, f).await?,
        "delete_tag" => delete_tag(session, f).await?,
        "rollback" => rollback_to(session, f).await?,
        "remove_orphan_files" => remove_orphan_files(session, f).await?,
        "create_branch" => create_branch(session, f).await?,
        "delete_branch" => delete_branch(session, f).await?,
        "fast_forward" => fast_forward(session, f).await?,
        "rescale" => rescale(session, f).await?,
        "rewrite_file_index" => rewrite_file_index(session, f).await?,
        other => {
            return Err(plan_error(format!(
                "CALL sys.{other}: unknown procedure (strata has compact, expire_snapshots, \
                 create_tag, delete_tag, rollback, remove_orphan_files, create_branch, \
                 delete_branch, fast_forward, rescale, rewrite_file_index)"
            )))
        }
    };
    session.result(result)
}

/// `CALL sys.rewrite_file_index(table => 'db.t' [, partitions => 'dt=1;dt=2'])`: the file
/// indexes of the live files rebuilt from the table's `file-index.*` options
/// (`Table::rewrite_file_index`); one row: the COMPACT snapshot, files re-indexed, and how
/// many got a separate `.index` file (Spark's `written_indexes`).
async fn rewrite_file_index(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.rewrite_file_index", f, &REWRITE_FILE_INDEX)?;
    let table = table_arg(session, &args).await?;
    let mut partitions = Vec::new();
    for spec in args.get("partitions").unwrap_or("").split(';') {
        let spec = spec.trim();
        if spec.is_empty() {
            continue;
        }
        let mut pairs = Vec::new();
        for kv in spec.split(',') {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                plan_error(format!(
                    "CALL sys.rewrite_file_index: partitions '{spec}': expected k=v[,k=v]"
                ))
            })?;
            pairs.push((k.trim().to_string(), v.trim().to_string()));
        }
        partitions.push(pairs);
    }
    let report = table.rewrite_file_index(&partitions).await.map_err(to_df)?;
    batch(vec![
        (
            "snapshot_id",
            Arc::new(Int64Array::from(vec![report.snapshot])) as ArrayRef,
        ),
        (
            "files",
            Arc::new(Int64Array::from(vec![report.files as i64])),
        ),
        (
            "written_indexes",
            Arc::new(Int64Array::from(vec![report.index_files as i64])),
        ),
    ])
}

async fn compact(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.compact", f, &COMPACT)?;
    let table = table_arg(session, &args).await?;
    // Paimon's Spark `CompactProcedure`: without a strategy a batch compaction is a full one
    // (`compactStrategy = clusterIncrementalEnabled ? MINOR : FULL`; strata has no incremental
    // clustering; 0.9's procedure always compacted fully), as is Flink's batch `CompactAction`.
    let full = match args
        .get("compact_strategy")
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("minor") => false,
        None | Some("full") => true,
        Some(other) => {
            return Err(plan_error(format!(
                "CALL sys.compact: compact_strategy '{other}': expected 'full' or 'minor'"
            )))
        }
    };
    let mut partitions = Vec::new();
    for spec in args.get("partitions").unwrap_or("").split(';') {
        let spec = spec.trim();
        if spec.is_empty() {
            continue;
        }
        let mut pairs = Vec::new();
        for kv in spec.split(',') {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                plan_error(format!(
                    "CALL sys.compact: partitions '{spec}': expected k=v[,k=v]"
                ))
            })?;
            pairs.push((k.trim().to_string(), v.trim().to_string()));
        }
        partitions.push(pairs);
    }
    let request = CompactRequest {
        partitions,
        bucket: None,
        full,
    };
    let report = table.compact(&request, &|_, _| {}).await.map_err(to_df)?;
    let files = |f: fn(&strata::write::TaskMetrics) -> usize| {
        report
            .metrics
            .iter()
            .map(|m| f(&m.task) as i64)
            .sum::<i64>()
    };
    let (input_files, output_files) = (files(|t| t.input_files), files(|t| t.output_files));
    batch(vec![
        (
            "result",
            Arc::new(BooleanArray::from(vec![true])) as ArrayRef,
        ),
        (
            "snapshot_id",
            Arc::new(Int64Array::from(vec![report.snapshot])),
        ),
        (
            "buckets",
            Arc::new(Int64Array::from(vec![report.buckets.len() as i64])),
        ),
        (
            "compact_strategy",
            Arc::new(StringArray::from(vec![if full { "full" } else { "minor" }])),
        ),
        ("input_files", Arc::new(Int64Array::from(vec![input_files]))),
        (
            "output_files",
            Arc::new(Int64Array::from(vec![output_files])),
        ),
    ])
}

/// `CALL sys.rescale(table => 'db.t', bucket_num => 4, partitions => 'dt=1')`: the partition
/// (every partition without a spec) rewritten into `bucket_num` buckets in one OVERWRITE
/// commit (`strata::table::Table::rescale`).
async fn rescale(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.rescale", f, &RESCALE)?;
    let table = table_arg(session, &args).await?;
    let bucket_num = args
        .int("bucket_num")?
        .map(|n| i32::try_from(n).map_err(|_| plan_error("bucket_num is too large")))
        .transpose()?;
    let spec = match (args.get("partitions"), args.get("partition")) {
        (Some(_), Some(_)) => {
            return Err(plan_error(
                "CALL sys.rescale: give partitions or partition, not both",
            ))
        }
        (Some(s), None) | (None, Some(s)) => s.trim(),
        (None, None) => "",
    };
    if spec.contains(';') {
        return Err(plan_error(format!(
            "CALL sys.rescale: partitions '{spec}': strata rescales one partition spec per call"
        )));
    }
    let mut partition = Vec::new();
    for kv in spec.split(',').filter(|kv| !kv.trim().is_empty()) {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            plan_error(format!(
                "CALL sys.rescale: partitions '{spec}': expected k=v[,k=v]"
            ))
        })?;
        partition.push((k.trim().to_string(), v.trim().to_string()));
    }
    table
        .rescale(&RescaleRequest {
            bucket_num,
            partition,
        })
        .await
        .map_err(to_df)?;
    batch(vec![(
        "result",
        Arc::new(BooleanArray::from(vec![true])) as ArrayRef,
    )])
}

async fn expire_snapshots(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.expire_snapshots", f, &EXPIRE_SNAPSHOTS)?;
    let table = table_arg(session, &args).await?;
    let mut config = ExpireConfig::from_table(&table).map_err(to_df)?;
    let now = table.clock().now_millis();
    if let Some(v) = args.int("retain_max")? {
        config.retain_max = i32::try_from(v).map_err(|_| plan_error("retain_max is too large"))?;
    }
    if let Some(v) = args.int("retain_min")? {
        config.retain_min = i32::try_from(v).map_err(|_| plan_error("retain_min is too large"))?;
    }
    if let Some(v) = args.int("max_deletes")? {
        config.max_deletes =
            i32::try_from(v).map_err(|_| plan_error("max_deletes is too large"))?;
    }
    if let Some(ts) = args.get("older_than") {
        let at = strata::maintenance::time_travel::parse_local_timestamp(ts).map_err(to_df)?;
        config.time_retained = Duration::from_millis(u64::try_from(now - at).unwrap_or(0));
    }
    let report = ExpireSnapshots::new(&table)
        .map_err(to_df)?
        .with_config(config)
        .with_now_millis(now)
        .expire()
        .await
        .map_err(to_df)?;
    batch(vec![(
        "deleted_snapshots_num",
        Arc::new(Int32Array::from(vec![report.expired.len() as i32])) as ArrayRef,
    )])
}

async fn create_tag(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.create_tag", f, &CREATE_TAG)?;
    let table = table_arg(session, &args).await?;
    let tag = args.required("tag")?;
    let retained = args
        .get("time_retained")
        .map(|v| {
            strata::spec::options::units::parse_duration(v)
                .map_err(|e| plan_error(format!("CALL sys.create_tag: time_retained '{v}': {e}")))
        })
        .transpose()?;
    tag_ops::create_tag(&table, tag, args.int("snapshot")?, retained)
        .await
        .map_err(to_df)?;
    batch(vec![(
        "result",
        Arc::new(BooleanArray::from(vec![true])) as ArrayRef,
    )])
}

async fn delete_tag(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.delete_tag", f, &DELETE_TAG)?;
    let table = table_arg(session, &args).await?;
    for tag in args.required("tag")?.split(',') {
        tag_ops::delete_tag(&table, tag.trim())
            .await
            .map_err(to_df)?;
    }
    batch(vec![(
        "result",
        Arc::new(BooleanArray::from(vec![true])) as ArrayRef,
    )])
}

async fn rollback_to(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.rollback", f, &ROLLBACK)?;
    let table = table_arg(session, &args).await?;
    let previous = table.snapshot_manager().latest_id().await.map_err(to_df)?;
    let report = match (args.get("version"), args.int("snapshot")?, args.get("tag")) {
        (Some(v), None, None) => match v.trim().parse::<i64>() {
            Ok(id) => rollback::rollback_to_snapshot(&table, id).await,
            Err(_) => rollback::rollback_to_tag(&table, v.trim()).await,
        },
        (None, Some(id), None) => rollback::rollback_to_snapshot(&table, id).await,
        (None, None, Some(tag)) => rollback::rollback_to_tag(&table, tag).await,
        _ => {
            return Err(plan_error(
                "CALL sys.rollback: give exactly one of version, snapshot and tag",
            ))
        }
    }
    .map_err(to_df)?;
    batch(vec![
        (
            "previous_snapshot_id",
            Arc::new(Int64Array::from(vec![previous])) as ArrayRef,
        ),
        (
            "current_snapshot_id",
            Arc::new(Int64Array::from(vec![report.snapshot_id])),
        ),
    ])
}

async fn remove_orphan_files(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.remove_orphan_files", f, &REMOVE_ORPHAN_FILES)?;
    let table = table_arg(session, &args).await?;
    let older_than = match args.get("older_than") {
        Some(ts) => strata::maintenance::time_travel::parse_local_timestamp(ts).map_err(to_df)?,
        None => OrphanFilesClean::default_older_than_millis(&table),
    };
    let report = OrphanFilesClean::new(&table, older_than)
        .dry_run(args.bool("dry_run")?.unwrap_or(false))
        .clean()
        .await
        .map_err(to_df)?;
    batch(vec![
        (
            "deleted_file_count",
            Arc::new(Int64Array::from(vec![report.count() as i64])) as ArrayRef,
        ),
        (
            "deleted_file_total_len_in_bytes",
            Arc::new(Int64Array::from(vec![report.bytes() as i64])),
        ),
    ])
}

fn result_true() -> Result<RecordBatch> {
    batch(vec![(
        "result",
        Arc::new(BooleanArray::from(vec![true])) as ArrayRef,
    )])
}

async fn create_branch(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.create_branch", f, &CREATE_BRANCH)?;
    let table = table_arg(session, &args).await?;
    let branch = args.required("branch")?;
    if args.bool("ignoreifexists")?.unwrap_or(false)
        && table.branch_exists(branch).await.map_err(to_df)?
    {
        return result_true();
    }
    let start = match args.get("tag").filter(|t| !t.trim().is_empty()) {
        Some(tag) => BranchStart::Tag(tag.to_string()),
        None => BranchStart::Empty,
    };
    table.create_branch(branch, start).await.map_err(to_df)?;
    result_true()
}

async fn delete_branch(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.delete_branch", f, &DELETE_BRANCH)?;
    let table = table_arg(session, &args).await?;
    for branch in args.required("branch")?.split(',') {
        table.delete_branch(branch.trim()).await.map_err(to_df)?;
    }
    result_true()
}

async fn fast_forward(session: &SqlContext, f: &Function) -> Result<RecordBatch> {
    let args = Args::parse("sys.fast_forward", f, &FAST_FORWARD)?;
    let table = table_arg(session, &args).await?;
    table
        .fast_forward(args.required("branch")?)
        .await
        .map_err(to_df)?;
    result_true()
}
