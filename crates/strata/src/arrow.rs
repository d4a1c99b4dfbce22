//! Arrow conversion, the stable way in: Paimon schemas and types to Arrow and back, single values
//! ([`Datum`](crate::spec::datum::Datum)) to and from Arrow arrays, and casting a batch to a table's
//! schema. Front ends (SQL, Python, the CLI) convert through this module only; the implementation
//! lives in the format layer, whose Parquet reader and writer use the same mapping (field ids in the
//! `PARQUET:field_id` metadata, Paimon's nested ids for ARRAY and MAP children).

pub use crate::format::arrow_types::{
    from_arrow_schema, from_arrow_type, to_arrow_field, to_arrow_schema, to_arrow_schema_of,
    to_arrow_type,
};
pub use crate::format::convert::{
    cast_array, cast_batch_to_schema, cast_batch_with_defaults, ColumnDefaults,
};
pub use crate::format::datum::{datum_at, datums_to_array};
pub use crate::format::variant_json::{variant_from_json, variant_to_json};
