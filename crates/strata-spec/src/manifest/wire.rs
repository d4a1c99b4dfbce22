//! Glue between apache-avro [`Value`]s and the manifest domain structs: a by-name view of a
//! decoded record ([`Rec`]) whose accessors name the field on error, and builders for the
//! values the encoders write.
//!
//! Readers resolve fields by name from the writer schema, as Java's `FieldReaderFactory` does:
//! missing fields read as null, unknown fields are ignored, record names do not matter, and
//! every value may be wrapped in a `["null", T]` union (Paimon ≤0.8, pypaimon-rust).

use apache_avro::types::Value;

use crate::binary_row::BinaryRow;
use crate::error::{Result, SpecError};
use crate::stats::SimpleStats;

/// Strips any union wrappers.
pub(crate) fn unwrap_union(mut v: &Value) -> &Value {
    while let Value::Union(_, inner) = v {
        v = inner;
    }
    v
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Boolean(_) => "boolean",
        Value::Int(_) | Value::Date(_) | Value::TimeMillis(_) => "int",
        Value::Long(_) | Value::TimeMicros(_) => "long",
        Value::TimestampMillis(_)
        | Value::TimestampMicros(_)
        | Value::TimestampNanos(_)
        | Value::LocalTimestampMillis(_)
        | Value::LocalTimestampMicros(_)
        | Value::LocalTimestampNanos(_) => "timestamp",
        Value::Float(_) => "float",
        Value::Double(_) => "double",
        Value::Bytes(_) | Value::Fixed(..) => "bytes",
        Value::String(_) => "string",
        Value::Enum(..) => "enum",
        Value::Union(..) => "union",
        Value::Array(_) => "array",
        Value::Map(_) => "map",
        Value::Record(_) => "record",
        _ => "logical value",
    }
}

/// Adds the record ordinal to a field error from [`Rec`].
pub(crate) fn in_record(err: SpecError, what: &str, ordinal: usize) -> SpecError {
    match err {
        SpecError::Invalid { context, message } => SpecError::Invalid {
            context: format!("{what} #{ordinal} field {context}"),
            message,
        },
        SpecError::Unsupported(message) => {
            SpecError::Unsupported(format!("{what} #{ordinal}: {message}"))
        }
        other => other,
    }
}

/// By-name view of a decoded Avro record. `path` is the field path to it (at most 4 deep).
#[derive(Clone, Copy)]
pub(crate) struct Rec<'v> {
    fields: &'v [(String, Value)],
    path: [&'static str; 4],
    depth: usize,
}

impl<'v> Rec<'v> {
    /// The top-level record of a datum (possibly wrapped in `["null", record]`).
    pub(crate) fn top(value: &'v Value) -> Result<Rec<'v>> {
        match unwrap_union(value) {
            Value::Record(fields) => Ok(Rec {
                fields,
                path: [""; 4],
                depth: 0,
            }),
            other => Err(SpecError::invalid(
                "(record)",
                format!("expected a record, found {}", kind_name(other)),
            )),
        }
    }

    fn field_path(&self, name: &str) -> String {
        let mut out = String::new();
        for seg in &self.path[..self.depth] {
            out.push_str(seg);
            out.push('.');
        }
        out.push_str(name);
        out
    }

    pub(crate) fn err(&self, name: &str, message: impl Into<String>) -> SpecError {
        SpecError::invalid(self.field_path(name), message)
    }

    fn wrong_type(&self, name: &str, expected: &str, found: &Value) -> SpecError {
        self.err(
            name,
            format!("expected {expected}, found {}", kind_name(found)),
        )
    }

    /// The field's value with unions stripped; `None` when missing or null.
    pub(crate) fn value(&self, name: &str) -> Option<&'v Value> {
        let (_, v) = self.fields.iter().find(|(n, _)| n == name)?;
        match unwrap_union(v) {
            Value::Null => None,
            v => Some(v),
        }
    }

