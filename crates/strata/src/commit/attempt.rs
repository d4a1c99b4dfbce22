//! One commit attempt (Java `FileStoreCommitImpl.tryCommitOnce`):
//! read the latest snapshot, check conflicts, write the manifests and lists, publish
//! `snapshot-(L+1)` with a create-if-absent.
//!
//! The outcome is one of four, and the caller (`retry`) acts on it:
//! * [`Attempt::Committed`] — the snapshot is published;
//! * [`Attempt::LostRace`] — another commit took the id; this attempt's metadata is deleted;
//! * [`Attempt::Uncertain`] — the publish itself failed in a way that leaves its outcome
//!   unknown (e.g. a network error while the object store may have stored the snapshot);
//!   nothing is deleted, since the snapshot may reference it, and the retry first looks for
//!   this commit among the snapshots created meanwhile;
//! * an `Err` — the attempt failed before publishing (nothing published, its metadata
//!   deleted), or a conflict that retrying cannot fix.
//!
//! Fault points (`crate::fault`) sit after each durable step.

use crate::error::ErrorDetail;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta};
use strata_spec::snapshot::{CommitKind, Snapshot};

use super::conflicts;
use super::overwrite::OverwriteScope;
use super::table_commit::{bucket_num_mismatch, trimmed_key_types, TableCommit};
use crate::fault;
use crate::{Error, Result};

pub(super) enum Attempt {
    Committed(i64),
    /// Snapshot id taken by another commit.
    LostRace(i64),
    /// The publish of this snapshot id failed with this error; it may have landed.
    Uncertain(i64, Error),
    NothingToDo,
}

/// What one attempt commits.
pub(super) struct CommitRequest<'a> {
    pub kind: CommitKind,
    pub identifier: i64,
    pub adds: &'a [ManifestEntry],
    /// ADD entries of changelog files: the snapshot's changelog manifest list.
    pub changelog: &'a [ManifestEntry],
    pub index: &'a [IndexManifestEntry],
    /// See `CommitMessage::index_base`.
    pub index_base: Option<i64>,
    /// See `CommitMessage::compact_base` (COMPACT commits).
    pub compact_bases: Option<&'a super::lookup_conflicts::CompactBases>,
    pub overwrite: Option<&'a OverwriteScope>,
}

