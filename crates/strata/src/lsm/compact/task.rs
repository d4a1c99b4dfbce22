//! [`run_compact_task`]: what a picked [`CompactUnit`] turns into (Java `MergeTreeCompactTask`; the seed experiment `001`).
//!
//! The unit's files are cut into key-disjoint sections ([`interval_partition`]). Walking the
//! sections in key order:
//! * a section of two or more sorted runs has overlapping keys and joins the rewrite
//!   candidates;
//! * in a single-run section each file is looked at on its own: below `min_file_size`
//!   (`target-file-size × compaction.small-file-ratio`) it joins the candidates, otherwise the
//!   candidates gathered so far are rewritten first (a merged output must not span the big
//!   file, or the level would overlap) and the file is **upgraded**: the same file, same name,
//!   only its level changes in the metadata.
//!
//! A candidate list that is a single one-run section has nothing to merge, so its files are
//! upgraded too (the "lone small file" shortcut). An upgrade becomes a one-file rewrite when
//! the output is the max level and the file may hold retract records, when
//! `compaction.force-rewrite-all-files` is set, when record-level TTL finds expired rows, or
//! for a level-0 file in a lookup compaction (its keys must be looked up).
//!
//! The I/O is behind [`CompactRewriter`], so the decisions are tested without files.

use std::future::Future;
use std::time::{Duration, Instant};

use strata_spec::manifest::DataFileMeta;
use strata_spec::DataType;

use super::{CompactResult, CompactUnit};
use crate::error::ErrorDetail;
use crate::lsm::interval_partition::{interval_partition, keyed, KeyedFile, RunFiles};
use crate::Result;

/// Sections of sorted runs handed to a rewrite, in key order.
pub(crate) type Sections = Vec<Vec<RunFiles>>;

/// The I/O side of a compaction task.
pub(crate) trait CompactRewriter: Sync {
    /// Merges `sections` (concatenated in key order, runs within a section merged by key and
    /// reduced by the merge engine) into new files at `output_level`. `before` of the result
    /// is every input file, `after` the new files. A failure leaves no new file behind.
    fn rewrite(
        &self,
        output_level: i32,
        drop_delete: bool,
        sections: Sections,
    ) -> impl Future<Output = Result<CompactResult>> + Send;

    /// Whether record-level TTL (`record-level.expire-time`) may find expired rows in `file`.
    fn has_expired_records(&self, file: &DataFileMeta)
        -> impl Future<Output = Result<bool>> + Send;

    /// Deletes files written by earlier rewrites of a task that then failed.
    fn discard(&self, files: &[DataFileMeta]) -> impl Future<Output = ()> + Send;
}

/// Settings of one task.
#[derive(Clone, Debug)]
pub(crate) struct TaskOptions {
    /// Files at least this big are upgraded rather than rewritten (when their section allows).
    pub min_file_size: i64,
    /// The bucket's max level.
    pub max_level: i32,
    /// Drop retract records from the output (`dropDelete`).
    pub drop_delete: bool,
    /// `compaction.force-rewrite-all-files`.
    pub force_rewrite_all_files: bool,
    /// Lookup compaction ([`super::lookup`]): which level-0 files are rewritten rather than
    /// upgraded as they are.
    pub lookup: LookupUpgrade,
}

/// Level-0 upgrades in a lookup compaction (Java `LookupMergeTreeCompactRewriter.upgradeStrategy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum LookupUpgrade {
    /// Not a lookup compaction.
    #[default]
    Off,
    /// Nothing lies above the output level: a level-0 file without retract records is upgraded
    /// as it is (there is nothing to look up), one that may hold them is rewritten (the output
    /// drops them).
    NothingAbove,
    /// Every level-0 file is rewritten: its keys are looked up in the levels above.
    Rewrite,
    /// Every file not already at the output level is rewritten (a full compaction that
    /// derives the changelog of every key it moves into the max level).
    All,
}

/// What one task did. Upgraded files are counted apart: they are never written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskMetrics {
    /// The LSM level the task wrote to (Java `CompactUnit.outputLevel`).
    pub output_level: i32,
    /// Data files the task was given (upgraded, rewritten or already at the output level).
    pub input_files: usize,
    /// Total size of the input files, in bytes (Java `DataFileMeta.fileSize`).
    pub input_bytes: i64,
    /// Input files moved to the output level without being rewritten (Java's upgrade).
    pub upgraded_files: usize,
    /// Total size of the upgraded files, in bytes.
    pub upgraded_bytes: i64,
    /// Input files read by a rewrite (merged into new files).
    pub rewritten_input_files: usize,
    /// Total size of the rewritten input files, in bytes.
    pub rewritten_input_bytes: i64,
    /// Rewrite calls (each one merge read + one rolling writer).
    pub rewrites: usize,
    /// Files written (upgrades excluded).
    pub output_files: usize,
    /// Total size of the files written, in bytes.
    pub output_bytes: i64,
    /// Rows of the input files (Java `DataFileMeta.rowCount`, deletes included).
    pub input_rows: i64,
    /// Rows at the output level after the task: those of the files written plus those of the
    /// upgraded files.
    pub output_rows: i64,
    /// Wall time the whole task took (merge reads, writes and upgrades).
    pub duration: Duration,
}

