//! A file's columns: K, the keys that get a **dedicated column**, and whether the other keys
//! share columns or go to `__overflow` (a strata extension).
//!
//! Java sizes K from the widest rows of the writer's recent files ([`super::context`]) and its
//! policies share every column among all keys. With thousands of distinct keys and K close to
//! the row width, lru then evicts even the most frequent key again and again: each key's
//! values end up spread over most columns, every key access must decode `__field_mapping`
//! (K ints per row) to tell them apart, no column's statistics describe one key, and the
//! footer's `field-columns` lists nearly every column for every key (hundreds of KB per file).
//! strata instead looks at the rows a file starts with (up to [`MAX_SAMPLE_ROWS`] of its first
//! batch):
//!
//! 1. `K0` = Java's adaptive width over the sampled rows' widths (P90, or the maximum when it
//!    is within 4 or 25 %).
//! 2. **Dedicated keys**: keys present in at least [`DEDICATED_MIN_FREQUENCY`] of the sampled
//!    rows, most frequent first (ties by name), at most `max-dedicated-columns` and at most
//!    `K0` of them. Each owns one column, `__col_0 .. __col_{D-1}` in that order, that no
//!    other key ever uses.
//! 3. **Shared columns** for the other keys: `W` = the adaptive width of the rows without the
//!    dedicated keys. The placement policy is run over the sample with `W` shared columns;
//!    if more than [`MAX_CHURN`] of the placements of a key seen before put it in a different
//!    column than last time, the shared columns would churn (each key spread over many
//!    columns, useless statistics, a large footer) and `W` = 0: the other keys go to
//!    `__overflow`, keyed by field id. Otherwise K = D + W.
//! 4. K ≤ `max-columns` (shared columns give way first).
//!
//! Nothing in the file marks any of this: a reader sees an ordinary file in which some keys
//! happen to be the only ones ever stored in their column (their `field-columns` entry is
//! one column that no other key lists) and others always overflowed, which every reader
//! handles; strata's reader takes such a key from its column alone. A sample smaller than
//! [`MIN_SAMPLE_ROWS`] rows is not trusted for frequencies.

use super::allocator::{ColumnAllocator, RowAllocation};
use super::dict::KeyInterner;
use super::options::PlacementPolicy;

/// Smallest share of sampled rows a key must appear in to get a dedicated column.
pub const DEDICATED_MIN_FREQUENCY: f64 = 0.20;
/// Fewest sampled rows for a plan with dedicated columns.
pub const MIN_SAMPLE_ROWS: usize = 256;
/// Rows of a file's first batch that are sampled.
pub const MAX_SAMPLE_ROWS: usize = 8192;
/// Default `max-dedicated-columns`.
pub use super::options::DEFAULT_MAX_DEDICATED;
/// Largest share of a sample's repeated shared placements that may move a key to another
/// column before the shared columns are given up for `__overflow`.
pub const MAX_CHURN: f64 = 0.05;

/// The keys of the rows a file starts with (non-NULL maps only).
#[derive(Clone, Debug, Default)]
pub struct KeySample {
    keys: KeyInterner,
    /// Row `r`'s keys are `entries[offsets[r]..offsets[r + 1]]`.
    entries: Vec<u32>,
    offsets: Vec<usize>,
}

impl KeySample {
    pub fn new() -> Self {
        KeySample {
            offsets: vec![0],
            ..Default::default()
        }
    }

    /// Adds one row with the given keys.
    pub fn push_row<'a>(&mut self, keys: impl IntoIterator<Item = &'a str>) {
        for key in keys {
            let id = self.keys.intern(key).0;
            self.entries.push(id);
        }
        self.offsets.push(self.entries.len());
    }

    /// Rows sampled.
    pub fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Entries of each sampled row.
    pub fn row_widths(&self) -> Vec<usize> {
        self.offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }
}

/// The columns of one file of one shredded MAP column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePlan {
    /// K (dedicated columns included).
    pub num_columns: usize,
    /// `dedicated[i]` owns `__col_i`.
    pub dedicated: Vec<String>,
}

/// Row widths as a histogram (`hist[w]` rows have `w` entries).
struct WidthHistogram {
    hist: Vec<usize>,
    rows: usize,
}

impl WidthHistogram {
    fn of(widths: impl Iterator<Item = usize>) -> Self {
        let mut hist = WidthHistogram {
            hist: Vec::new(),
            rows: 0,
        };
        for w in widths {
            if hist.hist.len() <= w {
                hist.hist.resize(w + 1, 0);
            }
            hist.hist[w] += 1;
            hist.rows += 1;
        }
        hist
    }

