//! Which type changes Paimon allows: Java's `DataTypeCasts` (implicit and explicit casting
//! rules by type root) and the existence of a cast executor (`CastExecutors.resolve`).
//!
//! `SchemaManager` accepts `ALTER COLUMN … TYPE` only when both hold:
//! [`supports_cast`]`(old, new, allow_explicit)` and [`has_cast_rule`]`(old, new)`. Like Java,
//! the rules look at type *roots* only: precision, scale and length play no part
//! (`DECIMAL(10, 2)` → `DECIMAL(5, 2)` and `VARCHAR(10)` → `VARCHAR(3)` are implicit casts).
//! Whether strata's reader can convert the values of existing files exactly as Java does is a
//! separate question (`strata::format::evolve::check_readable_type_change`).

use super::{DataType, TypeKind, MAX_LENGTH};

/// `org.apache.paimon.types.DataTypeRoot`, for the kinds strata models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeRoot {
    Char,
    VarChar,
    Boolean,
    Binary,
    VarBinary,
    Decimal,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    Date,
    Time,
    Timestamp,
    LocalZonedTimestamp,
    Variant,
    Blob,
    Array,
    Multiset,
    Map,
    Row,
}

/// `org.apache.paimon.types.DataTypeFamily`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeFamily {
    Predefined,
    Constructed,
    CharacterString,
    BinaryString,
    Numeric,
    IntegerNumeric,
    ExactNumeric,
    ApproximateNumeric,
    Datetime,
    Time,
    Timestamp,
    Collection,
    Extension,
}

impl TypeRoot {
    /// The root of a type.
    pub fn of(t: &DataType) -> TypeRoot {
        match &t.kind {
            TypeKind::Boolean => TypeRoot::Boolean,
            TypeKind::TinyInt => TypeRoot::TinyInt,
            TypeKind::SmallInt => TypeRoot::SmallInt,
            TypeKind::Int => TypeRoot::Int,
            TypeKind::BigInt => TypeRoot::BigInt,
            TypeKind::Float => TypeRoot::Float,
            TypeKind::Double => TypeRoot::Double,
            TypeKind::Decimal { .. } => TypeRoot::Decimal,
            TypeKind::Char(_) => TypeRoot::Char,
            TypeKind::VarChar(_) => TypeRoot::VarChar,
            TypeKind::Binary(_) => TypeRoot::Binary,
            TypeKind::VarBinary(_) => TypeRoot::VarBinary,
            TypeKind::Date => TypeRoot::Date,
            TypeKind::Time(_) => TypeRoot::Time,
            TypeKind::Timestamp(_) => TypeRoot::Timestamp,
            TypeKind::LocalZonedTimestamp(_) => TypeRoot::LocalZonedTimestamp,
            TypeKind::Array(_) => TypeRoot::Array,
            TypeKind::Multiset(_) => TypeRoot::Multiset,
            TypeKind::Map { .. } => TypeRoot::Map,
            TypeKind::Row(_) => TypeRoot::Row,
            TypeKind::Variant => TypeRoot::Variant,
            TypeKind::Blob => TypeRoot::Blob,
        }
    }

