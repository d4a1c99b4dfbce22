//! The SVG drawing of `strata levels --svg`: each selected bucket's LSM tree as a panel.
//!
//! A pure function of a plain data model ([`LevelsDoc`]), so it is testable without a table.
//! In a panel, levels are rows (L0 on top; every level-0 file is its own sorted run and gets
//! its own lane, newest first; each level ≥ 1 is one lane); files are boxes placed
//! horizontally by key range on an axis computed from all files of the bucket — linear for
//! numeric single-column keys, otherwise ordinal over the sorted distinct min/max keys — and
//! shaded in proportion to their size (hue: APPEND or COMPACT). Every box carries a tooltip
//! with the file's full name and metadata and `data-file`/`data-level` attributes; a label
//! with the short name and size is drawn when it fits. The SVG is hand-written text; every
//! piece of text from the table is escaped.

use std::cmp::Ordering;

/// Everything drawn: one panel per (partition, bucket), stacked.
#[derive(Clone, Debug)]
pub struct LevelsDoc {
    /// `db.table`.
    pub table: String,
    pub snapshot_id: i64,
    pub panels: Vec<BucketPanel>,
}

/// One bucket of one partition.
#[derive(Clone, Debug)]
pub struct BucketPanel {
    /// `k=v,k2=v2`; empty for an unpartitioned table.
    pub partition: String,
    pub bucket: i32,
    pub files: Vec<FileBox>,
}

/// Where a file came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Written by a writer flush.
    Append,
    /// Written by compaction.
    Compact,
    /// Not recorded (old writers).
    Unknown,
}

/// One data file.
#[derive(Clone, Debug)]
pub struct FileBox {
    pub file_name: String,
    pub level: i32,
    pub file_size: i64,
    pub row_count: i64,
    pub min_key: Key,
    pub max_key: Key,
    pub min_sequence_number: i64,
    pub max_sequence_number: i64,
    pub delete_row_count: Option<i64>,
    pub source: Source,
}

/// A key: its values for ordering and placing, and its text for labels.
#[derive(Clone, Debug)]
pub struct Key {
    /// One cell per key column; empty for files without keys (append tables).
    pub cells: Vec<KeyCell>,
    pub label: String,
}

/// One key column's value. Integers also carry DATE, TIME, TIMESTAMP (as nanoseconds) and
/// DECIMAL (unscaled) values, which order and space like their numbers.
#[derive(Clone, Debug)]
pub enum KeyCell {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Text(String),
    Bytes(Vec<u8>),
}

impl KeyCell {
    fn rank(&self) -> u8 {
        match self {
            KeyCell::Null => 0,
            KeyCell::Bool(_) => 1,
            KeyCell::Int(_) => 2,
            KeyCell::Float(_) => 3,
            KeyCell::Text(_) => 4,
            KeyCell::Bytes(_) => 5,
        }
    }

