//! Text helpers of the drawing: XML escaping, truncation and number formatting, and the
//! short forms of file names and sizes the labels (and `strata levels`' text output) use.

/// Text for XML character data and attribute values: markup characters escaped, characters
/// XML 1.0 forbids replaced by U+FFFD.
pub fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

pub(crate) fn truncate(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max_chars.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// The horizontal key axis of one panel, mapping keys to fractions of the plot width.
pub(crate) fn fmt_num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// `812 B`, `4.1 KiB`, `12.0 MiB`.
pub fn human_size(bytes: i64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes.unsigned_abs() < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// `data-1b2c3d4e-…-7.parquet` → `1b2c3d4e-7`: the first 8 characters of the UUID and the
/// counter suffix. Names of another shape are returned without their extension.
pub fn short_file_name(name: &str) -> String {
    let stem = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.contains('-') => stem,
        _ => name,
    };
    let parts: Vec<&str> = stem.split('-').collect();
    let n = parts.len();
    if n >= 7 {
        let uuid = &parts[n - 6..n - 1];
        let shape_ok = uuid
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, len)| p.len() == len && p.chars().all(|c| c.is_ascii_hexdigit()));
        if shape_ok {
            return format!("{}-{}", uuid[0], parts[n - 1]);
        }
    }
    stem.to_string()
}