    /// Java's adaptive width (see [`super::context`]) of the rows counted.
    fn adaptive(&self) -> usize {
        if self.rows == 0 {
            return 0;
        }
        let rank = ((0.90 * self.rows as f64).ceil() as usize).clamp(1, self.rows);
        let mut seen = 0;
        let mut p90 = 0;
        for (w, &n) in self.hist.iter().enumerate() {
            seen += n;
            if seen >= rank {
                p90 = w;
                break;
            }
        }
        let max = self.hist.iter().rposition(|&n| n > 0).unwrap_or(0);
        close_or_p90(p90, max)
    }
}

/// The plan for a file that starts with `sample` whose shared columns are placed by
/// `policy`: see the module docs. `None` when the sample is too small to judge frequencies.
pub fn plan_from_sample(
    sample: &KeySample,
    max_columns: usize,
    max_dedicated: usize,
    policy: PlacementPolicy,
) -> Option<FilePlan> {
    let n = sample.rows();
    if n < MIN_SAMPLE_ROWS {
        return None;
    }
    let max_columns = max_columns.max(1);
    let widths = sample.row_widths();
    let k0 = WidthHistogram::of(widths.iter().copied()).adaptive();

    // Dedicated keys: most frequent first, ties by name.
    let mut count = vec![0usize; sample.keys.names().len()];
    for &id in &sample.entries {
        count[id as usize] += 1;
    }
    let min_rows = ((DEDICATED_MIN_FREQUENCY * n as f64).ceil() as usize).max(1);
    let mut dedicated: Vec<u32> = (0..sample.keys.names().len() as u32)
        .filter(|&id| count[id as usize] >= min_rows)
        .collect();
    dedicated.sort_by(|&a, &b| {
        count[b as usize]
            .cmp(&count[a as usize])
            .then_with(|| sample.keys.names()[a as usize].cmp(&sample.keys.names()[b as usize]))
    });
    dedicated.truncate(max_dedicated.min(k0).min(max_columns));
    let mut column_of = vec![-1i32; sample.keys.names().len()];
    for (c, &id) in dedicated.iter().enumerate() {
        column_of[id as usize] = c as i32;
    }

    // Shared columns for the rest, unless they would churn.
    let d = dedicated.len();
    let rest = sample.offsets.windows(2).map(|w| {
        sample.entries[w[0]..w[1]]
            .iter()
            .filter(|&&id| column_of[id as usize] < 0)
            .count()
    });
    let mut shared = WidthHistogram::of(rest).adaptive().min(max_columns - d);
    if shared > 0 && churn(sample, &column_of, d, shared, policy) > MAX_CHURN {
        shared = 0;
    }
    Some(FilePlan {
        num_columns: (d + shared).max(1),
        dedicated: dedicated
            .iter()
            .map(|&id| sample.keys.names()[id as usize].to_string())
            .collect(),
    })
}

/// Share of the sample's shared placements of an already placed key that put it in another
/// column than its previous one, when `policy` places the non-dedicated keys into `shared`
/// columns after the `dedicated` ones (`column_of[id] ≥ 0` for dedicated ids).
fn churn(
    sample: &KeySample,
    column_of: &[i32],
    dedicated: usize,
    shared: usize,
    policy: PlacementPolicy,
) -> f64 {
    let mut allocator = ColumnAllocator::with_dedicated(dedicated + shared, dedicated, policy);
    for (id, &c) in column_of.iter().enumerate() {
        if c >= 0 {
            allocator.dedicate(id as i32, c as usize);
        }
    }
    let mut last = vec![u32::MAX; sample.keys.names().len()];
    let (mut repeats, mut moves) = (0usize, 0usize);
    let mut out = RowAllocation::default();
    let mut ids: Vec<i32> = Vec::new();
    // A quarter of the sample tells churn from stability well enough, for a quarter of the
    // cost.
    let rows = sample
        .rows()
        .div_ceil(4)
        .max(MIN_SAMPLE_ROWS.min(sample.rows()));
    for w in sample.offsets.windows(2).take(rows) {
        ids.clear();
        ids.extend(sample.entries[w[0]..w[1]].iter().map(|&id| id as i32));
        // A malformed row (a key twice) is the converter's error to report, not the plan's.
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|p| p[0] == p[1]) {
            continue;
        }
        allocator.allocate(&ids, &mut out);
        for (c, &pos) in out.columns.iter().enumerate().skip(dedicated) {
            if pos < 0 {
                continue;
            }
            let id = ids[pos as usize] as usize;
            if last[id] != u32::MAX {
                repeats += 1;
                moves += usize::from(last[id] != c as u32);
            }
            last[id] = c as u32;
        }
    }
    if repeats == 0 {
        0.0
    } else {
        moves as f64 / repeats as f64
    }
}

