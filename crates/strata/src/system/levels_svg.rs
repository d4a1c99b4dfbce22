//! The SVG drawing of `strata levels --svg` (and `Table.levels_svg()` in Python): each
//! selected bucket's LSM tree as a panel.
//!
//! [`levels_doc`] builds a plain data model ([`LevelsDoc`]) from a snapshot's live files
//! ([`crate::system::live_files`]), selecting partitions and buckets; [`render_svg`] draws
//! it, a pure function of that model, so it is testable without a table.
//! In a panel, levels are rows (L0 on top; every level-0 file is its own sorted run and gets
//! its own lane, newest first; each level ≥ 1 is one lane); files are boxes placed
//! horizontally by key range on an axis computed from all files of the bucket — linear for
//! numeric single-column keys, otherwise ordinal over the sorted distinct min/max keys — and
//! shaded in proportion to their size (hue: APPEND or COMPACT). Every box carries a tooltip
//! with the file's full name and metadata and `data-file`/`data-level` attributes; a label
//! with the short name and size is drawn when it fits. The SVG is hand-written text; every
//! piece of text from the table is escaped.

pub use super::levels_doc::{
    human_size, key_text, levels_doc, short_file_name, BucketPanel, FileBox, Key, KeyCell,
    LevelsDoc, Source,
};

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

fn truncate(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max_chars.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// The horizontal key axis of one panel, mapping keys to fractions of the plot width.
#[derive(Debug)]
enum Axis {
    Linear { lo: f64, hi: f64 },
    Ordinal { keys: Vec<Key> },
}

fn numeric(k: &Key) -> Option<f64> {
    match k.cells.as_slice() {
        [KeyCell::Int(i)] => Some(*i as f64),
        [KeyCell::Float(f)] if f.is_finite() => Some(*f),
        _ => None,
    }
}

impl Axis {
    fn of(files: &[FileBox]) -> Axis {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        let mut linear = !files.is_empty();
        for f in files {
            match (numeric(&f.min_key), numeric(&f.max_key)) {
                (Some(a), Some(b)) => {
                    lo = lo.min(a.min(b));
                    hi = hi.max(a.max(b));
                }
                _ => {
                    linear = false;
                    break;
                }
            }
        }
        if linear {
            return Axis::Linear { lo, hi };
        }
        let mut keys: Vec<Key> = files
            .iter()
            .flat_map(|f| [f.min_key.clone(), f.max_key.clone()])
            .collect();
        keys.sort();
        keys.dedup();
        Axis::Ordinal { keys }
    }

    fn name(&self) -> &'static str {
        match self {
            Axis::Linear { .. } => "linear",
            Axis::Ordinal { .. } => "ordinal",
        }
    }

    /// Start and end fractions of a file's key range.
    fn span(&self, min: &Key, max: &Key) -> (f64, f64) {
        let (a, b) = match self {
            Axis::Linear { lo, hi } => match (numeric(min), numeric(max)) {
                (Some(a), Some(b)) if hi > lo => ((a - lo) / (hi - lo), (b - lo) / (hi - lo)),
                _ => (0.0, 1.0),
            },
            Axis::Ordinal { keys } => {
                let n = keys.len().max(1) as f64;
                let i = keys.binary_search(min).unwrap_or_else(|i| i) as f64;
                let j = keys.binary_search(max).unwrap_or_else(|j| j) as f64;
                (i / n, (j + 1.0) / n)
            }
        };
        let (a, b) = (a.clamp(0.0, 1.0), b.clamp(0.0, 1.0));
        if a <= b {
            (a, b)
        } else {
            (b, a)
        }
    }

    /// Fraction where a tick for `k` goes.
    fn tick(&self, k: &Key) -> f64 {
        match self {
            Axis::Linear { lo, hi } => match numeric(k) {
                Some(v) if hi > lo => ((v - lo) / (hi - lo)).clamp(0.0, 1.0),
                _ => 0.5,
            },
            Axis::Ordinal { keys } => {
                let n = keys.len().max(1) as f64;
                let i = keys.binary_search(k).unwrap_or_else(|i| i) as f64;
                ((i + 0.5) / n).clamp(0.0, 1.0)
            }
        }
    }
}

