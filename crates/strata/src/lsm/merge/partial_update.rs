//! `merge-engine = partial-update` (Java `PartialUpdateMergeFunction` and its factory).
//!
//! Without sequence groups every non-null input field overwrites the accumulated one (NULL in a
//! NOT NULL column is an error). Retracts are skipped with `ignore-delete`, reset the row with
//! `partial-update.remove-record-on-delete` (`-D` only), are handled per group with sequence
//! groups, and are an error otherwise.
//!
//! Sequence groups (`fields.<s1>,<s2>.sequence-group = <f1>,<f2>`): a group whose ordering
//! fields are all NULL in the input is skipped; when the input's ordering fields compare `>=`
//! the accumulated ones (NULL first), the ordering and protected fields are taken from the
//! input, NULLs included (or `agg(acc, input)` for a protected field with an aggregator);
//! otherwise protected fields keep their value (or `aggReversed`). A retract in a newer group
//! nulls the protected fields (or `retract`s them), and a `-D` whose group is listed in
//! `partial-update.remove-record-on-sequence-group` deletes the whole row. Fields outside
//! groups keep the non-null overwrite rule (or their aggregator, only `last_non_null_value` or
//! the internal `primary-key` is allowed there).
//!
//! The result is `-D` when the last record deleted the row or no add record was seen,
//! otherwise `+I`.

use crate::error::ErrorDetail;
use std::collections::{BTreeSet, HashMap};

use strata_spec::kv::RowKind;
use strata_spec::options::CoreOptions;
use strata_spec::schema::TableSchema;
use strata_spec::types::DataField;

use super::aggregation::field::FieldAggregator;
use super::function::{KvMeta, MergeFunction, MergeResult, Value};
use super::util::{
    compare_fields, configured_agg_func, field_key, group_values, init_row, null_in_not_null,
    opt_bool,
};
use crate::{Error, Result};

const REMOVE_ON_DELETE: &str = "partial-update.remove-record-on-delete";
const REMOVE_ON_SEQUENCE_GROUP: &str = "partial-update.remove-record-on-sequence-group";

/// Java's message for a retract that no option allows.
pub(crate) const PARTIAL_UPDATE_RETRACT_ERROR: &str =
    "By default, Partial update can not accept delete records, you can choose one of the following solutions:\n\
     1. Configure 'ignore-delete' to ignore delete records.\n\
     2. Configure 'partial-update.remove-record-on-delete' to remove the whole row when receiving delete records.\n\
     3. Configure 'sequence-group's to retract partial columns. Also configure 'partial-update.remove-record-on-sequence-group' to remove the whole row when receiving deleted records of `specified sequence group`.";

#[derive(Debug, Clone)]
pub(crate) struct PartialUpdateMergeFunction {
    fields: Vec<DataField>,
    ignore_delete: bool,
    remove_record_on_delete: bool,
    /// Per column: the ordering fields of its sequence group (ordering and protected columns).
    group_of: Vec<Option<Vec<usize>>>,
    aggregators: Vec<Option<FieldAggregator>>,
    /// Ordering columns whose `-D` removes the whole row.
    group_partial_delete: BTreeSet<usize>,
}

fn invalid(key: &str, message: String) -> Error {
    ErrorDetail::InvalidOption {
        key: key.to_string(),
        message,
    }
    .into()
}