    /// The families of this root, as Java's `DataTypeRoot` declares them.
    pub fn families(self) -> &'static [TypeFamily] {
        use TypeFamily as F;
        match self {
            TypeRoot::Char | TypeRoot::VarChar => &[F::Predefined, F::CharacterString],
            TypeRoot::Boolean | TypeRoot::Variant | TypeRoot::Blob => &[F::Predefined],
            TypeRoot::Binary | TypeRoot::VarBinary => &[F::Predefined, F::BinaryString],
            TypeRoot::Decimal => &[F::Predefined, F::Numeric, F::ExactNumeric],
            TypeRoot::TinyInt | TypeRoot::SmallInt | TypeRoot::Int | TypeRoot::BigInt => &[
                F::Predefined,
                F::Numeric,
                F::IntegerNumeric,
                F::ExactNumeric,
            ],
            TypeRoot::Float | TypeRoot::Double => {
                &[F::Predefined, F::Numeric, F::ApproximateNumeric]
            }
            TypeRoot::Date => &[F::Predefined, F::Datetime],
            TypeRoot::Time => &[F::Predefined, F::Datetime, F::Time],
            TypeRoot::Timestamp => &[F::Predefined, F::Datetime, F::Timestamp],
            TypeRoot::LocalZonedTimestamp => {
                &[F::Predefined, F::Datetime, F::Timestamp, F::Extension]
            }
            TypeRoot::Array | TypeRoot::Multiset => &[F::Constructed, F::Collection],
            TypeRoot::Map => &[F::Constructed, F::Extension],
            TypeRoot::Row => &[F::Constructed],
        }
    }

    fn is(self, family: TypeFamily) -> bool {
        self.families().contains(&family)
    }
}

/// A set of roots given as roots and families (the arguments of Java's `CastingRuleBuilder`
/// and `CastRulePredicate.Builder`).
#[derive(Clone, Copy)]
struct RootSet {
    roots: &'static [TypeRoot],
    families: &'static [TypeFamily],
}

impl RootSet {
    const NONE: RootSet = RootSet {
        roots: &[],
        families: &[],
    };
    const fn roots(roots: &'static [TypeRoot]) -> RootSet {
        RootSet {
            roots,
            families: &[],
        }
    }
    const fn families(families: &'static [TypeFamily]) -> RootSet {
        RootSet {
            roots: &[],
            families,
        }
    }
    const fn both(roots: &'static [TypeRoot], families: &'static [TypeFamily]) -> RootSet {
        RootSet { roots, families }
    }
    fn contains(&self, root: TypeRoot) -> bool {
        self.roots.contains(&root) || self.families.iter().any(|f| root.is(*f))
    }
}

/// (implicit sources, explicit sources) of casts to `target` (Java's static rule table; the
/// identity cast of every root is implicit and handled by the caller).
fn casting_rules(target: TypeRoot) -> (RootSet, RootSet) {
    use TypeFamily as F;
    use TypeRoot as R;
    const TIMESTAMPS: &[TypeRoot] = &[R::Timestamp, R::LocalZonedTimestamp];
    const BOOL_AND_TIMESTAMPS: &[TypeRoot] = &[R::Boolean, R::Timestamp, R::LocalZonedTimestamp];
    match target {
        R::Char => (
            RootSet::roots(&[R::Char]),
            RootSet::families(&[F::Predefined, F::Constructed]),
        ),
        R::VarChar => (
            RootSet::families(&[F::CharacterString]),
            RootSet::families(&[F::Predefined, F::Constructed]),
        ),
        R::Boolean => (
            RootSet::roots(&[R::Boolean]),
            RootSet::families(&[F::CharacterString, F::IntegerNumeric]),
        ),
        R::Binary => (
            RootSet::roots(&[R::Binary]),
            RootSet::both(&[R::VarBinary], &[F::CharacterString]),
        ),
        R::VarBinary => (
            RootSet::families(&[F::BinaryString]),
            RootSet::both(&[R::Binary], &[F::CharacterString]),
        ),
        R::Decimal => (
            RootSet::families(&[F::Numeric]),
            RootSet::both(BOOL_AND_TIMESTAMPS, &[F::CharacterString]),
        ),
        R::TinyInt => (
            RootSet::roots(&[R::TinyInt]),
            RootSet::both(BOOL_AND_TIMESTAMPS, &[F::Numeric, F::CharacterString]),
        ),
        R::SmallInt => (
            RootSet::roots(&[R::TinyInt, R::SmallInt]),
            RootSet::both(BOOL_AND_TIMESTAMPS, &[F::Numeric, F::CharacterString]),
        ),
        R::Int => (
            RootSet::roots(&[R::TinyInt, R::SmallInt, R::Int]),
            RootSet::both(BOOL_AND_TIMESTAMPS, &[F::Numeric, F::CharacterString]),
        ),
        R::BigInt => (
            RootSet::roots(&[R::TinyInt, R::SmallInt, R::Int, R::BigInt]),
            RootSet::both(BOOL_AND_TIMESTAMPS, &[F::Numeric, F::CharacterString]),
        ),
        R::Float => (
            RootSet::roots(&[
                R::TinyInt,
                R::SmallInt,
                R::Int,
                R::BigInt,
                R::Float,
                R::Decimal,
            ]),
            RootSet::both(BOOL_AND_TIMESTAMPS, &[F::Numeric, F::CharacterString]),
        ),
        R::Double => (
            RootSet::families(&[F::Numeric]),
            RootSet::both(BOOL_AND_TIMESTAMPS, &[F::CharacterString]),
        ),
        R::Date => (
            RootSet::roots(&[R::Date, R::Timestamp]),
            RootSet::families(&[F::Timestamp, F::CharacterString]),
        ),
        R::Time => (
            RootSet::roots(&[R::Time, R::Timestamp]),
            RootSet::families(&[F::Time, F::Timestamp, F::CharacterString]),
        ),
        R::Timestamp | R::LocalZonedTimestamp => (
            RootSet::roots(TIMESTAMPS),
            RootSet::families(&[F::Datetime, F::CharacterString, F::Numeric]),
        ),
        R::Variant | R::Blob | R::Array | R::Multiset | R::Map | R::Row => {
            (RootSet::NONE, RootSet::NONE)
        }
    }
}

