//! What strata does with each table option Java Paimon knows: the audit behind strata's rule
//! that an option it does not implement is refused, never accepted and silently ignored.
//!
//! [`known`](super::known) lists every key of Java's `CoreOptions` (plus the table-level
//! keys of the Flink and Spark connectors) so that misspelt keys are rejected. That list says
//! nothing about what strata does with a key. This module classifies every one of them:
//!
//! * [`OptionSupport::Implemented`]: strata reads the option and acts on it (the integration
//!   test `crates/strata/tests/option_support.rs` fails when nothing outside this options
//!   module reads a key classified so);
//! * [`OptionSupport::NoEffectOnData`]: strata may store and ignore it and no reader or
//!   writer is wrong — settings of Flink/Spark jobs, sources, sinks, lookup joins, caches,
//!   memory, streaming reads, or sub-options of a feature that is itself refused;
//! * [`OptionSupport::Unsupported`]: it changes what is written, how rows merge, which rows a
//!   read returns or what a commit must contain, and strata does not implement it. Each such
//!   key lists the values that are harmless (Java's default, or values equivalent to it);
//!   [`unsupported_options`] reports a set key whose value is not one of them.
//!
//! Every key also has a read class ([`ReadSupport`]): honoured by strata's reads, without
//! effect on the rows a read returns, or refused (a read of a table that sets it fails before
//! returning a row; some only for streams) — [`refused_read_options`], applied by every scan.
//! An unsupported key is refused on reads too unless marked otherwise, so a key nobody
//! reviewed for reads is never ignored.
//!
//! The tables (`support/table.rs`, one line per key) are per exact key (`KNOWN_KEYS`), per
//! family (`KNOWN_PREFIXES`: the class of family keys without an entry of their own), family
//! keys whose class differs from their family's (`log.system`, `metadata.iceberg.storage`,
//! `scan.partitions`), and per-column options by suffix (`fields.<column>.<suffix>`). A few
//! implemented keys have values strata does not implement (`bucket = -2`);
//! [`unsupported_options`] reports those too.
//!
//! Keeping it current: every key added to `KNOWN_KEYS` or `KNOWN_PREFIXES` needs an entry
//! here (the unit tests fail until it has one, and when an entry names a key `known.rs` no
//! longer has). When strata starts implementing an option, move it to `implemented(..)` —
//! the integration test then checks that strata's sources read it — and drop its harmless
//! values; when it implements only some values, list the others in `UNSUPPORTED_VALUES`.
//! Meanings follow Java Paimon's `CoreOptions`, `FlinkConnectorOptions`,
//! `SparkConnectorOptions` and `IcebergOptions` (apache/paimon master 5dacde516b).

use std::collections::BTreeMap;

use super::keys::FIELDS_PREFIX;
use entry::Entry;
pub use entry::{OptionSupport, ReadSupport};

/// The class of `key`: an exact option key, a family name of `KNOWN_PREFIXES` itself
/// (`"parquet."`), a key of such a family, or a per-column option `fields.<column>.<suffix>`.
/// `None` for keys Java does not know, including per-column options with an unknown suffix.
pub fn option_support(key: &str) -> Option<OptionSupport> {
    entry(key).map(|e| e.support)
}

/// The values of an [`OptionSupport::Unsupported`] key that are harmless (compared
/// case-insensitively, as Java parses booleans and enums); empty when every set value is
/// unsupported or the key is not unsupported.
pub fn harmless_values(key: &str) -> &'static [&'static str] {
    entry(key).map_or(&[], |e| e.harmless)
}

