//! The range and mode of an incremental scan as options give them: `incremental-between`
//! (`START,END`, snapshot ids or tag names), `incremental-between-timestamp` (`T1,T2`, epoch
//! milliseconds or local times, as Java's `DateTimeUtils.parseTimestampData` in the default
//! zone) and `incremental-between-scan-mode` (Java `CoreOptions.IncrementalBetweenScanMode`).

use chrono::{NaiveDate, NaiveDateTime, TimeZone};

use crate::error::ErrorDetail;
use crate::{Error, Result};

/// `incremental-between`: START,END as snapshot ids or tag names.
pub const INCREMENTAL_BETWEEN: &str = "incremental-between";
/// `incremental-between-timestamp`: START,END as epoch milliseconds or local times.
pub const INCREMENTAL_BETWEEN_TIMESTAMP: &str = "incremental-between-timestamp";
/// `incremental-between-scan-mode`: `auto`, `delta`, `changelog` or `diff`.
pub const INCREMENTAL_BETWEEN_SCAN_MODE: &str = "incremental-between-scan-mode";
/// `incremental-between-tag-to-snapshot`: read two tags as the snapshot range between them.
pub const INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT: &str = "incremental-between-tag-to-snapshot";

/// How an incremental scan reads its range (Java `IncrementalBetweenScanMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IncrementalMode {
    /// `changelog` when the table has a changelog producer, else `delta`.
    #[default]
    Auto,
    /// The files APPEND snapshots added, every record with its kind.
    Delta,
    /// The changelog files of the range, every record with its kind.
    Changelog,
    /// END compared with START.
    Diff,
}

impl IncrementalMode {
    /// Parses `auto`, `delta`, `changelog` or `diff` (any case, as Java's enum options).
    pub fn parse(text: &str) -> Result<IncrementalMode> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(IncrementalMode::Auto),
            "delta" => Ok(IncrementalMode::Delta),
            "changelog" => Ok(IncrementalMode::Changelog),
            "diff" => Ok(IncrementalMode::Diff),
            _ => Err(ErrorDetail::InvalidOption {
                key: INCREMENTAL_BETWEEN_SCAN_MODE.into(),
                message: format!("unknown mode {text:?}: expected auto, delta, changelog or diff"),
            }
            .into()),
        }
    }

    /// The option spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            IncrementalMode::Auto => "auto",
            IncrementalMode::Delta => "delta",
            IncrementalMode::Changelog => "changelog",
            IncrementalMode::Diff => "diff",
        }
    }
}

/// The range of an incremental scan, START exclusive, END inclusive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IncrementalBetween {
    /// `incremental-between`: two snapshot ids or two tag names, as text (Java tries tags
    /// first, then ids).
    Snapshots {
        /// START (exclusive): a tag name or snapshot id.
        start: String,
        /// END (inclusive): a tag name or snapshot id.
        end: String,
    },
    /// `incremental-between-timestamp`: two epoch-millisecond times.
    Timestamps {
        /// START (exclusive), epoch milliseconds.
        start: i64,
        /// END (inclusive), epoch milliseconds.
        end: i64,
    },
}

impl IncrementalBetween {
    /// Snapshots `start` (exclusive) to `end` (inclusive).
    pub fn ids(start: i64, end: i64) -> Self {
        IncrementalBetween::Snapshots {
            start: start.to_string(),
            end: end.to_string(),
        }
    }

    /// Tags `start` to `end`.
    pub fn tags(start: &str, end: &str) -> Self {
        IncrementalBetween::Snapshots {
            start: start.to_string(),
            end: end.to_string(),
        }
    }

    /// An `incremental-between` value, `START,END`.
    pub fn parse(text: &str) -> Result<Self> {
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() != 2 || parts.iter().any(|p| p.trim().is_empty()) {
            return Err(ErrorDetail::InvalidOption {
                key: INCREMENTAL_BETWEEN.into(),
                message: format!(
                    "{text:?}: expected START,END (snapshot ids or tag names, START exclusive, \
                     END inclusive), e.g. 5,10"
                ),
            }
            .into());
        }
        Ok(IncrementalBetween::Snapshots {
            start: parts[0].trim().to_string(),
            end: parts[1].trim().to_string(),
        })
    }

    /// An `incremental-between-timestamp` value, `T1,T2`: epoch milliseconds, or local times
    /// `yyyy-MM-dd[ HH:mm[:ss[.fff]]]`.
    pub fn parse_timestamps(text: &str) -> Result<Self> {
        let bad = || {
            Error::from(ErrorDetail::InvalidOption {
                key: INCREMENTAL_BETWEEN_TIMESTAMP.into(),
                message: format!(
                    "{text:?}: expected T1,T2 (epoch milliseconds or yyyy-MM-dd HH:mm:ss, T1 \
                 exclusive, T2 inclusive)"
                ),
            })
        };
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() != 2 {
            return Err(bad());
        }
        let start = parse_time(parts[0]).ok_or_else(bad)?;
        let end = parse_time(parts[1]).ok_or_else(bad)?;
        Ok(IncrementalBetween::Timestamps { start, end })
    }
}

/// Epoch milliseconds, or a local time (Java `DateTimeUtils.parseTimestampData` in the
/// default zone).
fn parse_time(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Ok(v) = t.parse::<i64>() {
        return Some(v);
    }
    let naive = [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())
    .or_else(|| {
        NaiveDate::parse_from_str(t, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
    })?;
    chrono::Local
        .from_local_datetime(&naive)
        .earliest()
        .map(|t| t.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranges_and_modes() {
        assert_eq!(
            IncrementalBetween::parse("5, 10").unwrap(),
            IncrementalBetween::ids(5, 10)
        );
        assert_eq!(
            IncrementalBetween::parse("t1,t2").unwrap(),
            IncrementalBetween::tags("t1", "t2")
        );
        let e = IncrementalBetween::parse("5").unwrap_err().to_string();
        assert!(
            e.contains("incremental-between") && e.contains("\"5\""),
            "{e}"
        );
        assert_eq!(
            IncrementalBetween::parse_timestamps("100,200").unwrap(),
            IncrementalBetween::Timestamps {
                start: 100,
                end: 200
            }
        );
        let e = IncrementalBetween::parse_timestamps("x,200")
            .unwrap_err()
            .to_string();
        assert!(e.contains("incremental-between-timestamp"), "{e}");
        assert_eq!(
            IncrementalMode::parse("CHANGELOG").unwrap(),
            IncrementalMode::Changelog
        );
        let e = IncrementalMode::parse("merge").unwrap_err().to_string();
        assert!(
            e.contains("incremental-between-scan-mode") && e.contains("merge"),
            "{e}"
        );
    }
}
