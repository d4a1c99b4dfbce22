//! Column statistics: `SimpleStats` as stored in manifests, and the per-column form used while
//! collecting and evaluating them.
//!
//! (Partly being written: SimpleStats <-> BinaryRow conversion and truncation helpers.)

use crate::Datum;

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
