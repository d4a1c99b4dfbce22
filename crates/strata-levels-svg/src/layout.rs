//! The page layout: widths, margins and heights, in SVG user units (pixels).

pub(crate) const WIDTH: f64 = 1000.0;
pub(crate) const MARGIN: f64 = 16.0;
pub(crate) const LABEL_W: f64 = 52.0;
pub(crate) const PLOT_X0: f64 = MARGIN + LABEL_W;
pub(crate) const PLOT_X1: f64 = WIDTH - MARGIN;
pub(crate) const LANE_H: f64 = 26.0;
pub(crate) const LANE_GAP: f64 = 4.0;
pub(crate) const BOX_PAD: f64 = 2.0;
pub(crate) const MIN_BOX_W: f64 = 3.0;
/// Advance of one character of the 10px monospace labels.
pub(crate) const CHAR_W: f64 = 6.0;
pub(crate) const HEADER_H: f64 = 100.0;
pub(crate) const PANEL_TITLE_H: f64 = 28.0;
pub(crate) const AXIS_H: f64 = 36.0;
pub(crate) const PANEL_GAP: f64 = 16.0;
