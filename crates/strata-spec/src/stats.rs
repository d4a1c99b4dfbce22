//! Column statistics: [`SimpleStats`] as stored in manifests (`_KEY_STATS`, `_VALUE_STATS`,
//! `_PARTITION_STATS`), the per-column form [`ColumnStats`] used while collecting and evaluating
//! them, and the stats modes (`metadata.stats-mode`) with Java's truncation rules.
//!
//! `SimpleStats` keeps min and max values as two [`BinaryRow`]s over the stats columns (types
//! made nullable, NULL = unknown or all-null) plus one optional null count per column; the
//! conversion to and from columns follows Java's `SimpleStatsConverter`. Truncation follows
//! `TruncateSimpleColStatsCollector`: strings keep their first N code points, bytes their first
//! N bytes, and the max is bumped so it stays an upper bound (or dropped when it cannot be).

use crate::binary_row::BinaryRow;
use crate::error::{Result, SpecError};
use crate::{DataType, Datum};

/// Statistics of one column of one file (or of one partition column across a manifest):
/// `None` min/max means unknown or all-null; `None` null count means unknown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColumnStats {
    pub min: Option<Datum>,
    pub max: Option<Datum>,
    pub null_count: Option<i64>,
}

/// `metadata.stats-mode` / `fields.<col>.stats-mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsMode {
    /// No statistics (column dropped from dense value stats).
    None,
    /// Only null counts.
    Counts,
    /// Min/max with strings and bytes truncated to N characters/bytes; default `truncate(16)`.
    Truncate(usize),
    /// Exact min/max.
    Full,
}

impl StatsMode {
    /// Parses `none`, `counts`, `full`, `truncate(N)` (case-insensitive, as Java does).
    pub fn parse(text: &str) -> Option<StatsMode> {
        let t = text.trim().to_ascii_lowercase();
        match t.as_str() {
            "none" => Some(StatsMode::None),
            "counts" => Some(StatsMode::Counts),
            "full" => Some(StatsMode::Full),
            _ => {
                let n = t.strip_prefix("truncate(")?.strip_suffix(')')?;
                n.trim().parse().ok().map(StatsMode::Truncate)
            }
        }
    }
}

impl StatsMode {
    /// Applies the mode to exact column statistics, as Java's collectors' `convert` does:
    /// `none` drops everything, `counts` keeps the null count, `truncate(N)` truncates string
    /// and binary min/max (dropping both when no upper bound can be formed), `full` keeps all.
    pub fn convert(&self, stats: &ColumnStats) -> ColumnStats {
        match self {
            StatsMode::None => ColumnStats::default(),
            StatsMode::Counts => ColumnStats {
                min: None,
                max: None,
                null_count: stats.null_count,
            },
            StatsMode::Truncate(n) => {
                let max = stats.max.as_ref().and_then(|m| truncate_max(m, *n));
                match max {
                    None => ColumnStats {
                        min: None,
                        max: None,
                        null_count: stats.null_count,
                    },
                    Some(max) => ColumnStats {
                        min: stats.min.as_ref().and_then(|m| truncate_min(m, *n)),
                        max: Some(max),
                        null_count: stats.null_count,
                    },
                }
            }
            StatsMode::Full => stats.clone(),
        }
    }
}

/// A value no greater than `value` for `truncate(n)` statistics: strings keep their first `n`
/// code points, bytes their first `n` bytes, other values are returned unchanged.
/// (`TruncateSimpleColStatsCollector.truncateMin`; always `Some`, the `Option` mirrors
/// [`truncate_max`].)
pub fn truncate_min(value: &Datum, n: usize) -> Option<Datum> {
    Some(match value {
        Datum::String(s) => Datum::String(prefix_chars(s, n).to_string()),
        Datum::Bytes(b) => Datum::Bytes(b[..b.len().min(n)].to_vec()),
        other => other.clone(),
    })
}

