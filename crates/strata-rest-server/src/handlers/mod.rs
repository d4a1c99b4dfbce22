//! The handlers, one file per resource of Paimon's REST catalog API; what they share (the JSON
//! body extractor, paging, table loading) is in `common`.

pub(crate) mod branches;
pub(crate) mod commit;
mod common;
pub(crate) mod config;
pub(crate) mod consumers;
pub(crate) mod databases;
pub(crate) mod functions;
pub(crate) mod partitions;
pub(crate) mod snapshots;
pub(crate) mod tables;
pub(crate) mod tags;
pub(crate) mod views;
