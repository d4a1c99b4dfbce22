//! `merge-engine = aggregation` (Java `AggregateMergeFunction`): every column folds the records
//! of a key with its own aggregator.
//!
//! Per column the aggregator is, in Java's order: `last_value` for a `sequence.field` column,
//! `primary-key` (take the input) for a primary-key column, `fields.<col>.aggregate-function`,
//! `fields.default-aggregate-function`, else `last_non_null_value`. Add records fold with
//! `agg`, retract records with `retract` (an error for functions that cannot retract unless
//! `fields.<col>.ignore-retract`). With `aggregation.remove-record-on-delete` a `-D` resets
//! the row to the delete's values and, if it is the last record, the result is a `-D`.

pub(crate) mod field;
pub(crate) mod nested;
pub(crate) mod numeric;

#[cfg(test)]
mod tests;

use strata_spec::kv::RowKind;
use strata_spec::options::CoreOptions;
use strata_spec::schema::TableSchema;
use strata_spec::types::DataField;

use self::field::FieldAggregator;
use super::function::{KvMeta, MergeFunction, MergeResult, Value};
use super::util::{configured_agg_func, group_values, init_row, opt_bool};
use crate::Result;

/// The aggregator name of `column` in the aggregation engine (Java `getAggFuncName`).
pub(crate) fn agg_func_name<'a>(
    column: &str,
    options: &'a CoreOptions,
    primary_keys: &[String],
    sequence_fields: &[String],
) -> &'a str {
    if sequence_fields.iter().any(|s| s == column) {
        return "last_value";
    }
    if primary_keys.iter().any(|k| k == column) {
        return "primary-key";
    }
    configured_agg_func(options, column).unwrap_or("last_non_null_value")
}

#[derive(Debug, Clone)]
pub(crate) struct AggregateMergeFunction {
    fields: Vec<DataField>,
    aggregators: Vec<FieldAggregator>,
    remove_record_on_delete: bool,
}

impl AggregateMergeFunction {
    /// Builds the engine for `schema`, failing with Paimon's message on a bad configuration.
    pub(crate) fn new(schema: &TableSchema) -> Result<Self> {
        let options = CoreOptions::new(schema.options.clone());
        let sequence_fields = options.sequence_field();
        let aggregators = schema
            .fields
            .iter()
            .map(|f| {
                let name = agg_func_name(&f.name, &options, &schema.primary_keys, &sequence_fields);
                FieldAggregator::create(&f.data_type, &f.name, name, &options)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(AggregateMergeFunction {
            fields: schema.fields.clone(),
            aggregators,
            remove_record_on_delete: opt_bool(
                &options,
                "aggregation.remove-record-on-delete",
                false,
            )?,
        })
    }
}

impl MergeFunction for AggregateMergeFunction {
    fn needs_values(&self) -> bool {
        true
    }

    fn merge(&self, metas: &[KvMeta], values: Option<&[Vec<Value>]>) -> Result<MergeResult> {
        let values = group_values(values, metas.len(), self.fields.len())?;
        let mut row = vec![Value::Null; self.fields.len()];
        // first_value / first_non_null_value state; Java does not reset it on a removing -D.
        let mut initialized = vec![false; self.fields.len()];
        let mut delete_row = false;
        for (meta, input) in metas.iter().zip(values) {
            delete_row = self.remove_record_on_delete && meta.kind == RowKind::Delete;
            if delete_row {
                row = init_row(&self.fields, input)?;
                continue;
            }
            let retract = meta.kind.is_retract();
            for (i, agg) in self.aggregators.iter().enumerate() {
                let acc = std::mem::replace(&mut row[i], Value::Null);
                row[i] = if retract {
                    agg.retract(acc, &input[i])?
                } else {
                    agg.agg(&mut initialized[i], acc, &input[i])?
                };
            }
        }
        let kind = if delete_row {
            RowKind::Delete
        } else {
            RowKind::Insert
        };
        Ok(MergeResult::Row { kind, values: row })
    }
}