/// Java's `DataTypeCasts.supportsCast(source, target, allowExplicit)`: whether values of
/// `source` can be cast to `target` — implicitly (widening, without losing information) or,
/// with `allow_explicit`, as SQL's `CAST` allows. A nullable source cannot be cast to a NOT
/// NULL target implicitly.
pub fn supports_cast(source: &DataType, target: &DataType, allow_explicit: bool) -> bool {
    if source.nullable && !target.nullable && !allow_explicit {
        return false;
    }
    if source.with_nullable(true) == target.with_nullable(true) {
        return true;
    }
    let (s, t) = (TypeRoot::of(source), TypeRoot::of(target));
    if s == t {
        // Every root casts implicitly to itself (`castTo(root).implicitFrom(root)`).
        return true;
    }
    let (implicit, explicit) = casting_rules(t);
    implicit.contains(s) || (allow_explicit && explicit.contains(s))
}

/// One of Java's `CastRule`s: its input and target roots/families. `exact_string_target`
/// marks the rules registered for the exact type `STRING` (nullable `VARCHAR(2147483647)`)
/// rather than a root.
struct CastRule {
    input: RootSet,
    target: RootSet,
    exact_string_target: bool,
}

const fn rule(input: RootSet, target: RootSet) -> CastRule {
    CastRule {
        input,
        target,
        exact_string_target: false,
    }
}

