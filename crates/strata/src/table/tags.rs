//! Tags: `tag/tag-<name>` files (Java `TagManager`, `Tag`).
//!
//! A tag file is the tagged snapshot's JSON; a tag created with a retention time also carries
//! Java's `tagCreateTime` (a `LocalDateTime` as Jackson writes it: `[y, mo, d, h, mi]`, then
//! seconds and nanoseconds only when non-zero) and `tagTimeRetained` (a `Duration` as decimal
//! seconds with nine fraction digits, `86400.000000000`). Without a retention time the file is
//! exactly the snapshot JSON, as Java writes it so old readers can read it.
//!
//! A tag keeps its snapshot's files alive after the snapshot itself expired: expiry, rollback
//! and orphan cleanup all treat tagged snapshots as used. Reading tags is part of the table
//! context (scans time-travel to them); creating and deleting them, with the cleanup of the
//! files only a tag used, is `crate::maintenance::tag_ops`.

use std::time::Duration;

use chrono::{NaiveDateTime, Timelike};
use object_store::path::Path;
use strata_spec::snapshot::Snapshot;

use crate::io::FileIO;
use crate::{Error, Result};

use super::Table;
use crate::error::ErrorDetail;

fn invalid(message: String) -> Error {
    ErrorDetail::InvalidArgument(message).into()
}

/// File name prefix of tags (`TagManager.TAG_PREFIX`).
pub const TAG_PREFIX: &str = "tag-";

/// One tag: the tagged snapshot plus Java's optional tag fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Tag {
    /// The tag's name (its file is `tag/tag-<name>`).
    pub name: String,
    /// The tagged snapshot, as the tag file stores it (Java's `Tag` extends `Snapshot`).
    pub snapshot: Snapshot,
    /// `tagCreateTime`: local wall-clock time of creation (present with a retention time).
    pub create_time: Option<NaiveDateTime>,
    /// `tagTimeRetained`: how long the tag is kept after `create_time`.
    pub time_retained: Option<Duration>,
}

impl Tag {
    /// The tag file content as Java writes it.
    pub fn to_json(&self) -> Result<String> {
        let base = self.snapshot.to_json()?;
        if self.create_time.is_none() && self.time_retained.is_none() {
            return Ok(base);
        }
        // Jackson appends the subclass fields after the snapshot's members.
        let body = base.strip_suffix("\n}").ok_or_else(|| {
            Error::from(ErrorDetail::Invariant(
                "snapshot JSON does not end with a closing brace".into(),
            ))
        })?;
        let mut out = body.to_string();
        if let Some(t) = &self.create_time {
            let parts: Vec<String> = local_date_time_array(t)
                .iter()
                .map(i64::to_string)
                .collect();
            out.push_str(&format!(
                ",\n  \"tagCreateTime\" : [ {} ]",
                parts.join(", ")
            ));
        }
        if let Some(d) = &self.time_retained {
            out.push_str(&format!(
                ",\n  \"tagTimeRetained\" : {}.{:09}",
                d.as_secs(),
                d.subsec_nanos()
            ));
        }
        out.push_str("\n}");
        Ok(out)
    }

    /// Parses a tag file named `tag-<name>`.
    pub fn from_json(name: &str, text: &str, shown_path: &str) -> Result<Tag> {
        let snapshot =
            Snapshot::from_json(text).map_err(|e| Error::corrupt(shown_path.to_string(), e))?;
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            Error::corrupt(
                shown_path.to_string(),
                strata_spec::SpecError::Json {
                    context: "tag".into(),
                    source: e,
                },
            )
        })?;
        let bad = |what: &str| {
            Error::corrupt(
                shown_path.to_string(),
                strata_spec::SpecError::invalid("tag file", what.to_string()),
            )
        };
        let create_time = match value.get("tagCreateTime") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => Some(parse_local_date_time(v).ok_or_else(|| {
                bad("tagCreateTime is not a [year, month, day, hour, minute, ...] array")
            })?),
        };
        let time_retained = match value.get("tagTimeRetained") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => Some(
                parse_duration_value(v)
                    .ok_or_else(|| bad("tagTimeRetained is not a duration in seconds"))?,
            ),
        };
        Ok(Tag {
            name: name.to_string(),
            snapshot,
            create_time,
            time_retained,
        })
    }

    /// Whether a tag with a retention time has outlived it at local time `now`.
    pub fn is_expired_at(&self, now: NaiveDateTime) -> bool {
        match (self.create_time, self.time_retained) {
            (Some(c), Some(d)) => match chrono::Duration::from_std(d) {
                Ok(d) => c.checked_add_signed(d).is_some_and(|end| end < now),
                Err(_) => false,
            },
            _ => false,
        }
    }
}

