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

    /// K for the next file.
    pub fn next_k(&self) -> usize {
        if self.widths.is_empty() {
            return self.max_columns;
        }
        let mut sorted: Vec<usize> = self.widths.iter().copied().collect();
        sorted.sort_unstable();
        let n = sorted.len();
        let rank = ((0.90 * n as f64).ceil() as usize).clamp(1, n);
        let p90 = sorted[rank - 1];
        let max = sorted[n - 1];
        let close = max - p90 <= 4 || max <= (p90 as f64 * 1.25).ceil() as usize;
        let width = if close { max } else { p90 };
        width.clamp(1, self.max_columns)
    }

    /// Records the widest row of a file that was written successfully.
    pub fn file_completed(&mut self, max_row_width: usize) {
        if self.widths.len() == WINDOW {
            self.widths.pop_front();
        }
        self.widths.push_back(max_row_width);
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
    fn window_forgets_old_files() {
        let mut w = vec![50; 5];
        w.extend(std::iter::repeat_n(3, 20));
        assert_eq!(after(256, &w), 3);
    }
}