/// The rules registered in Java's `CastExecutors` (paimon-common `casting/*CastRule`).
const CAST_RULES: &[CastRule] = {
    use TypeFamily as F;
    use TypeRoot as R;
    const NUMERIC_PRIMITIVE: RootSet =
        RootSet::families(&[F::IntegerNumeric, F::ApproximateNumeric]);
    const STRINGS: RootSet = RootSet::families(&[F::CharacterString]);
    const TIMESTAMPS: RootSet = RootSet::roots(&[R::Timestamp, R::LocalZonedTimestamp]);
    &[
        // DecimalToDecimal, NumericPrimitiveToDecimal, DecimalToNumericPrimitive
        rule(RootSet::roots(&[R::Decimal]), RootSet::roots(&[R::Decimal])),
        rule(NUMERIC_PRIMITIVE, RootSet::roots(&[R::Decimal])),
        rule(RootSet::roots(&[R::Decimal]), NUMERIC_PRIMITIVE),
        // NumericPrimitive, NumericPrimitiveToTimestamp
        rule(NUMERIC_PRIMITIVE, NUMERIC_PRIMITIVE),
        rule(RootSet::families(&[F::Numeric]), TIMESTAMPS),
        // BooleanToNumeric, NumericToBoolean
        rule(
            RootSet::roots(&[R::Boolean]),
            RootSet::families(&[F::Numeric]),
        ),
        rule(
            RootSet::families(&[F::IntegerNumeric]),
            RootSet::roots(&[R::Boolean]),
        ),
        // NumericToString, BooleanToString
        rule(RootSet::families(&[F::Numeric]), STRINGS),
        rule(RootSet::roots(&[R::Boolean]), STRINGS),
        // TimestampToString, TimeToString, DateToString: registered for STRING only
        CastRule {
            input: RootSet::families(&[F::Timestamp]),
            target: RootSet::NONE,
            exact_string_target: true,
        },
        CastRule {
            input: RootSet::roots(&[R::Time]),
            target: RootSet::NONE,
            exact_string_target: true,
        },
        CastRule {
            input: RootSet::roots(&[R::Date]),
            target: RootSet::NONE,
            exact_string_target: true,
        },
        // StringToString, ArrayToString, MapToString, RowToString
        rule(STRINGS, STRINGS),
        rule(RootSet::roots(&[R::Array]), STRINGS),
        rule(RootSet::roots(&[R::Map]), STRINGS),
        rule(RootSet::roots(&[R::Row]), STRINGS),
        // StringTo{Boolean, Decimal, NumericPrimitive, Date, Time, Timestamp, Binary, Array,
        // Map, Row}
        rule(STRINGS, RootSet::roots(&[R::Boolean])),
        rule(STRINGS, RootSet::roots(&[R::Decimal])),
        rule(STRINGS, NUMERIC_PRIMITIVE),
        rule(STRINGS, RootSet::roots(&[R::Date])),
        rule(STRINGS, RootSet::roots(&[R::Time])),
        rule(STRINGS, RootSet::families(&[F::Timestamp])),
        rule(STRINGS, RootSet::families(&[F::BinaryString])),
        rule(STRINGS, RootSet::roots(&[R::Array])),
        rule(STRINGS, RootSet::roots(&[R::Map])),
        rule(STRINGS, RootSet::roots(&[R::Row])),
        // TimestampToTimestamp, TimestampToDate, TimestampToTime, DateToTimestamp,
        // TimeToTimestamp, TimestampToNumericPrimitive
        rule(TIMESTAMPS, TIMESTAMPS),
        rule(TIMESTAMPS, RootSet::roots(&[R::Date])),
        rule(TIMESTAMPS, RootSet::roots(&[R::Time])),
        rule(RootSet::roots(&[R::Date]), TIMESTAMPS),
        rule(RootSet::roots(&[R::Time]), TIMESTAMPS),
        rule(TIMESTAMPS, RootSet::roots(&[R::BigInt, R::Int])),
        // BinaryToBinary, BinaryToString
        rule(
            RootSet::families(&[F::BinaryString]),
            RootSet::families(&[F::BinaryString]),
        ),
        rule(RootSet::families(&[F::BinaryString]), STRINGS),
    ]
};

