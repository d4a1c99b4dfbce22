//! Partition directory names, as Java's `InternalRowPartitionComputer` and
//! `PartitionPathUtils` produce them.
//!
//! A partition lives under one directory level per partition key, in key order:
//! `dt=2024-01-01/hr=3/`. The value text depends on `partition.legacy-name` (default true:
//! Java `toString()` of the internal value, so a DATE is its day number) and NULL or blank
//! values become `partition.default-name` (default `__DEFAULT_PARTITION__`). Keys and values
//! are escaped with [`escape_path_name`].
//!
//! [`PartitionComputer`] turns partition values into that text (and back, for user input such
//! as the CLI's `--partition k=v` and for directory names). Paths it returns end with `/`,
//! like Java's `generatePartitionPath`, so a bucket directory is `{partition_path}bucket-N`;
//! an unpartitioned table's path is the empty string.

mod statistics;
#[cfg(test)]
mod tests;
pub(crate) mod text;

pub use statistics::PartitionStatistics;

use crate::binary_row::BinaryRow;
use crate::error::{Result, SpecError};
use crate::{Datum, RowType};

/// Default of `partition.default-name`.
pub const DEFAULT_PARTITION_NAME: &str = "__DEFAULT_PARTITION__";

/// True for the characters `PartitionPathUtils` escapes: control characters, `"#%'*/:=?\`,
/// DEL, `{}[]^`. Non-ASCII is never escaped.
fn needs_escaping(c: char) -> bool {
    matches!(
        c,
        '\u{00}'
            ..='\u{1F}'
                | '"'
                | '#'
                | '%'
                | '\''
                | '*'
                | '/'
                | ':'
                | '='
                | '?'
                | '\\'
                | '\u{7F}'
                | '{'
                | '}'
                | '['
                | ']'
                | '^'
    )
}