/// Java's closeness rule: the maximum when it is within 4 or 25 % of P90, else P90.
pub(crate) fn close_or_p90(p90: usize, max: usize) -> usize {
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

    fn sample(rows: &[Vec<String>]) -> KeySample {
        let mut s = KeySample::new();
        for r in rows {
            s.push_row(r.iter().map(String::as_str));
        }
        s
    }

    fn keys(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn plan(s: &KeySample, max_columns: usize, max_dedicated: usize) -> FilePlan {
        plan_from_sample(s, max_columns, max_dedicated, PlacementPolicy::Lru).unwrap()
    }

    #[test]
    fn small_samples_are_not_trusted() {
        let rows = vec![keys(&["a", "b"]); MIN_SAMPLE_ROWS - 1];
        assert_eq!(
            plan_from_sample(&sample(&rows), 256, 32, PlacementPolicy::Lru),
            None
        );
    }

    #[test]
    fn fixed_keys_are_all_dedicated_at_javas_k() {
        let rows = vec![keys(&["c", "a", "b"]); 300];
        let plan = plan(&sample(&rows), 256, 32);
        assert_eq!(plan.num_columns, 3);
        assert_eq!(plan.dedicated, keys(&["a", "b", "c"]), "ties by name");
    }

    /// 1000 rows: `hot` in every row, `warm` in 40 %, `rare` in 5 %, plus `fillers` keys from
    /// a pool of 997 (never frequent).
    fn hot_warm_rare(fillers: usize) -> KeySample {
        let mut rows = Vec::new();
        for r in 0..1000usize {
            let mut row = vec!["hot".to_string()];
            if r % 5 < 2 {
                row.push("warm".into());
            }
            if r % 20 == 0 {
                row.push("rare".into());
            }
            for j in 0..fillers {
                row.push(format!("f{}", (r * 7 + j * 131) % 997));
            }
            rows.push(row);
        }
        sample(&rows)
    }

    #[test]
    fn frequent_keys_dedicated_and_a_churning_tail_overflows() {
        let s = hot_warm_rare(6);
        // The 997 fillers would churn through any shared columns: they overflow.
        for policy in [
            PlacementPolicy::Lru,
            PlacementPolicy::Plain,
            PlacementPolicy::Sequential,
        ] {
            let plan = plan_from_sample(&s, 256, 32, policy).unwrap();
            assert_eq!(plan.dedicated, keys(&["hot", "warm"]), "{policy:?}");
            assert_eq!(plan.num_columns, 2, "{policy:?}");
        }
        assert_eq!(plan(&s, 256, 1).dedicated, keys(&["hot"]));
        let none = plan(&s, 256, 0);
        assert_eq!((none.num_columns, none.dedicated.len()), (1, 0));
    }

    #[test]
    fn a_stable_tail_keeps_shared_columns() {
        // `a` and `b` (8 % each, always together) are below the dedicated threshold but keep
        // their shared columns from row to row.
        let mut rows = Vec::new();
        for r in 0..1000usize {
            let mut row = keys(&["hot"]);
            if r % 25 < 2 {
                row.extend(keys(&["b", "a"]));
            }
            rows.push(row);
        }
        let plan = plan(&sample(&rows), 256, 32);
        assert_eq!(plan.dedicated, keys(&["hot"]));
        assert_eq!(plan.num_columns, 3);
    }

    #[test]
    fn uniform_keys_dedicate_at_most_javas_width() {
        // 50 of 200 keys per row (pseudo-random), every key in about 25 % of the rows.
        let mut rows = Vec::new();
        let mut x: u64 = 7;
        for _ in 0..2000usize {
            let mut row: Vec<String> = Vec::new();
            while row.len() < 50 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let key = format!("k{}", (x >> 33) % 200);
                if !row.contains(&key) {
                    row.push(key);
                }
            }
            rows.push(row);
        }
        let s = sample(&rows);
        let p = plan(&s, 256, 32);
        assert_eq!((p.num_columns, p.dedicated.len()), (32, 32));
        let p = plan(&s, 256, 64);
        assert_eq!(
            (p.num_columns, p.dedicated.len()),
            (50, 50),
            "at most K0 = 50"
        );
    }

    #[test]
    fn max_columns_caps_the_plan() {
        let rows = vec![keys(&["a", "b", "c", "d"]); 300];
        let p = plan(&sample(&rows), 2, 32);
        assert_eq!(p.num_columns, 2);
        assert_eq!(p.dedicated, keys(&["a", "b"]));
        // Unique keys: nothing frequent, nothing repeats, one shared column.
        let rows: Vec<Vec<String>> = (0..300).map(|r| vec![format!("k{r}")]).collect();
        assert_eq!(
            plan(&sample(&rows), 256, 32),
            FilePlan {
                num_columns: 1,
                dedicated: vec![]
            }
        );
    }
}
