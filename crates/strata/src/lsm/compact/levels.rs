//! [`Levels`]: the data files of one bucket arranged as an LSM tree (Java `Levels` and
//! `SortedRun`).
//!
//! * Level 0 holds files whose key ranges may overlap; each is its own sorted run. They are kept
//!   newest first: `maxSequenceNumber` descending, then `minSequenceNumber`, creation time and
//!   file name ascending.
//! * Every level ≥ 1 is exactly one sorted run: its files are kept in min-key order and no two of
//!   them may share a key (`next.min_key > prev.max_key`). A violation is reported as
//!   `ErrorDetail::Invariant` naming both files; the tree is left unchanged.
//!
//! [`Levels::level_sorted_runs`] is the input of compaction picking: the level-0 files one by
//! one (newest first), then each non-empty level in ascending order.
//!
//! Differences from Java, all of them turning silent misbehaviour into errors: a file named twice,
//! a file at a negative level or (in [`Levels::update`]) at a level beyond the tree, and a
//! `before` file that is not in the tree are errors; Java drops or ignores them.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use strata_spec::manifest::DataFileMeta;
use strata_spec::{DataType, Datum};

use super::LevelSortedRun;
use crate::error::ErrorDetail;
use crate::lsm::interval_partition::compare_keys;
use crate::Result;

/// A decoded key (one datum per trimmed primary-key field).
type Key = Vec<Option<Datum>>;

/// A file of a level ≥ 1 with its decoded key range.
#[derive(Clone, Debug)]
struct RunFile {
    file: DataFileMeta,
    min_key: Key,
    max_key: Key,
}

/// The files of one bucket by level.
#[derive(Clone, Debug)]
pub(crate) struct Levels {
    key_types: Vec<DataType>,
    /// Level 0 in [`level0_order`].
    level0: Vec<DataFileMeta>,
    /// `runs[i]` is level `i + 1`, in min-key order.
    runs: Vec<Vec<RunFile>>,
}

/// Java's level-0 order: newest (highest max sequence number) first.
fn level0_order(a: &DataFileMeta, b: &DataFileMeta) -> Ordering {
    b.max_sequence_number
        .cmp(&a.max_sequence_number)
        .then_with(|| a.min_sequence_number.cmp(&b.min_sequence_number))
        .then_with(|| a.creation_time.cmp(&b.creation_time))
        .then_with(|| a.file_name.cmp(&b.file_name))
}

fn describe(f: &RunFile) -> String {
    format!(
        "{} (keys {:?}..={:?}, level {})",
        f.file.file_name, f.min_key, f.max_key, f.file.level
    )
}

/// Sorts `files` by min key and checks that their key ranges are disjoint.
fn sort_and_validate(level: i32, files: &mut [RunFile]) -> Result<()> {
    files.sort_by(|a, b| compare_keys(&a.min_key, &b.min_key));
    for pair in files.windows(2) {
        if compare_keys(&pair[1].min_key, &pair[0].max_key) != Ordering::Greater {
            return Err(ErrorDetail::Invariant(format!(
                "level {level} is not a sorted run: file {} overlaps file {}",
                describe(&pair[0]),
                describe(&pair[1])
            ))
            .into());
        }
    }
    Ok(())
}

/// Groups files by their own level.
fn group_by_level(files: &[DataFileMeta]) -> BTreeMap<i32, Vec<&DataFileMeta>> {
    let mut map: BTreeMap<i32, Vec<&DataFileMeta>> = BTreeMap::new();
    for f in files {
        map.entry(f.level).or_default().push(f);
    }
    map
}

impl Levels {
    /// Builds the tree of a bucket from its restored files.
    ///
    /// `key_types` are the trimmed primary-key types (to decode `min_key`/`max_key`);
    /// `num_levels` is the table's `num-levels` (`CoreOptions::num_levels`). The tree gets
    /// `max(num_levels, highest restored level + 1)` levels, which must be at least 2.
    pub(crate) fn new(
        key_types: Vec<DataType>,
        num_levels: i32,
        files: Vec<DataFileMeta>,
    ) -> Result<Self> {
        if let Some(f) = files.iter().find(|f| f.level < 0) {
            return Err(ErrorDetail::Invariant(format!(
                "file {} has negative level {}",
                f.file_name, f.level
            ))
            .into());
        }
        let restored = files.iter().map(|f| f.level).max().unwrap_or(-1);
        let number_of_levels = num_levels.max(restored.saturating_add(1));
        if number_of_levels < 2 {
            return Err(ErrorDetail::InvalidOption {
                key: strata_spec::options::NUM_LEVELS.to_string(),
                message: format!("number of levels must be at least 2, got {number_of_levels}"),
            }
            .into());
        }
        let mut levels = Levels {
            key_types,
            level0: Vec::new(),
            runs: vec![Vec::new(); (number_of_levels - 1) as usize],
        };
        levels.update(&[], &files)?;
        Ok(levels)
    }

