//! The vocabulary of the option audit: what strata does with a key on writes
//! ([`OptionSupport`]) and on reads ([`ReadSupport`]), and the [`Entry`] that classifies one key,
//! family or per-column suffix, with its `const` builders. Below both the audit's data
//! (`table`) and its rules (`support.rs`).

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

/// Values of implemented keys that strata does not implement: (key, values, reason).
pub(super) const UNSUPPORTED_VALUES: &[(&str, &[&str], &str)] = &[];

/// One classified key, family or per-column suffix.
#[derive(Debug)]
pub(super) struct Entry {
    pub(super) key: &'static str,
    pub(super) support: OptionSupport,
    /// Harmless values of an unsupported key (empty for the other classes).
    pub(super) harmless: &'static [&'static str],
    /// What reads do with it.
    pub(super) read: ReadSupport,
    /// Harmless values of a read-refused key.
    pub(super) read_harmless: &'static [&'static str],
}

impl Entry {
    /// Why `value` is refused, if it is.
    pub(super) fn refusal(&self, value: &str) -> Option<&'static str> {
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
pub(super) const fn implemented(key: &'static str) -> Entry {
    Entry {
        key,
        support: OptionSupport::Implemented,
        harmless: &[],
        read: ReadSupport::NoEffect(WRITE_SIDE),
        read_harmless: &[],
    }
}

/// A key without effect on data. Reads: no effect for the same reason unless marked.
pub(super) const fn no_effect(key: &'static str, why: &'static str) -> Entry {
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
pub(super) const fn unsupported(
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
    pub(super) const fn read_honoured(self) -> Entry {
        Entry {
            read: ReadSupport::Honoured,
            read_harmless: &[],
            ..self
        }
    }

    /// It does not change what a read returns.
    pub(super) const fn read_no_effect(self, why: &'static str) -> Entry {
        Entry {
            read: ReadSupport::NoEffect(why),
            read_harmless: &[],
            ..self
        }
    }

    /// Reads refuse values other than `harmless`.
    pub(super) const fn read_refused(
        self,
        why: &'static str,
        harmless: &'static [&'static str],
    ) -> Entry {
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
    pub(super) const fn stream_refused(
        self,
        why: &'static str,
        harmless: &'static [&'static str],
    ) -> Entry {
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

/// The read class of implemented keys by default.
pub(super) const WRITE_SIDE: &str =
    "a setting of how files are written, compacted, committed or expired; reads return the same rows whatever its value";
