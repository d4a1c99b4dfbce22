//! [`Datum`]: one non-null scalar value of a Paimon atomic type.
//!
//! Datums are what BinaryRow slots hold (partition values, min/max keys, statistics) and what
//! predicates compare against. NULL is `Option::<Datum>::None` everywhere. Values use Paimon's
//! internal representation (DATE = days, TIME = millis of day, TIMESTAMP = millis + nanos of
//! millisecond, DECIMAL = unscaled i128), so converting to and from BinaryRow is lossless.

use std::cmp::Ordering;
use std::fmt;

/// A non-null scalar in Paimon's internal representation.
#[derive(Clone, Debug, PartialEq)]
pub enum Datum {
    Boolean(bool),
    TinyInt(i8),
    SmallInt(i16),
    Int(i32),
    BigInt(i64),
    Float(f32),
    Double(f64),
    /// Unscaled value with its precision and scale.
    Decimal {
        unscaled: i128,
        precision: u32,
        scale: u32,
    },
    /// CHAR / VARCHAR / STRING (UTF-8).
    String(String),
    /// BINARY / VARBINARY / BYTES.
    Bytes(Vec<u8>),
    /// Days since 1970-01-01.
    Date(i32),
    /// Milliseconds of the day.
    Time(i32),
    /// TIMESTAMP without time zone: local date-time as epoch millis + nanos within the milli.
    Timestamp {
        millis: i64,
        nanos: i32,
    },
    /// TIMESTAMP WITH LOCAL TIME ZONE: UTC instant as epoch millis + nanos within the milli.
    TimestampLtz {
        millis: i64,
        nanos: i32,
    },
}

impl Datum {
    /// Total order between two datums of the same kind; `None` when kinds differ
    /// (callers coerce literals to the column type first). Floats use IEEE total order
    /// so NaN sorts last, like Java's `Double.compare`.
    pub fn compare(&self, other: &Datum) -> Option<Ordering> {
        use Datum::*;
        Some(match (self, other) {
            (Boolean(a), Boolean(b)) => a.cmp(b),
            (TinyInt(a), TinyInt(b)) => a.cmp(b),
            (SmallInt(a), SmallInt(b)) => a.cmp(b),
            (Int(a), Int(b)) => a.cmp(b),
            (BigInt(a), BigInt(b)) => a.cmp(b),
            (Float(a), Float(b)) => a.total_cmp(b),
            (Double(a), Double(b)) => a.total_cmp(b),
            (
                Decimal {
                    unscaled: a,
                    scale: sa,
                    ..
                },
                Decimal {
                    unscaled: b,
                    scale: sb,
                    ..
                },
            ) => {
                if sa == sb {
                    a.cmp(b)
                } else {
                    // Bring both to the larger scale; saturate rather than overflow.
                    let s = (*sa).max(*sb);
                    let ra = rescale(*a, *sa, s);
                    let rb = rescale(*b, *sb, s);
                    ra.cmp(&rb)
                }
            }
            (String(a), String(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Bytes(a), Bytes(b)) => a.cmp(b),
            (Date(a), Date(b)) => a.cmp(b),
            (Time(a), Time(b)) => a.cmp(b),
            (
                Timestamp {
                    millis: a,
                    nanos: na,
                },
                Timestamp {
                    millis: b,
                    nanos: nb,
                },
            )
            | (
                TimestampLtz {
                    millis: a,
                    nanos: na,
                },
                TimestampLtz {
                    millis: b,
                    nanos: nb,
                },
            ) => (a, na).cmp(&(b, nb)),
            _ => return None,
        })
    }
}

fn rescale(v: i128, from: u32, to: u32) -> i128 {
    let mut r = v;
    for _ in from..to {
        r = r.saturating_mul(10);
    }
    r
}

impl fmt::Display for Datum {
    /// Human-readable text (used in CLI output and error messages; partition paths have
    /// their own rules in [`crate::partition`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Datum::Boolean(v) => write!(f, "{v}"),
            Datum::TinyInt(v) => write!(f, "{v}"),
            Datum::SmallInt(v) => write!(f, "{v}"),
            Datum::Int(v) => write!(f, "{v}"),
            Datum::BigInt(v) => write!(f, "{v}"),
            Datum::Float(v) => write!(f, "{v}"),
            Datum::Double(v) => write!(f, "{v}"),
            Datum::Decimal {
                unscaled, scale, ..
            } => f.write_str(&decimal_to_string(*unscaled, *scale)),
            Datum::String(s) => f.write_str(s),
            Datum::Bytes(b) => {
                f.write_str("0x")?;
                for x in b {
                    write!(f, "{x:02x}")?;
                }
                Ok(())
            }
            Datum::Date(d) => match chrono::NaiveDate::from_num_days_from_ce_opt(*d + 719_163) {
                Some(date) => write!(f, "{}", date.format("%Y-%m-%d")),
                None => write!(f, "{d}"),
            },
            Datum::Time(ms) => {
                let s = ms / 1000;
                write!(
                    f,
                    "{:02}:{:02}:{:02}.{:03}",
                    s / 3600,
                    (s / 60) % 60,
                    s % 60,
                    ms % 1000
                )
            }
            Datum::Timestamp { millis, nanos } | Datum::TimestampLtz { millis, nanos } => {
                let secs = millis.div_euclid(1000);
                let sub_nanos = (millis.rem_euclid(1000) as u32) * 1_000_000 + *nanos as u32;
                match chrono::DateTime::from_timestamp(secs, sub_nanos) {
                    Some(t) => {
                        let z = if matches!(self, Datum::TimestampLtz { .. }) {
                            "Z"
                        } else {
                            ""
                        };
                        write!(f, "{}{z}", t.naive_utc().format("%Y-%m-%dT%H:%M:%S%.f"))
                    }
                    None => write!(f, "{millis}"),
                }
            }
        }
    }
}

/// Plain (no exponent) decimal text of an unscaled value, e.g. (-100001, 2) → `-1000.01`.
pub fn decimal_to_string(unscaled: i128, scale: u32) -> String {
    let neg = unscaled < 0;
    let digits = unscaled.unsigned_abs().to_string();
    let scale = scale as usize;
    let body = if scale == 0 {
        digits
    } else if digits.len() > scale {
        let (i, f) = digits.split_at(digits.len() - scale);
        format!("{i}.{f}")
    } else {
        format!("0.{}{}", "0".repeat(scale - digits.len()), digits)
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text() {
        assert_eq!(decimal_to_string(-100001, 2), "-1000.01");
        assert_eq!(decimal_to_string(5, 3), "0.005");
        assert_eq!(decimal_to_string(0, 0), "0");
        assert_eq!(decimal_to_string(123, 0), "123");
    }

    #[test]
    fn compare_mixed_scale_decimals() {
        let a = Datum::Decimal {
            unscaled: 150,
            precision: 10,
            scale: 2,
        };
        let b = Datum::Decimal {
            unscaled: 15,
            precision: 10,
            scale: 1,
        };
        assert_eq!(a.compare(&b), Some(Ordering::Equal));
        assert_eq!(Datum::Int(1).compare(&Datum::BigInt(1)), None);
    }

    #[test]
    fn display_temporal() {
        assert_eq!(Datum::Date(19723).to_string(), "2024-01-01");
        assert_eq!(
            Datum::Timestamp {
                millis: -1,
                nanos: 0
            }
            .to_string(),
            "1969-12-31T23:59:59.999"
        );
    }
}
