//! The LSM layer of primary-key tables.
//!
//! | module | what |
//! |---|---|
//! | [`merge`] | merge engines: how the records of one key become one (deduplicate, partial-update, aggregation, first-row) |
//! | [`kv_layout`] | column positions of key-value batches (`_KEY_…, _SEQUENCE_NUMBER, _VALUE_KIND, values…`) |
//! | [`sort_buffer`] | the write buffer of a bucket: stable key sort, spilling sorted runs to local disk |
//! | [`sort_key`] | keys as byte-comparable values (packed into a `u128` when they fit) |
//! | `radix_sort` | the write buffer's sort of short packed keys (LSD radix, constant bytes skipped) |
//! | [`merge_sort`] | k-way merge of sorted runs, reducing each key with the merge engine |
//! | [`interval_partition`] | files → key-disjoint sections → minimal sorted runs |
//! | [`kv_file_reader`] | key-value data files → layout batches (schema evolution by field id) |
//! | [`compact`] | universal compaction: picking, upgrade-or-rewrite tasks, the rewriter |
//! | [`kv_file_writer`] | rolling key-value data files with Java's metadata (keys, stats, sequence range) |

pub(crate) mod compact;
pub(crate) mod interval_partition;
pub(crate) mod kv_file_reader;
pub(crate) mod kv_file_writer;
pub(crate) mod kv_layout;
pub(crate) mod merge;
pub(crate) mod merge_sort;
pub(crate) mod radix_sort;
pub(crate) mod sort_buffer;
pub(crate) mod sort_key;
