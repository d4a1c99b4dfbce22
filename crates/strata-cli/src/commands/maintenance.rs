//! Table lifecycle commands: `expire-snapshots`, `expire-changelogs`, `create-tag`, `tags`,
//! `delete-tag`, `rollback`, `remove-orphan-files` (see `strata::maintenance`).
//!
//! Results are one JSON object per line on stdout (camelCase keys); a readable summary goes
//! to stderr.

use std::time::Duration;

use serde_json::json;
use strata::catalog::Catalog;
use strata::maintenance::orphans::OrphanFilesClean;
use strata::maintenance::{
    self, changelog_decoupled, ChangelogExpireConfig, ChangelogExpireReport, DeletionCounts,
    ExpireChangelogs, ExpireConfig, ExpireOverrides, ExpireSnapshots, TableLifecycle,
};

use crate::error::{msg, Result};
use crate::output::println_json;

/// The lifecycle subcommands (flattened into the top-level command list).
#[derive(clap::Subcommand, Debug)]
pub enum MaintenanceCommand {
    /// Expire old snapshots and delete the files only they use (the table's snapshot.*
    /// options, overridden by the flags). Also runs after every commit. A table whose
    /// changelog.* options keep changelogs longer than snapshots (a decoupled changelog
    /// lifecycle) keeps each expired snapshot as changelog/changelog-N, and its long-lived
    /// changelogs are then expired with the changelog.* options, as after a commit.
    ExpireSnapshots {
        /// DB.TABLE
        table: String,
        /// Keep at most N snapshots (snapshot.num-retained.max)
        #[arg(long, value_name = "N")]
        retain_max: Option<i32>,
        /// Keep at least N snapshots (snapshot.num-retained.min)
        #[arg(long, value_name = "N")]
        retain_min: Option<i32>,
        /// Expire only snapshots whose successor is older than this: a duration (`2h`,
        /// `30min`, `1d`) or a local timestamp ('2026-01-01 10:00:00')
        #[arg(long, value_name = "DURATION|TIMESTAMP")]
        older_than: Option<String>,
        /// Expire at most N snapshots in this run (snapshot.expire.limit)
        #[arg(long, value_name = "N")]
        max_deletes: Option<i32>,
        /// List what would be deleted, delete nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// Expire the long-lived changelogs in changelog/ (a decoupled changelog lifecycle) and
    /// delete the files only they use: the table's changelog.* options, overridden by the
    /// flags (Java's `expire_changelogs` procedure).
    ExpireChangelogs {
        /// DB.TABLE
        table: String,
        /// Keep the changelogs of at most the last N snapshot ids (changelog.num-retained.max)
        #[arg(long, value_name = "N")]
        retain_max: Option<i32>,
        /// Keep the changelogs of at least the last N snapshot ids (changelog.num-retained.min)
        #[arg(long, value_name = "N")]
        retain_min: Option<i32>,
        /// Expire only changelogs older than this: a duration (`2h`, `1d`) or a local
        /// timestamp
        #[arg(long, value_name = "DURATION|TIMESTAMP")]
        older_than: Option<String>,
        /// Expire at most N changelogs in this run
        #[arg(long, value_name = "N")]
        max_deletes: Option<i32>,
        /// Expire every long-lived changelog (Java's delete_all)
        #[arg(long, conflicts_with_all = ["retain_max", "retain_min", "older_than", "max_deletes"])]
        delete_all: bool,
        /// List what would be deleted, delete nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// Create a tag of a snapshot (default: the latest).
    CreateTag {
        /// DB.TABLE
        table: String,
        /// Tag name
        name: String,
        /// Snapshot id to tag (an expired snapshot that a tag still holds works too)
        #[arg(long, value_name = "N")]
        snapshot: Option<i64>,
        /// Delete the tag automatically this long after its creation (e.g. `7d`)
        #[arg(long, value_name = "DURATION")]
        time_retained: Option<String>,
    },
    /// Tags of a table, one JSON object per line (ordered by snapshot id).
    Tags {
        /// DB.TABLE
        table: String,
    },
    /// Delete a tag and the files only it still uses.
    DeleteTag {
        /// DB.TABLE
        table: String,
        /// Tag name
        name: String,
    },
    /// Roll the table back to a snapshot or a tag: newer snapshots and tags are deleted with
    /// the files only they used.
    Rollback {
        /// DB.TABLE
        table: String,
        /// Snapshot id to roll back to
        #[arg(
            long,
            value_name = "N",
            required_unless_present = "to_tag",
            conflicts_with = "to_tag"
        )]
        to_snapshot: Option<i64>,
        /// Tag to roll back to (its snapshot is restored if it expired)
        #[arg(long, value_name = "NAME")]
        to_tag: Option<String>,
    },
    /// Delete files under the table directory that no snapshot, tag or schema references and
    /// that are older than --older-than (default 1 day).
    RemoveOrphanFiles {
        /// DB.TABLE
        table: String,
        /// Only files modified before this: a duration ago (`1d`, `2h`) or a local timestamp
        #[arg(long, value_name = "DURATION|TIMESTAMP")]
        older_than: Option<String>,
        /// List the orphan files (stdout) without deleting them
        #[arg(long)]
        dry_run: bool,
    },
}

