//! Table indexes: dynamic-bucket assignment for primary-key tables with `bucket = -1`, its HASH
//! index files, and the index manifests that list a snapshot's index files.
//!
//! | module | what |
//! |---|---|
//! | [`deletion_vectors`] | [`DeletionVectorIndexWriter`]: a bucket's deletion vectors as a new index file + its ADD entry |
//! | [`hash_file`] | HASH index file codec (4-byte big-endian key hashes) and file I/O |
//! | [`manifest`] | index-manifest I/O and Java's ADD/DELETE combination rule |
//! | [`key_hash`] | the key hash Java assigns with: `BinaryRow.hashCode()` of the trimmed PK |
//! | [`assigner`] | [`DynamicBucketAssigner`]: key → bucket, new HASH files at commit |
//! | `rebase` | concurrent writers: a commit's HASH files rebased onto the snapshot it lands on |
//! | `dv_rebase` | concurrent compactions: a bucket's new deletion vectors rebased onto the live ones |
//!
//! How a write of a dynamic-bucket table uses it:
//!
//! ```text
//! let hasher = KeyHasher::new(&table)?;                 // once
//! let mut assigner = DynamicBucketAssigner::new(&table).await?;   // for_overwrite() for OVERWRITE
//! per batch, per partition group:
//!     let hashes = hasher.hash_batch(&rows)?;
//!     let buckets = assigner.assign_batch(&partition, &hashes).await?;   // route rows by bucket
//! at commit:
//!     let changes = assigner.prepare_commit().await?;
//!     commit::attach_index_changes(&mut messages, changes, total_buckets /* -1 */);
//!     table_commit.commit(messages)  — on failure: assigner.abort().await
//! ```

pub(crate) mod assigner;
pub(crate) mod deletion_vectors;
pub(crate) mod dv_rebase;
pub(crate) mod hash_file;
pub(crate) mod key_hash;
pub(crate) mod manifest;
pub(crate) mod rebase;

// Paths strata's unit tests use (the crate uses the defining modules).
#[cfg(test)]
#[allow(unused_imports)]
pub(crate) use {
    assigner::{compute_assigner, DynamicBucketOptions, IndexFileChange, MAX_DYNAMIC_BUCKETS},
    deletion_vectors::{DeletionVectorIndexWriter, DELETION_VECTORS_BITMAP64},
    hash_file::{decode_hash_index, encode_hash_index, HashIndexFiles, HASH_INDEX},
    key_hash::key_hash,
};

#[cfg(test)]
mod tests;

pub(crate) use assigner::DynamicBucketAssigner;
pub(crate) use key_hash::KeyHasher;
pub(crate) use manifest::{combine_index_entries, IndexManifestStore, DELETION_VECTORS_INDEX};