    /// Level-0 files, newest first.
    pub(crate) fn level0(&self) -> &[DataFileMeta] {
        &self.level0
    }

    /// Adds a freshly flushed level-0 file (Java `addLevel0File`).
    pub(crate) fn add_level0_file(&mut self, file: DataFileMeta) -> Result<()> {
        if file.level != 0 {
            return Err(ErrorDetail::Invariant(format!(
                "add_level0_file: file {} is at level {}, not 0",
                file.file_name, file.level
            ))
            .into());
        }
        self.update(&[], std::slice::from_ref(&file))
    }

    /// The files of level `level` ≥ 1, in key order.
    pub(crate) fn run_of_level(&self, level: i32) -> Result<Vec<DataFileMeta>> {
        if level < 1 || level > self.max_level() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "run_of_level: level {level} is not in 1..={} (level 0 has no single sorted run)",
                self.max_level()
            ))
            .into());
        }
        Ok(self.runs[(level - 1) as usize]
            .iter()
            .map(|f| f.file.clone())
            .collect())
    }

    /// Levels in the tree, level 0 included.
    pub(crate) fn number_of_levels(&self) -> i32 {
        self.runs.len() as i32 + 1
    }

    /// The highest level (`number_of_levels() - 1`).
    pub(crate) fn max_level(&self) -> i32 {
        self.runs.len() as i32
    }

    /// Level-0 files plus non-empty levels ≥ 1.
    pub(crate) fn number_of_sorted_runs(&self) -> usize {
        self.level0.len() + self.runs.iter().filter(|r| !r.is_empty()).count()
    }

    /// The highest level holding a file; 0 when only level 0 does, −1 when the tree is empty.
    pub(crate) fn non_empty_highest_level(&self) -> i32 {
        match self.runs.iter().rposition(|r| !r.is_empty()) {
            Some(i) => i as i32 + 1,
            None if self.level0.is_empty() => -1,
            None => 0,
        }
    }

    /// Sum of all file sizes in bytes.
    #[cfg(test)]
    pub(crate) fn total_file_size(&self) -> i64 {
        self.all_files_iter().map(|f| f.file_size).sum()
    }

    /// The highest `max_sequence_number` of any file, −1 when the tree is empty.
    #[cfg(test)]
    pub(crate) fn max_sequence_number(&self) -> i64 {
        self.all_files_iter()
            .map(|f| f.max_sequence_number)
            .max()
            .unwrap_or(-1)
    }

    /// The runs to pick from: each level-0 file alone (newest first), then every non-empty
    /// level in ascending order. Index 0 is the newest run.
    pub(crate) fn level_sorted_runs(&self) -> Vec<LevelSortedRun> {
        let mut out: Vec<LevelSortedRun> = self
            .level0
            .iter()
            .map(|f| LevelSortedRun {
                level: 0,
                files: vec![f.clone()],
            })
            .collect();
        for (i, run) in self.runs.iter().enumerate() {
            if !run.is_empty() {
                out.push(LevelSortedRun {
                    level: i as i32 + 1,
                    files: run.iter().map(|f| f.file.clone()).collect(),
                });
            }
        }
        out
    }

    /// All files in run order (level 0 newest first, then level by level in key order).
    pub(crate) fn all_files(&self) -> Vec<DataFileMeta> {
        self.all_files_iter().cloned().collect()
    }

    fn all_files_iter(&self) -> impl Iterator<Item = &DataFileMeta> {
        self.level0
            .iter()
            .chain(self.runs.iter().flatten().map(|f| &f.file))
    }

    /// Applies a compaction result: removes `before` and adds `after`, each file at its own
    /// `level` (so an upgraded file, in both lists, moves from its old level to its new one).
    /// Removal matches file name and level. Every touched level ≥ 1 is re-sorted and checked
    /// for overlaps; on any error the tree is unchanged.
    pub(crate) fn update(&mut self, before: &[DataFileMeta], after: &[DataFileMeta]) -> Result<()> {
        let max_level = self.max_level();
        if let Some(f) = after.iter().find(|f| f.level < 0 || f.level > max_level) {
            return Err(ErrorDetail::Invariant(format!(
                "file {} is at level {}, outside 0..={max_level}",
                f.file_name, f.level
            ))
            .into());
        }
        let before_by_level = group_by_level(before);
        let after_by_level = group_by_level(after);

        // Names present after removal, to reject a file added twice.
        let mut removed: HashSet<(i32, &str)> = HashSet::new();
        for (&level, files) in &before_by_level {
            for f in files {
                if !self.contains(level, &f.file_name) || !removed.insert((level, &f.file_name)) {
                    return Err(ErrorDetail::Invariant(format!(
                        "cannot remove file {} from level {level}: it is not there (or is listed twice)",
                        f.file_name
                    )).into());
                }
            }
        }
        let mut names: HashSet<&str> = self
            .all_files_iter()
            .filter(|f| !removed.contains(&(f.level, f.file_name.as_str())))
            .map(|f| f.file_name.as_str())
            .collect();
        for f in after {
            if !names.insert(&f.file_name) {
                return Err(ErrorDetail::Invariant(format!(
                    "file {} would be in the tree twice (adding it at level {})",
                    f.file_name, f.level
                ))
                .into());
            }
        }

        // Build every touched level first, then swap them in.
        let mut new_level0 = None;
        let mut new_runs: Vec<(usize, Vec<RunFile>)> = Vec::new();
        let touched: BTreeSet<i32> = before_by_level
            .keys()
            .chain(after_by_level.keys())
            .copied()
            .collect();
        for level in touched {
            let gone = |f: &DataFileMeta| removed.contains(&(level, f.file_name.as_str()));
            let added = after_by_level.get(&level).map(Vec::as_slice).unwrap_or(&[]);
            if level == 0 {
                let mut files: Vec<DataFileMeta> = self
                    .level0
                    .iter()
                    .filter(|f| !gone(f))
                    .cloned()
                    .chain(added.iter().map(|f| (*f).clone()))
                    .collect();
                files.sort_by(level0_order);
                new_level0 = Some(files);
            } else {
                let idx = (level - 1) as usize;
                let mut files: Vec<RunFile> = self.runs[idx]
                    .iter()
                    .filter(|f| !gone(&f.file))
                    .cloned()
                    .collect();
                for f in added {
                    files.push(RunFile {
                        min_key: f.min_key.to_datums(&self.key_types)?,
                        max_key: f.max_key.to_datums(&self.key_types)?,
                        file: (*f).clone(),
                    });
                }
                sort_and_validate(level, &mut files)?;
                new_runs.push((idx, files));
            }
        }
        if let Some(l0) = new_level0 {
            self.level0 = l0;
        }
        for (idx, files) in new_runs {
            self.runs[idx] = files;
        }
        Ok(())
    }

    fn contains(&self, level: i32, name: &str) -> bool {
        match level {
            0 => self.level0.iter().any(|f| f.file_name == name),
            l if l >= 1 && l <= self.max_level() => self.runs[(l - 1) as usize]
                .iter()
                .any(|f| f.file.file_name == name),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsm::compact::picking_tests::{file, key_types};

    fn level0_names(levels: &Levels) -> Vec<&str> {
        levels
            .level0()
            .iter()
            .map(|f| f.file_name.as_str())
            .collect()
    }

    #[test]
    fn level0_is_newest_first() {
        let mut t1 = file("t1", 0, 10, (1, 9), (0, 5));
        t1.creation_time = Some(2000);
        let mut t0 = file("t0", 0, 10, (1, 9), (0, 5));
        t0.creation_time = Some(1000);
        let files = vec![
            file("old", 0, 10, (1, 9), (0, 1)),
            file("zz", 0, 10, (1, 9), (3, 5)),
            t1,
            file("new", 0, 10, (1, 9), (6, 9)),
            t0,
            file("aa", 0, 10, (1, 9), (3, 5)),
        ];
        let levels = Levels::new(key_types(), 6, files).unwrap();
        // max seq desc, then min seq asc, then creation time asc (None first), then name.
        assert_eq!(
            level0_names(&levels),
            ["new", "t0", "t1", "aa", "zz", "old"]
        );
        let runs = levels.level_sorted_runs();
        assert_eq!(runs.len(), 6);
        assert!(runs.iter().all(|r| r.level == 0 && r.files.len() == 1));
        assert_eq!(levels.non_empty_highest_level(), 0);
        assert_eq!(levels.max_sequence_number(), 9);
    }

    #[test]
    fn number_of_levels_rule() {
        let empty = Levels::new(key_types(), 3, Vec::new()).unwrap();
        assert_eq!((empty.number_of_levels(), empty.max_level()), (3, 2));
        assert_eq!(empty.non_empty_highest_level(), -1);
        assert_eq!(empty.max_sequence_number(), -1);
        assert_eq!(empty.number_of_sorted_runs(), 0);
        // A restored file above the configured levels widens the tree.
        let deep = Levels::new(key_types(), 3, vec![file("x", 5, 10, (1, 2), (0, 0))]).unwrap();
        assert_eq!(deep.number_of_levels(), 6);
        assert_eq!(deep.non_empty_highest_level(), 5);
        let widened = Levels::new(key_types(), 1, vec![file("x", 1, 10, (1, 2), (0, 0))]).unwrap();
        assert_eq!(widened.number_of_levels(), 2);
        // Fewer than 2 levels is an error, not a panic.
        let err = Levels::new(key_types(), 1, Vec::new())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("num-levels") && err.contains("at least 2"),
            "{err}"
        );
        let err = Levels::new(key_types(), 1, vec![file("x", 0, 10, (1, 2), (0, 0))]).unwrap_err();
        assert!(err.to_string().contains("at least 2"));
        assert!(Levels::new(key_types(), 6, vec![file("x", -1, 1, (1, 1), (0, 0))]).is_err());
    }

    #[test]
    fn levels_keep_key_order_and_reject_overlaps() {
        let files = vec![
            file("c", 2, 30, (21, 30), (0, 0)),
            file("a", 2, 10, (1, 10), (0, 0)),
            file("b", 2, 20, (11, 20), (0, 0)),
        ];
        let mut levels = Levels::new(key_types(), 4, files).unwrap();
        let names: Vec<String> = levels
            .run_of_level(2)
            .unwrap()
            .into_iter()
            .map(|f| f.file_name)
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(levels.total_file_size(), 60);
        assert!(levels.run_of_level(0).is_err());
        assert!(levels.run_of_level(4).is_err());
        assert!(levels.run_of_level(1).unwrap().is_empty());

        // Touching ranges (min == previous max) overlap.
        let err = levels
            .update(&[], &[file("d", 2, 5, (30, 31), (0, 0))])
            .unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err.detail(), ErrorDetail::Invariant(_)), "{msg}");
        assert!(
            msg.contains("level 2") && msg.contains("c ") && msg.contains("d "),
            "{msg}"
        );
        // The failed update changed nothing.
        assert_eq!(levels.all_files().len(), 3);
        // Restoring overlapping files is an error too.
        let err = Levels::new(
            key_types(),
            4,
            vec![
                file("p", 1, 1, (1, 5), (0, 0)),
                file("q", 1, 1, (5, 9), (0, 0)),
            ],
        )
        .unwrap_err();
        assert!(err.to_string().contains("overlaps"), "{err}");
    }

    #[test]
    fn update_moves_upgraded_files_between_levels() {
        let l0 = vec![
            file("n1", 0, 10, (1, 10), (10, 19)),
            file("n2", 0, 10, (5, 15), (20, 29)),
        ];
        let base = file("base", 5, 100, (100, 200), (0, 9));
        let mut all = l0.clone();
        all.push(base.clone());
        let mut levels = Levels::new(key_types(), 6, all).unwrap();
        assert_eq!(levels.number_of_sorted_runs(), 3);

        // n1 upgraded to L4, n2 rewritten into m at L4; base stays.
        let up = DataFileMeta {
            level: 4,
            ..l0[0].clone()
        };
        let m = file("m", 4, 10, (11, 15), (20, 29));
        levels.update(&l0, &[up, m]).unwrap();
        assert!(levels.level0().is_empty());
        let l4: Vec<String> = levels
            .run_of_level(4)
            .unwrap()
            .into_iter()
            .map(|f| f.file_name)
            .collect();
        assert_eq!(l4, ["n1", "m"]);
        let runs = levels.level_sorted_runs();
        let shape: Vec<(i32, usize)> = runs.iter().map(|r| (r.level, r.files.len())).collect();
        assert_eq!(shape, [(4, 2), (5, 1)]);
        assert_eq!(levels.non_empty_highest_level(), 5);
        assert_eq!(levels.max_sequence_number(), 29);

        // Removing a file that is not at that level, or adding a name twice, is an error.
        assert!(levels.update(std::slice::from_ref(&base), &[]).is_ok());
        assert!(levels.update(std::slice::from_ref(&base), &[]).is_err());
        let twice = file("m", 5, 1, (500, 600), (0, 0));
        assert!(levels.update(&[], &[twice]).is_err());
        assert!(levels
            .update(&[], &[file("far", 6, 1, (1, 1), (0, 0))])
            .is_err());
        levels
            .add_level0_file(file("l0", 0, 1, (1, 1), (30, 30)))
            .unwrap();
        assert!(levels
            .add_level0_file(file("bad", 1, 1, (1, 1), (30, 30)))
            .is_err());
        assert_eq!(levels.number_of_sorted_runs(), 2);
    }
}
