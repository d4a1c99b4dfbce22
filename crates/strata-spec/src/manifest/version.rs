//! The `_VERSION` format identifiers of manifest records and their check, as Java's
//! serializers do it. A leaf under every codec and the lazy walker.

use crate::error::{Result, SpecError};

/// `_VERSION` of manifest entries.
pub const MANIFEST_ENTRY_VERSION: i32 = 2;

/// Checks the `_VERSION` format identifier like Java's serializers do.
pub(crate) fn check_version(what: &str, found: i32, expected: i32) -> Result<()> {
    if found == expected {
        Ok(())
    } else if found == 1 && expected == 2 {
        Err(SpecError::Unsupported(format!(
            "{what} format version 1 (an early Paimon release) is not compatible with \
             version 2; recreate the table"
        )))
    } else {
        Err(SpecError::Unsupported(format!(
            "{what} format version {found} (expected {expected})"
        )))
    }
}