pub async fn run(catalog: &dyn Catalog, cmd: MaintenanceCommand) -> Result<()> {
    match cmd {
        MaintenanceCommand::ExpireSnapshots {
            table,
            retain_max,
            retain_min,
            older_than,
            max_deletes,
            dry_run,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let now = t.clock().now_millis();
            let overrides = ExpireOverrides {
                retain_max,
                retain_min,
                time_retained: retained_since(older_than.as_deref(), now)?,
                max_deletes,
            };
            let config = ExpireConfig::from_table_with(&t, &overrides)?;
            let expire = ExpireSnapshots::new(&t)?
                .with_config(config)
                .with_now_millis(now);
            let plan = expire.plan().await?;
            let mut out = std::io::stdout().lock();
            if dry_run {
                for id in &plan.long_lived_changelogs {
                    println_json(
                        &mut out,
                        &json!({
                            "kind": "writeChangelog",
                            "path": t.file_io().display(&t.changelog_manager().file(*id)),
                        }),
                    )?;
                }
                print_deletions(&mut out, &t, &plan.deletions)?;
                eprintln!(
                    "dry run: would expire {} snapshot(s) {:?} of {} and delete {} file(s)",
                    plan.expired.len(),
                    plan.expired,
                    t.identifier(),
                    plan.deletions.len()
                );
                return Ok(());
            }
            let report = expire.execute(&plan).await?;
            let mut line = counts_json(&report.deleted);
            line["expiredSnapshots"] = json!(report.expired);
            line["earliestSnapshot"] = json!(report.earliest);
            if !plan.long_lived_changelogs.is_empty() {
                line["changelogsWritten"] = json!(plan.long_lived_changelogs);
            }
            if changelog_decoupled(&t)? {
                let c = ExpireChangelogs::new(&t)?
                    .with_now_millis(now)
                    .expire()
                    .await?;
                line["changelogExpiry"] = changelog_json(&c);
            }
            println_json(&mut out, &line)?;
            eprintln!(
                "expired {} snapshot(s) of {}; deleted {} data, {} changelog, {} manifest, {} \
                 manifest list, {} index file(s); earliest snapshot is now {}",
                report.expired.len(),
                t.identifier(),
                report.deleted.data_files,
                report.deleted.changelog_files,
                report.deleted.manifests,
                report.deleted.manifest_lists,
                report.deleted.index_files,
                report
                    .earliest
                    .map_or("none".to_string(), |e| e.to_string())
            );
            Ok(())
        }
        MaintenanceCommand::CreateTag {
            table,
            name,
            snapshot,
            time_retained,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let retained = match &time_retained {
                Some(text) => Some(parse_duration(text, "--time-retained")?),
                None => None,
            };
            let tag = t.create_tag(&name, snapshot, retained).await?;
            eprintln!(
                "created tag '{}' of snapshot {} in {}",
                tag.name,
                tag.snapshot.id,
                t.identifier()
            );
            Ok(())
        }
        MaintenanceCommand::Tags { table } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let mut out = std::io::stdout().lock();
            for tag in t.tags().await? {
                println_json(
                    &mut out,
                    &json!({
                        "name": tag.name,
                        "snapshotId": tag.snapshot.id,
                        "schemaId": tag.snapshot.schema_id,
                        "commitTime": tag.snapshot.time_millis,
                        "recordCount": tag.snapshot.total_record_count,
                        "createTime": tag.create_time.map(|c| c.format("%Y-%m-%d %H:%M:%S%.3f").to_string()),
                        "timeRetained": tag.time_retained.map(humanize),
                    }),
                )?;
            }
            Ok(())
        }
        MaintenanceCommand::DeleteTag { table, name } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let report = t.delete_tag(&name).await?;
            let d = &report.deleted;
            eprintln!(
                "deleted tag '{name}' of {} and {} file(s) only it used ({} data, {} manifest, \
                 {} manifest list, {} index)",
                t.identifier(),
                d.total() - d.tags,
                d.data_files,
                d.manifests,
                d.manifest_lists,
                d.index_files
            );
            Ok(())
        }
        MaintenanceCommand::Rollback {
            table,
            to_snapshot,
            to_tag,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let report = match (to_snapshot, &to_tag) {
                (Some(id), _) => t.rollback_to_snapshot(id).await?,
                (None, Some(name)) => t.rollback_to_tag(name).await?,
                (None, None) => return Err(msg("rollback needs --to-snapshot N or --to-tag NAME")),
            };
            let mut line = counts_json(&report.deleted);
            line["snapshotId"] = json!(report.snapshot_id);
            line["removedSnapshots"] = json!(report.removed_snapshots);
            line["removedTags"] = json!(report.removed_tags);
            line["restoredFromTag"] = json!(report.restored_from_tag);
            println_json(&mut std::io::stdout().lock(), &line)?;
            eprintln!(
                "rolled {} back to snapshot {}: removed {} snapshot(s), {} tag(s), {} data file(s)",
                t.identifier(),
                report.snapshot_id,
                report.removed_snapshots.len(),
                report.removed_tags.len(),
                report.deleted.data_files
            );
            Ok(())
        }
        MaintenanceCommand::ExpireChangelogs {
            table,
            retain_max,
            retain_min,
            older_than,
            max_deletes,
            delete_all,
            dry_run,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let now = t.clock().now_millis();
            let overrides = ExpireOverrides {
                retain_max,
                retain_min,
                time_retained: retained_since(older_than.as_deref(), now)?,
                max_deletes,
            };
            let expire = ExpireChangelogs::new(&t)?
                .with_config(ChangelogExpireConfig::from_table_with(&t, &overrides)?)
                .with_now_millis(now);
            let plan = if delete_all {
                expire.plan_all().await?
            } else {
                expire.plan().await?
            };
            let mut out = std::io::stdout().lock();
            if dry_run {
                print_deletions(&mut out, &t, &plan.deletions)?;
                eprintln!(
                    "dry run: would expire {} changelog(s) {:?} of {} and delete {} file(s)",
                    plan.expired.len(),
                    plan.expired,
                    t.identifier(),
                    plan.deletions.len()
                );
                return Ok(());
            }
            let report = expire.execute(&plan).await?;
            println_json(&mut out, &changelog_json(&report))?;
            eprintln!(
                "expired {} changelog(s) of {}; deleted {} data, {} changelog, {} manifest, {} \
                 manifest list file(s); earliest changelog is now {}",
                report.expired.len(),
                t.identifier(),
                report.deleted.data_files,
                report.deleted.changelog_files,
                report.deleted.manifests,
                report.deleted.manifest_lists,
                report
                    .earliest
                    .map_or("none".to_string(), |e| e.to_string())
            );
            Ok(())
        }
        MaintenanceCommand::RemoveOrphanFiles {
            table,
            older_than,
            dry_run,
        } => {
            let t = catalog.get_table(&table.parse()?).await?;
            let now = t.clock().now_millis();
            let threshold = match &older_than {
                Some(text) => {
                    now - maintenance::older_than("--older-than", text, now)?.as_millis() as i64
                }
                None => OrphanFilesClean::default_older_than_millis(&t),
            };
            let report = OrphanFilesClean::new(&t, threshold)
                .dry_run(dry_run)
                .clean()
                .await?;
            let mut out = std::io::stdout().lock();
            if dry_run {
                for f in &report.files {
                    println_json(&mut out, &json!({"path": f.path, "size": f.size}))?;
                }
            } else {
                println_json(
                    &mut out,
                    &json!({"deletedFiles": report.count(), "deletedBytes": report.bytes()}),
                )?;
            }
            eprintln!(
                "{} {} orphan file(s), {} bytes, in {}",
                if dry_run { "dry run: found" } else { "removed" },
                report.count(),
                report.bytes(),
                t.identifier()
            );
            Ok(())
        }
    }
}