const WIDTH: f64 = 1000.0;
const MARGIN: f64 = 16.0;
const LABEL_W: f64 = 52.0;
const PLOT_X0: f64 = MARGIN + LABEL_W;
const PLOT_X1: f64 = WIDTH - MARGIN;
const LANE_H: f64 = 26.0;
const LANE_GAP: f64 = 4.0;
const BOX_PAD: f64 = 2.0;
const MIN_BOX_W: f64 = 3.0;
/// Advance of one character of the 10px monospace labels.
const CHAR_W: f64 = 6.0;
const HEADER_H: f64 = 100.0;
const PANEL_TITLE_H: f64 = 28.0;
const AXIS_H: f64 = 36.0;
const PANEL_GAP: f64 = 16.0;

/// One lane (row) of a panel.
struct Lane<'a> {
    level: i32,
    files: Vec<&'a FileBox>,
}

/// L0: one lane per file, newest (highest sequence numbers) first, at least one lane; then
/// one lane per level up to the highest level present.
fn lanes_of(panel: &BucketPanel) -> Vec<Lane<'_>> {
    let mut l0: Vec<&FileBox> = panel.files.iter().filter(|f| f.level <= 0).collect();
    l0.sort_by(|a, b| {
        b.max_sequence_number
            .cmp(&a.max_sequence_number)
            .then(b.min_sequence_number.cmp(&a.min_sequence_number))
            .then_with(|| a.file_name.cmp(&b.file_name))
    });
    let mut lanes: Vec<Lane> = if l0.is_empty() {
        vec![Lane {
            level: 0,
            files: Vec::new(),
        }]
    } else {
        l0.into_iter()
            .map(|f| Lane {
                level: 0,
                files: vec![f],
            })
            .collect()
    };
    let max_level = panel.files.iter().map(|f| f.level).max().unwrap_or(0);
    for level in 1..=max_level {
        let mut files: Vec<&FileBox> = panel.files.iter().filter(|f| f.level == level).collect();
        files.sort_by(|a, b| a.min_key.cmp(&b.min_key));
        lanes.push(Lane { level, files });
    }
    lanes
}

fn panel_height(lanes: usize) -> f64 {
    PANEL_TITLE_H + lanes as f64 * (LANE_H + LANE_GAP) + AXIS_H + PANEL_GAP
}

