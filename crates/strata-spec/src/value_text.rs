//! Java's text forms of dates, times, timestamps and decimals read into values (what
//! `LocalDate.parse`, `BinaryStringUtils.toTime`/`toTimestamp` and `new BigDecimal(text)`
//! accept), the proleptic Gregorian calendar under them, and the decimal precision check. A
//! leaf: partition values (`partition::text`), column defaults (`types::default_value`) and the
//! BinaryRow codec (`binary_row`) all use it.

/// Milliseconds of one day.
pub(crate) const MILLIS_PER_DAY: i64 = 86_400_000;

/// True when `|unscaled| < 10^precision`.
pub(crate) fn fits_precision(unscaled: i128, precision: u32) -> bool {
    match 10u128.checked_pow(precision) {
        Some(limit) => unscaled.unsigned_abs() < limit,
        None => true,
    }
}

/// Proleptic Gregorian (year, month, day) of a day number since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Day number since 1970-01-01 of a proleptic Gregorian date.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = y - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 } as i64;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `new BigDecimal(text).setScale(scale, HALF_UP)` as an unscaled value, `None` when it is not
/// a number or needs more than `precision` digits.
pub(crate) fn parse_decimal(text: &str, precision: u32, scale: u32) -> Option<i128> {
    let (neg, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part
        .bytes()
        .chain(frac_part.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // value = digits × 10^(exp − frac_len); wanted: digits × 10^(exp − frac_len + scale).
    let digits: String = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    let shift = exp - frac_part.len() as i64 + scale as i64;
    let (kept, round_up) = if shift >= 0 {
        if digits.len() as i64 + shift > 39 {
            return None;
        }
        (format!("{digits}{}", "0".repeat(shift as usize)), false)
    } else {
        let cut = (-shift) as usize;
        if cut >= digits.len() {
            // Everything is dropped; HALF_UP rounds up when the first dropped digit is ≥ 5.
            let first = if cut == digits.len() {
                digits.bytes().next()
            } else {
                None
            };
            (String::new(), first.is_some_and(|b| b >= b'5'))
        } else {
            let (k, dropped) = digits.split_at(digits.len() - cut);
            (k.to_string(), dropped.as_bytes()[0] >= b'5')
        }
    };
    let mut v: i128 = if kept.is_empty() {
        0
    } else {
        kept.parse().ok()?
    };
    if round_up {
        v = v.checked_add(1)?;
    }
    if neg {
        v = -v;
    }
    fits_precision(v, precision).then_some(v)
}

/// `BinaryStringUtils.toDate`: a day number, or `yyyy[-MM[-dd]]` (anything after a space is
/// ignored, as Java accepts timestamp text).
pub(crate) fn parse_date(text: &str) -> Option<i32> {
    if is_numeric(text) {
        return text.parse().ok();
    }
    let s = text.split(' ').next().unwrap_or(text);
    let mut parts = s.splitn(3, '-');
    let y: i64 = parse_java_int(parts.next()?.trim())?;
    let m: u32 = match parts.next() {
        Some(p) => parse_java_int(p.trim())? as u32,
        None => 1,
    };
    let d: u32 = match parts.next() {
        Some(p) => parse_java_int(p.trim())? as u32,
        None => 1,
    };
    if !is_legal_date(y, m, d) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// `DateTimeUtils.isIllegalDate` (which, despite its name, says whether the date is legal).
fn is_legal_date(y: i64, m: u32, d: u32) -> bool {
    if !(0..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return false;
    }
    let leap = y % 400 == 0 || (y % 4 == 0 && y % 100 != 0);
    if m == 2 && d > 28 && !(leap && d == 29) {
        return false;
    }
    d != 31 || [1, 3, 5, 7, 8, 10, 12].contains(&m)
}

/// Digits only (Java `isInteger`), as a non-negative number.
fn parse_java_int(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `StringUtils.isNumeric`: an optional `-` then only digits.
fn is_numeric(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `BinaryStringUtils.toTime`: milliseconds of the day, or `HH[:mm[:ss[.fff]]]`.
pub(crate) fn parse_time(text: &str) -> Option<i32> {
    if is_numeric(text) {
        return text.parse().ok();
    }
    let (hms, frac) = match text.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let mut parts = hms.split(':');
    let h = parse_java_int(parts.next()?.trim())?;
    let m = parts
        .next()
        .map(|p| parse_java_int(p.trim()))
        .unwrap_or(Some(0))?;
    let s = parts
        .next()
        .map(|p| parse_java_int(p.trim()))
        .unwrap_or(Some(0))?;
    if parts.next().is_some() || (frac.is_some() && hms.matches(':').count() != 2) {
        return None;
    }
    let ms = frac.map(parse_fraction_millis).unwrap_or(0);
    i32::try_from(h * 3_600_000 + m * 60_000 + s * 1000 + ms).ok()
}

/// `DateTimeUtils.parseFraction`: milliseconds of a fraction's digits, rounding on the 4th.
fn parse_fraction_millis(frac: &str) -> i64 {
    let b = frac.trim().as_bytes();
    let mut r = 0i64;
    let mut mult = 100i64;
    for (i, c) in b.iter().enumerate() {
        let x = if c.is_ascii_digit() {
            (c - b'0') as i64
        } else {
            0
        };
        r += mult * x;
        if mult < 10 {
            if b.get(i + 1).is_some_and(|n| *n >= b'5') {
                r += 1;
            }
            break;
        }
        mult /= 10;
    }
    r
}

/// `BinaryStringUtils.toTimestamp`: an epoch number in the unit of the precision (0 seconds,
/// 3 millis, 6 micros, 9 nanos), or `yyyy-M-d[( |T)H:m[:s[.fffffffff]]]`; the fraction is
/// floored to `precision` digits.
pub(crate) fn parse_timestamp(text: &str, precision: u32) -> Option<(i64, i32)> {
    if is_numeric(text) {
        let v: i64 = text.parse().ok()?;
        let (div, nanos_per_unit) = match precision {
            0 => return Some((v.checked_mul(1000)?, 0)),
            3 => return Some((v, 0)),
            6 => (1000, 1000),
            9 => (1_000_000, 1),
            _ => return None,
        };
        let millis = v.div_euclid(div);
        let nanos = (v.rem_euclid(div) * nanos_per_unit) as i32;
        return Some((millis, nanos));
    }
    let (date, time) = match text.find([' ', 'T']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let mut dp = date.split('-');
    let y = parse_java_int(dp.next()?)?;
    let m = parse_java_int(dp.next()?)? as u32;
    let d = parse_java_int(dp.next()?)? as u32;
    if dp.next().is_some() || !is_legal_date(y, m, d) {
        return None;
    }
    let (mut h, mut mi, mut s, mut nano) = (0i64, 0i64, 0i64, 0i64);
    if let Some(time) = time {
        let (hms, frac) = match time.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (time, None),
        };
        let mut tp = hms.split(':');
        h = parse_java_int(tp.next()?)?;
        mi = parse_java_int(tp.next()?)?;
        if let Some(sec) = tp.next() {
            s = parse_java_int(sec)?;
        } else if frac.is_some() {
            return None;
        }
        if tp.next().is_some() || h > 23 || mi > 59 || s > 59 {
            return None;
        }
        if let Some(f) = frac {
            if f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            nano = format!("{f:0<9}").parse().ok()?;
        }
    }
    let unit = 10i64.pow(9 - precision.min(9));
    nano -= nano % unit;
    let millis = days_from_civil(y, m, d) * MILLIS_PER_DAY
        + ((h * 60 + mi) * 60 + s) * 1000
        + nano / 1_000_000;
    Some((millis, (nano % 1_000_000) as i32))
}