/// Runs the compaction of `unit`. `key_types` are the types of the trimmed primary key.
pub(crate) async fn run_compact_task<R: CompactRewriter>(
    unit: CompactUnit,
    key_types: &[DataType],
    options: &TaskOptions,
    rewriter: &R,
) -> Result<(CompactResult, TaskMetrics)> {
    let start = Instant::now();
    let mut task = Task {
        options,
        rewriter,
        output_level: unit.output_level,
        result: CompactResult::default(),
        metrics: TaskMetrics {
            output_level: unit.output_level,
            input_files: unit.files.len(),
            input_bytes: unit.files.iter().map(|f| f.file_size).sum(),
            input_rows: unit.files.iter().map(|f| f.row_count).sum(),
            ..Default::default()
        },
    };
    let outcome = if unit.file_rewrite {
        task.rewrite_each(unit.files, key_types).await
    } else {
        task.compact(unit.files, key_types).await
    };
    if let Err(e) = outcome {
        // Files written by the rewrites that did finish are not referenced by anything.
        let written: Vec<DataFileMeta> = task
            .result
            .after
            .iter()
            .filter(|a| {
                !task
                    .result
                    .before
                    .iter()
                    .any(|b| b.file_name == a.file_name)
            })
            .cloned()
            .collect();
        rewriter.discard(&written).await;
        rewriter.discard(&task.result.changelog).await;
        return Err(e);
    }
    let mut metrics = task.metrics;
    metrics.duration = start.elapsed();
    Ok((task.result, metrics))
}

struct Task<'a, R> {
    options: &'a TaskOptions,
    rewriter: &'a R,
    output_level: i32,
    result: CompactResult,
    metrics: TaskMetrics,
}

impl<R: CompactRewriter> Task<'_, R> {
    async fn compact(&mut self, files: Vec<DataFileMeta>, key_types: &[DataType]) -> Result<()> {
        let sections = interval_partition(keyed(&files, key_types)?);
        let mut candidate: Sections = Vec::new();
        for mut section in sections {
            if section.len() > 1 {
                candidate.push(section);
                continue;
            }
            let run = section.pop().expect("a section has at least one run");
            for file in run {
                if file.file.file_size < self.options.min_file_size {
                    candidate.push(vec![vec![file]]);
                } else {
                    self.rewrite(&mut candidate).await?;
                    self.upgrade(file).await?;
                }
            }
        }
        self.rewrite(&mut candidate).await
    }

    /// `FileRewriteCompactTask`: every file rewritten on its own.
    async fn rewrite_each(
        &mut self,
        files: Vec<DataFileMeta>,
        key_types: &[DataType],
    ) -> Result<()> {
        for file in keyed(&files, key_types)? {
            self.rewrite_impl(vec![vec![vec![file]]]).await?;
        }
        Ok(())
    }

    async fn rewrite(&mut self, candidate: &mut Sections) -> Result<()> {
        if candidate.is_empty() {
            return Ok(());
        }
        if candidate.len() == 1 && candidate[0].len() <= 1 {
            // One section of at most one run: nothing overlaps, nothing to merge.
            let section = candidate.pop().expect("length checked above");
            for run in section {
                for file in run {
                    self.upgrade(file).await?;
                }
            }
            return Ok(());
        }
        let sections = std::mem::take(candidate);
        self.rewrite_impl(sections).await
    }

    async fn upgrade(&mut self, file: KeyedFile) -> Result<()> {
        let may_hold_deletes = file.file.delete_row_count.is_none_or(|d| d > 0);
        if (self.output_level == self.options.max_level && may_hold_deletes)
            || (file.file.level == 0
                && match self.options.lookup {
                    LookupUpgrade::Off => false,
                    LookupUpgrade::NothingAbove => may_hold_deletes,
                    LookupUpgrade::Rewrite | LookupUpgrade::All => true,
                })
            || (self.options.lookup == LookupUpgrade::All && file.file.level != self.output_level)
            || self.options.force_rewrite_all_files
            || self.rewriter.has_expired_records(&file.file).await?
        {
            return self.rewrite_impl(vec![vec![vec![file]]]).await;
        }
        if file.file.level == self.output_level {
            return Ok(());
        }
        if file.file.level > self.output_level {
            return Err(ErrorDetail::Invariant(format!(
                "compaction would move data file {} down from level {} to level {}",
                file.file.file_name, file.file.level, self.output_level
            ))
            .into());
        }
        let mut after = file.file.clone();
        after.level = self.output_level;
        self.metrics.upgraded_files += 1;
        self.metrics.upgraded_bytes += file.file.file_size;
        self.metrics.output_rows += file.file.row_count;
        self.result.before.push(file.file);
        self.result.after.push(after);
        Ok(())
    }

    async fn rewrite_impl(&mut self, sections: Sections) -> Result<()> {
        let inputs: Vec<&DataFileMeta> = sections
            .iter()
            .flatten()
            .flatten()
            .map(|k| &k.file)
            .collect();
        self.metrics.rewritten_input_files += inputs.len();
        self.metrics.rewritten_input_bytes += inputs.iter().map(|f| f.file_size).sum::<i64>();
        self.metrics.rewrites += 1;
        let r = self
            .rewriter
            .rewrite(self.output_level, self.options.drop_delete, sections)
            .await?;
        self.metrics.output_files += r.after.len();
        self.metrics.output_bytes += r.after.iter().map(|f| f.file_size).sum::<i64>();
        self.metrics.output_rows += r.after.iter().map(|f| f.row_count).sum::<i64>();
        self.result.merge(r);
        Ok(())
    }
}

#[cfg(test)]
#[path = "task_tests.rs"]
mod tests;
