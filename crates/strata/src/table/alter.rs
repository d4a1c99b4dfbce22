//! `ALTER TABLE`: [`Table::alter`] commits a list of [`SchemaChange`]s as the table's next
//! schema version (Java's `SchemaManager.commitChanges`, through
//! [`crate::meta::SchemaManager::commit_changes_checked`]).
//!
//! The changes are applied by [`strata_spec::schema::TableSchema::apply_changes_with`], which
//! mirrors Java's rules and refusals. On top of them strata refuses what it cannot honour:
//!
//! * options it does not implement ([`super::refuse_unsupported_options`], the same audit as
//!   at `CREATE TABLE`), and a `file.format` other than parquet (strata writes only Parquet);
//! * leaving the postpone bucket (`bucket` from -2 to N) once the table has snapshots (a new
//!   count N → M is allowed as in Java: writers refuse the old partitions until
//!   [`Table::rescale`] or an INSERT OVERWRITE rewrites them);
//! * type changes Java allows but strata's reader would not convert the way Java does
//!   ([`crate::format::evolve::check_readable_type_change`]), checked against the column's type
//!   in *every* earlier schema version, since files of each may still be live;
//! * a schema the [`Table`] context cannot be built on (e.g. a bad `manifest.compression`).
//!
//! Files written before the change stay as they are; reads map them to the new schema by
//! field id (renamed columns keep their values, dropped ones vanish, added ones read as NULL,
//! widened ones are converted), and writes and compactions after the change use the new one.

use std::collections::BTreeMap;
use std::sync::Arc;

use strata_spec::schema::{SchemaChange, TableSchema};
use strata_spec::SpecError;

use super::{refuse_unsupported_options, Table};
use crate::error::ErrorDetail;
use crate::format::evolve::check_readable_type_change;
use crate::{Error, Result};

impl Table {
    /// Applies `changes` to the table's latest schema and commits the result as the next
    /// schema version; returns the table at that version. Concurrent alters serialize: one
    /// that loses the race is applied again to the winner's schema. Errors name the column or
    /// option: `ErrorDetail::ColumnNotFound`, `ErrorDetail::ColumnAlreadyExists`, `ErrorDetail::Unsupported`
    /// (Java refuses it, or strata does not implement it), `ErrorDetail::InvalidOption`,
    /// `ErrorDetail::InvalidArgument`. Nothing is written when a change is refused.
    ///
    /// The returned table has no dynamic options ([`Table::with_dynamic_options`]); other
    /// handles of this table keep the schema they were loaded with.
    pub async fn alter(&self, changes: &[SchemaChange]) -> Result<Table> {
        let id = self.identifier().to_string();
        let set_options: BTreeMap<String, String> = changes
            .iter()
            .filter_map(|c| match c {
                SchemaChange::SetOption { key, value } => Some((key.clone(), value.clone())),
                _ => None,
            })
            .collect();
        refuse_unsupported_options(&set_options, &format!("altering table {id}"))?;
        // Java's `SchemaValidation.validateFallbackBranch`: the branch must exist.
        for key in ["scan.fallback-branch", "scan.primary-branch"] {
            if let Some(b) = set_options.get(key).filter(|b| !b.trim().is_empty()) {
                if !self.branch_exists(b).await? {
                    return Err(ErrorDetail::InvalidOption {
                        key: key.into(),
                        message: format!(
                            "Cannot set '{key}' = '{b}' because the branch '{b}' does not exist."
                        ),
                    }
                    .into());
                }
            }
        }
        let has_snapshots = self.snapshot_manager().latest_id().await?.is_some();
        let check = |history: &[Arc<TableSchema>], new: &TableSchema| -> Result<()> {
            check_new_schema(self, &id, history, new, has_snapshots)
        };
        let schema = match self
            .schema_manager()
            .commit_changes_checked(changes, self.clock().as_ref(), check)
            .await
        {
            Ok(s) => s,
            Err(e) => match e.into_spec() {
                Ok(spec) => return Err(self.alter_error(&id, spec).await),
                Err(e) => return Err(e),
            },
        };
        self.with_schema(schema)
    }

