//! [`FieldIds`]: how fields without an `id` get one while a type is parsed (from schema JSON
//! or SQL type text), and the all-or-none check on explicit ids. A leaf below both parsers.

use crate::error::{Result, SpecError};

/// Field id given to fields whose id is not known yet (see [`FieldIds::unassigned`]).
pub const UNASSIGNED_FIELD_ID: i32 = -1;

/// How fields without an `id` get one while parsing, and the check that ids are either all
/// present or all missing.
#[derive(Debug, Clone)]
pub struct FieldIds {
    mode: IdMode,
    last: i32,
    saw_explicit: bool,
    saw_missing: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdMode {
    /// Java's parser: 0, 1, 2, … in document order.
    Sequential,
    /// Leave [`UNASSIGNED_FIELD_ID`]; a later step (table creation) numbers them.
    Unassigned,
}

impl FieldIds {
    /// Missing ids are numbered 0, 1, 2, … in document order (parent before children).
    pub fn sequential() -> Self {
        FieldIds {
            mode: IdMode::Sequential,
            last: -1,
            saw_explicit: false,
            saw_missing: false,
        }
    }

    /// Missing ids become [`UNASSIGNED_FIELD_ID`].
    pub fn unassigned() -> Self {
        FieldIds {
            mode: IdMode::Unassigned,
            ..Self::sequential()
        }
    }

    /// The id of field `name`, given the id found in the input (if any).
    pub(crate) fn take(&mut self, explicit: Option<i32>, name: &str) -> Result<i32> {
        match explicit {
            Some(id) => {
                if self.saw_missing {
                    return Err(partial_ids(name));
                }
                self.saw_explicit = true;
                Ok(id)
            }
            None => {
                if self.saw_explicit {
                    return Err(partial_ids(name));
                }
                self.saw_missing = true;
                Ok(match self.mode {
                    IdMode::Sequential => {
                        self.last += 1;
                        self.last
                    }
                    IdMode::Unassigned => UNASSIGNED_FIELD_ID,
                })
            }
        }
    }
}

fn partial_ids(name: &str) -> SpecError {
    SpecError::invalid(
        format!("field `{name}`"),
        "field ids must be given for all fields or for none (partial field ids are not allowed)",
    )
}
