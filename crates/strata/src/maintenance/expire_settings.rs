//! The settings of an expiry asked for by hand (`strata expire-snapshots`,
//! `Table.expire_snapshots(...)`, `CALL sys.expire_snapshots`): the table's options, each
//! overridden by an argument when given ([`ExpireOverrides`], as Java's `ExpireSnapshotsProcedure`
//! builds its `ExpireConfig` from the table's `CoreOptions` and the procedure's arguments), and
//! the "older than" argument as a retention span ([`older_than`], [`retained_until`]).

use crate::error::ErrorDetail;
use std::time::Duration;

use super::expire::ExpireConfig;
use super::expire_changelog::ChangelogExpireConfig;
use crate::scan::time_travel::parse_local_timestamp;
use crate::table::Table;
use crate::{Error, Result};

/// Overrides of a table's expiry options; `None` keeps the option's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExpireOverrides {
    /// Keep at most this many (`*.num-retained.max`).
    pub retain_max: Option<i32>,
    /// Keep at least this many (`*.num-retained.min`).
    pub retain_min: Option<i32>,
    /// Expire only what is older than this (`*.time-retained`).
    pub time_retained: Option<Duration>,
    /// Expire at most this many in one run (`snapshot.expire.limit`).
    pub max_deletes: Option<i32>,
}

impl ExpireConfig {
    /// The table's `snapshot.*` expiry options with `overrides` applied.
    pub fn from_table_with(table: &Table, overrides: &ExpireOverrides) -> Result<Self> {
        let base = ExpireConfig::from_table(table)?;
        Ok(ExpireConfig {
            retain_max: overrides.retain_max.unwrap_or(base.retain_max),
            retain_min: overrides.retain_min.unwrap_or(base.retain_min),
            time_retained: overrides.time_retained.unwrap_or(base.time_retained),
            max_deletes: overrides.max_deletes.unwrap_or(base.max_deletes),
        })
    }
}

impl ChangelogExpireConfig {
    /// The table's `changelog.*` expiry options with `overrides` applied.
    pub fn from_table_with(table: &Table, overrides: &ExpireOverrides) -> Result<Self> {
        let base = ChangelogExpireConfig::from_table(table)?;
        Ok(ChangelogExpireConfig {
            retain_max: overrides.retain_max.unwrap_or(base.retain_max),
            retain_min: overrides.retain_min.unwrap_or(base.retain_min),
            time_retained: overrides.time_retained.unwrap_or(base.time_retained),
            max_deletes: overrides.max_deletes.unwrap_or(base.max_deletes),
        })
    }
}

/// The retention span of an "older than" argument named `what` (for the error): a duration
/// as is (`2h`, `30min`, `1d`, `10s`), or a local timestamp `yyyy-MM-dd HH:mm:ss` as
/// `now_millis − timestamp` ([`retained_until`]).
pub fn older_than(what: &str, text: &str, now_millis: i64) -> Result<Duration> {
    if let Ok(d) = strata_spec::options::units::parse_duration(text) {
        return Ok(d);
    }
    let at = parse_local_timestamp(text).map_err(|_| {
        Error::from(ErrorDetail::InvalidArgument(format!(
            "{what} {text:?}: expected a duration (1d, 2h, 30min, 10s) or a timestamp \
             (yyyy-MM-dd HH:mm:ss)"
        )))
    })?;
    retained_until(what, at, now_millis)
}

/// The retention span that keeps what is newer than `at_millis`: `now_millis − at_millis`.
/// A point in the future is refused: the files of commits in progress would be lost.
pub fn retained_until(what: &str, at_millis: i64, now_millis: i64) -> Result<Duration> {
    if at_millis > now_millis {
        return Err(ErrorDetail::InvalidArgument(format!(
            "{what} is in the future; files of commits in progress would be lost"
        ))
        .into());
    }
    Ok(Duration::from_millis((now_millis - at_millis) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_than_takes_durations_and_past_timestamps() {
        let now = parse_local_timestamp("2026-01-02 00:00:00").unwrap();
        assert_eq!(
            older_than("x", "2h", now).unwrap(),
            Duration::from_secs(7200)
        );
        assert_eq!(
            older_than("x", "2026-01-01 00:00:00", now).unwrap(),
            Duration::from_secs(86_400)
        );
        let future = older_than("--older-than", "2026-01-03 00:00:00", now).unwrap_err();
        assert!(future.to_string().contains("--older-than is in the future"));
        let bad = older_than("--older-than", "soon", now).unwrap_err();
        assert!(bad.to_string().contains("expected a duration"));
    }
}