/// Jackson's `LocalDateTimeSerializer` array: year, month, day, hour, minute, then second and
/// nanosecond only when needed.
fn local_date_time_array(t: &NaiveDateTime) -> Vec<i64> {
    use chrono::Datelike;
    let mut out = vec![
        t.year() as i64,
        t.month() as i64,
        t.day() as i64,
        t.hour() as i64,
        t.minute() as i64,
    ];
    let (secs, nanos) = (t.second() as i64, t.nanosecond() as i64);
    if secs > 0 || nanos > 0 {
        out.push(secs);
        if nanos > 0 {
            out.push(nanos);
        }
    }
    out
}

fn parse_local_date_time(v: &serde_json::Value) -> Option<NaiveDateTime> {
    match v {
        serde_json::Value::Array(items) => {
            let n: Vec<i64> = items.iter().map(|x| x.as_i64()).collect::<Option<_>>()?;
            if n.len() < 5 || n.len() > 7 {
                return None;
            }
            let get = |i: usize| n.get(i).copied().unwrap_or(0);
            chrono::NaiveDate::from_ymd_opt(get(0) as i32, get(1) as u32, get(2) as u32)?
                .and_hms_nano_opt(get(3) as u32, get(4) as u32, get(5) as u32, get(6) as u32)
        }
        // Jackson also accepts ISO text.
        serde_json::Value::String(s) => s.parse::<NaiveDateTime>().ok(),
        _ => None,
    }
}

fn parse_duration_value(v: &serde_json::Value) -> Option<Duration> {
    match v {
        serde_json::Value::Number(n) => {
            // Decimal seconds; parse the text so nanoseconds survive.
            let text = n.to_string();
            let (secs, frac) = text.split_once('.').unwrap_or((&text, ""));
            let secs: u64 = secs.parse().ok()?;
            let mut nanos = String::from(frac);
            if nanos.len() > 9 || !nanos.chars().all(|c| c.is_ascii_digit()) {
                // Exponent notation or more precision than nanoseconds: fall back to f64.
                return n
                    .as_f64()
                    .filter(|f| *f >= 0.0)
                    .map(Duration::from_secs_f64);
            }
            while nanos.len() < 9 {
                nanos.push('0');
            }
            Some(Duration::new(secs, nanos.parse().ok()?))
        }
        _ => None,
    }
}

/// Checks a tag name the way Java does (not blank) plus what a file name needs here.
pub fn validate_tag_name(name: &str) -> Result<()> {
    if name.trim().is_empty() {
        return Err(invalid("tag name must not be blank".into()));
    }
    if name.contains('/') || name.contains('\\') || name.contains('#') {
        return Err(invalid(format!(
            "tag name {name:?} must not contain '/', '\\' or '#'"
        )));
    }
    Ok(())
}

/// Reads and writes the tag files of one table.
#[derive(Clone, Debug)]
pub struct TagManager {
    io: FileIO,
    dir: Path,
    /// The table's name, for errors.
    table: String,
}

impl TagManager {
    /// The tags of `table`, in its `tag/` directory.
    pub fn new(table: &Table) -> Self {
        TagManager {
            io: table.file_io().clone(),
            dir: table.paths().tag_dir(),
            table: table.identifier().to_string(),
        }
    }

    /// The `tag/` directory.
    pub fn tag_dir(&self) -> &Path {
        &self.dir
    }

    /// Path of `tag-<name>`.
    pub fn tag_path(&self, name: &str) -> Path {
        self.dir.clone().join(format!("{TAG_PREFIX}{name}"))
    }

    /// Names of every tag, sorted.
    pub async fn names(&self) -> Result<Vec<String>> {
        let (_, files) = self.io.list_dir(&self.dir).await?;
        let mut out: Vec<String> = files
            .iter()
            .filter_map(|m| m.location.filename())
            .filter_map(|n| n.strip_prefix(TAG_PREFIX))
            .map(str::to_string)
            .collect();
        out.sort();
        Ok(out)
    }