/// The retention span of `--older-than` ([`older_than`]), if given.
fn retained_since(text: Option<&str>, now: i64) -> Result<Option<Duration>> {
    Ok(match text {
        Some(text) => Some(maintenance::older_than("--older-than", text, now)?),
        None => None,
    })
}

fn parse_duration(text: &str, flag: &str) -> Result<Duration> {
    strata_spec::options::units::parse_duration(text)
        .map_err(|e| msg(format!("{flag} {text:?}: {e}")))
}

fn humanize(d: Duration) -> String {
    let s = d.as_secs();
    match () {
        _ if d.subsec_nanos() != 0 => format!("{} ms", d.as_millis()),
        _ if s.is_multiple_of(86_400) && s > 0 => format!("{} d", s / 86_400),
        _ if s.is_multiple_of(3_600) && s > 0 => format!("{} h", s / 3_600),
        _ if s.is_multiple_of(60) && s > 0 => format!("{} min", s / 60),
        _ => format!("{s} s"),
    }
}

fn counts_json(c: &DeletionCounts) -> serde_json::Value {
    json!({
        "deletedDataFiles": c.data_files,
        "deletedChangelogFiles": c.changelog_files,
        "deletedManifests": c.manifests,
        "deletedManifestLists": c.manifest_lists,
        "deletedIndexFiles": c.index_files,
        "deletedIndexManifests": c.index_manifests,
        "deletedStatistics": c.statistics,
        "deletedSnapshots": c.snapshots,
        "deletedTags": c.tags,
        "deletedLongLivedChangelogs": c.long_lived_changelogs,
    })
}

fn changelog_json(r: &ChangelogExpireReport) -> serde_json::Value {
    let mut line = counts_json(&r.deleted);
    line["expiredChangelogs"] = json!(r.expired);
    line["earliestChangelog"] = json!(r.earliest);
    line
}

/// A dry run's deletions, one JSON line each (`kind`, `path`).
fn print_deletions(
    out: &mut impl std::io::Write,
    t: &strata::table::Table,
    deletions: &[strata::maintenance::Deletion],
) -> Result<()> {
    for d in deletions {
        println_json(
            out,
            &json!({
                "kind": d.category.as_str(),
                "path": t.file_io().display(&d.path),
            }),
        )?;
    }
    Ok(())
}
