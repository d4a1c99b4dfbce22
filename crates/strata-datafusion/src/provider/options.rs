//! Per-query table options: time travel (`VERSION AS OF`, `TIMESTAMP AS OF`, Paimon's
//! `scan.snapshot-id`, `scan.tag-name`, `scan.timestamp`, `scan.timestamp-millis`), incremental
//! reads (`incremental-between`, … : [`super::incremental`]) and other dynamic options (Java's `Table.copy(dynamicOptions)`, validated like table options: an
//! option strata does not implement is refused, never ignored).

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::common::Result;
use datafusion::datasource::TableProvider;
use strata::maintenance::time_travel::TravelTarget;
use strata::table::Table;

use super::incremental::incremental_key;
use super::table::StrataTable;
use crate::error::{plan_error, to_df};

/// Options that select the snapshot a query reads.
pub const TRAVEL_KEYS: [&str; 4] = [
    "scan.snapshot-id",
    "scan.tag-name",
    "scan.timestamp",
    "scan.timestamp-millis",
];

/// Dynamic options of one table reference in a query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableOptions {
    pub options: BTreeMap<String, String>,
}

impl TableOptions {
    pub fn new(options: BTreeMap<String, String>) -> Self {
        TableOptions { options }
    }

    pub fn is_empty(&self) -> bool {
        self.options.is_empty()
    }

    /// The time-travel target the options name (at most one of [`TRAVEL_KEYS`]).
    pub fn travel_target(&self) -> Result<Option<TravelTarget>> {
        let set: Vec<(&str, &String)> = TRAVEL_KEYS
            .iter()
            .filter_map(|k| self.options.get(*k).map(|v| (*k, v)))
            .collect();
        let (key, value) = match set.as_slice() {
            [] => return Ok(None),
            [one] => *one,
            _ => {
                return Err(plan_error(format!(
                    "only one of {} may be set, got {}",
                    TRAVEL_KEYS.join(", "),
                    set.iter()
                        .map(|(k, _)| *k)
                        .collect::<Vec<_>>()
                        .join(" and ")
                )))
            }
        };
        let number = |v: &str| {
            v.trim()
                .parse::<i64>()
                .map_err(|_| plan_error(format!("option '{key}' = '{v}': expected an integer")))
        };
        Ok(Some(match key {
            "scan.snapshot-id" => TravelTarget::Snapshot(number(value)?),
            "scan.tag-name" => TravelTarget::Tag(value.clone()),
            "scan.timestamp-millis" => TravelTarget::TimestampMillis(number(value)?),
            _ => TravelTarget::timestamp(value).map_err(to_df)?,
        }))
    }

    /// `table` with these options for a write (`INSERT INTO t /*+ OPTIONS(…) */`): the
    /// dynamic options applied; a time-travel option is refused, a view of a snapshot being
    /// read-only.
    pub fn for_write(&self, table: &Table) -> Result<Table> {
        if let Some(key) = TRAVEL_KEYS.iter().find(|k| self.options.contains_key(**k)) {
            return Err(plan_error(format!(
                "INSERT into {} with '{key}': a time-travel view is read-only",
                table.identifier()
            )));
        }
        if let Some(key) = incremental_key(self.options.keys()) {
            return Err(plan_error(format!(
                "INSERT into {} with '{key}': an incremental read is read-only",
                table.identifier()
            )));
        }
        if self.options.is_empty() {
            return Ok(table.clone());
        }
        table
            .with_dynamic_options(self.options.clone())
            .map_err(to_df)
    }

    /// Refuses time travel together with an incremental read (which names its own
    /// snapshots).
    fn check_travel_or_incremental(&self) -> Result<()> {
        let travel = TRAVEL_KEYS.iter().find(|k| self.options.contains_key(**k));
        if let (Some(travel), Some(incremental)) = (travel, incremental_key(self.options.keys())) {
            return Err(plan_error(format!(
                "option '{incremental}' cannot be combined with time travel ('{travel}', or \
                 VERSION AS OF / TIMESTAMP AS OF): an incremental read names its own snapshots \
                 (START,END)"
            )));
        }
        Ok(())
    }

    /// `table` with these options: a time-travel provider if they name a snapshot, an
    /// incremental read if they name a range ([`super::incremental`]), with the other options
    /// applied as dynamic options.
    pub async fn apply(&self, table: &Table) -> Result<Arc<dyn TableProvider>> {
        self.check_travel_or_incremental()?;
        let rest: BTreeMap<String, String> = self
            .options
            .iter()
            .filter(|(k, _)| !TRAVEL_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let table = if rest.is_empty() {
            table.clone()
        } else {
            table.with_dynamic_options(rest).map_err(to_df)?
        };
        if let Some(incremental) = super::incremental::provider(&table, false)? {
            return Ok(Arc::new(incremental));
        }
        let provider = match self.travel_target()? {
            Some(target) => StrataTable::at(&table, &target).await,
            None => StrataTable::new(table).await,
        }
        .map_err(to_df)?;
        Ok(Arc::new(provider))
    }

    /// `t$audit_log` with these options: an incremental read of every change with its kind
    /// when they name a range, else the audit log of the newest snapshot. Time travel is
    /// refused (strata's audit log reads the newest snapshot only).
    pub async fn apply_audit_log(&self, table: &Table) -> Result<Arc<dyn TableProvider>> {
        self.check_travel_or_incremental()?;
        if let Some(key) = TRAVEL_KEYS.iter().find(|k| self.options.contains_key(**k)) {
            return Err(plan_error(format!(
                "{}$audit_log with '{key}': the audit log has no time travel (it reads the newest \
                 snapshot; for the changes between two snapshots use 'incremental-between')",
                table.identifier()
            )));
        }
        let table = if self.options.is_empty() {
            table.clone()
        } else {
            table
                .with_dynamic_options(self.options.clone())
                .map_err(to_df)?
        };
        match super::incremental::provider(&table, true)? {
            Some(incremental) => Ok(Arc::new(incremental)),
            None => Ok(Arc::new(super::audit_log::AuditLogTable::new(table)?)),
        }
    }
}
