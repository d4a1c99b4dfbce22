//! Time travel: which snapshot a read of a snapshot id, a tag, a watermark or a point in time
//! sees (Java `TimeTravelUtil`, `scan.snapshot-id` / `scan.tag-name` / `scan.watermark` /
//! `scan.timestamp` / `scan.timestamp-millis`, and `scan.version`, which names one of them).
//! [`super::start`] applies the table's own `scan.*` options to every scan; front ends use
//! [`super::travel`] for an explicit target (`--snapshot`, `--tag`, `VERSION AS OF`, ...).
//!
//! A timestamp selects the latest snapshot whose `timeMillis` is at or before it (Java
//! `SnapshotManager.earlierOrEqualTimeMills`, a binary search between the earliest and the
//! latest snapshot); none is an error naming the earliest snapshot's time. `scan.timestamp`
//! text is read in the local time zone, as Java does with the JVM's default zone. Tags are
//! read through the tag's own copy of the snapshot, so a tag still reads after its snapshot
//! expired.

use crate::error::ErrorDetail;
use chrono::{NaiveDate, NaiveDateTime, TimeZone};
use strata_spec::snapshot::Snapshot;

use crate::table::tags::TagManager;
use crate::table::Table;
use crate::{Error, Result};

fn invalid(message: String) -> Error {
    ErrorDetail::InvalidArgument(message).into()
}

/// What a read travels to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TravelTarget {
    /// `scan.snapshot-id`.
    Snapshot(i64),
    /// `scan.tag-name`.
    Tag(String),
    /// `scan.timestamp-millis` (epoch milliseconds).
    TimestampMillis(i64),
    /// `scan.watermark`: the first snapshot whose watermark is at or after it.
    Watermark(i64),
}

impl TravelTarget {
    /// `scan.timestamp`: `yyyy-MM-dd[ HH:mm[:ss[.fff]]]` (or with `T`) in the local zone.
    pub fn timestamp(text: &str) -> Result<TravelTarget> {
        Ok(TravelTarget::TimestampMillis(parse_local_timestamp(text)?))
    }

    /// The target the table's `scan.*` options name (`scan.snapshot-id`, `scan.tag-name`,
    /// `scan.watermark`, `scan.timestamp`, `scan.timestamp-millis`, or `scan.version`), `None`
    /// without one; more than one is an error, as in Java.
    pub async fn from_options(table: &Table) -> Result<Option<TravelTarget>> {
        let o = table.options();
        let mut found = Vec::new();
        if let Some(v) = o.scan_snapshot_id()? {
            found.push(TravelTarget::Snapshot(v));
        }
        if let Some(v) = o.get("scan.tag-name") {
            found.push(TravelTarget::Tag(v.to_string()));
        }
        if let Some(v) = o.scan_watermark()? {
            found.push(TravelTarget::Watermark(v));
        }
        if let Some(v) = o.get("scan.timestamp") {
            found.push(TravelTarget::timestamp(v)?);
        }
        if let Some(v) = o.scan_timestamp_millis()? {
            found.push(TravelTarget::TimestampMillis(v));
        }
        if let Some(v) = o.get("scan.version") {
            found.push(TravelTarget::version(table, v).await?);
        }
        match found.len() {
            0 => Ok(None),
            1 => Ok(found.pop()),
            _ => Err(ErrorDetail::InvalidOption {
                key: "scan.snapshot-id".into(),
                message: "only one of scan.snapshot-id, scan.tag-name, scan.watermark, \
                          scan.timestamp, scan.timestamp-millis and scan.version may be set"
                    .into(),
            }
            .into()),
        }
    }

    /// `scan.version` (Java `TimeTravelUtil.adaptScanVersion`): a tag of that name, else
    /// `watermark-<n>`, else a snapshot id of digits; anything else names a missing tag.
    pub async fn version(table: &Table, version: &str) -> Result<TravelTarget> {
        if TagManager::new(table).get(version).await?.is_some() {
            return Ok(TravelTarget::Tag(version.to_string()));
        }
        if let Some(w) = version.strip_prefix("watermark-") {
            return w.parse().map(TravelTarget::Watermark).map_err(|_| {
                ErrorDetail::InvalidOption {
                    key: "scan.version".into(),
                    message: format!("{version:?}: watermark-<n> needs a number"),
                }
                .into()
            });
        }
        if !version.is_empty() && version.chars().all(|c| c.is_ascii_digit()) {
            return version.parse().map(TravelTarget::Snapshot).map_err(|_| {
                ErrorDetail::InvalidOption {
                    key: "scan.version".into(),
                    message: format!("snapshot id {version:?} is out of range"),
                }
                .into()
            });
        }
        Err(ErrorDetail::InvalidOption {
            key: "scan.version".into(),
            message: format!(
                "cannot find a time travel version for {version:?} in table {}: no tag of \
                 that name, not watermark-<n>, not a snapshot id",
                table.identifier()
            ),
        }
        .into())
    }

    /// The snapshot this target names.
    pub async fn resolve(&self, table: &Table) -> Result<Snapshot> {
        match self {
            TravelTarget::Snapshot(id) => table.snapshot_manager().snapshot(*id).await,
            TravelTarget::Tag(name) => Ok(TagManager::new(table).get_or_err(name).await?.snapshot),
            TravelTarget::TimestampMillis(t) => snapshot_at_or_before(table, *t).await,
            TravelTarget::Watermark(w) => snapshot_at_or_after_watermark(table, *w).await,
        }
    }
}