    /// Tag `name`, `None` if it does not exist.
    pub async fn get(&self, name: &str) -> Result<Option<Tag>> {
        let path = self.tag_path(name);
        let Some(bytes) = self.io.get_opt(&path).await? else {
            return Ok(None);
        };
        let shown = self.io.display(&path);
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            Error::corrupt(
                shown.clone(),
                strata_spec::SpecError::invalid("tag file", format!("not UTF-8: {e}")),
            )
        })?;
        Tag::from_json(name, text, &shown).map(Some)
    }

    /// Tag `name`, or an error naming it.
    pub async fn get_or_err(&self, name: &str) -> Result<Tag> {
        self.get(name).await?.ok_or_else(|| {
            ErrorDetail::TagNotFound {
                table: self.table.clone(),
                name: name.to_string(),
            }
            .into()
        })
    }

    /// Every tag, sorted by snapshot id, then name. A tag deleted while listing is skipped.
    pub async fn all(&self) -> Result<Vec<Tag>> {
        let mut out = Vec::new();
        for name in self.names().await? {
            if let Some(t) = self.get(&name).await? {
                out.push(t);
            }
        }
        out.sort_by(|a, b| (a.snapshot.id, &a.name).cmp(&(b.snapshot.id, &b.name)));
        Ok(out)
    }

    /// The distinct tagged snapshots, ascending by id (Java `taggedSnapshots`).
    pub async fn tagged_snapshots(&self) -> Result<Vec<Snapshot>> {
        let mut out: Vec<Snapshot> = Vec::new();
        for t in self.all().await? {
            if out.last().map(|s| s.id) != Some(t.snapshot.id) {
                out.push(t.snapshot);
            }
        }
        Ok(out)
    }

    /// Writes `tag` (replacing a file of the same name).
    pub async fn write(&self, tag: &Tag) -> Result<()> {
        self.io
            .put(&self.tag_path(&tag.name), tag.to_json()?.into_bytes())
            .await
    }

    /// Deletes the file of tag `name` (idempotent).
    pub async fn delete_file(&self, name: &str) -> Result<()> {
        self.io.delete(&self.tag_path(name)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot() -> Snapshot {
        Snapshot::from_json(
            r#"{
  "version" : 3,
  "id" : 7,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-a-0",
  "deltaManifestList" : "manifest-list-a-1",
  "commitUser" : "u",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : 1000,
  "totalRecordCount" : 3,
  "deltaRecordCount" : 3,
  "nextRowId" : 0
}"#,
        )
        .unwrap()
    }

    #[test]
    fn tag_without_retention_is_the_snapshot_json() {
        let s = snapshot();
        let t = Tag {
            name: "a".into(),
            snapshot: s.clone(),
            create_time: None,
            time_retained: None,
        };
        assert_eq!(t.to_json().unwrap(), s.to_json().unwrap());
    }

    #[test]
    fn tag_fields_are_written_like_jackson() {
        let t = Tag {
            name: "a".into(),
            snapshot: snapshot(),
            create_time: chrono::NaiveDate::from_ymd_opt(1969, 1, 1)
                .unwrap()
                .and_hms_nano_opt(0, 0, 0, 123_456_789),
            time_retained: Some(Duration::from_secs(5)),
        };
        let json = t.to_json().unwrap();
        assert!(json.ends_with(
            "  \"nextRowId\" : 0,\n  \"tagCreateTime\" : [ 1969, 1, 1, 0, 0, 0, 123456789 ],\n  \
             \"tagTimeRetained\" : 5.000000000\n}"
        ));
        let back = Tag::from_json("a", &json, "x").unwrap();
        assert_eq!(back, t);
        // Trailing zero components are omitted, as Jackson does.
        let whole_minute = chrono::NaiveDate::from_ymd_opt(2024, 6, 25)
            .unwrap()
            .and_hms_opt(10, 30, 0)
            .unwrap();
        assert_eq!(local_date_time_array(&whole_minute), [2024, 6, 25, 10, 30]);
        let v: serde_json::Value = serde_json::from_str("[2024, 6, 25, 10, 30]").unwrap();
        assert_eq!(parse_local_date_time(&v), Some(whole_minute));
    }

    #[test]
    fn expiry_of_retained_tags() {
        let created = chrono::NaiveDate::from_ymd_opt(2026, 1, 1)
            .unwrap()
            .and_hms_opt(0, 0, 0)
            .unwrap();
        let t = Tag {
            name: "a".into(),
            snapshot: snapshot(),
            create_time: Some(created),
            time_retained: Some(Duration::from_secs(3600)),
        };
        assert!(!t.is_expired_at(created + chrono::Duration::minutes(59)));
        assert!(t.is_expired_at(created + chrono::Duration::minutes(61)));
        let forever = Tag {
            time_retained: None,
            ..t
        };
        assert!(!forever.is_expired_at(created + chrono::Duration::days(9999)));
    }

    #[test]
    fn bad_names_and_files_are_rejected() {
        assert!(validate_tag_name(" ").is_err());
        assert!(validate_tag_name("a/b").is_err());
        assert!(validate_tag_name("v1.0").is_ok());
        let err = Tag::from_json("a", "{\"tagCreateTime\": 5}", "/t/tag/tag-a").unwrap_err();
        assert!(err.to_string().contains("/t/tag/tag-a"), "{err}");
    }
}
