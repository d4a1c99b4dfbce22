//! Record-level TTL in compaction (Java `RecordLevelExpire`): with `record-level.expire-time`
//! and `record-level.time-field`, compaction drops records whose time field is older than
//! the expire time, and a file whose statistics say it may hold such records is rewritten
//! instead of upgraded.
//!
//! The time field is INT (epoch seconds), BIGINT (epoch seconds, or milliseconds when
//! ≥ 10¹²), TIMESTAMP or TIMESTAMP_LTZ. A record expires when `now_secs - expire > time`;
//! NULL times never expire. Only compaction applies the TTL, as in Paimon.

use std::sync::Arc;

use arrow_array::{Array, BooleanArray, RecordBatch};
use strata_spec::manifest::DataFileMeta;
use strata_spec::schema::TableSchema;
use strata_spec::types::TypeKind;
use strata_spec::{DataField, Datum};

use crate::error::ErrorDetail;
use crate::format::datum::datum_at;
use crate::meta::SchemaManager;
use crate::{Error, Result};

/// The TTL settings of a table.
#[derive(Clone, Debug)]
pub(crate) struct RecordLevelExpire {
    expire_secs: i64,
    field: DataField,
    /// Position of the time field among the table's (value) fields.
    index: usize,
}

impl RecordLevelExpire {
    /// `None` when `record-level.expire-time` is not set.
    pub(crate) fn from_schema(schema: &TableSchema) -> Result<Option<Self>> {
        let opts = schema.options();
        let Some(expire) = opts.get_duration("record-level.expire-time")? else {
            return Ok(None);
        };
        let Some(name) = opts.get("record-level.time-field") else {
            return Err(ErrorDetail::InvalidOption {
                key: "record-level.time-field".into(),
                message: "record-level.expire-time is set but no time field is given".into(),
            }
            .into());
        };
        let Some(index) = schema.fields.iter().position(|f| f.name == name) else {
            return Err(ErrorDetail::InvalidOption {
                key: "record-level.time-field".into(),
                message: format!("column {name} does not exist"),
            }
            .into());
        };
        let field = schema.fields[index].clone();
        match field.data_type.kind {
            TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Timestamp(_)
            | TypeKind::LocalZonedTimestamp(_) => {}
            _ => {
                return Err(ErrorDetail::InvalidOption {
                    key: "record-level.time-field".into(),
                    message: format!(
                        "column {name} has type {}; the record-level time field must be INT, \
                         BIGINT or TIMESTAMP",
                        field.data_type
                    ),
                }
                .into())
            }
        }
        Ok(Some(RecordLevelExpire {
            expire_secs: expire.as_secs() as i64,
            field,
            index,
        }))
    }

    /// Position of the time field among the value fields of the table schema.
    pub(crate) fn field_index(&self) -> usize {
        self.index
    }

    fn seconds(d: &Datum) -> Option<i64> {
        match d {
            Datum::Int(v) => Some(*v as i64),
            Datum::BigInt(v) if *v >= 1_000_000_000_000 => Some(v / 1000),
            Datum::BigInt(v) => Some(*v),
            Datum::Timestamp { millis, .. } | Datum::TimestampLtz { millis, .. } => {
                Some(millis.div_euclid(1000))
            }
            _ => None,
        }
    }

    fn now_secs() -> i64 {
        chrono::Utc::now().timestamp()
    }

    /// Whether the min of the time field in `file`'s statistics is already expired.
    pub(crate) async fn is_expire_file(
        &self,
        file: &DataFileMeta,
        schemas: &SchemaManager,
    ) -> Result<bool> {
        let data_schema = schemas.schema(file.schema_id).await?;
        let stats_fields: Vec<&DataField> = match &file.value_stats_cols {
            Some(cols) => cols
                .iter()
                .filter_map(|c| data_schema.fields.iter().find(|f| &f.name == c))
                .collect(),
            None => data_schema.fields.iter().collect(),
        };
        let Some(pos) = stats_fields.iter().position(|f| f.id == self.field.id) else {
            return Ok(false);
        };
        if stats_fields[pos].data_type.kind != self.field.data_type.kind {
            return Ok(false);
        }
        let types: Vec<_> = stats_fields.iter().map(|f| f.data_type.clone()).collect();
        let Ok(cols) = file.value_stats.to_columns(&types) else {
            return Ok(false);
        };
        let min = cols
            .get(pos)
            .and_then(|c| c.min.as_ref())
            .and_then(Self::seconds);
        Ok(min.is_some_and(|m| Self::now_secs() - self.expire_secs > m))
    }

    /// Keeps the records of `batch` that have not expired; `time` is the time-field column.
    pub(crate) fn filter(&self, batch: RecordBatch, time: &Arc<dyn Array>) -> Result<RecordBatch> {
        let now = Self::now_secs();
        let mut keep = Vec::with_capacity(time.len());
        let mut any_dropped = false;
        for i in 0..time.len() {
            let alive = match datum_at(time.as_ref(), i)? {
                Some(d) => Self::seconds(&d).is_none_or(|t| now <= t + self.expire_secs),
                None => true,
            };
            any_dropped |= !alive;
            keep.push(alive);
        }
        if !any_dropped {
            return Ok(batch);
        }
        arrow_select::filter::filter_record_batch(&batch, &BooleanArray::from(keep))
            .map_err(|e| Error::arrow("dropping records past record-level.expire-time", e))
    }
}