/// The latest snapshot committed at or before `millis` (Java `earlierOrEqualTimeMills`).
pub async fn snapshot_at_or_before(table: &Table, millis: i64) -> Result<Snapshot> {
    let sm = table.snapshot_manager();
    let none = |earliest: Option<i64>| {
        invalid(format!(
            "table {} has no snapshot earlier than or equal to timestamp {millis} ({}); the \
             earliest snapshot's timestamp is {}",
            table.identifier(),
            format_millis(millis),
            earliest.map_or("none".to_string(), |t| format!(
                "{t} ({})",
                format_millis(t)
            ))
        ))
    };
    let (Some(mut lo), Some(mut hi)) = (sm.earliest_id().await?, sm.latest_id().await?) else {
        return Err(none(None));
    };
    let first = sm.snapshot(lo).await?;
    if first.time_millis > millis {
        return Err(none(Some(first.time_millis)));
    }
    let mut found = first;
    while lo <= hi {
        let mid = lo + (hi - lo) / 2;
        let s = sm.snapshot(mid).await?;
        if s.time_millis > millis {
            hi = mid - 1;
        } else if s.time_millis < millis {
            lo = mid + 1;
            found = s;
        } else {
            found = s;
            break;
        }
    }
    Ok(found)
}

/// The first snapshot whose watermark is at or after `watermark` (Java
/// `SnapshotManager.laterOrEqualWatermark`: watermarks grow with snapshot ids; snapshots
/// without one are skipped); none is an error.
pub async fn snapshot_at_or_after_watermark(table: &Table, watermark: i64) -> Result<Snapshot> {
    let sm = table.snapshot_manager();
    let none = || {
        invalid(format!(
            "table {} has no snapshot with a watermark later than or equal to {watermark}",
            table.identifier()
        ))
    };
    let (Some(earliest), Some(latest)) = (sm.earliest_id().await?, sm.latest_id().await?) else {
        return Err(none());
    };
    // The watermark of the latest snapshot at or before `id` that has one, from `floor` on.
    let mut found: Option<Snapshot> = None;
    let (mut lo, mut hi) = (earliest, latest);
    while lo <= hi {
        let mid = lo + (hi - lo) / 2;
        // The nearest snapshot at or below `mid` with a watermark.
        let mut probe = mid;
        let mut with_mark = None;
        while probe >= lo {
            let s = sm.snapshot(probe).await?;
            if s.watermark.is_some_and(|w| w != i64::MIN) {
                with_mark = Some(s);
                break;
            }
            probe -= 1;
        }
        match with_mark {
            // No watermark in [lo, mid]: look above.
            None => lo = mid + 1,
            Some(s) => {
                let w = s.watermark.unwrap_or(i64::MIN);
                if w >= watermark {
                    hi = s.id - 1;
                    found = Some(s);
                } else {
                    lo = mid + 1;
                }
            }
        }
    }
    found.ok_or_else(none)
}

/// This table as of `snapshot`: the schema that snapshot was committed with.
pub async fn table_at(table: &Table, snapshot: &Snapshot) -> Result<Table> {
    if snapshot.schema_id == table.schema().id {
        return Ok(table.clone());
    }
    let schema = table.schema_manager().schema(snapshot.schema_id).await?;
    table.with_schema(schema)
}

/// Parses `yyyy-MM-dd`, `yyyy-MM-dd HH:mm`, `yyyy-MM-dd HH:mm:ss[.f…]` (space or `T`) as a
/// local time, to epoch milliseconds.
pub fn parse_local_timestamp(text: &str) -> Result<i64> {
    let t = text.trim();
    let naive = parse_naive(t).ok_or_else(|| {
        invalid(format!(
            "timestamp {text:?}: expected yyyy-MM-dd[ HH:mm[:ss[.fff]]]"
        ))
    })?;
    let local = chrono::Local
        .from_local_datetime(&naive)
        .earliest()
        .ok_or_else(|| {
            invalid(format!(
                "timestamp {text:?} does not exist in the local zone"
            ))
        })?;
    Ok(local.timestamp_millis())
}

fn parse_naive(t: &str) -> Option<NaiveDateTime> {
    for f in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(v) = NaiveDateTime::parse_from_str(t, f) {
            return Some(v);
        }
    }
    NaiveDate::parse_from_str(t, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
}

fn format_millis(ms: i64) -> String {
    match chrono::Local.timestamp_millis_opt(ms).single() {
        Some(t) => t.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
        None => ms.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_in_the_local_zone() {
        let a = parse_local_timestamp("2026-01-01 10:00:00").unwrap();
        let b = parse_local_timestamp("2026-01-01T10:00").unwrap();
        assert_eq!(a, b);
        let c = parse_local_timestamp("2026-01-01 10:00:00.250").unwrap();
        assert_eq!(c - a, 250);
        let d = parse_local_timestamp("2026-01-01").unwrap();
        assert_eq!(a - d, 10 * 3_600_000);
        let expected = chrono::Local
            .with_ymd_and_hms(2026, 1, 1, 10, 0, 0)
            .unwrap()
            .timestamp_millis();
        assert_eq!(a, expected);
        let e = parse_local_timestamp("yesterday").unwrap_err().to_string();
        assert!(e.contains("yesterday"), "{e}");
    }
}
