//! The LSM layer of primary-key tables (lsm-algorithms.md §1, §4).
//!
//! | module | what |
//! |---|---|
//! | [`merge`] | merge engines: how the records of one key become one (deduplicate, partial-update, aggregation, first-row) |
