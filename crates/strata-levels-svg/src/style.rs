//! Colors (hue by where a file came from, shade by its size) and the hover text of a file box.

use strata::system::{FileBox, Source};

use crate::text::human_size;

/// `#rrggbb` of an HSL color (h in degrees, s and l in 0..=1).
pub(crate) fn hsl_hex(h: f64, s: f64, l: f64) -> String {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h.rem_euclid(360.0)) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", to(r), to(g), to(b))
}

/// Lightness of a box: proportional to its share of the largest file's bytes.
fn lightness(size: i64, max_size: i64) -> f64 {
    let t = if max_size > 0 {
        (size.max(0) as f64 / max_size as f64).clamp(0.0, 1.0)
    } else {
        0.0
    };
    0.92 - 0.55 * t
}

/// Fill and text colors of a box.
pub(crate) fn colors(source: Source, size: i64, max_size: i64) -> (String, &'static str) {
    let l = lightness(size, max_size);
    let fill = match source {
        Source::Append => hsl_hex(212.0, 0.7, l),
        Source::Compact => hsl_hex(28.0, 0.85, l),
        Source::Unknown => hsl_hex(0.0, 0.0, l),
    };
    (fill, if l < 0.6 { "#ffffff" } else { "#1a1a1a" })
}

/// The hover text of a file box: full name and metadata.
pub(crate) fn tooltip(f: &FileBox) -> String {
    let keys = if f.min_key.cells.is_empty() && f.max_key.cells.is_empty() {
        "no keys".to_string()
    } else {
        format!("keys {}..{}", f.min_key.label, f.max_key.label)
    };
    format!(
        "{}\nlevel {}, {} rows, {} ({} bytes)\n{keys}\nsequence {}..{}\ndeletes {}, {}",
        f.file_name,
        f.level,
        f.row_count,
        human_size(f.file_size),
        f.file_size,
        f.min_sequence_number,
        f.max_sequence_number,
        f.delete_row_count
            .map(|d| d.to_string())
            .unwrap_or_else(|| "unknown".into()),
        source_name(f.source)
    )
}

fn source_name(s: Source) -> &'static str {
    match s {
        Source::Append => "APPEND",
        Source::Compact => "COMPACT",
        Source::Unknown => "source unknown",
    }
}