    /// A refusal of the pure schema change, with the table named.
    async fn alter_error(&self, id: &str, e: SpecError) -> Error {
        match e {
            SpecError::ColumnNotFound { column } => {
                let latest = self.schema_manager().latest().await.ok().flatten();
                let names = latest.as_deref().unwrap_or(self.schema()).field_names();
                ErrorDetail::ColumnNotFound {
                    table: id.to_string(),
                    column,
                    available: names.join(", "),
                }
                .into()
            }
            SpecError::ColumnAlreadyExists { column } => ErrorDetail::ColumnAlreadyExists {
                table: id.to_string(),
                column,
            }
            .into(),
            SpecError::Unsupported(m) => {
                ErrorDetail::Unsupported(format!("altering table {id}: {m}")).into()
            }
            SpecError::Invalid { context, message } if context.starts_with("table option") => {
                // The key alone (the spec layer's context is ``table option `<key>` ``), so
                // the message reads "invalid option `bucket`: ..." and `Error::option` is the key.
                let key = context
                    .strip_prefix("table option ")
                    .unwrap_or(&context)
                    .to_string();
                ErrorDetail::InvalidOption {
                    key: key.trim_matches('`').to_string(),
                    message: format!("altering table {id}: {key}: {message}"),
                }
                .into()
            }
            other => ErrorDetail::InvalidArgument(format!("altering table {id}: {other}")).into(),
        }
    }
}

/// strata's checks of a schema produced by changes (see the module docs).
fn check_new_schema(
    table: &Table,
    id: &str,
    history: &[Arc<TableSchema>],
    new: &TableSchema,
    has_snapshots: bool,
) -> Result<()> {
    let old = history.last().map(|s| s.options()).unwrap_or_default();
    let (old_bucket, new_bucket) = (old.bucket()?, new.options().bucket()?);
    // Java allows N -> M (and to and from the postpone bucket -2; never from or to -1, which
    // `apply_changes` refuses): partitions keep their old count until rescaled
    // (`Table::rescale`, INSERT OVERWRITE), writes into them are refused meanwhile. strata
    // refuses leaving -2 while the table has data: files still in `bucket-postpone` would be
    // read as a real bucket of the new layout (Java's batch reads skip that bucket only while
    // `bucket = -2`).
    if has_snapshots
        && old_bucket == strata_spec::options::POSTPONE_BUCKET
        && new_bucket != old_bucket
    {
        return Err(ErrorDetail::UnsupportedOption {
            key: "bucket".into(),
            message: format!(
                "altering table {id}: changing `bucket` from -2 (postpone) to {new_bucket} on a \
                 table that holds data: rows still in its postpone buckets would be read as a \
                 real bucket; strata refuses the change"
            ),
        }
        .into());
    }
    let set = |k: &str| new.options.get(k).is_some_and(|b| !b.trim().is_empty());
    if set("scan.fallback-branch") && set("scan.primary-branch") {
        return Err(ErrorDetail::InvalidOption {
            key: "scan.primary-branch".into(),
            message: "Cannot set both 'scan.fallback-branch' and 'scan.primary-branch' at the \
                      same time."
                .into(),
        }
        .into());
    }
    let format = new.options().file_format();
    if format != "parquet" && format != old.file_format() {
        return Err(ErrorDetail::InvalidOption {
            key: "file.format".into(),
            message: format!(
                "altering table {id}: strata writes only parquet data files, got {format}"
            ),
        }
        .into());
    }
    for field in &new.fields {
        for old in history {
            let Some(before) = old.fields.iter().find(|f| f.id == field.id) else {
                continue;
            };
            check_readable_type_change(&before.data_type, &field.data_type).map_err(|why| {
                Error::from(ErrorDetail::Unsupported(format!(
                    "altering table {id}: column `{}` (field id {}) was {} in schema {}: {why}",
                    field.name, field.id, before.data_type, old.id
                )))
            })?;
        }
    }
    // The table must still load at the new schema (manifest compression, partition names).
    Table::new(
        table.identifier().clone(),
        table.file_io().clone(),
        table.paths().clone(),
        table.schema_manager().clone(),
        Arc::new(new.clone()),
    )?;
    Ok(())
}