/// `PartitionPathUtils.escapePathName`: each character that needs escaping becomes `%` and two
/// uppercase hex digits (`:` → `%3A`). Java rejects an empty name; here it stays empty.
pub fn escape_path_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    for c in name.chars() {
        if needs_escaping(c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// `PartitionPathUtils.unescapePathName`: `%` followed by two characters that Java's
/// `Integer.parseInt(_, 16)` reads as a non-negative number becomes the character of that code
/// (U+0000..U+00FF, so a multi-byte UTF-8 sequence written as `%C3%A9` stays two characters, as
/// in Java); anything else is kept as is.
pub fn unescape_path_name(path: &str) -> String {
    let chars: Vec<char> = path.chars().collect();
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '%' && i + 2 < chars.len() {
            if let Some(code) = java_parse_hex2(chars[i + 1], chars[i + 2]) {
                out.push(char::from(code));
                i += 3;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// `Integer.parseInt` of two characters in radix 16 when the result is ≥ 0 (a leading `+`
/// is accepted, as Java does).
fn java_parse_hex2(a: char, b: char) -> Option<u8> {
    let hb = b.to_digit(16)?;
    match a {
        '+' => Some(hb as u8),
        _ => Some((a.to_digit(16)? * 16 + hb) as u8),
    }
}

/// `PartitionPathUtils.generatePartitionPath` of a spec in key order: `k1=v1/k2=v2/`, keys
/// and values escaped; the empty spec gives `""`.
pub fn partition_path_of_spec(spec: &[(String, String)]) -> String {
    let mut out = String::new();
    for (k, v) in spec {
        out.push_str(&escape_path_name(k));
        out.push('=');
        out.push_str(&escape_path_name(v));
        out.push('/');
    }
    out
}

/// Java `Character.isWhitespace`: Unicode space separators except the no-break ones, plus
/// the ASCII controls `\t \n \u{B} \u{C} \r` and `\u{1C}`..`\u{1F}`.
fn java_is_whitespace(c: char) -> bool {
    (c.is_whitespace() && !matches!(c, '\u{85}' | '\u{A0}' | '\u{2007}' | '\u{202F}'))
        || matches!(c, '\u{1C}'..='\u{1F}')
}

/// Computes partition text and paths for one table's partition type.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionComputer {
    partition_type: RowType,
    default_name: String,
    legacy_name: bool,
}

impl PartitionComputer {
    /// `partition_type`: the partition columns in `partitionKeys` order; `default_name`:
    /// `partition.default-name`; `legacy_name`: `partition.legacy-name`.
    pub fn new(
        partition_type: RowType,
        default_name: impl Into<String>,
        legacy_name: bool,
    ) -> PartitionComputer {
        PartitionComputer {
            partition_type,
            default_name: default_name.into(),
            legacy_name,
        }
    }

    /// The partition columns.
    pub fn partition_type(&self) -> &RowType {
        &self.partition_type
    }

    /// `partition.default-name`.
    pub fn default_name(&self) -> &str {
        &self.default_name
    }

    /// `partition.legacy-name`.
    pub fn legacy_name(&self) -> bool {
        self.legacy_name
    }

    /// Unescaped text of partition field `field_idx` holding `value`: the default name for
    /// NULL and for text that is empty or whitespace only; else Java `toString()` of the
    /// internal value (legacy) or `CAST(value AS STRING)`. The field's type only supplies the
    /// TIME/TIMESTAMP precision of the CAST form.
    pub fn value_text(&self, field_idx: usize, value: &Option<Datum>) -> String {
        let text = match value {
            None => return self.default_name.clone(),
            Some(d) if self.legacy_name => text::legacy_text(d),
            Some(d) => {
                let ty = self
                    .partition_type
                    .fields
                    .get(field_idx)
                    .map(|f| &f.data_type);
                text::cast_text(d, ty)
            }
        };
        if text.chars().all(java_is_whitespace) {
            self.default_name.clone()
        } else {
            text
        }
    }

    /// `generatePartValues`: (column name, unescaped value text) per partition column, in key
    /// order. Values missing at the end of `values` count as NULL.
    pub fn to_map(&self, values: &[Option<Datum>]) -> Vec<(String, String)> {
        self.partition_type
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let v = values.get(i).cloned().flatten();
                (f.name.clone(), self.value_text(i, &v))
            })
            .collect()
    }

    /// The partition directory path, escaped, with a trailing `/` (`"dt=2024-01-01/hr=3/"`);
    /// `""` for an unpartitioned table. Values missing at the end of `values` count as NULL.
    pub fn partition_path(&self, values: &[Option<Datum>]) -> String {
        partition_path_of_spec(&self.to_map(values))
    }

    /// [`Self::partition_path`] of a `_PARTITION` row.
    pub fn partition_path_of_row(&self, row: &BinaryRow) -> Result<String> {
        let values = row.to_datums(&self.partition_type.types())?;
        Ok(self.partition_path(&values))
    }

    /// Value of partition field `field_idx` written as `text` (unescaped): NULL for the default
    /// name, else `TypeUtils.castFromString`, which accepts both the legacy and the CAST text
    /// (DATE as `2024-01-01` or a day number, TIMESTAMP as `2024-01-01 12:00:00` or
    /// `2024-01-01T12:00`, ...). TIMESTAMP_LTZ text is read as UTC.
    pub fn parse_value(&self, field_idx: usize, text: &str) -> Result<Option<Datum>> {
        let field = self.partition_type.fields.get(field_idx).ok_or_else(|| {
            SpecError::invalid(
                "partition value",
                format!(
                    "field index {field_idx} out of range for {} partition columns",
                    self.partition_type.len()
                ),
            )
        })?;
        if text == self.default_name {
            return Ok(None);
        }
        text::parse_text(text, &field.data_type)
            .map(Some)
            .map_err(|e| match e {
                SpecError::Invalid { message, .. } => SpecError::invalid(
                    format!(
                        "partition column {} of type {}",
                        field.name, field.data_type
                    ),
                    message,
                ),
                other => other,
            })
    }

    /// Values of a partial spec (`k=v` pairs, unescaped): (field index, value) in key order.
    /// Unknown or repeated keys are errors.
    pub fn parse_partial_spec(
        &self,
        spec: &[(String, String)],
    ) -> Result<Vec<(usize, Option<Datum>)>> {
        let mut out: Vec<(usize, Option<Datum>)> = Vec::with_capacity(spec.len());
        for (k, v) in spec {
            let idx = self.partition_type.index_of(k).ok_or_else(|| {
                SpecError::invalid(
                    "partition spec",
                    format!(
                        "'{k}' is not a partition column (partition columns: {})",
                        self.partition_type.names().join(", ")
                    ),
                )
            })?;
            if out.iter().any(|(i, _)| *i == idx) {
                return Err(SpecError::invalid(
                    "partition spec",
                    format!("column '{k}' given twice"),
                ));
            }
            out.push((idx, self.parse_value(idx, v)?));
        }
        out.sort_by_key(|(i, _)| *i);
        Ok(out)
    }

    /// Values of a complete spec, one per partition column in key order
    /// (`convertSpecToInternalRow`). Missing columns are errors.
    pub fn parse_spec(&self, spec: &[(String, String)]) -> Result<Vec<Option<Datum>>> {
        let parsed = self.parse_partial_spec(spec)?;
        if parsed.len() != self.partition_type.len() {
            let missing: Vec<&str> = self
                .partition_type
                .fields
                .iter()
                .enumerate()
                .filter(|(i, _)| !parsed.iter().any(|(j, _)| j == i))
                .map(|(_, f)| f.name.as_str())
                .collect();
            return Err(SpecError::invalid(
                "partition spec",
                format!("missing partition columns: {}", missing.join(", ")),
            ));
        }
        Ok(parsed.into_iter().map(|(_, v)| v).collect())
    }
}