/// `#rrggbb` of an HSL color (h in degrees, s and l in 0..=1).
fn hsl_hex(h: f64, s: f64, l: f64) -> String {
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
fn colors(source: Source, size: i64, max_size: i64) -> (String, &'static str) {
    let l = lightness(size, max_size);
    let fill = match source {
        Source::Append => hsl_hex(212.0, 0.7, l),
        Source::Compact => hsl_hex(28.0, 0.85, l),
        Source::Unknown => hsl_hex(0.0, 0.0, l),
    };
    (fill, if l < 0.6 { "#ffffff" } else { "#1a1a1a" })
}

fn fmt_num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// The hover text of a file box: full name and metadata.
fn tooltip(f: &FileBox) -> String {
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

/// The SVG document of `doc`.
pub fn render_svg(doc: &LevelsDoc) -> String {
    let max_size = doc
        .panels
        .iter()
        .flat_map(|p| &p.files)
        .map(|f| f.file_size)
        .max()
        .unwrap_or(0);
    let lanes: Vec<Vec<Lane>> = doc.panels.iter().map(lanes_of).collect();
    let height = HEADER_H + lanes.iter().map(|l| panel_height(l.len())).sum::<f64>() + MARGIN;
    let files: usize = doc.panels.iter().map(|p| p.files.len()).sum();
    let title = format!(
        "LSM levels of {} at snapshot {}",
        doc.table, doc.snapshot_id
    );

    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.push_str(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
        w = fmt_num(WIDTH),
        h = fmt_num(height)
    ));
    s.push_str(&format!("<title>{}</title>\n", escape_xml(&title)));
    s.push_str(&format!(
        "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
        fmt_num(WIDTH),
        fmt_num(height)
    ));
    s.push_str(&format!(
        "<text x=\"{}\" y=\"30\" font-size=\"18\" font-weight=\"bold\">{}</text>\n",
        fmt_num(MARGIN),
        escape_xml(&title)
    ));
    s.push_str(&format!(
        "<text x=\"{}\" y=\"50\" fill=\"#555555\">{} bucket(s), {files} file(s). Rows: levels, \
         L0 on top with one lane per level-0 sorted run (newest first). Boxes: files at their \
         key range; hover for details.</text>\n",
        fmt_num(MARGIN),
        doc.panels.len()
    ));
    legend(&mut s, max_size);

    let mut y = HEADER_H;
    for (panel, lanes) in doc.panels.iter().zip(&lanes) {
        draw_panel(&mut s, doc, panel, lanes, y, max_size);
        y += panel_height(lanes.len());
    }
    s.push_str("</svg>\n");
    s
}

fn legend(s: &mut String, max_size: i64) {
    let y = 64.0;
    s.push_str("<g class=\"legend\">\n");
    let mut x = MARGIN;
    for (source, text) in [
        (Source::Append, "APPEND: written by a writer"),
        (Source::Compact, "COMPACT: written by compaction"),
    ] {
        let (fill, _) = colors(source, max_size / 2, max_size);
        s.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" rx=\"2\" fill=\"{fill}\" \
             stroke=\"#333333\" stroke-width=\"0.6\"/>\n",
            fmt_num(x),
            fmt_num(y)
        ));
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\">{}</text>\n",
            fmt_num(x + 20.0),
            fmt_num(y + 11.0),
            escape_xml(text)
        ));
        x += 230.0;
    }
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\">shade ∝ file size:</text>\n",
        fmt_num(x),
        fmt_num(y + 11.0)
    ));
    x += 118.0;
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" font-size=\"10\">0 B</text>\n",
        fmt_num(x),
        fmt_num(y + 11.0)
    ));
    x += 24.0;
    for i in 0..=4 {
        let size = max_size / 4 * i;
        let (fill, _) = colors(
            Source::Append,
            if i == 4 { max_size } else { size },
            max_size,
        );
        s.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"24\" height=\"14\" fill=\"{fill}\" \
             stroke=\"#333333\" stroke-width=\"0.6\"/>\n",
            fmt_num(x),
            fmt_num(y)
        ));
        x += 24.0;
    }
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" font-size=\"10\">{}</text>\n",
        fmt_num(x + 4.0),
        fmt_num(y + 11.0),
        escape_xml(&human_size(max_size))
    ));
    s.push_str("</g>\n");
}

