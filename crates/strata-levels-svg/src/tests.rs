//! Tests of the renderer ([`super::render_svg`]).

use strata::system::{BucketPanel, FileBox, Key, KeyCell};

use super::*;
use crate::layout::{MIN_BOX_W, PLOT_X0, PLOT_X1};
use crate::style::hsl_hex;
use crate::text::truncate;

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
