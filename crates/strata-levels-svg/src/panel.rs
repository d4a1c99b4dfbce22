//! One bucket's panel: its lanes (level-0 sorted runs newest first, then one lane per level),
//! the file boxes placed on the key axis, and the axis with its ticks.

use strata::system::{BucketPanel, FileBox, Key, LevelsDoc};

use crate::axis::Axis;
use crate::layout::*;
use crate::style::{colors, tooltip};
use crate::text::{escape_xml, fmt_num, human_size, short_file_name, truncate};

/// One lane (row) of a panel.
pub(crate) struct Lane<'a> {
    pub(crate) level: i32,
    pub(crate) files: Vec<&'a FileBox>,
}

/// L0: one lane per file, newest (highest sequence numbers) first, at least one lane; then
/// one lane per level up to the highest level present.
pub(crate) fn lanes_of(panel: &BucketPanel) -> Vec<Lane<'_>> {
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

pub(crate) fn panel_height(lanes: usize) -> f64 {
    PANEL_TITLE_H + lanes as f64 * (LANE_H + LANE_GAP) + AXIS_H + PANEL_GAP
}

pub(crate) fn draw_panel(
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
