//! The deterministic workload: which rows commit `i` of a writer holds, and the table a set of
//! landed commits must add up to.
//!
//! Each writer (commit user `wl-<name>`) owns the keys `(u = <name>, k)`; other writers never
//! touch them, so however the writers' commits interleave, the rows of one writer are a pure
//! function of which of its identifiers landed — and since one writer commits its identifiers
//! in order, that is the prefix `1..=max`. Commit `i` upserts `ROWS` consecutive keys (mod
//! `KEYS`) and every fourth commit also deletes three keys after them.

use std::collections::BTreeMap;

/// Keys per writer.
pub const KEYS: i32 = 64;

/// The commit user of writer `name`.
pub fn commit_user(name: &str) -> String {
    format!("wl-{name}")
}

/// The writer name of a commit user, if it is one of the workload's.
pub fn writer_of(user: &str) -> Option<&str> {
    user.strip_prefix("wl-")
}

/// One row of a commit: `(k, Some(v))` upsert, `(k, None)` delete.
pub fn batch(ident: i64, rows: i32) -> Vec<(i32, Option<String>)> {
    let start = ((ident * 7) % KEYS as i64) as i32;
    let mut out: Vec<(i32, Option<String>)> = (0..rows)
        .map(|j| ((start + j) % KEYS, Some(format!("{ident}-{j}"))))
        .collect();
    if ident % 4 == 0 {
        for d in 0..3 {
            out.push(((start + rows + d) % KEYS, None));
        }
    }
    out
}

/// A row of the table: `(u, k) → (ident, v)`.
pub type Model = BTreeMap<(String, i32), (i64, String)>;

/// Applies commits `1..=max` of writer `name`.
pub fn apply_writer(model: &mut Model, name: &str, max: i64, rows: i32) {
    for ident in 1..=max {
        for (k, v) in batch(ident, rows) {
            match v {
                Some(v) => {
                    model.insert((name.to_string(), k), (ident, v));
                }
                None => {
                    model.remove(&(name.to_string(), k));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_have_distinct_keys() {
        for ident in 1..200 {
            let b = batch(ident, 20);
            let mut keys: Vec<i32> = b.iter().map(|(k, _)| *k).collect();
            keys.sort();
            keys.dedup();
            assert_eq!(keys.len(), b.len());
        }
    }
}
