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

use super::keys::{BUCKET, FIELDS_PREFIX};

/// What strata does with one table option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionSupport {
    /// strata reads the option and acts on it.
    Implemented,
    /// strata can store the option and ignore it without any reader or writer being wrong;
    /// the text says why.
    NoEffectOnData(&'static str),
    /// The option changes data, merging, file layout, commits or what readers must see, and
    /// strata does not implement it; the text says what Java does. Only values other than the
    /// key's harmless values ([`harmless_values`]) matter.
    Unsupported(&'static str),
}

/// What strata's reads do with one table option: the read side of the audit. A read of a
/// table (batch, incremental or streaming; CLI, SQL, Python) checks the table's options with
/// [`refused_read_options`] before it returns a row, so an option that changes which rows a
/// reader must return is either honoured or refused by name — never ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadSupport {
    /// A read path of strata honours the option (the integration test
    /// `crates/strata/tests/it/option_support.rs` fails when no read path reads a key
    /// classified so).
    Honoured,
    /// The option cannot change which rows a read returns or their values; the text says why.
    NoEffect(&'static str),
    /// The option changes what a read must return and strata does not honour it: a read of a
    /// table that sets it to anything but its harmless values ([`read_harmless_values`]) is
    /// refused. `streaming_only`: it matters only to streaming reads (batch reads ignore it
    /// rightly), so only streaming reads are refused.
    Refused {
        why: &'static str,
        streaming_only: bool,
    },
}

impl ReadSupport {
    /// The one-line reason (`None` for [`ReadSupport::Honoured`]).
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            ReadSupport::Honoured => None,
            ReadSupport::NoEffect(r) => Some(r),
            ReadSupport::Refused { why, .. } => Some(why),
        }
    }
}

impl OptionSupport {
    /// The one-line reason (`None` for [`OptionSupport::Implemented`]).
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            OptionSupport::Implemented => None,
            OptionSupport::NoEffectOnData(r) | OptionSupport::Unsupported(r) => Some(r),
        }
    }
}

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

/// Values of implemented keys that strata does not implement: (key, values, reason).
const UNSUPPORTED_VALUES: &[(&str, &[&str], &str)] = &[(
    BUCKET,
    &["-2"],
    "postpone bucket mode: Java writes rows to `bucket-postpone` and only a postpone \
     compaction moves them into real buckets; strata's writers and compactions do not \
     (its reads see the real buckets only, as Java's batch reads do)",
)];

/// One classified key, family or per-column suffix.
#[derive(Debug)]
struct Entry {
    key: &'static str,
    support: OptionSupport,
    /// Harmless values of an unsupported key (empty for the other classes).
    harmless: &'static [&'static str],
    /// What reads do with it.
    read: ReadSupport,
    /// Harmless values of a read-refused key.
    read_harmless: &'static [&'static str],
}

impl Entry {
    /// Why `value` is refused, if it is.
    fn refusal(&self, value: &str) -> Option<&'static str> {
        match self.support {
            OptionSupport::Unsupported(reason) => {
                let harmless = self.harmless.iter().any(|h| h.eq_ignore_ascii_case(value));
                (!harmless).then_some(reason)
            }
            OptionSupport::Implemented => UNSUPPORTED_VALUES
                .iter()
                .find(|(key, values, _)| *key == self.key && values.contains(&value))
                .map(|(_, _, reason)| *reason),
            OptionSupport::NoEffectOnData(_) => None,
        }
    }
}

/// An implemented key. Reads: no effect (a setting of writes, compaction, commits or
/// expiry) unless marked [`Entry::read_honoured`] or [`Entry::read_refused`].
const fn implemented(key: &'static str) -> Entry {
    Entry {
        key,
        support: OptionSupport::Implemented,
        harmless: &[],
        read: ReadSupport::NoEffect(WRITE_SIDE),
        read_harmless: &[],
    }
}

/// A key without effect on data. Reads: no effect for the same reason unless marked.
const fn no_effect(key: &'static str, why: &'static str) -> Entry {
    Entry {
        key,
        support: OptionSupport::NoEffectOnData(why),
        harmless: &[],
        read: ReadSupport::NoEffect(why),
        read_harmless: &[],
    }
}

/// An unsupported key. Reads: refused with the same reason and harmless values unless marked
/// [`Entry::read_no_effect`] — the conservative default, so a key nobody reviewed for reads
/// is refused rather than ignored.
const fn unsupported(
    key: &'static str,
    why: &'static str,
    harmless: &'static [&'static str],
) -> Entry {
    Entry {
        key,
        support: OptionSupport::Unsupported(why),
        harmless,
        read: ReadSupport::Refused {
            why,
            streaming_only: false,
        },
        read_harmless: harmless,
    }
}

impl Entry {
    /// Reads honour it.
    const fn read_honoured(self) -> Entry {
        Entry {
            read: ReadSupport::Honoured,
            read_harmless: &[],
            ..self
        }
    }

    /// It does not change what a read returns.
    const fn read_no_effect(self, why: &'static str) -> Entry {
        Entry {
            read: ReadSupport::NoEffect(why),
            read_harmless: &[],
            ..self
        }
    }

    /// Reads refuse values other than `harmless`.
    const fn read_refused(self, why: &'static str, harmless: &'static [&'static str]) -> Entry {
        Entry {
            read: ReadSupport::Refused {
                why,
                streaming_only: false,
            },
            read_harmless: harmless,
            ..self
        }
    }

    /// Streaming reads refuse values other than `harmless`; batch reads are right without it.
    const fn stream_refused(self, why: &'static str, harmless: &'static [&'static str]) -> Entry {
        Entry {
            read: ReadSupport::Refused {
                why,
                streaming_only: true,
            },
            read_harmless: harmless,
            ..self
        }
    }
}

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

mod table;
#[cfg(test)]
mod tests;

/// The read class of implemented keys by default.
const WRITE_SIDE: &str =
    "a setting of how files are written, compacted, committed or expired; reads return the same rows whatever its value";

use table::{DEFAULT_AGGREGATE_FUNCTION, FAMILY_KEYS, FIELD_SUFFIXES, KEYS, PREFIXES};