impl TableCommit {
    pub(super) async fn try_commit_once(
        &self,
        req: &CommitRequest<'_>,
        attempt: u32,
    ) -> Result<Attempt> {
        let CommitRequest {
            kind,
            identifier,
            adds,
            changelog,
            index,
            index_base,
            compact_bases,
            overwrite,
        } = *req;
        let table = &self.table;
        let latest = table.snapshot_manager().latest().await?;
        // A cross-partition-upsert APPEND, or an OVERWRITE that wrote rows, routed its keys
        // by an index bootstrapped from `index_base` (`key_dynamic`).
        let routed = match overwrite {
            None => kind == CommitKind::Append,
            Some(_) => !adds.is_empty(),
        };
        if let (true, Some(s)) = (routed, &latest) {
            super::key_dynamic::check_concurrent_appends(
                table,
                s.id,
                index_base,
                &self.commit_user,
            )
            .await?;
        }
        let store = table.manifest_store();
        let namer = crate::meta::FileNamer::new();

        // Previous manifests (base then delta): read for the conflict checks here, merged
        // into this snapshot's base list below (`manifest_merge`).
        let base_metas: Vec<ManifestFileMeta> = match &latest {
            Some(s) => store.data_manifests(s).await?,
            None => Vec::new(),
        };

        let index_store = crate::index::IndexManifestStore::new(table)?;
        let opts = table.options();
        // A lookup compaction is checked against what changed in its buckets since it was
        // planned (`lookup_conflicts`); with deletion vectors that needs the live vectors.
        let lookup_compaction = kind == CommitKind::Compact
            && table.is_primary_key_table()
            && compact_bases.is_some_and(|b| b.values().any(Option::is_some))
            && crate::lsm::compact::bucket::lookup_mode(opts)?.is_some();
        let dv_compaction = lookup_compaction && opts.deletion_vectors_enabled()?;
        // Deletion vectors of an append table paired with their data files (`dv_conflicts`).
        let dv_pairing = overwrite.is_none()
            && !table.is_primary_key_table()
            && opts.deletion_vectors_enabled()?
            && super::dv_conflicts::needs_check(adds, index);
        // The previous index entries matter only when the index changes.
        let prev_index: Vec<IndexManifestEntry> = match &latest {
            Some(s) if !index.is_empty() || overwrite.is_some() || dv_compaction || dv_pairing => {
                index_store.read_snapshot(s).await?
            }
            _ => Vec::new(),
        };
        let mut delta: Vec<ManifestEntry> = Vec::new();
        let mut index_changes: Vec<IndexManifestEntry> = Vec::new();
        if let Some(scope) = overwrite {
            // The files to replace are chosen on the latest snapshot of *this* attempt, so an
            // append that landed first is replaced too and one that lands later survives: the
            // overwrite is serialized exactly where its snapshot lands.
            if let Some(s) = &latest {
                let live = crate::scan::live_entries(table, s, &base_metas).await?;
                delta.extend(scope.select_deletes(table, adds, live)?);
                index_changes.extend(scope.select_index_deletes(
                    table,
                    adds,
                    prev_index.clone(),
                )?);
            }
        }
        // Deletion vectors of a lookup compaction rebased onto the live ones.
        let mut dv_rebased: Option<super::lookup_conflicts::RebasedDv> = None;
        // A compaction, or an append that removes files (a copy-on-write rewrite), may only
        // land while the files it removes are live.
        let removes_files = adds.iter().any(|e| e.kind == FileKind::Delete);
        if removes_files
            && overwrite.is_none()
            && kind != CommitKind::Compact
            && opts.row_tracking_enabled()?
        {
            // Spark's copy-on-write UPDATE / DELETE keeps the rewritten rows' `_ROW_ID` (it
            // writes the column); a rewrite without it would renumber them.
            return Err(ErrorDetail::Unsupported(format!(
                "rewriting data files of row-tracking table {} (a copy-on-write UPDATE, \
                 DELETE or MERGE): the rewritten rows would get new row ids, where Spark keeps \
                 them; strata refuses it (INSERT and INSERT OVERWRITE are supported)",
                table.identifier()
            ))
            .into());
        }
        if kind == CommitKind::Compact || (overwrite.is_none() && removes_files) {
            // Conflicts are checked per partition (live files, level overlaps, bucket
            // counts), so only the partitions the compaction touches are read.
            let mut touched: Vec<BinaryRow> = adds.iter().map(|e| e.partition.clone()).collect();
            touched.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            touched.dedup();
            let base = match &latest {
                Some(_) => {
                    crate::scan::live_entries_of_partitions(table, &base_metas, &touched).await?
                }
                None => Vec::new(),
            };
            conflicts::check_compact_conflicts(
                &table.identifier().to_string(),
                &base,
                adds,
                &trimmed_key_types(table),
            )?;
            if let (true, Some(s), Some(bases)) = (lookup_compaction, &latest, compact_bases) {
                dv_rebased = self
                    .check_lookup_compaction(
                        super::lookup_conflicts::LookupCheck {
                            latest: s,
                            live: &base,
                            live_index: &prev_index,
                            delta: adds,
                            index,
                            bases,
                        },
                        dv_compaction,
                    )
                    .await?;
            }
        } else if overwrite.is_none() && kind != CommitKind::Compact {
            // Every file of a partition must have one bucket count: an append into a
            // partition still laid out with another count (the table's `bucket` changed and
            // the partition was not overwritten since, possibly by a concurrent commit) is
            // refused, as Java's writer does (`bucket_num_mismatch`).
            if latest.is_some() {
                self.check_append_bucket_counts(&base_metas, adds).await?;
            }
        }
        if overwrite.is_none()
            && super::row_id_conflicts::needs_check(
                opts.data_evolution_enabled()?,
                kind,
                self.row_id_check_from.is_some(),
            )
        {
            // Java `ConflictDetection.checkRowIdRangeConflicts`: on the latest snapshot of
            // every attempt, so a compaction landing between a column update's planning and
            // its snapshot (or the reverse) is a conflict, never misaligned row-id ranges.
            let mut partitions: Vec<BinaryRow> = adds.iter().map(|e| e.partition.clone()).collect();
            partitions.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            partitions.dedup();
            let live =
                crate::scan::live_entries_of_partitions(table, &base_metas, &partitions).await?;
            super::row_id_conflicts::check_row_id_range_conflicts(
                &table.identifier().to_string(),
                &live,
                adds,
            )?;
            // Java `ConflictDetection.checkForRowIdFromSnapshot`: the same columns of the same
            // row ids written since the base snapshot would be undone by this commit's files.
            if let (Some(base), Some(s)) = (self.row_id_check_from, &latest) {
                super::row_id_columns::check_row_id_column_conflicts(table, base, s, adds, index)
                    .await?;
            }
        }
        delta.extend(adds.iter().cloned());
        // Another writer may have replaced the HASH files this commit replaces: rebase onto
        // the latest snapshot or refuse (see `crate::index::rebase`). An overwrite drops the
        // partitions' index and starts it afresh, so there is nothing to rebase.
        let mut rebased = None;
        match (&latest, overwrite) {
            (Some(s), None) if !index.is_empty() => {
                rebased = crate::index::rebase::rebase_hash_changes(
                    table,
                    s,
                    &prev_index,
                    index,
                    index_base,
                )
                .await?;
            }
            _ => {}
        }
        match (&rebased, &dv_rebased) {
            (Some(r), _) => index_changes.extend(r.changes.iter().cloned()),
            (None, Some(r)) => index_changes.extend(r.changes.iter().cloned()),
            (None, None) => index_changes.extend(index.iter().cloned()),
        }
        if let (true, Some(_)) = (dv_pairing, &latest) {
            // Java `ConflictDetection` (`buildDeltaEntriesWithDV`): checked on the latest
            // snapshot of every attempt, so a DELETE landing between a compaction's planning
            // and its snapshot (or the reverse) is a conflict, never resurrected rows.
            let mut partitions: Vec<BinaryRow> = adds
                .iter()
                .map(|e| e.partition.clone())
                .chain(index_changes.iter().map(|e| e.partition.clone()))
                .collect();
            partitions.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            partitions.dedup();
            let live =
                crate::scan::live_entries_of_partitions(table, &base_metas, &partitions).await?;
            let checked = super::dv_conflicts::check_deletion_vector_conflicts(
                &table.identifier().to_string(),
                &live,
                &prev_index,
                adds,
                &index_changes,
            );
            if let Err(e) = checked {
                self.delete_rebased(rebased.as_ref().map(|r| &r.written))
                    .await;
                return Err(e);
            }
        }
        if delta.is_empty() && changelog.is_empty() && index_changes.is_empty() {
            return Ok(Attempt::NothingToDo);
        }

        let schema_id = table
            .schema_manager()
            .list_ids()
            .await?
            .last()
            .copied()
            .unwrap_or(0);
        let partition_type = table.schema().partition_type();
        // Row tracking (Java `RowTrackingCommitUtils`): sequence numbers and row ids of the
        // new files, and the snapshot's `nextRowId`.
        let prev_next_row_id = latest.as_ref().and_then(|s| s.next_row_id).unwrap_or(0);
        let next_row_id = if opts.row_tracking_enabled()? {
            let snapshot_id = latest.as_ref().map(|s| s.id + 1).unwrap_or(1);
            if opts.row_tracking_partition_group_on_commit()? {
                delta = super::row_tracking::group_by_partition(std::mem::take(&mut delta));
            }
            super::row_tracking::assign_row_tracking(snapshot_id, prev_next_row_id, &mut delta)?
        } else {
            prev_next_row_id
        };
        let mut written: Vec<String> = Vec::new();
        let built = async {
            let mut delta_metas = Vec::new();
            if !delta.is_empty() {
                let delta_meta = store
                    .write_manifest(&namer, &delta, &partition_type, schema_id)
                    .await?;
                written.push(delta_meta.file_name.clone());
                delta_metas.push(delta_meta);
            }
            let index_manifest = if index_changes.is_empty() {
                latest.as_ref().and_then(|s| s.index_manifest.clone())
            } else {
                let bucket_unaware =
                    table.options().bucket()? == -1 && !table.is_primary_key_table();
                let combined =
                    crate::index::combine_index_entries(prev_index, &index_changes, bucket_unaware)
                        .map_err(|e| {
                            e.map_detail(|d| match d {
                                ErrorDetail::CommitConflict { message, .. } => {
                                    ErrorDetail::CommitConflict {
                                        table: table.identifier().to_string(),
                                        message,
                                    }
                                }
                                other => other,
                            })
                        })?;
                let name = index_store.write(&combined, attempt as u64).await?;
                written.push(name.clone());
                Some(name)
            };
            fault::inject("commit.after-manifests")?;
            // Java `ManifestFileMerger.merge`; the files it writes join `written`, so a lost
            // race or a failure deletes them (never the previous snapshot's manifests).
            let merged_base = super::manifest_merge::merge_for_commit(
                table,
                &namer,
                &base_metas,
                schema_id,
                &mut written,
            )
            .await?;
            let (base_list, base_size) = store.write_list(&namer, &merged_base).await?;
            written.push(base_list.clone());
            let (delta_list, delta_size) = store.write_list(&namer, &delta_metas).await?;
            written.push(delta_list.clone());
            // Java `tryCommitOnce`: the changelog files in manifests of their own, listed by
            // `changelogManifestList`; `changelogRecordCount` is their row count (null
            // without changelog).
            let mut changelog_list = None;
            if !changelog.is_empty() {
                let meta = store
                    .write_manifest(&namer, changelog, &partition_type, schema_id)
                    .await?;
                written.push(meta.file_name.clone());
                let list = store.write_list(&namer, &[meta]).await?;
                written.push(list.0.clone());
                changelog_list = Some(list);
            }
            fault::inject("commit.after-manifest-list")?;

            let delta_count: i64 = delta
                .iter()
                .map(|e| match e.kind {
                    FileKind::Add => e.file.row_count,
                    FileKind::Delete => -e.file.row_count,
                })
                .sum();
            let prev_total = latest.as_ref().map(|s| s.total_record_count).unwrap_or(0);
            let snapshot = Snapshot {
                version: strata_spec::snapshot::CURRENT_VERSION,
                uuid: Some(uuid::Uuid::new_v4().to_string()),
                id: latest.as_ref().map(|s| s.id + 1).unwrap_or(1),
                schema_id,
                base_manifest_list: base_list,
                base_manifest_list_size: Some(base_size),
                delta_manifest_list: delta_list,
                delta_manifest_list_size: Some(delta_size),
                changelog_manifest_list: changelog_list.as_ref().map(|l| l.0.clone()),
                changelog_manifest_list_size: changelog_list.as_ref().map(|l| l.1),
                index_manifest,
                commit_user: self.commit_user.clone(),
                writer_version: Some(format!("strata-{}", env!("CARGO_PKG_VERSION"))),
                commit_identifier: identifier,
                commit_kind: kind,
                time_millis: table.clock().now_millis(),
                total_record_count: prev_total + delta_count,
                delta_record_count: delta_count,
                changelog_record_count: (!changelog.is_empty())
                    .then(|| changelog.iter().map(|e| e.file.row_count).sum()),
                watermark: latest.as_ref().and_then(|s| s.watermark),
                statistics: None,
                properties: Default::default(),
                next_row_id: Some(next_row_id),
                operation: self.operation.map(|o| o.as_str().to_owned()),
            };
            fault::inject("commit.before-snapshot")?;
            Ok::<_, Error>(snapshot)
        }
        .await;
        let snapshot = match built {
            Ok(s) => s,
            Err(e) => {
                // Nothing published: what this attempt wrote is garbage.
                store.delete_quietly(&written).await;
                self.delete_rebased(rebased.as_ref().map(|r| &r.written))
                    .await;
                self.delete_rebased(dv_rebased.as_ref().map(|r| &r.written))
                    .await;
                return Err(e);
            }
        };

        let id = snapshot.id;
        // What the decider needs besides the snapshot (Java `commitSnapshotImpl`): the base it
        // was planned on and what it changes per partition.
        let ctx = crate::table::CommitContext::new(
            table.branch(),
            latest.as_ref().and_then(|s| s.uuid.clone()),
        )
        .with_statistics(super::statistics::partition_statistics(
            &delta,
            table.partition_computer(),
        )?);
        match table.snapshot_commit().commit(&snapshot, &ctx).await {
            Ok(true) => {}
            Ok(false) => {
                // The id is taken. On an object store a retried PUT whose first try landed
                // reports "exists" too: the snapshot may be this one.
                if self.is_own_snapshot(id, &snapshot).await {
                    self.delete_rebased(rebased.as_ref().map(|r| &r.replaced))
                        .await;
                    self.delete_rebased(dv_rebased.as_ref().map(|r| &r.replaced))
                        .await;
                    return Ok(Attempt::Committed(id));
                }
                store.delete_quietly(&written).await;
                self.delete_rebased(rebased.as_ref().map(|r| &r.written))
                    .await;
                self.delete_rebased(dv_rebased.as_ref().map(|r| &r.written))
                    .await;
                return Ok(Attempt::LostRace(id));
            }
            // The decider refused the commit outright (a REST catalog's 400, 401/403, 404,
            // 501): nothing was published, and retrying cannot change the answer.
            Err(e) if refused_outright(&e) => {
                store.delete_quietly(&written).await;
                self.delete_rebased(rebased.as_ref().map(|r| &r.written))
                    .await;
                self.delete_rebased(dv_rebased.as_ref().map(|r| &r.written))
                    .await;
                return Err(e);
            }
            // The snapshot may have been stored: keep every file it may reference.
            Err(e) => return Ok(Attempt::Uncertain(id, e)),
        }
        // Durable from here on: a failure below must never clean anything up. The fault
        // point stands for an acknowledgement lost after the snapshot was stored.
        if let Err(e) = fault::inject("commit.after-snapshot") {
            return Ok(Attempt::Uncertain(id, e));
        }
        // The commit's own HASH files that a rebase replaced are referenced by no snapshot.
        self.delete_rebased(rebased.as_ref().map(|r| &r.replaced))
            .await;
        self.delete_rebased(dv_rebased.as_ref().map(|r| &r.replaced))
            .await;
        Ok(Attempt::Committed(id))
    }

