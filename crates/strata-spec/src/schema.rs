//! Table schemas: [`TableSchema`] (one `schema/schema-N` file) and the create-table input
//! [`Schema`].
//!
//! A `TableSchema` is an immutable version of a table's structure: columns with their field
//! ids, partition keys, primary keys, options and comment. The JSON is written exactly as
//! Java's `SchemaSerializer` does (members `version`, `id`, `fields`, `highestFieldId`,
//! `partitionKeys`, `primaryKeys`, `options`, `comment` (only when set), `timeMillis`; Jackson
//! pretty printer) and read with Java's compatibility rules:
//!
//! * `version` missing ⇒ 1;
//! * `version <= 1` without a `bucket` option ⇒ `bucket = 1` (the old default);
//! * `version <= 2` without a `file.format` option ⇒ `file.format = orc` (the old default);
//! * `timeMillis` missing ⇒ 0; field ids missing (all of them) ⇒ numbered in document order.
//!
//! [`TableSchema::create`] turns a [`Schema`] into schema 0 of a new table, applying Java's
//! normalisation (`Schema` constructor) and validation (`SchemaValidation`);
//! [`TableSchema::apply_changes`] turns schema N and a list of [`SchemaChange`]s into schema
//! N+1 (Java's `SchemaManager.generateTableSchema`, see [`change`]).

pub mod change;
#[cfg(test)]
mod change_tests;
mod create;
mod table_schema;
#[cfg(test)]
mod tests;

pub use change::{ColumnMove, MoveType, SchemaChange};
pub use create::assign_field_ids;
pub use table_schema::{
    highest_user_field_id, Schema, TableSchema, CURRENT_VERSION, PAIMON_07_VERSION,
    PAIMON_08_VERSION, SYSTEM_FIELD_ID_START,
};

use crate::error::Result;

/// Creation goes down into `create` (normalisation and validation).
impl TableSchema {
    /// Creates schema `id` (version 3) of a new table from the create-table input, like Java's
    /// `Schema` constructor + `TableSchema.create` + `SchemaValidation`:
    ///
    /// 1. the `primary-key` / `partition` options become the key lists (error if both given);
    /// 2. column names must be non-blank and unique (also inside nested ROWs), system names
    ///    (`_SEQUENCE_NUMBER`, `_KEY_*`, …) are reserved; partition and primary keys must be
    ///    unique existing columns of a non-nested type; the primary key must not consist of
    ///    partition keys only;
    /// 3. primary-key columns become NOT NULL (nullable with `primary-key.nullable=true`);
    /// 4. field ids are kept when all are given (they must be unique) and assigned with
    ///    [`assign_field_ids`] when none are; `highestFieldId` ignores system ids;
    /// 5. options are validated ([`crate::options::validate`]) together with the rules that
    ///    involve columns: bucket keys, `fields.<col>.*`, `sequence.field`, `rowkind.field`.
    pub fn create(id: i64, schema: &Schema, time_millis: i64) -> Result<TableSchema> {
        create::create(id, schema, time_millis)
    }
}
