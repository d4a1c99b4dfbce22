//! [`interval_partition`]: files of one bucket → key-disjoint sections → the fewest sorted
//! runs per section (Java `IntervalPartition`).
//!
//! Files are ordered by `(minKey, maxKey)`; a new section starts whenever a file's min key is
//! greater than every max key seen so far in the current section, so sections never share a
//! key and can be read (or compacted) one after the other. Within a section, files are dealt
//! greedily to the run whose last max key is smallest, if that is below the file's min key,
//! otherwise to a new run — which yields the minimum number of runs.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use strata_spec::manifest::DataFileMeta;
use strata_spec::{DataType, Datum};

use crate::Result;

/// A file with its decoded key range.
#[derive(Clone, Debug)]
pub(crate) struct KeyedFile {
    pub file: DataFileMeta,
    pub min_key: Vec<Option<Datum>>,
    pub max_key: Vec<Option<Datum>>,
}

/// A sorted run: files with disjoint, ascending key ranges.
pub(crate) type RunFiles = Vec<KeyedFile>;

/// Compares two keys field by field; NULL sorts first (Paimon's key order).
pub(crate) fn compare_keys(a: &[Option<Datum>], b: &[Option<Datum>]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(x), Some(y)) => x.compare(y).unwrap_or(Ordering::Equal),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Decodes every file's min/max key with `key_types`.
pub(crate) fn keyed(files: &[DataFileMeta], key_types: &[DataType]) -> Result<Vec<KeyedFile>> {
    files
        .iter()
        .map(|f| {
            Ok(KeyedFile {
                min_key: f.min_key.to_datums(key_types)?,
                max_key: f.max_key.to_datums(key_types)?,
                file: f.clone(),
            })
        })
        .collect()
}

/// Sections (in key order) of sorted runs (each in key order).
/// The runs of a section split so that each holds files of one level, keeping their order:
/// interval partitioning packs files into runs by key range alone, so one run may mix levels,
/// and merges that tell levels apart (Java `LookupMergeFunction`, lookup changelogs) need each
/// record's level. A part of a sorted run is still a sorted run. Returns the runs and their
/// levels.
pub(crate) fn split_runs_by_level(section: Vec<RunFiles>) -> (Vec<RunFiles>, Vec<i32>) {
    let mut runs = Vec::with_capacity(section.len());
    let mut levels = Vec::with_capacity(section.len());
    for run in section {
        let mut parts: Vec<(i32, RunFiles)> = Vec::new();
        for f in run {
            let level = f.file.level;
            match parts.iter_mut().find(|(l, _)| *l == level) {
                Some((_, part)) => part.push(f),
                None => parts.push((level, vec![f])),
            }
        }
        for (level, part) in parts {
            levels.push(level);
            runs.push(part);
        }
    }
    (runs, levels)
}

pub(crate) fn interval_partition(mut files: Vec<KeyedFile>) -> Vec<Vec<RunFiles>> {
    files.sort_by(|a, b| {
        compare_keys(&a.min_key, &b.min_key).then_with(|| compare_keys(&a.max_key, &b.max_key))
    });
    let mut sections = Vec::new();
    let mut current: Vec<KeyedFile> = Vec::new();
    let mut bound: Option<Vec<Option<Datum>>> = None;
    for f in files {
        if let Some(b) = &bound {
            if compare_keys(&f.min_key, b) == Ordering::Greater && !current.is_empty() {
                sections.push(partition_section(std::mem::take(&mut current)));
                bound = None;
            }
        }
        bound = match bound {
            Some(b) if compare_keys(&b, &f.max_key) != Ordering::Less => Some(b),
            _ => Some(f.max_key.clone()),
        };
        current.push(f);
    }
    if !current.is_empty() {
        sections.push(partition_section(current));
    }
    sections
}

/// Heap entry: a run by its last max key (min-heap).
struct RunEnd {
    max_key: Vec<Option<Datum>>,
    run: usize,
}
impl PartialEq for RunEnd {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for RunEnd {}
impl PartialOrd for RunEnd {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for RunEnd {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap.
        compare_keys(&o.max_key, &self.max_key).then_with(|| o.run.cmp(&self.run))
    }
}

fn partition_section(files: Vec<KeyedFile>) -> Vec<RunFiles> {
    let mut runs: Vec<RunFiles> = Vec::new();
    let mut heap: BinaryHeap<RunEnd> = BinaryHeap::new();
    for f in files {
        let reuse = match heap.peek() {
            Some(top) if compare_keys(&top.max_key, &f.min_key) == Ordering::Less => {
                Some(heap.pop().expect("peeked").run)
            }
            _ => None,
        };
        let run = match reuse {
            Some(r) => r,
            None => {
                runs.push(Vec::new());
                runs.len() - 1
            }
        };
        heap.push(RunEnd {
            max_key: f.max_key.clone(),
            run,
        });
        runs[run].push(f);
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_spec::binary_row::BinaryRow;
    use strata_spec::TypeKind;

    fn file(name: &str, min: i32, max: i32) -> KeyedFile {
        let t = [DataType::not_null(TypeKind::Int)];
        let f = DataFileMeta {
            file_name: name.into(),
            file_size: 1,
            row_count: 1,
            min_key: BinaryRow::from_datums(&[Some(Datum::Int(min))], &t).unwrap(),
            max_key: BinaryRow::from_datums(&[Some(Datum::Int(max))], &t).unwrap(),
            key_stats: strata_spec::stats::SimpleStats::empty(),
            value_stats: strata_spec::stats::SimpleStats::empty(),
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            level: 0,
            extra_files: Vec::new(),
            creation_time: None,
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: None,
            value_stats_cols: None,
            external_path: None,
            first_row_id: None,
            write_cols: None,
        };
        KeyedFile {
            file: f,
            min_key: vec![Some(Datum::Int(min))],
            max_key: vec![Some(Datum::Int(max))],
        }
    }

    fn names(sections: &[Vec<RunFiles>]) -> Vec<Vec<Vec<&str>>> {
        sections
            .iter()
            .map(|s| {
                s.iter()
                    .map(|r| r.iter().map(|f| f.file.file_name.as_str()).collect())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn lsm_algorithms_8_4_example() {
        // [1,2] [3,4] [5,180] [5,190] [200,600] [210,700]
        let files = vec![
            file("f", 210, 700),
            file("a", 1, 2),
            file("c", 5, 180),
            file("b", 3, 4),
            file("e", 200, 600),
            file("d", 5, 190),
        ];
        let sections = interval_partition(files);
        let got = names(&sections);
        let want: Vec<Vec<Vec<&str>>> = vec![
            vec![vec!["a"]],
            vec![vec!["b"]],
            vec![vec!["c"], vec!["d"]],
            vec![vec!["e"], vec!["f"]],
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn non_overlapping_files_of_a_section_share_a_run() {
        // [1,10] overlaps both [2,3] and [5,9], which are disjoint from each other.
        let sections = interval_partition(vec![file("a", 1, 10), file("b", 2, 3), file("c", 5, 9)]);
        let got = names(&sections);
        assert_eq!(got, vec![vec![vec!["a"], vec!["b", "c"]]]);
    }

    #[test]
    fn touching_ranges_share_a_section() {
        let sections = interval_partition(vec![file("a", 1, 5), file("b", 5, 9)]);
        let got = names(&sections);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].len(), 2);
    }
}