/// A value no less than `value` for `truncate(n)` statistics
/// (`TruncateSimpleColStatsCollector.truncateMax`):
///
/// * a string of at most `n` code points, or bytes of at most `n` bytes, is returned as is;
/// * a longer string keeps its first `n` code points and increments the last one that can be
///   incremented, dropping the ones after it; a longer byte string likewise increments its last
///   byte that is not `0xFF`;
/// * `None` when no code point / byte can be incremented (the max is then unknown);
/// * other values are returned unchanged.
///
/// Java can produce a lone surrogate when incrementing U+D7FF; here the increment skips to
/// U+E000, the next valid scalar value, which keeps the result an upper bound.
pub fn truncate_max(value: &Datum, n: usize) -> Option<Datum> {
    match value {
        Datum::String(s) => {
            let prefix = prefix_chars(s, n);
            if prefix.len() == s.len() {
                return Some(value.clone());
            }
            let chars: Vec<char> = prefix.chars().collect();
            for i in (0..chars.len()).rev() {
                if let Some(next) = next_char(chars[i]) {
                    let mut out: String = chars[..i].iter().collect();
                    out.push(next);
                    return Some(Datum::String(out));
                }
            }
            None
        }
        Datum::Bytes(b) => {
            if b.len() <= n {
                return Some(value.clone());
            }
            let mut out = b[..n].to_vec();
            while let Some(last) = out.pop() {
                if last != 0xFF {
                    out.push(last + 1);
                    return Some(Datum::Bytes(out));
                }
            }
            None
        }
        other => Some(other.clone()),
    }
}

/// The first `n` code points of `s`.
fn prefix_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

/// The next Unicode scalar value after `c` (skipping the surrogate range), if any.
fn next_char(c: char) -> Option<char> {
    match c as u32 {
        0xD7FF => char::from_u32(0xE000),
        v => char::from_u32(v + 1),
    }
}

/// Min/max/null-count statistics of a group of columns, as stored in manifests.
///
/// `min_values` / `max_values` hold one field per stats column (field NULL = unknown or all
/// NULL); `null_counts` holds one entry per column (`None` = unknown).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SimpleStats {
    pub min_values: BinaryRow,
    pub max_values: BinaryRow,
    pub null_counts: Vec<Option<i64>>,
}

impl SimpleStats {
    /// `SimpleStats.EMPTY_STATS`: empty min/max rows and an empty (not null) null-count list.
    pub fn empty() -> SimpleStats {
        SimpleStats {
            min_values: BinaryRow::empty(),
            max_values: BinaryRow::empty(),
            null_counts: Vec::new(),
        }
    }

    /// True for stats over zero columns (what Java reads back as `EMPTY_STATS`).
    pub fn is_empty(&self) -> bool {
        self.min_values.arity() == 0 && self.max_values.arity() == 0 && self.null_counts.is_empty()
    }

    /// Encodes per-column statistics (`SimpleStatsConverter.toBinaryAllMode`): one column per
    /// type. Errors when the counts differ or a min/max does not match its column type.
    pub fn from_columns(columns: &[ColumnStats], types: &[DataType]) -> Result<SimpleStats> {
        if columns.len() != types.len() {
            return Err(SpecError::invalid(
                "SimpleStats",
                format!("{} column stats for {} types", columns.len(), types.len()),
            ));
        }
        let mins: Vec<Option<Datum>> = columns.iter().map(|c| c.min.clone()).collect();
        let maxs: Vec<Option<Datum>> = columns.iter().map(|c| c.max.clone()).collect();
        let wrap = |what: &str, e: SpecError| match e {
            SpecError::Invalid { context, message } => SpecError::Invalid {
                context: format!("SimpleStats {what}: {context}"),
                message,
            },
            other => other,
        };
        Ok(SimpleStats {
            min_values: BinaryRow::from_datums(&mins, types).map_err(|e| wrap("min", e))?,
            max_values: BinaryRow::from_datums(&maxs, types).map_err(|e| wrap("max", e))?,
            null_counts: columns.iter().map(|c| c.null_count).collect(),
        })
    }

    /// Decodes into one [`ColumnStats`] per type. Stats written for a different column set are
    /// reported as unknown rather than misread: when the min/max arity differs from the number
    /// of types, every min/max is `None`; when the null-count list has another length, every
    /// null count is `None`. Min/max bytes that do not decode are an error.
    pub fn to_columns(&self, types: &[DataType]) -> Result<Vec<ColumnStats>> {
        let n = types.len();
        let bounds_known = self.min_values.arity() == n && self.max_values.arity() == n;
        let counts_known = self.null_counts.len() == n;
        let mut out = Vec::with_capacity(n);
        for (i, ty) in types.iter().enumerate() {
            let (min, max) = if bounds_known {
                (self.min_values.get(i, ty)?, self.max_values.get(i, ty)?)
            } else {
                (None, None)
            };
            let null_count = if counts_known {
                self.null_counts[i]
            } else {
                None
            };
            out.push(ColumnStats {
                min,
                max,
                null_count,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