impl PartialUpdateMergeFunction {
    /// Builds the engine for `schema`, failing with Paimon's messages on bad configurations.
    pub(crate) fn new(schema: &TableSchema) -> Result<Self> {
        let options = CoreOptions::new(schema.options.clone());
        let names: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
        let is_pk = |n: &str| schema.primary_keys.iter().any(|k| k == n);
        let n = names.len();
        let ignore_delete = options
            .ignore_delete()
            .map_err(|e| invalid("ignore-delete", e.to_string()))?;
        let remove_record_on_delete = opt_bool(&options, REMOVE_ON_DELETE, false)?;
        let remove_on_group = options.get(REMOVE_ON_SEQUENCE_GROUP);

        let mut group_of: Vec<Option<Vec<usize>>> = vec![None; n];
        let mut ordering_names: Vec<String> = Vec::new();
        let mut protected_names: Vec<String> = Vec::new();
        let mut ordering_index: HashMap<String, usize> = HashMap::new();
        for (key, value) in options.as_map() {
            if !(key.starts_with("fields") && key.ends_with("sequence-group")) {
                continue;
            }
            if !(key.starts_with("fields.") && key.ends_with(".sequence-group"))
                || key.len() < "fields..sequence-group".len()
            {
                return Err(invalid(
                    key,
                    format!("Invalid sequence-group option: {key}"),
                ));
            }
            let require = |name: &str| {
                names.iter().position(|x| *x == name).ok_or_else(|| {
                    invalid(
                        key,
                        format!("Field {name} can not be found in table schema"),
                    )
                })
            };
            let inner = &key["fields.".len()..key.len() - ".sequence-group".len()];
            let ordering = inner.split(',').map(require).collect::<Result<Vec<_>>>()?;
            let pk_error = |field: &str| {
                invalid(
                    key,
                    format!(
                        "The sequence-group '{key}' contains primary key field '{field}', which is \
                         not allowed. Primary key columns cannot be put in sequence-group."
                    ),
                )
            };
            for name in value.split(',') {
                let f = require(name)?;
                if is_pk(name) {
                    return Err(pk_error(name));
                }
                if group_of[f].is_some() {
                    return Err(invalid(
                        key,
                        format!("Field {name} is defined repeatedly by multiple groups: {key}"),
                    ));
                }
                group_of[f] = Some(ordering.clone());
                protected_names.push(name.to_string());
            }
            for &f in &ordering {
                let name = names[f];
                if is_pk(name) {
                    return Err(pk_error(name));
                }
                ordering_names.push(name.to_string());
                group_of[f] = Some(ordering.clone());
                ordering_index.insert(name.to_string(), f);
            }
        }
        let has_groups = group_of.iter().any(Option::is_some);

        // Aggregator names (Java getAggFuncName for partial-update).
        let mut agg_names: Vec<Option<&str>> = Vec::with_capacity(n);
        for name in &names {
            agg_names.push(if ordering_names.iter().any(|s| s == name) {
                None
            } else if is_pk(name) {
                Some("primary-key")
            } else {
                let f = configured_agg_func(&options, name);
                if let Some(func) = f {
                    if func != "last_non_null_value" && !protected_names.iter().any(|p| p == name) {
                        return Err(invalid(
                            &field_key(name, "aggregate-function"),
                            format!(
                                "Must use sequence group for aggregation functions but not found for field {name}."
                            ),
                        ));
                    }
                }
                f
            });
        }

        let conflict = |a: &str, b: &str| {
            invalid(
                b,
                format!("{a} and {b} have conflicting behavior so should not be enabled at the same time."),
            )
        };
        if remove_record_on_delete && ignore_delete {
            return Err(conflict("ignore-delete", REMOVE_ON_DELETE));
        }
        if remove_on_group.is_some() && ignore_delete {
            return Err(conflict("ignore-delete", REMOVE_ON_SEQUENCE_GROUP));
        }
        if remove_record_on_delete && has_groups {
            return Err(conflict("sequence-group", REMOVE_ON_DELETE));
        }
        let mut group_partial_delete = BTreeSet::new();
        if let Some(list) = remove_on_group {
            for name in list.split(',') {
                let Some(&f) = ordering_index.get(name) else {
                    return Err(invalid(
                        REMOVE_ON_SEQUENCE_GROUP,
                        format!(
                            "field '{list}' defined in '{REMOVE_ON_SEQUENCE_GROUP}' option must be part of sequence groups"
                        ),
                    ));
                };
                group_partial_delete.insert(f);
            }
        }

        let aggregators = schema
            .fields
            .iter()
            .zip(&agg_names)
            .map(|(f, name)| {
                name.map(|name| FieldAggregator::create(&f.data_type, &f.name, name, &options))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(PartialUpdateMergeFunction {
            fields: schema.fields.clone(),
            ignore_delete,
            remove_record_on_delete,
            group_of,
            aggregators,
            group_partial_delete,
        })
    }

    fn has_groups(&self) -> bool {
        self.group_of.iter().any(Option::is_some)
    }

    fn update_non_null(&self, row: &mut [Value], input: &[Value]) -> Result<()> {
        for (i, v) in input.iter().enumerate() {
            if *v != Value::Null {
                row[i] = v.clone();
            } else if !self.fields[i].data_type.nullable {
                return Err(null_in_not_null(i, &self.fields[i]));
            }
        }
        Ok(())
    }

    /// Marks the group processed and says whether its ordering fields are all NULL in `input`.
    fn empty_group(seq: &[usize], input: &[Value], processed: &mut [bool]) -> bool {
        if seq.iter().any(|&s| input[s] != Value::Null) {
            return false;
        }
        seq.iter().for_each(|&s| processed[s] = true);
        true
    }

    fn update_with_groups(
        &self,
        row: &mut [Value],
        input: &[Value],
        initialized: &mut [bool],
    ) -> Result<()> {
        let mut processed = vec![false; row.len()];
        for i in 0..row.len() {
            let agg = self.aggregators[i].as_ref();
            let Some(seq) = &self.group_of[i] else {
                match agg {
                    Some(a) => {
                        let acc = std::mem::replace(&mut row[i], Value::Null);
                        row[i] = a.agg(&mut initialized[i], acc, &input[i])?;
                    }
                    None if input[i] != Value::Null => row[i] = input[i].clone(),
                    None => {}
                }
                continue;
            };
            if processed[i] || Self::empty_group(seq, input, &mut processed) {
                continue;
            }
            if compare_fields(seq, input, row).is_ge() {
                if seq.contains(&i) {
                    for &s in seq {
                        row[s] = input[s].clone();
                        processed[s] = true;
                    }
                    continue;
                }
                row[i] = match agg {
                    None => input[i].clone(),
                    Some(a) => {
                        let acc = std::mem::replace(&mut row[i], Value::Null);
                        a.agg(&mut initialized[i], acc, &input[i])?
                    }
                };
            } else if let Some(a) = agg {
                let acc = std::mem::replace(&mut row[i], Value::Null);
                row[i] = a.agg_reversed(&mut initialized[i], acc, &input[i])?;
            }
        }
        Ok(())
    }

    /// Retract with sequence groups; returns `true` when the whole row was deleted.
    fn retract_with_groups(
        &self,
        row: &mut Vec<Value>,
        input: &[Value],
        kind: RowKind,
    ) -> Result<bool> {
        let mut processed = vec![false; row.len()];
        let mut updated = BTreeSet::new();
        for i in 0..row.len() {
            let Some(seq) = &self.group_of[i] else {
                continue;
            };
            if processed[i] || Self::empty_group(seq, input, &mut processed) {
                continue;
            }
            let agg = self.aggregators[i].as_ref();
            if compare_fields(seq, input, row).is_ge() {
                if seq.contains(&i) {
                    for &s in seq {
                        if !updated.contains(&s) {
                            if kind == RowKind::Delete && self.group_partial_delete.contains(&s) {
                                *row = init_row(&self.fields, input)?;
                                return Ok(true);
                            }
                            row[s] = input[s].clone();
                            updated.insert(s);
                        }
                        processed[s] = true;
                    }
                } else {
                    row[i] = match agg {
                        None => Value::Null,
                        Some(a) => {
                            a.retract(std::mem::replace(&mut row[i], Value::Null), &input[i])?
                        }
                    };
                }
            } else if let Some(a) = agg {
                row[i] = a.retract(std::mem::replace(&mut row[i], Value::Null), &input[i])?;
            }
        }
        Ok(false)
    }
}

impl MergeFunction for PartialUpdateMergeFunction {
    fn needs_values(&self) -> bool {
        true
    }

    fn merge(&self, metas: &[KvMeta], values: Option<&[Vec<Value>]>) -> Result<MergeResult> {
        let values = group_values(values, metas.len(), self.fields.len())?;
        let n = self.fields.len();
        let mut row = vec![Value::Null; n];
        let mut initialized = vec![false; n];
        let mut meet_insert = false;
        let mut filled = false;
        let mut delete_row = false;
        let groups = self.has_groups();
        for (meta, input) in metas.iter().zip(values) {
            delete_row = false;
            if meta.kind.is_retract() {
                if !filled {
                    row = init_row(&self.fields, input)?;
                    filled = true;
                }
                // Paimon 0.7 and older may have written retracts despite ignore-delete.
                if self.ignore_delete {
                    continue;
                }
                if groups {
                    delete_row = self.retract_with_groups(&mut row, input, meta.kind)?;
                    continue;
                }
                if self.remove_record_on_delete {
                    if meta.kind == RowKind::Delete {
                        delete_row = true;
                        row = init_row(&self.fields, input)?;
                    }
                    continue;
                }
                return Err(
                    ErrorDetail::InvalidArgument(PARTIAL_UPDATE_RETRACT_ERROR.into()).into(),
                );
            }
            if groups {
                self.update_with_groups(&mut row, input, &mut initialized)?;
            } else {
                self.update_non_null(&mut row, input)?;
            }
            meet_insert = true;
            filled = true;
        }
        let kind = if delete_row || !meet_insert {
            RowKind::Delete
        } else {
            RowKind::Insert
        };
        Ok(MergeResult::Row { kind, values: row })
    }
}

#[cfg(test)]
#[path = "partial_update_tests.rs"]
mod tests;
