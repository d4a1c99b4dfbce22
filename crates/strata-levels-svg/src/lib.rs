//! The SVG drawing of `strata levels --svg` (and `Table.levels_svg()` in Python): each
//! selected bucket's LSM tree as a panel.
//!
//! The engine builds the data model ([`strata::system::levels_doc`] → [`LevelsDoc`]) from a
//! snapshot's live files, selecting partitions and buckets; [`render_svg`] draws it, a pure
//! function of that model, so it is testable without a table. The drawing lives here, beside
//! the front ends that use it, not in the engine.
//!
//! In a panel, levels are rows (L0 on top; every level-0 file is its own sorted run and gets
//! its own lane, newest first; each level ≥ 1 is one lane); files are boxes placed
//! horizontally by key range on an axis computed from all files of the bucket — linear for
//! numeric single-column keys, otherwise ordinal over the sorted distinct min/max keys — and
//! shaded in proportion to their size (hue: APPEND or COMPACT). Every box carries a tooltip
//! with the file's full name and metadata and `data-file`/`data-level` attributes; a label
//! with the short name and size is drawn when it fits. The SVG is hand-written text; every
//! piece of text from the table is escaped.

mod axis;
mod layout;
mod panel;
mod style;
mod text;

use strata::system::{LevelsDoc, Source};

use crate::layout::{HEADER_H, MARGIN, WIDTH};
use crate::panel::{draw_panel, lanes_of, panel_height, Lane};
use crate::style::colors;
use crate::text::fmt_num;
pub use crate::text::{escape_xml, human_size, short_file_name};

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

#[cfg(test)]
mod tests;