fn draw_panel(
    s: &mut String,
    doc: &LevelsDoc,
    panel: &BucketPanel,
    lanes: &[Lane],
    top: f64,
    max_size: i64,
) {
    let axis = Axis::of(&panel.files);
    let plot_w = PLOT_X1 - PLOT_X0;
    let bytes: i64 = panel.files.iter().map(|f| f.file_size).sum();
    let rows: i64 = panel.files.iter().map(|f| f.row_count).sum();
    let partition = if panel.partition.is_empty() {
        String::new()
    } else {
        format!(" · partition {}", panel.partition)
    };
    s.push_str(&format!(
        "<g class=\"panel\" data-partition=\"{}\" data-bucket=\"{}\">\n",
        escape_xml(&panel.partition),
        panel.bucket
    ));
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
        fmt_num(MARGIN),
        fmt_num(top + 18.0),
        escape_xml(&format!(
            "{}{partition} · bucket {} · snapshot {}",
            doc.table, panel.bucket, doc.snapshot_id
        ))
    ));
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555555\">{}</text>\n",
        fmt_num(PLOT_X1),
        fmt_num(top + 18.0),
        escape_xml(&format!(
            "{} file(s), {}, {rows} row(s); {} key axis",
            panel.files.len(),
            human_size(bytes),
            axis.name()
        ))
    ));

    // Level bands: alternating backgrounds, the label on the first lane.
    let lanes_top = top + PANEL_TITLE_H;
    let lane_y = |i: usize| lanes_top + i as f64 * (LANE_H + LANE_GAP);
    let mut i = 0;
    while i < lanes.len() {
        let level = lanes[i].level;
        let n = lanes[i..].iter().take_while(|l| l.level == level).count();
        let fill = if level % 2 == 0 { "#f3f5f8" } else { "#e9edf2" };
        s.push_str(&format!(
            "<rect class=\"level\" data-level=\"{level}\" x=\"{}\" y=\"{}\" width=\"{}\" \
             height=\"{}\" fill=\"{fill}\"/>\n",
            fmt_num(MARGIN),
            fmt_num(lane_y(i) - LANE_GAP / 2.0),
            fmt_num(PLOT_X1 - MARGIN),
            fmt_num(n as f64 * (LANE_H + LANE_GAP))
        ));
        let runs = if level == 0 && n > 1 {
            format!(" ({n} runs)")
        } else {
            String::new()
        };
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">L{level}</text>\n",
            fmt_num(MARGIN + 6.0),
            fmt_num(lane_y(i) + LANE_H / 2.0 + 4.0)
        ));
        if !runs.is_empty() {
            s.push_str(&format!(
                "<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#555555\">{}</text>\n",
                fmt_num(MARGIN + 6.0),
                fmt_num(lane_y(i) + LANE_H / 2.0 + 15.0),
                escape_xml(runs.trim())
            ));
        }
        i += n;
    }
    if panel.files.is_empty() {
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" fill=\"#777777\">(no live files)</text>\n",
            fmt_num(PLOT_X0 + 4.0),
            fmt_num(lane_y(0) + LANE_H / 2.0 + 4.0)
        ));
    }

    // Files. A label (short name and size, else short name) goes inside its box when it
    // fits, else into the free space right or left of the box, else only into the tooltip.
    for (li, lane) in lanes.iter().enumerate() {
        let y = lane_y(li) + BOX_PAD;
        let h = LANE_H - 2.0 * BOX_PAD;
        let mut placed: Vec<(&FileBox, f64, f64)> = lane
            .files
            .iter()
            .map(|f| {
                let (a, b) = axis.span(&f.min_key, &f.max_key);
                let mut x = PLOT_X0 + a * plot_w;
                let mut w = ((b - a) * plot_w).max(MIN_BOX_W);
                if x + w > PLOT_X1 {
                    x = PLOT_X1 - w;
                }
                if w > 6.0 {
                    // A hairline gap between adjacent boxes.
                    x += 0.5;
                    w -= 1.0;
                }
                (*f, x, w)
            })
            .collect();
        placed.sort_by(|p, q| p.1.total_cmp(&q.1));
        // Everything left of this x is taken (by boxes or outside labels).
        let mut free_from = PLOT_X0;
        for (i, &(f, x, w)) in placed.iter().enumerate() {
            let (fill, text_color) = colors(f.source, f.file_size, max_size);
            s.push_str(&format!(
                "<rect class=\"file\" data-file=\"{}\" data-level=\"{}\" x=\"{}\" y=\"{}\" \
                 width=\"{}\" height=\"{}\" rx=\"2\" fill=\"{fill}\" stroke=\"#2b2b2b\" \
                 stroke-opacity=\"0.6\" stroke-width=\"0.8\"><title>{}</title></rect>\n",
                escape_xml(&f.file_name),
                f.level,
                fmt_num(x),
                fmt_num(y),
                fmt_num(w),
                fmt_num(h),
                escape_xml(&tooltip(f))
            ));
            let next_x = placed.get(i + 1).map_or(PLOT_X1, |n| n.1);
            let short = short_file_name(&f.file_name);
            let full = format!("{short} {}", human_size(f.file_size));
            let need = |t: &str| t.chars().count() as f64 * CHAR_W + 6.0;
            let right_room = next_x - (x + w);
            let left_room = x - free_from;
            let mut label = None;
            for text in [full, short] {
                let n = need(&text);
                label = if n <= w {
                    Some((text, x + 3.0, text_color))
                } else if n <= right_room {
                    Some((text, x + w + 3.0, "#1a1a1a"))
                } else if n <= left_room {
                    Some((text, x - n + 3.0, "#1a1a1a"))
                } else {
                    continue;
                };
                break;
            }
            free_from = x + w;
            if let Some((text, lx, color)) = label {
                s.push_str(&format!(
                    "<text class=\"label\" x=\"{}\" y=\"{}\" font-family=\"monospace\" \
                     font-size=\"10\" fill=\"{color}\" pointer-events=\"none\">{}</text>\n",
                    fmt_num(lx),
                    fmt_num(y + h / 2.0 + 3.5),
                    escape_xml(&text)
                ));
                free_from = free_from.max(lx + need(&text));
            }
        }
    }

    // Key axis with ticks at file boundaries, as many as fit without overlapping.
    let axis_y = lane_y(lanes.len()) + 2.0;
    s.push_str(&format!(
        "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#555555\" stroke-width=\"1\"/>\n",
        fmt_num(PLOT_X0),
        fmt_num(PLOT_X1),
        y = fmt_num(axis_y)
    ));
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#555555\">key</text>\n",
        fmt_num(MARGIN + 6.0),
        fmt_num(axis_y + 14.0)
    ));
    let mut keys: Vec<&Key> = panel
        .files
        .iter()
        .flat_map(|f| [&f.min_key, &f.max_key])
        .filter(|k| !k.cells.is_empty())
        .collect();
    keys.sort();
    keys.dedup();
    let mut ticks: Vec<(f64, f64, f64, String)> = Vec::new(); // tick x, label x, half width, label
    for (ki, k) in keys.iter().enumerate() {
        let tx = PLOT_X0 + axis.tick(k) * plot_w;
        let label = truncate(&k.label, 18);
        let hw = label.chars().count() as f64 * 5.6 / 2.0 + 4.0;
        let lx = tx.clamp(PLOT_X0 + hw, PLOT_X1 - hw);
        let free = |t: &(f64, f64, f64, String)| lx - hw >= t.1 + t.2;
        if ticks.last().is_none_or(free) {
            ticks.push((tx, lx, hw, label));
        } else if ki + 1 == keys.len() {
            // Always show the largest key: drop earlier ticks in its way.
            while ticks.last().is_some_and(|t| !free(t)) && ticks.len() > 1 {
                ticks.pop();
            }
            if ticks.last().is_none_or(free) {
                ticks.push((tx, lx, hw, label));
            }
        }
    }
    for (tx, lx, _, label) in &ticks {
        s.push_str(&format!(
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#555555\" stroke-width=\"1\"/>\n",
            fmt_num(axis_y),
            fmt_num(axis_y + 4.0),
            x = fmt_num(*tx)
        ));
        s.push_str(&format!(
            "<text class=\"tick\" x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\" \
             fill=\"#333333\">{}</text>\n",
            fmt_num(*lx),
            fmt_num(axis_y + 15.0),
            escape_xml(label)
        ));
    }
    s.push_str("</g>\n");
}

#[cfg(test)]
#[path = "levels_svg_tests.rs"]
mod tests;
