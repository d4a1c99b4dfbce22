//! (being written)
use super::TypeKind;
/// SQL text of an atomic (non-nested) type kind, without nullability.
pub fn atomic_type_text(kind: &TypeKind) -> String {
    format!("{kind:?}")
}