/// Whether Java's `CastExecutors.resolve(source, target)` finds a cast rule: some registered
/// rule takes `source`'s root and produces `target` (its root or families, or exactly `STRING`
/// for the date/time to string rules). Nested types (ARRAY, MAP, ROW) have no rule as
/// targets except from strings, so changing a nested type as a whole is refused; their
/// element, value or field types are changed through a nested column path instead.
pub fn has_cast_rule(source: &DataType, target: &DataType) -> bool {
    let (s, t) = (TypeRoot::of(source), TypeRoot::of(target));
    let exact_string = target.nullable && target.kind == TypeKind::VarChar(MAX_LENGTH);
    CAST_RULES.iter().any(|r| {
        r.input.contains(s) && (r.target.contains(t) || (r.exact_string_target && exact_string))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(kind: TypeKind) -> DataType {
        DataType::nullable(kind)
    }

    fn allowed(a: &DataType, b: &DataType, explicit: bool) -> bool {
        supports_cast(a, b, explicit) && has_cast_rule(a, b)
    }

    #[test]
    fn widening_is_implicit() {
        let int = t(TypeKind::Int);
        for wider in [
            TypeKind::BigInt,
            TypeKind::Float,
            TypeKind::Double,
            TypeKind::Decimal {
                precision: 10,
                scale: 0,
            },
        ] {
            assert!(allowed(&int, &t(wider.clone()), false), "{wider:?}");
        }
        assert!(allowed(&t(TypeKind::Float), &t(TypeKind::Double), false));
        assert!(allowed(
            &t(TypeKind::VarChar(3)),
            &t(TypeKind::VarChar(10)),
            false
        ));
        // Roots only: narrowing a length or precision is implicit too.
        assert!(allowed(
            &t(TypeKind::VarChar(10)),
            &t(TypeKind::VarChar(3)),
            false
        ));
        let d = |p, s| {
            t(TypeKind::Decimal {
                precision: p,
                scale: s,
            })
        };
        assert!(allowed(&d(10, 2), &d(5, 2), false));
        assert!(allowed(
            &t(TypeKind::Timestamp(3)),
            &t(TypeKind::Timestamp(6)),
            false
        ));
        assert!(allowed(
            &t(TypeKind::Timestamp(3)),
            &t(TypeKind::LocalZonedTimestamp(3)),
            false
        ));
    }

    #[test]
    fn narrowing_needs_explicit_casts() {
        let (big, int) = (t(TypeKind::BigInt), t(TypeKind::Int));
        assert!(!allowed(&big, &int, false));
        assert!(allowed(&big, &int, true));
        assert!(!allowed(&t(TypeKind::Double), &t(TypeKind::Float), false));
        assert!(allowed(&t(TypeKind::Double), &t(TypeKind::Float), true));
        assert!(allowed(&t(TypeKind::Int), &DataType::string(), true));
        assert!(allowed(&DataType::string(), &t(TypeKind::Int), true));
        assert!(!allowed(&DataType::string(), &t(TypeKind::Int), false));
    }

    #[test]
    fn casts_without_an_executor_are_refused() {
        // Explicitly castable by DataTypeCasts, but no CastRule produces VARCHAR(10) from a
        // DATE (DateToStringCastRule is registered for STRING only).
        let date = t(TypeKind::Date);
        assert!(supports_cast(&date, &t(TypeKind::VarChar(10)), true));
        assert!(!has_cast_rule(&date, &t(TypeKind::VarChar(10))));
        assert!(allowed(&date, &DataType::string(), true));
        // Nested types as a whole: the identity root cast holds but no rule exists.
        let a = t(TypeKind::Array(Box::new(t(TypeKind::Int))));
        let b = t(TypeKind::Array(Box::new(t(TypeKind::BigInt))));
        assert!(supports_cast(&a, &b, false));
        assert!(!has_cast_rule(&a, &b));
        // BOOLEAN → DATE: no casting rule at all.
        assert!(!supports_cast(&t(TypeKind::Boolean), &date, true));
        // VARIANT and BLOB take part in nothing.
        assert!(!allowed(&t(TypeKind::Variant), &DataType::string(), true));
        assert!(!allowed(&t(TypeKind::Blob), &DataType::bytes(), true));
    }

    #[test]
    fn nullable_to_not_null_is_explicit() {
        let a = t(TypeKind::Int);
        let b = DataType::not_null(TypeKind::BigInt);
        assert!(!supports_cast(&a, &b, false));
        assert!(supports_cast(&a, &b, true));
        // NOT NULL → nullable is fine implicitly.
        let c = DataType::not_null(TypeKind::Int);
        assert!(supports_cast(&c, &t(TypeKind::BigInt), false));
        assert!(!supports_cast(&b, &a, false), "BIGINT → INT narrows");
    }
}
