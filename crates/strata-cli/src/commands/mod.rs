//! The commands, one file (or folder) each; `crate::dispatch` hands each parsed command to the
//! file that implements it. Nothing here is called back by a command; what commands share
//! sits below them (`crate::error`, `crate::output`, `crate::json_values`, `crate::input`,
//! `crate::columns`, `crate::compaction_report`). The clap types of `crate::cli` name the
//! argument types defined here, so this folder never imports `cli`.

pub(crate) mod branches;
pub(crate) mod catalog;
pub(crate) mod compact;
pub(crate) mod demo;
pub mod levels;
pub mod maintenance;
pub(crate) mod metadata;
pub mod read;
pub(crate) mod rescale;
pub(crate) mod rewrite_file_index;
pub mod scan;
pub(crate) mod serve;
pub mod sql;
pub mod tail;
pub(crate) mod update_columns;
pub mod views;
pub(crate) mod write;
