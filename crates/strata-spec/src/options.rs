//! Table options (`CoreOptions`): option names, Java's defaults, typed getters and validation.
//!
//! A table's options are the string map stored in its schema file. [`CoreOptions`] is a typed
//! view over that map: each getter reads one option, falls back to Java Paimon's default
//! (`paimon-api/.../CoreOptions.java`), and parses the text the way Java does — integers and
//! booleans strictly (`Integer.parseInt`, case-insensitive `true`/`false`, no trimming), enum
//! values case-insensitively, memory sizes and durations with units ([`units`]). A value that
//! does not parse is an error naming the option and the value, never a silent default.
//!
//! [`validate`] checks a whole option map at table creation: every key must be an option Java
//! knows (exact key or a pass-through family such as `fields.`, `parquet.`, `sink.`), and the
//! options strata interprets must hold valid values.

mod core_options;
pub mod keys;
pub mod known;
pub mod support;
#[cfg(test)]
mod tests;
pub mod units;
mod validate;

pub use core_options::CoreOptions;
pub use keys::*;
pub use validate::{is_known_key, validate};