    fn required(&self, name: &str) -> Result<&'v Value> {
        self.value(name)
            .ok_or_else(|| self.err(name, "required field is missing or null"))
    }

    fn as_int(&self, name: &str, v: &Value) -> Result<i32> {
        match v {
            Value::Int(i) | Value::Date(i) | Value::TimeMillis(i) => Ok(*i),
            Value::Long(l) => {
                i32::try_from(*l).map_err(|_| self.err(name, format!("{l} does not fit an int")))
            }
            other => Err(self.wrong_type(name, "int", other)),
        }
    }

    fn as_long(&self, name: &str, v: &Value) -> Result<i64> {
        match v {
            Value::Int(i) => Ok(i64::from(*i)),
            Value::Long(l)
            | Value::TimestampMillis(l)
            | Value::LocalTimestampMillis(l)
            | Value::TimeMicros(l) => Ok(*l),
            other => Err(self.wrong_type(name, "long", other)),
        }
    }

    pub(crate) fn int(&self, name: &str) -> Result<i32> {
        self.as_int(name, self.required(name)?)
    }

    pub(crate) fn long(&self, name: &str) -> Result<i64> {
        self.as_long(name, self.required(name)?)
    }

    pub(crate) fn string(&self, name: &str) -> Result<String> {
        match self.required(name)? {
            Value::String(s) => Ok(s.clone()),
            other => Err(self.wrong_type(name, "string", other)),
        }
    }

    pub(crate) fn opt_int(&self, name: &str) -> Result<Option<i32>> {
        self.value(name).map(|v| self.as_int(name, v)).transpose()
    }

    pub(crate) fn opt_long(&self, name: &str) -> Result<Option<i64>> {
        self.value(name).map(|v| self.as_long(name, v)).transpose()
    }

    /// A timestamp as epoch millis (micros/nanos are truncated to millis).
    pub(crate) fn opt_millis(&self, name: &str) -> Result<Option<i64>> {
        self.value(name)
            .map(|v| match v {
                Value::TimestampMicros(m) | Value::LocalTimestampMicros(m) => {
                    Ok(m.div_euclid(1000))
                }
                Value::TimestampNanos(n) | Value::LocalTimestampNanos(n) => {
                    Ok(n.div_euclid(1_000_000))
                }
                v => self.as_long(name, v),
            })
            .transpose()
    }

    pub(crate) fn opt_string(&self, name: &str) -> Result<Option<String>> {
        self.value(name)
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(self.wrong_type(name, "string", other)),
            })
            .transpose()
    }

    pub(crate) fn opt_bytes(&self, name: &str) -> Result<Option<Vec<u8>>> {
        self.value(name)
            .map(|v| match v {
                Value::Bytes(b) | Value::Fixed(_, b) => Ok(b.clone()),
                other => Err(self.wrong_type(name, "bytes", other)),
            })
            .transpose()
    }

    fn opt_list<T>(
        &self,
        name: &str,
        mut item: impl FnMut(&Value) -> Option<T>,
        expected: &str,
    ) -> Result<Option<Vec<T>>> {
        let Some(v) = self.value(name) else {
            return Ok(None);
        };
        let Value::Array(items) = v else {
            return Err(self.wrong_type(name, "array", v));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let x = unwrap_union(x);
                item(x).ok_or_else(|| {
                    self.err(
                        name,
                        format!("item {i}: expected {expected}, found {}", kind_name(x)),
                    )
                })
            })
            .collect::<Result<Vec<T>>>()
            .map(Some)
    }

    pub(crate) fn opt_string_list(&self, name: &str) -> Result<Option<Vec<String>>> {
        self.opt_list(
            name,
            |x| match x {
                Value::String(s) => Some(s.clone()),
                _ => None,
            },
            "string",
        )
    }

    pub(crate) fn opt_int_list(&self, name: &str) -> Result<Option<Vec<i32>>> {
        self.opt_list(
            name,
            |x| match x {
                Value::Int(i) => Some(*i),
                Value::Long(l) => i32::try_from(*l).ok(),
                _ => None,
            },
            "int",
        )
    }

    /// Array of nullable longs (`_NULL_COUNTS`).
    pub(crate) fn opt_nullable_long_list(&self, name: &str) -> Result<Option<Vec<Option<i64>>>> {
        self.opt_list(
            name,
            |x| match x {
                Value::Null => Some(None),
                Value::Long(l) => Some(Some(*l)),
                Value::Int(i) => Some(Some(i64::from(*i))),
                _ => None,
            },
            "nullable long",
        )
    }

    /// Nested record by name; `None` when missing or null.
    pub(crate) fn record(&self, name: &'static str) -> Result<Option<Rec<'v>>> {
        let Some(v) = self.value(name) else {
            return Ok(None);
        };
        let Value::Record(fields) = v else {
            return Err(self.wrong_type(name, "record", v));
        };
        let mut path = self.path;
        let depth = (self.depth + 1).min(path.len());
        path[depth - 1] = name;
        Ok(Some(Rec {
            fields,
            path,
            depth,
        }))
    }

    /// Items of an array of records (items may be union-wrapped; null items are an error).
    pub(crate) fn opt_record_list(&self, name: &'static str) -> Result<Option<Vec<Rec<'v>>>> {
        let Some(v) = self.value(name) else {
            return Ok(None);
        };
        let Value::Array(items) = v else {
            return Err(self.wrong_type(name, "array", v));
        };
        let mut path = self.path;
        let depth = (self.depth + 1).min(path.len());
        path[depth - 1] = name;
        items
            .iter()
            .enumerate()
            .map(|(i, x)| match unwrap_union(x) {
                Value::Record(fields) => Ok(Rec {
                    fields,
                    path,
                    depth,
                }),
                other => Err(self.err(
                    name,
                    format!("item {i}: expected record, found {}", kind_name(other)),
                )),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    /// A serialized BinaryRow field; missing or null reads as the empty row.
    pub(crate) fn binary_row(&self, name: &str) -> Result<BinaryRow> {
        match self.value(name) {
            None => Ok(BinaryRow::empty()),
            Some(Value::Bytes(b)) | Some(Value::Fixed(_, b)) => {
                BinaryRow::from_serialized(b).map_err(|e| self.err(name, e.to_string()))
            }
            Some(other) => Err(self.wrong_type(name, "bytes", other)),
        }
    }

    /// A BinaryRow field that must be present (`_PARTITION`: Java's reader schema has no
    /// default for it, so a writer schema without it does not decode).
    pub(crate) fn required_binary_row(&self, name: &str) -> Result<BinaryRow> {
        self.required(name)?;
        self.binary_row(name)
    }

    /// A SimpleStats record field; missing or null reads as empty stats.
    pub(crate) fn stats(&self, name: &'static str) -> Result<SimpleStats> {
        let Some(rec) = self.record(name)? else {
            return Ok(SimpleStats::empty());
        };
        Ok(SimpleStats {
            min_values: rec.binary_row("_MIN_VALUES")?,
            max_values: rec.binary_row("_MAX_VALUES")?,
            null_counts: rec
                .opt_nullable_long_list("_NULL_COUNTS")?
                .unwrap_or_default(),
        })
    }
}

/// Field list of a record value under construction.
pub(crate) type Fields = Vec<(String, Value)>;

pub(crate) fn field(fields: &mut Fields, name: &str, value: Value) {
    fields.push((name.to_string(), value));
}

/// `["null", T]` with the null branch.
pub(crate) fn null() -> Value {
    Value::Union(0, Box::new(Value::Null))
}

/// `["null", T]` with the `T` branch.
pub(crate) fn some(v: Value) -> Value {
    Value::Union(1, Box::new(v))
}

pub(crate) fn nullable<T>(v: Option<T>, f: impl FnOnce(T) -> Value) -> Value {
    v.map_or_else(null, |x| some(f(x)))
}

pub(crate) fn string_list(items: &[String]) -> Value {
    Value::Array(items.iter().map(|s| Value::String(s.clone())).collect())
}

pub(crate) fn row_bytes(row: &BinaryRow) -> Value {
    Value::Bytes(row.to_serialized())
}

/// The SimpleStats record (`_MIN_VALUES`, `_MAX_VALUES`, `_NULL_COUNTS`).
pub(crate) fn stats_value(stats: &SimpleStats) -> Value {
    let counts = stats
        .null_counts
        .iter()
        .map(|c| nullable(*c, Value::Long))
        .collect();
    Value::Record(vec![
        ("_MIN_VALUES".into(), row_bytes(&stats.min_values)),
        ("_MAX_VALUES".into(), row_bytes(&stats.max_values)),
        ("_NULL_COUNTS".into(), some(Value::Array(counts))),
    ])
}
