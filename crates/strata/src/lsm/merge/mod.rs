//! Merge engines (`merge-engine`): how the records of one primary key
//! become one record.
//!
//! The merge reader and the write buffer group records by key and order each group as Paimon
//! does (user `sequence.field` values, then `_SEQUENCE_NUMBER`, then retract before add), so
//! the **last record is the newest**. A group of one record never reaches a
//! [`MergeFunction`] (Java `ReducerMergeFunctionWrapper`): it passes through untouched.

pub(crate) mod aggregation;
pub(crate) mod deduplicate;
pub(crate) mod first_row;
pub(crate) mod function;
pub(crate) mod partial_update;
pub(crate) mod util;
pub(crate) mod value;

use std::sync::Arc;

use strata_spec::options::{keys, ChangelogProducer, CoreOptions, MergeEngine};
use strata_spec::schema::TableSchema;

use crate::error::ErrorDetail;
use crate::Result;

pub(crate) use aggregation::AggregateMergeFunction;
pub(crate) use deduplicate::DeduplicateMergeFunction;
pub(crate) use first_row::FirstRowMergeFunction;
pub(crate) use function::{KvMeta, MergeFunction, MergeResult, Value};
pub(crate) use partial_update::PartialUpdateMergeFunction;
pub(crate) use value::value_at;

/// The merge function of a table per its `merge-engine` and related options. Unsupported
/// combinations fail with Paimon's error (`SchemaValidation`, `PrimaryKeyTableUtils` and the
/// engines' factories).
pub(crate) fn create_merge_function(schema: &TableSchema) -> Result<Arc<dyn MergeFunction>> {
    let options = CoreOptions::new(schema.options.clone());
    let engine = options
        .merge_engine()
        .map_err(|e| invalid(keys::MERGE_ENGINE, e.to_string()))?;
    validate_sequence_field(schema, &options, engine)?;
    if engine == MergeEngine::FirstRow {
        let producer = options
            .changelog_producer()
            .map_err(|e| invalid(keys::CHANGELOG_PRODUCER, e.to_string()))?;
        if !matches!(
            producer,
            ChangelogProducer::None | ChangelogProducer::Lookup
        ) {
            return Err(invalid(
                keys::CHANGELOG_PRODUCER,
                "Only support 'none' and 'lookup' changelog-producer on FIRST_ROW merge engine"
                    .into(),
            ));
        }
    }
    if matches!(
        engine,
        MergeEngine::PartialUpdate | MergeEngine::Aggregation
    ) {
        // SchemaValidation.validateMergeFunctionFactory: every configured name must exist,
        // even where the engine would not use it.
        for f in &schema.fields {
            if let Some(name) = util::configured_agg_func(&options, &f.name) {
                if !aggregation::field::FUNCTION_NAMES.contains(&name) {
                    return Err(invalid(
                        &util::field_key(&f.name, "aggregate-function"),
                        format!(
                            "Could not find any factory for identifier '{name}' that implements \
                             'FieldAggregatorFactory' (available: {})",
                            aggregation::field::FUNCTION_NAMES.join(", ")
                        ),
                    ));
                }
            }
        }
    }
    let ignore_delete = options
        .ignore_delete()
        .map_err(|e| invalid(keys::IGNORE_DELETE, e.to_string()))?;
    Ok(match engine {
        MergeEngine::Deduplicate => Arc::new(DeduplicateMergeFunction::new(ignore_delete)),
        MergeEngine::FirstRow => Arc::new(FirstRowMergeFunction::new(ignore_delete)),
        MergeEngine::PartialUpdate => Arc::new(PartialUpdateMergeFunction::new(schema)?),
        MergeEngine::Aggregation => Arc::new(AggregateMergeFunction::new(schema)?),
    })
}

fn invalid(key: &str, message: String) -> crate::Error {
    ErrorDetail::InvalidOption {
        key: key.to_string(),
        message,
    }
    .into()
}

/// Whether the table's merges use Java's `LookupMergeFunction` (`PrimaryKeyFileStoreTable`
/// wraps the merge function when `CoreOptions.needLookup()`: deletion vectors, the lookup
/// changelog producer, `force-lookup`; first-row is left as it is): of a key's records above
/// level 0 only the one of the lowest level is merged, with the level-0 records. Lookup
/// compaction leaves superseded records in higher levels when it has no deletion vectors, and
/// this is what keeps readers from merging them again.
pub(crate) fn lookup_merge_applies(options: &CoreOptions) -> Result<bool> {
    let engine = options
        .merge_engine()
        .map_err(|e| invalid(keys::MERGE_ENGINE, e.to_string()))?;
    if engine == MergeEngine::FirstRow {
        return Ok(false);
    }
    let producer = options
        .changelog_producer()
        .map_err(|e| invalid(keys::CHANGELOG_PRODUCER, e.to_string()))?;
    let dv = options
        .deletion_vectors_enabled()
        .map_err(|e| invalid("deletion-vectors.enabled", e.to_string()))?;
    let force = options
        .get_bool("force-lookup")
        .map_err(|e| invalid("force-lookup", e.to_string()))?
        .unwrap_or(false);
    Ok(dv || producer == ChangelogProducer::Lookup || force)
}

/// `SchemaValidation.validateSequenceField`.
fn validate_sequence_field(
    schema: &TableSchema,
    options: &CoreOptions,
    engine: MergeEngine,
) -> Result<()> {
    let fields = options.sequence_field();
    if options.get(keys::SEQUENCE_FIELD).is_none() {
        return Ok(());
    }
    for field in &fields {
        if !schema.fields.iter().any(|f| &f.name == field) {
            return Err(invalid(
                keys::SEQUENCE_FIELD,
                format!("Sequence field: '{field}' can not be found in table schema."),
            ));
        }
        if options
            .get(&util::field_key(field, "aggregate-function"))
            .is_some()
        {
            return Err(invalid(
                keys::SEQUENCE_FIELD,
                format!("Should not define aggregation on sequence field: '{field}'."),
            ));
        }
        if fields.iter().filter(|f| *f == field).count() > 1 {
            return Err(invalid(
                keys::SEQUENCE_FIELD,
                format!("Sequence field '{field}' is defined repeatedly."),
            ));
        }
    }
    if engine == MergeEngine::FirstRow {
        return Err(invalid(
            keys::SEQUENCE_FIELD,
            "Do not support use sequence field on FIRST_ROW merge engine.".into(),
        ));
    }
    Ok(())
}

// Paths strata's unit tests use (the crate uses the defining modules).
#[cfg(test)]
#[allow(unused_imports)]
pub(crate) use value::{values_of, values_to_array};

#[cfg(test)]
mod tests;
