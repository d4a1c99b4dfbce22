//! [`ErrorContext`]: the structured part of an error — which table, partition, bucket, file,
//! option and snapshot it concerns — so a caller reads them as fields instead of parsing the
//! message. A detail's own fields fill it when the error is made; the boundaries that know more
//! (a table's scan, read, write and commit; the format readers; snapshot loading) add the
//! rest with `ResultExt` (in `error/mod.rs`); a bucket's writer adds partition and bucket, the refusal of an
//! unsupported option its key. The first value set for a field wins: the innermost boundary
//! is the most specific.

use std::fmt::{self, Display};

/// What an error (`crate::Error`) concerns, each field set when known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ErrorContext {
    pub(crate) table: Option<String>,
    pub(crate) partition: Option<String>,
    pub(crate) bucket: Option<i32>,
    pub(crate) file: Option<String>,
    pub(crate) option: Option<String>,
    pub(crate) snapshot: Option<i64>,
}

impl ErrorContext {
    /// The table (`database.table`, possibly with a `$branch` or system-table suffix).
    pub fn table(&self) -> Option<&str> {
        self.table.as_deref()
    }
    /// The partition, as Paimon's `key=value/...` path or the caller's spec.
    pub fn partition(&self) -> Option<&str> {
        self.partition.as_deref()
    }
    /// The bucket.
    pub fn bucket(&self) -> Option<i32> {
        self.bucket
    }
    /// The file (or directory) path.
    pub fn file(&self) -> Option<&str> {
        self.file.as_deref()
    }
    /// The table or catalog option key.
    pub fn option(&self) -> Option<&str> {
        self.option.as_deref()
    }
    /// The snapshot id.
    pub fn snapshot(&self) -> Option<i64> {
        self.snapshot
    }
    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        *self == ErrorContext::default()
    }

    /// Fills the fields `self` lacks from `other`.
    pub(crate) fn merge(&mut self, other: ErrorContext) {
        self.table = self.table.take().or(other.table);
        self.partition = self.partition.take().or(other.partition);
        self.bucket = self.bucket.or(other.bucket);
        self.file = self.file.take().or(other.file);
        self.option = self.option.take().or(other.option);
        self.snapshot = self.snapshot.or(other.snapshot);
    }

    /// The fields as `(name, value)` pairs, in a fixed order.
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(t) = &self.table {
            out.push(("table", t.clone()));
        }
        if let Some(p) = &self.partition {
            out.push(("partition", p.clone()));
        }
        if let Some(b) = self.bucket {
            out.push(("bucket", b.to_string()));
        }
        if let Some(f) = &self.file {
            out.push(("file", f.clone()));
        }
        if let Some(o) = &self.option {
            out.push(("option", o.clone()));
        }
        if let Some(s) = self.snapshot {
            out.push(("snapshot", s.to_string()));
        }
        out
    }

    /// The fields `message` does not mention already, for display after it: a table's,
    /// file's, partition's or option's value, or `bucket N` / `snapshot N`.
    pub(crate) fn unmentioned(&self, message: &str) -> Vec<(&'static str, String)> {
        self.entries()
            .into_iter()
            .filter(|(name, value)| {
                let said = match *name {
                    "bucket" | "snapshot" => message.contains(&format!("{name} {value}")),
                    _ => message.contains(value.as_str()),
                };
                !said
            })
            .collect()
    }
}

impl Display for ErrorContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, value)) in self.entries().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name}: {value}")?;
        }
        Ok(())
    }
}
