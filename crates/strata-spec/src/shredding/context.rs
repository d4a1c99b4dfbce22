//! K across the files of one writer (Java's `MapSharedShreddingContext`).
//!
//! The first file of a writer uses K = `max-columns`. Every file that completes reports the
//! widest row it saw; the next file's K is derived from the last 20 reports: sort them, take
//! P90 (the element at rank ⌈0.9·n⌉), and use the maximum instead when it is close
//! (`max − P90 ≤ 4` or `max ≤ ⌈1.25·P90⌉`), then clamp to `1..=max-columns`.
//!
//! P90 with the closeness rule, not the P99 of the PIP text: it is what Java and paimon-cpp
//! ship, so strata's files get the same K as theirs for the same data. A rare very wide row
//! then overflows instead of widening every row of the next file; a workload whose rows are
//! all about as wide still gets a K that holds them all. Failed files never report.

use std::collections::VecDeque;

/// Reports remembered.
pub const WINDOW: usize = 20;

/// The K history of one shredded column of one writer.
#[derive(Clone, Debug)]
pub struct ShreddingContext {
    max_columns: usize,
    widths: VecDeque<usize>,
}

impl ShreddingContext {
    pub fn new(max_columns: usize) -> Self {
        ShreddingContext {
            max_columns: max_columns.max(1),
            widths: VecDeque::with_capacity(WINDOW),
        }
    }

    /// K for the next file (Java's rule: `max-columns` for the first file).
    pub fn next_k(&self) -> usize {
        if self.widths.is_empty() {
            return self.max_columns;
        }
        let mut sorted: Vec<usize> = self.widths.iter().copied().collect();
        adaptive_width(&mut sorted).clamp(1, self.max_columns)
    }

    /// K for the next file when the rows it starts with are known: with no history yet, the
    /// same rule over those rows' widths instead of `max-columns`.
    ///
    /// This is strata's one departure from Java: a batch job writes one file per bucket and
    /// commit, each from a fresh writer, so under Java's rule every such file would have
    /// K = `max-columns` (256 by default) and carry 256 mapping slots per row. Sizing the first
    /// file from its first rows gives it the K later files would converge to; wider rows later
    /// in the file overflow, which any reader handles.
    pub fn next_k_with_sample(&self, row_widths: &mut [usize]) -> usize {
        if !self.widths.is_empty() || row_widths.is_empty() {
            return self.next_k();
        }
        adaptive_width(row_widths).clamp(1, self.max_columns)
    }

    /// Records the widest row of a file that was written successfully.
    pub fn file_completed(&mut self, max_row_width: usize) {
        if self.widths.len() == WINDOW {
            self.widths.pop_front();
        }
        self.widths.push_back(max_row_width);
    }
}

/// P90 of `widths` (rank ⌈0.9·n⌉), or the maximum when it is within 4 or 25 % of it.
/// `widths` must be non-empty; it is sorted in place.
fn adaptive_width(widths: &mut [usize]) -> usize {
    widths.sort_unstable();
    let n = widths.len();
    let rank = ((0.90 * n as f64).ceil() as usize).clamp(1, n);
    let p90 = widths[rank - 1];
    let max = widths[n - 1];
    let close = max - p90 <= 4 || max <= (p90 as f64 * 1.25).ceil() as usize;
    if close {
        max
    } else {
        p90
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(max: usize, widths: &[usize]) -> usize {
        let mut c = ShreddingContext::new(max);
        for &w in widths {
            c.file_completed(w);
        }
        c.next_k()
    }

    #[test]
    fn paimon_cpp_context_cases() {
        assert_eq!(after(10, &[]), 10, "first file uses max-columns");
        assert_eq!(after(10, &[3]), 3);
        assert_eq!(after(4, &[30]), 4, "capped by max-columns");
        assert_eq!(after(256, &[3, 7, 5]), 7);
        let mut w = vec![3; 19];
        w.push(1000);
        assert_eq!(after(2000, &w), 3, "one outlier does not widen K");
        w[19] = 7;
        assert_eq!(after(2000, &w), 7, "absolute slack");
        let mut w = vec![100; 19];
        w.push(125);
        assert_eq!(after(2000, &w), 125, "relative slack");
        w[19] = 130;
        assert_eq!(after(2000, &w), 100);
        assert_eq!(after(10, &[0]), 1, "at least one column");
    }

    #[test]
    fn first_file_sized_from_its_first_rows() {
        let c = ShreddingContext::new(256);
        let mut rows: Vec<usize> = (1..=20).cycle().take(1000).collect();
        assert_eq!(c.next_k_with_sample(&mut rows), 20);
        let mut rows = vec![2; 99];
        rows.push(200);
        assert_eq!(
            c.next_k_with_sample(&mut rows),
            2,
            "a rare wide row overflows"
        );
        assert_eq!(c.next_k_with_sample(&mut []), 256);
        let mut c = c;
        c.file_completed(7);
        assert_eq!(
            c.next_k_with_sample(&mut [1, 1]),
            7,
            "history wins once there is one"
        );
    }

    #[test]
    fn window_forgets_old_files() {
        let mut w = vec![50; 5];
        w.extend(std::iter::repeat_n(3, 20));
        assert_eq!(after(256, &w), 3);
    }
}
