//! Which lookup compaction a primary-key table needs and which changelog its compactions
//! write, from its options (Java `CoreOptions.needLookup`, `lookupStrategy`,
//! `changelogRowDeduplicate`).

use std::sync::Arc;

use strata_spec::options::ChangelogProducer;

use crate::lsm::compact::lookup::LookupChangelog;
use crate::lsm::kv_file_writer::KvWriterConfig;
use crate::table::Table;
use crate::Result;

use crate::error::ErrorDetail;
use crate::lsm::compact::bucket::compaction_changelog;
pub(crate) use crate::lsm::compact::bucket::lookup_mode;

/// Why a primary-key table needs lookup compaction (Java's `needLookup`: first-row merge,
/// deletion vectors, the lookup changelog producer, `force-lookup`), as the option that asks
/// for it; `None` when it does not. Deletion vectors and first-row compact with lookups
/// ([`lookup_mode`]); the others are kept at one level by fully compacting every bucket a
/// commit writes.
pub(crate) fn lookup_reason(opts: &strata_spec::options::CoreOptions) -> Result<Option<String>> {
    use strata_spec::options::MergeEngine;
    Ok(if opts.deletion_vectors_enabled()? {
        Some("deletion-vectors.enabled = true".into())
    } else if matches!(opts.merge_engine()?, MergeEngine::FirstRow) {
        Some("merge-engine = first-row".into())
    } else if matches!(opts.changelog_producer()?, ChangelogProducer::Lookup) {
        Some("changelog-producer = lookup".into())
    } else if opts.get_bool("force-lookup")?.unwrap_or(false) {
        Some("force-lookup = true".into())
    } else {
        None
    })
}

/// The changelog files a primary-key write produces, per `changelog-producer`.
#[derive(Default)]
pub(super) struct ChangelogWriters {
    /// `input`: the settings of the changelog files each flush writes.
    pub input: Option<Arc<KvWriterConfig>>,
    /// `lookup`: what lookup compactions write.
    pub lookup: Option<Arc<LookupChangelog>>,
    /// `full-compaction`: what compactions into the max level write.
    pub full: Option<Arc<LookupChangelog>>,
}

/// What `table`'s writes produce as changelog; an INSERT OVERWRITE commits none (Java's
/// `overwritePartition` ignores it too: streaming readers of the changelog do not see
/// overwrites). Refuses what strata does not write: changelog files in another format than
/// Parquet, `full-compaction` with deletion vectors.
pub(super) fn changelog_writers(table: &Table, overwrite: bool) -> Result<ChangelogWriters> {
    let schema = table.schema();
    let opts = table.options();
    let producer = opts.changelog_producer()?;
    if producer == ChangelogProducer::None {
        return Ok(ChangelogWriters::default());
    }
    if let Some(format) = opts
        .get("changelog-file.format")
        .filter(|f| !f.eq_ignore_ascii_case("parquet"))
    {
        return Err(ErrorDetail::UnsupportedOption {
            key: "changelog-file.format".into(),
            message: format!(
                "writing to {}: changelog-file.format = {format}, and strata writes only \
                 Parquet changelog files; unset the option or set it to parquet",
                table.identifier()
            ),
        }
        .into());
    }
    if producer == ChangelogProducer::FullCompaction && opts.deletion_vectors_enabled()? {
        return Err(ErrorDetail::UnsupportedOption {
            key: "changelog-producer".into(),
            message: format!(
                "writing to {}: changelog-producer = full-compaction with \
                 deletion-vectors.enabled = true is not implemented by strata (its lookup \
                 compaction would write no changelog); use changelog-producer = lookup with \
                 deletion vectors",
                table.identifier(),
            ),
        }
        .into());
    }
    if overwrite {
        return Ok(ChangelogWriters::default());
    }
    Ok(match producer {
        ChangelogProducer::None => ChangelogWriters::default(),
        ChangelogProducer::Input => ChangelogWriters {
            input: Some(KvWriterConfig::for_changelog(schema)?),
            ..Default::default()
        },
        ChangelogProducer::Lookup => ChangelogWriters {
            lookup: Some(compaction_changelog(schema)?),
            ..Default::default()
        },
        ChangelogProducer::FullCompaction => ChangelogWriters {
            full: Some(compaction_changelog(schema)?),
            ..Default::default()
        },
    })
}
