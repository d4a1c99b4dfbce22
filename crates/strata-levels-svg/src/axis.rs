//! The key axis of a bucket's panel: linear for numeric single-column keys, otherwise
//! ordinal over the sorted distinct min/max keys of the bucket's files.

use strata::system::{FileBox, Key, KeyCell};

#[derive(Debug)]
pub(crate) enum Axis {
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
    pub(crate) fn of(files: &[FileBox]) -> Axis {
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

    pub(crate) fn name(&self) -> &'static str {
        match self {
            Axis::Linear { .. } => "linear",
            Axis::Ordinal { .. } => "ordinal",
        }
    }

    /// Start and end fractions of a file's key range.
    pub(crate) fn span(&self, min: &Key, max: &Key) -> (f64, f64) {
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
    pub(crate) fn tick(&self, k: &Key) -> f64 {
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
