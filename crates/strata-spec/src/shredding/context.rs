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
//!
//! strata departs from this in two documented ways: a writer's first file is sized from the
//! rows it starts with instead of `max-columns` ([`ShreddingContext::next_k_with_sample`]),
//! and a file may give frequent keys dedicated columns ([`super::plan`]); the history then
//! holds the widths of what the *shared* columns had to hold, which is the widest row when a
//! file has no dedicated columns, so with dedicated columns off K follows Java's rule.

use std::collections::VecDeque;

use super::options::PlacementPolicy;
use super::plan::{close_or_p90, plan_from_sample, FilePlan, KeySample};

/// Reports remembered.
pub const WINDOW: usize = 20;

/// What a file that closed successfully reports for one shredded column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// Most entries of one row outside the dedicated columns (the widest row when there were
    /// none): what the shared columns had to hold.
    pub max_shared_width: usize,
    /// The file's plan.
    pub plan: FilePlan,
}

/// The K history of one shredded column of one writer.
#[derive(Clone, Debug)]
pub struct ShreddingContext {
    max_columns: usize,
    /// `max-dedicated-columns` (0: Java's placement, no dedicated columns).
    max_dedicated: usize,
    policy: PlacementPolicy,
    widths: VecDeque<usize>,
    /// The plan of the last completed file.
    last_plan: Option<FilePlan>,
}

impl ShreddingContext {
    /// A context without dedicated columns: every file is planned as Java does.
    pub fn new(max_columns: usize) -> Self {
        Self::with_dedicated(max_columns, 0, PlacementPolicy::Lru)
    }

    /// A context that plans files with up to `max_dedicated` dedicated columns, the shared
    /// ones placed by `policy` ([`super::plan`]).
    pub fn with_dedicated(
        max_columns: usize,
        max_dedicated: usize,
        policy: PlacementPolicy,
    ) -> Self {
        ShreddingContext {
            max_columns: max_columns.max(1),
            max_dedicated,
            policy,
            widths: VecDeque::with_capacity(WINDOW),
            last_plan: None,
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
    /// This is strata's departure from Java for the first file: a batch job writes one file
    /// per bucket and commit, each from a fresh writer, so under Java's rule every such file
    /// would have K = `max-columns` (256 by default) and carry 256 mapping slots per row.
    /// Sizing the first file from its first rows gives it the K later files would converge
    /// to; wider rows later in the file overflow, which any reader handles.
    pub fn next_k_with_sample(&self, row_widths: &mut [usize]) -> usize {
        if !self.widths.is_empty() || row_widths.is_empty() {
            return self.next_k();
        }
        adaptive_width(row_widths).clamp(1, self.max_columns)
    }

    /// The columns of the next file, which starts with the rows of `sample` (`None`: not
    /// known).
    ///
    /// * Dedicated columns off (`max-dedicated-columns` = 0): Java's K
    ///   ([`Self::next_k_with_sample`]), every column shared.
    /// * Otherwise, with a sample of at least [`super::plan::MIN_SAMPLE_ROWS`] rows, the plan
    ///   of [`plan_from_sample`] (the file's own rows beat the history); with a smaller one,
    ///   the plan of the last completed file; with none of either, Java's K.
    pub fn plan_file(&self, sample: Option<&KeySample>) -> FilePlan {
        if self.max_dedicated > 0 {
            let planned = sample.and_then(|s| {
                plan_from_sample(s, self.max_columns, self.max_dedicated, self.policy)
            });
            if let Some(plan) = planned.or_else(|| self.last_plan.clone()) {
                return plan;
            }
        }
        let mut widths: Vec<usize> = sample.map(KeySample::row_widths).unwrap_or_default();
        FilePlan {
            num_columns: self.next_k_with_sample(&mut widths),
            dedicated: Vec::new(),
        }
    }

    /// Records a file that was written successfully.
    pub fn file_completed(&mut self, report: &FileReport) {
        if self.widths.len() == WINDOW {
            self.widths.pop_front();
        }
        self.widths.push_back(report.max_shared_width);
        self.last_plan = Some(report.plan.clone());
    }
}

/// P90 of `widths` (rank ⌈0.9·n⌉), or the maximum when it is within 4 or 25 % of it.
/// `widths` must be non-empty; it is sorted in place.
fn adaptive_width(widths: &mut [usize]) -> usize {
    widths.sort_unstable();
    let n = widths.len();
    let rank = ((0.90 * n as f64).ceil() as usize).clamp(1, n);
    close_or_p90(widths[rank - 1], widths[n - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(max: usize, widths: &[usize]) -> usize {
        let mut c = ShreddingContext::new(max);
        for &w in widths {
            c.file_completed(&FileReport {
                max_shared_width: w,
                plan: FilePlan {
                    num_columns: w,
                    dedicated: vec![],
                },
            });
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
        c.file_completed(&report(
            7,
            FilePlan {
                num_columns: 7,
                dedicated: vec![],
            },
        ));
        assert_eq!(
            c.next_k_with_sample(&mut [1, 1]),
            7,
            "history wins once there is one"
        );
    }

    fn report(width: usize, plan: FilePlan) -> FileReport {
        FileReport {
            max_shared_width: width,
            plan,
        }
    }

    #[test]
    fn small_samples_reuse_the_last_plan() {
        let mut c = ShreddingContext::with_dedicated(256, 32, PlacementPolicy::Lru);
        let mut big = KeySample::new();
        for r in 0..400 {
            let other = format!("k{r}");
            big.push_row(["usage", other.as_str()]);
        }
        let plan = c.plan_file(Some(&big));
        assert_eq!(plan.dedicated, vec!["usage".to_string()]);
        assert_eq!(
            plan.num_columns, 2,
            "the unique keys never repeat: one shared column"
        );
        // Without history, a small sample sizes K alone and nothing is dedicated.
        let mut small = KeySample::new();
        small.push_row(["a", "b", "c"]);
        let java = FilePlan {
            num_columns: 3,
            dedicated: vec![],
        };
        assert_eq!(c.plan_file(Some(&small)), java);
        c.file_completed(&report(4, plan.clone()));
        assert_eq!(c.plan_file(Some(&small)), plan);
        assert_eq!(c.plan_file(None), plan);
        // Dedicated columns off: Java's rule, whatever the sample.
        let mut java = ShreddingContext::new(256);
        assert_eq!(java.plan_file(Some(&big)).dedicated, Vec::<String>::new());
        assert_eq!(java.plan_file(Some(&big)).num_columns, 2);
        assert_eq!(java.plan_file(None).num_columns, 256);
        java.file_completed(&report(9, plan));
        assert_eq!(java.plan_file(Some(&big)).num_columns, 9, "history wins");
    }

    #[test]
    fn window_forgets_old_files() {
        let mut w = vec![50; 5];
        w.extend(std::iter::repeat_n(3, 20));
        assert_eq!(after(256, &w), 3);
    }
}
