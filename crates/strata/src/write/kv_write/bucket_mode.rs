//! The bucket mode of a primary-key table's write ([`Buckets`]), chosen from its `bucket`
//! option and primary key as Java's `KeyValueFileStore.bucketMode` does, and the bucket
//! settings strata refuses by name (bucket counts Paimon does not define).

use crate::error::ErrorDetail;
use crate::index::{DynamicBucketAssigner, KeyHasher};
use crate::table::Table;
use crate::write::cross_partition::{GlobalIndexAssigner, LiveBuckets};
use crate::write::postpone::PostponeWrite;
use crate::Result;

/// How the rows of a primary-key table find their bucket.
pub(super) enum Buckets {
    /// `bucket = N > 0`: Paimon's Murmur hash of the bucket key.
    Fixed,
    /// `bucket = -1` with every partition key in the primary key: the HASH index.
    Dynamic {
        hasher: KeyHasher,
        assigner: Box<DynamicBucketAssigner>,
    },
    /// `bucket = -1` with a primary key that lacks a partition key: Java's `KEY_DYNAMIC`
    /// bucket mode (`KeyValueFileStore.bucketMode`), cross-partition upsert: a global key →
    /// (partition, bucket) index (Java's `GlobalIndexAssigner`, bootstrapped from every live
    /// key at the first write) retracts a key from its old partition when it arrives in a new
    /// one; no HASH index files are written. An INSERT OVERWRITE routes its rows the same way
    /// (Java's `GlobalDynamicBucketSink` bootstraps from the table whatever the overwrite):
    /// a key that lives in another partition is retracted there, which makes that partition
    /// one the dynamic overwrite replaces (`commit::overwrite`), as in Java.
    KeyDynamic {
        /// Built at the first write.
        assigner: Option<Box<GlobalIndexAssigner>>,
        /// The restored snapshot's live files per bucket (with their bucket count), kept for
        /// the bootstrap until the first write.
        live: Option<LiveBuckets>,
    },
    /// `bucket = -2`: every row to its partition's postpone bucket, unsorted
    /// ([`PostponeWrite`], Java's `PostponeBucketFileStoreWrite`).
    Postpone(Box<PostponeWrite>),
}

impl Buckets {
    /// The bucket mode of a write to `table` (an INSERT OVERWRITE when `overwrite`).
    pub(super) async fn choose(table: &Table, overwrite: bool) -> Result<Self> {
        let bucket = table.options().bucket()?;
        Ok(match bucket {
            -1 if table.schema().cross_partition_update() => Buckets::KeyDynamic {
                assigner: None,
                live: None,
            },
            -1 => Buckets::Dynamic {
                hasher: KeyHasher::new(table)?,
                assigner: Box::new(if overwrite {
                    DynamicBucketAssigner::for_overwrite(table).await?
                } else {
                    DynamicBucketAssigner::new(table).await?
                }),
            },
            n if n > 0 => Buckets::Fixed,
            strata_spec::options::POSTPONE_BUCKET => {
                Buckets::Postpone(Box::new(PostponeWrite::new(table.clone())?))
            }
            other => {
                return Err(ErrorDetail::UnsupportedOption {
                    key: "bucket".into(),
                    message: format!(
                        "bucket = {other} is not supported for primary-key table {} \
                         (use bucket = -1 for dynamic buckets or a positive bucket count)",
                        table.identifier()
                    ),
                }
                .into())
            }
        })
    }
}
