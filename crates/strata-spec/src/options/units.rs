//! Memory sizes and durations in option values, parsed like Java's `MemorySize.parseBytes` and
//! `TimeUtils.parseDuration`: leading/trailing whitespace is ignored, a run of ASCII digits,
//! optional whitespace, then an optional unit (case-insensitive).
//!
//! * sizes: none/`b`/`bytes`, `k`/`kb`/`kibibytes`, `m`/`mb`/`mebibytes`,
//!   `g`/`gb`/`gibibytes`, `t`/`tb`/`tebibytes` — powers of 1024 (`"128 mb"`, `"256MB"`);
//! * durations: none = milliseconds, `d`/`day(s)`, `h`/`hour(s)`, `min`/`m`/`minute(s)`,
//!   `s`/`sec(s)`/`second(s)`, `ms`/`milli(s)`/`millisecond(s)`, `µs`/`micro(s)`/
//!   `microsecond(s)`, `ns`/`nano(s)`/`nanosecond(s)`.

use std::time::Duration;

/// Splits `"128 mb"` into (128, "mb"); errors are plain messages for the caller to wrap.
fn split_number(text: &str) -> Result<(u64, String), String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("empty value".into());
    }
    let digits_end = trimmed
        .char_indices()
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(trimmed.len(), |(i, _)| i);
    let (number, unit) = trimmed.split_at(digits_end);
    if number.is_empty() {
        return Err("does not start with a number".into());
    }
    // Java parses the number as a signed long.
    let value = number
        .parse::<i64>()
        .map_err(|_| format!("number {number} does not fit in 64 bits"))?;
    Ok((value as u64, unit.trim().to_lowercase()))
}

/// Parses a memory size to bytes: `"128 mb"` → 134217728.
pub fn parse_memory_size(text: &str) -> Result<u64, String> {
    let (value, unit) = split_number(text)?;
    let multiplier: u64 = match unit.as_str() {
        "" | "b" | "bytes" => 1,
        "k" | "kb" | "kibibytes" => 1 << 10,
        "m" | "mb" | "mebibytes" => 1 << 20,
        "g" | "gb" | "gibibytes" => 1 << 30,
        "t" | "tb" | "tebibytes" => 1 << 40,
        other => {
            return Err(format!(
                "unknown memory size unit `{other}` (expected b, kb, mb, gb or tb)"
            ))
        }
    };
    value
        .checked_mul(multiplier)
        .filter(|bytes| *bytes <= i64::MAX as u64)
        .ok_or_else(|| "size does not fit in 64 bits".to_string())
}

/// Parses a duration: `"1 h"`, `"10 s"`, `"100 ms"`, `"30min"`, `"500"` (milliseconds).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let (value, unit) = split_number(text)?;
    let overflow = || "duration is too large".to_string();
    let secs = |mult: u64| value.checked_mul(mult).map(Duration::from_secs);
    let duration = match unit.as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => {
            Some(Duration::from_millis(value))
        }
        "d" | "day" | "days" => secs(86_400),
        "h" | "hour" | "hours" => secs(3_600),
        "min" | "m" | "minute" | "minutes" => secs(60),
        "s" | "sec" | "secs" | "second" | "seconds" => secs(1),
        "µs" | "micro" | "micros" | "microsecond" | "microseconds" => {
            Some(Duration::from_micros(value))
        }
        "ns" | "nano" | "nanos" | "nanosecond" | "nanoseconds" => Some(Duration::from_nanos(value)),
        other => {
            return Err(format!(
                "unknown time unit `{other}` (expected d, h, min, s, ms, µs or ns)"
            ))
        }
    };
    duration.ok_or_else(overflow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes() {
        assert_eq!(parse_memory_size("128 mb"), Ok(128 << 20));
        assert_eq!(parse_memory_size("256MB"), Ok(256 << 20));
        assert_eq!(parse_memory_size("1 kb"), Ok(1024));
        assert_eq!(parse_memory_size("500 B"), Ok(500));
        assert_eq!(parse_memory_size(" 7 "), Ok(7));
        assert_eq!(parse_memory_size("2g"), Ok(2 << 30));
        assert_eq!(parse_memory_size("1 tebibytes"), Ok(1 << 40));
        assert_eq!(parse_memory_size("0"), Ok(0));
        assert!(parse_memory_size("").is_err());
        assert!(parse_memory_size("mb").is_err());
        assert!(parse_memory_size("-1 mb").is_err());
        assert!(parse_memory_size("1.5 mb").unwrap_err().contains("unit"));
        assert!(parse_memory_size("12 parsecs")
            .unwrap_err()
            .contains("parsecs"));
        assert!(parse_memory_size("9999999999999 tb").is_err());
        assert!(parse_memory_size("99999999999999999999").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1 h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("10 s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("100 ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_duration("30min"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("2 d"), Ok(Duration::from_secs(172_800)));
        assert_eq!(parse_duration("3 Minutes"), Ok(Duration::from_secs(180)));
        assert_eq!(parse_duration("250"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("5 µs"), Ok(Duration::from_micros(5)));
        assert_eq!(parse_duration("5ns"), Ok(Duration::from_nanos(5)));
        assert!(parse_duration("1 fortnight")
            .unwrap_err()
            .contains("fortnight"));
        assert!(parse_duration("h").is_err());
        assert!(parse_duration("").is_err());
    }
}