    /// NULL first; floats in IEEE total order; text by UTF-8 bytes (Paimon's order).
    fn cmp_cell(&self, other: &KeyCell) -> Ordering {
        match (self, other) {
            (KeyCell::Bool(a), KeyCell::Bool(b)) => a.cmp(b),
            (KeyCell::Int(a), KeyCell::Int(b)) => a.cmp(b),
            (KeyCell::Float(a), KeyCell::Float(b)) => a.total_cmp(b),
            (KeyCell::Text(a), KeyCell::Text(b)) => a.as_bytes().cmp(b.as_bytes()),
            (KeyCell::Bytes(a), KeyCell::Bytes(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> Ordering {
        for (a, b) in self.cells.iter().zip(&other.cells) {
            let o = a.cmp_cell(b);
            if o != Ordering::Equal {
                return o;
            }
        }
        self.cells.len().cmp(&other.cells.len())
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

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
mod tests {
    use super::*;

    fn int_key(v: i64) -> Key {
        Key {
            cells: vec![KeyCell::Int(v as i128)],
            label: v.to_string(),
        }
    }

    fn text_key(v: &str) -> Key {
        Key {
            cells: vec![KeyCell::Text(v.to_string())],
            label: v.to_string(),
        }
    }

    fn file(n: u32, level: i32, min: Key, max: Key, size: i64, seq: i64) -> FileBox {
        FileBox {
            file_name: format!("data-{n:08x}-1111-2222-3333-444455556666-{n}.parquet"),
            level,
            file_size: size,
            row_count: 100,
            min_key: min,
            max_key: max,
            min_sequence_number: seq,
            max_sequence_number: seq + 99,
            delete_row_count: Some(0),
            source: if level == 0 {
                Source::Append
            } else {
                Source::Compact
            },
        }
    }

    fn doc(files: Vec<FileBox>) -> LevelsDoc {
        LevelsDoc {
            table: "db.t".into(),
            snapshot_id: 7,
            panels: vec![BucketPanel {
                partition: "dt=2024-01-01".into(),
                bucket: 0,
                files,
            }],
        }
    }

    /// Checks that `xml` is well formed enough for our output: balanced, properly nested
    /// tags, quoted attributes, and `&` only in entity references. Returns the elements'
    /// names in document order.
    fn check_xml(xml: &str) -> Vec<String> {
        let mut stack: Vec<String> = Vec::new();
        let mut names = Vec::new();
        let mut rest = xml;
        let check_text = |t: &str| {
            let mut r = t;
            while let Some(i) = r.find('&') {
                let after = &r[i + 1..];
                assert!(
                    ["amp;", "lt;", "gt;", "quot;", "apos;"]
                        .iter()
                        .any(|e| after.starts_with(e)),
                    "bare & in {t:?}"
                );
                r = after;
            }
        };
        while let Some(i) = rest.find('<') {
            let text = &rest[..i];
            check_text(text);
            assert!(!text.contains('>'), "stray > in text {text:?}");
            let end = rest[i..].find('>').expect("unterminated tag") + i;
            let tag = &rest[i + 1..end];
            assert!(!tag.contains('<'), "< inside tag {tag:?}");
            assert_eq!(
                tag.matches('"').count() % 2,
                0,
                "unbalanced quotes in {tag:?}"
            );
            check_text(tag);
            if tag.starts_with('?') {
                assert!(tag.ends_with('?'));
            } else if let Some(name) = tag.strip_prefix('/') {
                let open = stack.pop().expect("closing tag without opening");
                assert_eq!(open, name.trim(), "mismatched closing tag");
            } else {
                let name: String = tag
                    .chars()
                    .take_while(|c| !c.is_whitespace() && *c != '/')
                    .collect();
                assert!(!name.is_empty(), "empty tag name in {tag:?}");
                names.push(name.clone());
                if !tag.ends_with('/') {
                    stack.push(name);
                }
            }
            rest = &rest[end + 1..];
        }
        assert!(rest.trim().is_empty(), "text after the root: {rest:?}");
        assert!(stack.is_empty(), "unclosed tags: {stack:?}");
        assert_eq!(names.first().map(String::as_str), Some("svg"));
        names
    }

    /// `attr="value"` of the first element in `line` having it.
    fn attr<'a>(line: &'a str, name: &str) -> Option<&'a str> {
        let pat = format!(" {name}=\"");
        let i = line.find(&pat)? + pat.len();
        let j = line[i..].find('"')? + i;
        Some(&line[i..j])
    }

    /// (file name, level, x, width) of every file box.
    fn boxes(svg: &str) -> Vec<(String, i32, f64, f64)> {
        svg.lines()
            .filter(|l| l.starts_with("<rect class=\"file\""))
            .map(|l| {
                (
                    attr(l, "data-file").unwrap().to_string(),
                    attr(l, "data-level").unwrap().parse().unwrap(),
                    attr(l, "x").unwrap().parse().unwrap(),
                    attr(l, "width").unwrap().parse().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn well_formed_with_title_legend_and_one_box_per_file() {
        let d = doc(vec![
            file(1, 0, int_key(1), int_key(50), 1000, 200),
            file(2, 0, int_key(20), int_key(90), 2000, 300),
            file(3, 5, int_key(1), int_key(49), 50_000, 0),
            file(4, 5, int_key(51), int_key(100), 60_000, 0),
        ]);
        let svg = render_svg(&d);
        let names = check_xml(&svg);
        assert_eq!(
            names.iter().filter(|n| *n == "g").count(),
            2,
            "legend + 1 panel"
        );
        assert!(svg.contains("LSM levels of db.t at snapshot 7"));
        assert!(svg.contains("db.t · partition dt=2024-01-01 · bucket 0 · snapshot 7"));
        assert!(svg.contains("class=\"legend\""));
        assert!(svg.contains("APPEND") && svg.contains("COMPACT"));
        let b = boxes(&svg);
        assert_eq!(b.len(), 4);
        // Levels L0..L5 are all drawn, the empty ones included.
        for level in 0..=5 {
            assert!(
                svg.contains(&format!(">L{level}</text>")),
                "L{level} missing"
            );
        }
        assert!(!svg.contains(">L6</text>"));
        // Short labels: first 8 characters of the UUID and the counter.
        assert!(svg.contains(">00000003-3 "), "{svg}");
    }

    #[test]
    fn boxes_are_ordered_by_key_and_sized_by_key_range_on_a_linear_axis() {
        let d = doc(vec![
            file(1, 1, int_key(500), int_key(999), 10, 0),
            file(2, 1, int_key(0), int_key(99), 10, 0),
            file(3, 1, int_key(100), int_key(499), 10, 0),
        ]);
        let svg = render_svg(&d);
        check_xml(&svg);
        assert!(svg.contains("linear key axis"));
        let mut b = boxes(&svg);
        b.sort_by(|x, y| x.2.total_cmp(&y.2));
        let order: Vec<&str> = b.iter().map(|x| &x.0[5..13]).collect();
        assert_eq!(order, ["00000002", "00000003", "00000001"]);
        // Width ∝ key range: 99 : 399 : 499.
        let (w2, w3, w1) = (b[0].3, b[1].3, b[2].3);
        assert!((w3 / w2 - 399.0 / 99.0).abs() < 0.1, "{w2} {w3}");
        assert!((w1 / w3 - 499.0 / 399.0).abs() < 0.05, "{w3} {w1}");
        // The axis spans the plot.
        assert!((b[0].2 - PLOT_X0).abs() < 1.0);
        assert!((b[2].2 + b[2].3 - PLOT_X1).abs() < 1.0);
    }

    #[test]
    fn ordinal_axis_for_string_keys_orders_boxes() {
        let d = doc(vec![
            file(1, 2, text_key("m"), text_key("z"), 10, 0),
            file(2, 2, text_key("a"), text_key("f"), 10, 0),
            file(3, 0, text_key("c"), text_key("p"), 10, 50),
        ]);
        let svg = render_svg(&d);
        check_xml(&svg);
        assert!(svg.contains("ordinal key axis"));
        let b = boxes(&svg);
        let x = |n: &str| b.iter().find(|f| f.0.contains(n)).unwrap().2;
        // Distinct keys a c f m p z: slots of 1/6.
        assert!(x("00000002") < x("00000003") && x("00000003") < x("00000001"));
        let w = |n: &str| b.iter().find(|f| f.0.contains(n)).unwrap().3;
        let slot = (PLOT_X1 - PLOT_X0) / 6.0;
        assert!((w("00000002") - 3.0 * slot).abs() < 1.5);
    }

    #[test]
    fn level0_lanes_newest_first() {
        let d = doc(vec![
            file(1, 0, int_key(1), int_key(9), 10, 0),
            file(2, 0, int_key(1), int_key(9), 10, 100),
            file(3, 0, int_key(1), int_key(9), 10, 200),
        ]);
        let svg = render_svg(&d);
        let y = |n: &str| -> f64 {
            let l = svg
                .lines()
                .find(|l| l.starts_with("<rect class=\"file\"") && l.contains(n))
                .unwrap();
            attr(l, "y").unwrap().parse().unwrap()
        };
        assert!(y("00000003") < y("00000002") && y("00000002") < y("00000001"));
        assert!(svg.contains("(3 runs)"));
    }

    #[test]
    fn text_is_escaped() {
        let mut f = file(1, 0, text_key("a<b & \"c\""), text_key("z'>\u{1}"), 10, 0);
        f.file_name = "data-<&>.parquet".into();
        let mut d = doc(vec![f]);
        d.table = "db.<t&>".into();
        d.panels[0].partition = "k=\"v\"&".into();
        let svg = render_svg(&d);
        check_xml(&svg);
        assert!(svg.contains("db.&lt;t&amp;&gt;"));
        assert!(svg.contains("data-file=\"data-&lt;&amp;&gt;.parquet\""));
        assert!(svg.contains("keys a&lt;b &amp; &quot;c&quot;..z&apos;&gt;\u{FFFD}"));
        assert!(svg.contains("data-partition=\"k=&quot;v&quot;&amp;\""));
        assert!(!svg.contains('\u{1}'));
    }

    #[test]
    fn panels_stack_and_empty_buckets_draw() {
        let mut d = doc(vec![file(1, 1, int_key(1), int_key(5), 10, 0)]);
        d.panels.push(BucketPanel {
            partition: String::new(),
            bucket: 3,
            files: Vec::new(),
        });
        let svg = render_svg(&d);
        let names = check_xml(&svg);
        assert_eq!(names.iter().filter(|n| *n == "g").count(), 3);
        assert!(svg.contains("db.t · bucket 3 · snapshot 7"));
        assert!(svg.contains("(no live files)"));
        let ys: Vec<f64> = svg
            .lines()
            .filter(|l| l.contains("font-size=\"14\""))
            .map(|l| attr(l, "y").unwrap().parse().unwrap())
            .collect();
        assert_eq!(ys.len(), 2);
        assert!(ys[0] < ys[1]);
        let h: f64 = attr(&svg, "height").unwrap().parse().unwrap();
        assert!(h > ys[1]);
    }

    #[test]
    fn empty_keys_and_single_key_files_still_draw() {
        let no_key = || Key {
            cells: vec![],
            label: String::new(),
        };
        let d = doc(vec![
            file(1, 0, no_key(), no_key(), 10, 0),
            file(2, 0, no_key(), no_key(), 10, 10),
        ]);
        let svg = render_svg(&d);
        check_xml(&svg);
        assert_eq!(boxes(&svg).len(), 2);
        let d = doc(vec![file(1, 1, int_key(4), int_key(4), 10, 0)]);
        let b = boxes(&render_svg(&d));
        assert!(b[0].3 >= MIN_BOX_W);
    }

    #[test]
    fn narrow_boxes_get_their_label_beside_them() {
        let d = doc(vec![
            file(1, 0, int_key(0), int_key(1000), 10, 0),
            file(2, 0, int_key(10), int_key(20), 10, 100),
        ]);
        let svg = render_svg(&d);
        let b = boxes(&svg);
        let narrow = b.iter().find(|f| f.0.contains("00000002")).unwrap();
        let label = svg
            .lines()
            .find(|l| l.starts_with("<text class=\"label\"") && l.contains(">00000002-2"))
            .expect("label of the narrow box");
        let lx: f64 = attr(label, "x").unwrap().parse().unwrap();
        assert!(lx >= narrow.2 + narrow.3, "{label}");
    }

    #[test]
    fn helpers() {
        assert_eq!(
            short_file_name("data-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901-12.parquet"),
            "1b2c3d4e-12"
        );
        assert_eq!(
            short_file_name("changelog-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901-0.orc"),
            "1b2c3d4e-0"
        );
        assert_eq!(short_file_name("odd.parquet"), "odd");
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(3 * 1024 * 1024), "3.0 MiB");
        assert_eq!(hsl_hex(0.0, 0.0, 1.0), "#ffffff");
        assert_eq!(hsl_hex(120.0, 1.0, 0.5), "#00ff00");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert!(int_key(2) < int_key(10));
        assert!(text_key("B") < text_key("a"));
        let null = Key {
            cells: vec![KeyCell::Null],
            label: "null".into(),
        };
        assert!(null < int_key(i64::MIN));
    }
}