    /// Refuses `adds` (an APPEND's new files) into a fixed-bucket partition whose live files
    /// have another bucket count. Only tables whose `bucket` option ever changed (some schema
    /// has another value) can have such partitions, so the others read nothing here.
    async fn check_append_bucket_counts(
        &self,
        base_metas: &[ManifestFileMeta],
        adds: &[ManifestEntry],
    ) -> Result<()> {
        let table = &self.table;
        let mut wanted: Vec<(&BinaryRow, i32)> = Vec::new();
        for e in adds
            .iter()
            .filter(|e| e.kind == FileKind::Add && e.total_buckets > 0)
        {
            if !wanted.iter().any(|(p, _)| *p == &e.partition) {
                wanted.push((&e.partition, e.total_buckets));
            }
        }
        if wanted.is_empty() {
            return Ok(());
        }
        let sm = table.schema_manager();
        let current = table.options().bucket()?;
        let mut rescaled = false;
        for id in sm.list_ids().await? {
            if sm.schema(id).await?.options().bucket()? != current {
                rescaled = true;
                break;
            }
        }
        if !rescaled {
            return Ok(());
        }
        let partitions: Vec<BinaryRow> = wanted.iter().map(|(p, _)| (*p).clone()).collect();
        let live = crate::scan::live_entries_of_partitions(table, base_metas, &partitions).await?;
        for (partition, total) in wanted {
            if let Some(e) = live.iter().find(|e| {
                &e.partition == partition && e.total_buckets > 0 && e.total_buckets != total
            }) {
                return Err(bucket_num_mismatch(
                    table,
                    partition,
                    total,
                    e.total_buckets,
                ));
            }
        }
        Ok(())
    }

