//! [`PartitionStatistics`]: what one commit changed in one partition, Java's
//! `org.apache.paimon.partition.PartitionStatistics` — the JSON a catalog that decides commits
//! (Paimon's REST catalog, `CommitTableRequest.statistics`) receives with each snapshot, summed
//! on its side into the partition listing (`recordCount`, `fileCount`, ... per partition).
//!
//! Values are deltas: a commit that deletes files carries negative counts (Java's
//! `PartitionEntry.fromDataFile` negates them for `DELETE` entries).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One partition's statistics delta (Java `PartitionStatistics`; JSON field names as Java's).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartitionStatistics {
    /// The partition as `key → value text` (Java `InternalRowPartitionComputer.generatePartValues`:
    /// NULL or blank values are `partition.default-name`). Empty for an unpartitioned table.
    pub spec: BTreeMap<String, String>,
    /// Rows added minus rows deleted.
    pub record_count: i64,
    /// Bytes of files added minus bytes of files deleted.
    pub file_size_in_bytes: i64,
    /// Files added minus files deleted.
    pub file_count: i64,
    /// The newest creation time (epoch millis) of the files involved.
    pub last_file_creation_time: i64,
    /// The partition's bucket count (`0` when absent: an older writer).
    #[serde(default)]
    pub total_buckets: i32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_javas() {
        let s = PartitionStatistics {
            spec: [("dt".to_string(), "2024-01-01".to_string())].into(),
            record_count: -3,
            file_size_in_bytes: 100,
            file_count: 1,
            last_file_creation_time: 1_700_000_000_000,
            total_buckets: 2,
        };
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(
            json,
            r#"{"spec":{"dt":"2024-01-01"},"recordCount":-3,"fileSizeInBytes":100,"fileCount":1,"lastFileCreationTime":1700000000000,"totalBuckets":2}"#
        );
        // An older writer without `totalBuckets`; unknown fields ignored (Java's
        // `@JsonIgnoreProperties(ignoreUnknown = true)`).
        let old: PartitionStatistics = serde_json::from_str(
            r#"{"spec":{},"recordCount":1,"fileSizeInBytes":2,"fileCount":1,"lastFileCreationTime":5,"x":1}"#,
        )
        .unwrap();
        assert_eq!(old.total_buckets, 0);
        assert_eq!(old.record_count, 1);
    }
}