/// The set options strata does not implement, with the reason: keys classified
/// [`OptionSupport::Unsupported`] whose value is not harmless, values of implemented keys that
/// strata does not implement (`UNSUPPORTED_VALUES`), and per-column options `fields.<c>.<s>`
/// with a suffix Java does not know. Other keys Java does not know are not reported here
/// (`options::validate` rejects them).
pub fn unsupported_options(options: &BTreeMap<String, String>) -> Vec<(String, &'static str)> {
    options
        .iter()
        .filter_map(|(key, value)| {
            let reason = match entry(key) {
                Some(e) => e.refusal(value)?,
                None if field_suffix(key).is_some() => UNKNOWN_FIELD_OPTION,
                None => return None,
            };
            Some((key.clone(), reason))
        })
        .collect()
}

/// The read class of `key` (see [`option_support`] for which keys are known). `None` for keys
/// Java does not know.
pub fn read_support(key: &str) -> Option<ReadSupport> {
    entry(key).map(|e| e.read)
}

/// The values of a read-[`ReadSupport::Refused`] key that reads may ignore (compared
/// case-insensitively).
pub fn read_harmless_values(key: &str) -> &'static [&'static str] {
    entry(key).map_or(&[], |e| e.read_harmless)
}

/// The set options a read refuses, with the reason: keys classified [`ReadSupport::Refused`]
/// whose value is not harmless (streaming-only ones only when `streaming`). Keys Java does not
/// know are not reported (Java ignores them on read too).
pub fn refused_read_options(
    options: &BTreeMap<String, String>,
    streaming: bool,
) -> Vec<(String, &'static str)> {
    options
        .iter()
        .filter_map(|(key, value)| {
            let e = entry(key)?;
            let ReadSupport::Refused {
                why,
                streaming_only,
            } = e.read
            else {
                return None;
            };
            if streaming_only && !streaming {
                return None;
            }
            let harmless = e
                .read_harmless
                .iter()
                .any(|h| h.eq_ignore_ascii_case(value));
            (!harmless).then(|| (key.clone(), why))
        })
        .collect()
}

/// The per-column option suffixes (`fields.<column>.<suffix>`) and their classes.
pub fn field_option_suffixes() -> impl Iterator<Item = (&'static str, OptionSupport)> {
    FIELD_SUFFIXES.iter().map(|e| (e.key, e.support))
}

const UNKNOWN_FIELD_OPTION: &str = "a per-column option Java Paimon does not know";

fn find(table: &'static [Entry], key: &str) -> Option<&'static Entry> {
    table
        .binary_search_by(|e| e.key.cmp(key))
        .ok()
        .map(|i| &table[i])
}

/// `fields.<rest>` with a non-empty rest: the part after `fields.`.
fn field_suffix(key: &str) -> Option<&str> {
    key.strip_prefix(FIELDS_PREFIX)
        .filter(|rest| !rest.is_empty())
}

fn entry(key: &str) -> Option<&'static Entry> {
    if let Some(e) = find(KEYS, key)
        .or_else(|| find(FAMILY_KEYS, key))
        .or_else(|| find(PREFIXES, key))
    {
        return Some(e);
    }
    if let Some(rest) = field_suffix(key) {
        return field_entry(rest);
    }
    PREFIXES
        .iter()
        .filter(|p| key.starts_with(p.key))
        .max_by_key(|p| p.key.len())
}

/// The per-column option of `fields.<rest>`: `fields.default-aggregate-function`, or
/// `<column>.<suffix>` with the longest known suffix.
fn field_entry(rest: &str) -> Option<&'static Entry> {
    if rest == DEFAULT_AGGREGATE_FUNCTION.key {
        return Some(&DEFAULT_AGGREGATE_FUNCTION);
    }
    FIELD_SUFFIXES
        .iter()
        .filter(|e| {
            rest.strip_suffix(e.key)
                .and_then(|column| column.strip_suffix('.'))
                .is_some_and(|column| !column.is_empty())
        })
        .max_by_key(|e| e.key.len())
}

mod entry;
mod table;
#[cfg(test)]
mod tests;

use table::{DEFAULT_AGGREGATE_FUNCTION, FAMILY_KEYS, FIELD_SUFFIXES, KEYS, PREFIXES};