    /// Deletes HASH files of an index rebase (best effort: a leftover is an orphan file).
    async fn delete_rebased(&self, paths: Option<&Vec<object_store::path::Path>>) {
        for p in paths.into_iter().flatten() {
            let _ = self.table.file_io().delete(p).await;
        }
    }

    /// Whether `snapshot-<id>` on storage is `ours` (same uuid, user, identifier and kind).
    /// An unreadable snapshot counts as not ours.
    async fn is_own_snapshot(&self, id: i64, ours: &Snapshot) -> bool {
        match self.table.snapshot_manager().snapshot(id).await {
            Ok(s) => {
                s.uuid == ours.uuid
                    && s.commit_user == ours.commit_user
                    && s.commit_identifier == ours.commit_identifier
                    && s.commit_kind == ours.commit_kind
            }
            Err(_) => false,
        }
    }
}

/// Whether a failed publish is a refusal that stored nothing: the decider answered, and its
/// answer is about the caller (credentials, input, a missing table, an unsupported request),
/// not a failure that may hide a stored snapshot (I/O, a lost answer).
fn refused_outright(e: &Error) -> bool {
    use crate::ErrorKind as K;
    !e.may_have_committed()
        && matches!(
            e.kind(),
            K::PermissionDenied | K::InvalidInput | K::NotFound | K::Unsupported
        )
}
