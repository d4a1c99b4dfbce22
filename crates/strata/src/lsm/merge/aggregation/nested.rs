//! Collection aggregators: `collect`, `merge_map`, `merge_map_with_keytime`, `nested_update`
//! and `nested_partial_update` (Java `FieldCollectAgg`, `FieldMergeMapAgg`,
//! `FieldMergeMapWithKeyTimeAgg`, `FieldNestedUpdateAgg`, `FieldNestedPartialUpdateAgg`).
//!
//! Java builds its results through `HashSet`/`HashMap`, whose iteration order is an accident of
//! hashing. Here results keep **first-insertion order** (an updated key keeps its position),
//! which holds the same elements/entries; only the order inside the collection can differ.

use strata_spec::options::CoreOptions;
use strata_spec::types::{DataType, TypeKind};
use strata_spec::Datum;

use crate::lsm::merge::function::Value;
use crate::lsm::merge::util::{compare_values, field_key, values_equal};

/// Java `needsEqualiser`: constructed and string/binary elements are compared with a record
/// equaliser (list semantics) rather than a hash set.
pub(super) fn needs_equaliser(element: &DataType) -> bool {
    element.is_nested() || element.is_string() || element.is_binary()
}

fn elements(v: &Value) -> &[Value] {
    match v {
        Value::Array(items) => items,
        _ => &[],
    }
}

fn push_distinct(out: &mut Vec<Value>, v: &Value) {
    if !out.iter().any(|o| values_equal(o, v)) {
        out.push(v.clone());
    }
}

pub(super) fn collect(acc: Value, input: &Value, distinct: bool, equaliser: bool) -> Value {
    if acc == Value::Null && *input == Value::Null {
        return Value::Null;
    }
    if !distinct && (acc == Value::Null || *input == Value::Null) {
        return if acc == Value::Null {
            input.clone()
        } else {
            acc
        };
    }
    if !distinct {
        let mut out = elements(&acc).to_vec();
        out.extend(elements(input).iter().cloned());
        return Value::Array(out);
    }
    let mut out = Vec::new();
    if equaliser {
        // The accumulator is already distinct: Java copies it as is.
        out.extend(elements(&acc).iter().cloned());
    } else {
        elements(&acc)
            .iter()
            .for_each(|v| push_distinct(&mut out, v));
    }
    elements(input)
        .iter()
        .for_each(|v| push_distinct(&mut out, v));
    Value::Array(out)
}

pub(super) fn collect_retract(acc: Value, input: &Value) -> Value {
    if acc == Value::Null || elements(input).is_empty() {
        return acc;
    }
    let mut retracted = elements(input).to_vec();
    let mut out = Vec::new();
    for candidate in elements(&acc) {
        if let Some(pos) = retracted.iter().position(|r| values_equal(r, candidate)) {
            retracted.remove(pos);
        } else {
            out.push(candidate.clone());
        }
    }
    Value::Array(out)
}

fn entries(v: &Value) -> &[(Value, Value)] {
    match v {
        Value::Map(e) => e,
        _ => &[],
    }
}

fn put(map: &mut Vec<(Value, Value)>, key: &Value, value: Value) {
    match map.iter_mut().find(|(k, _)| values_equal(k, key)) {
        Some(slot) => slot.1 = value,
        None => map.push((key.clone(), value)),
    }
}

fn get<'a>(map: &'a [(Value, Value)], key: &Value) -> Option<&'a Value> {
    map.iter()
        .find(|(k, _)| values_equal(k, key))
        .map(|(_, v)| v)
}

pub(super) fn merge_map(acc: Value, input: &Value) -> Value {
    if acc == Value::Null || *input == Value::Null {
        return if acc == Value::Null {
            input.clone()
        } else {
            acc
        };
    }
    let mut out = Vec::new();
    for (k, v) in entries(&acc).iter().chain(entries(input)) {
        put(&mut out, k, v.clone());
    }
    Value::Map(out)
}

pub(super) fn merge_map_retract(acc: Value, input: &Value) -> Value {
    if acc == Value::Null || entries(input).is_empty() {
        return acc;
    }
    let retracted = entries(input);
    let mut out = Vec::new();
    for (k, v) in entries(&acc) {
        if get(retracted, k).is_none() {
            put(&mut out, k, v.clone());
        }
    }
    Value::Map(out)
}

/// The timestamp field of `merge_map_with_keytime`'s ROW values: `fields.<col>.ts-field`, else
/// the last field. Errors carry Java's messages.
pub(super) fn keytime_ts_index(
    data_type: &DataType,
    column: &str,
    options: &CoreOptions,
) -> Result<usize, String> {
    let TypeKind::Map { value, .. } = &data_type.kind else {
        return Err(format!(
            "Data type for field '{column}' must be 'MAP' but was '{data_type}'"
        ));
    };
    let TypeKind::Row(fields) = &value.kind else {
        return Err(format!(
            "Value type of MAP for field '{column}' must be ROW but was '{value}'"
        ));
    };
    if fields.len() < 2 {
        return Err(format!(
            "ROW type for field '{column}' must have at least 2 fields, but found {}",
            fields.len()
        ));
    }
    match options.get(&field_key(column, "ts-field")) {
        None => Ok(fields.len() - 1),
        Some(name) => fields.iter().position(|f| f.name == name).ok_or_else(|| {
            let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            format!(
                "Timestamp field '{name}' not found in ROW type for field '{column}'. \
                 Available fields: {names:?}"
            )
        }),
    }
}

fn row_field(row: &Value, i: usize) -> &Value {
    match row {
        Value::Row(f) => f.get(i).unwrap_or(&Value::Null),
        _ => &Value::Null,
    }
}

/// Java compares the timestamps as strings (`getString(i).toString()`).
fn ts_newer(new: &Value, old: &Value) -> bool {
    match (new, old) {
        (Value::Scalar(Datum::String(a)), Value::Scalar(Datum::String(b))) => a > b,
        _ => compare_values(new, old).is_gt(),
    }
}

pub(super) fn merge_map_with_keytime(acc: Value, input: &Value, ts: usize) -> Value {
    if acc == Value::Null {
        return input.clone();
    }
    if *input == Value::Null {
        return acc;
    }
    let mut out = Vec::new();
    for (k, v) in entries(&acc) {
        put(&mut out, k, v.clone());
    }
    for (k, new_row) in entries(input) {
        if *new_row == Value::Null {
            out.retain(|(x, _)| !values_equal(x, k));
            continue;
        }
        let new_ts = row_field(new_row, ts);
        if *new_ts == Value::Null {
            continue;
        }
        let replace = match get(&out, k) {
            None | Some(Value::Null) => true,
            Some(existing) => {
                let old_ts = row_field(existing, ts);
                *old_ts == Value::Null || ts_newer(new_ts, old_ts)
            }
        };
        if replace {
            put(&mut out, k, new_row.clone());
        }
    }
    Value::Map(out)
}

/// `fields.<col>.nested-key-null-strategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NestedKeyNullStrategy {
    Merge,
    Ignore,
    Error,
}

/// Configuration of `nested_update` / `nested_partial_update` on an `ARRAY<ROW>` column.
#[derive(Debug, Clone)]
pub(crate) struct NestedSpec {
    arity: usize,
    key: Vec<usize>,
    sequence: Vec<usize>,
    null_strategy: NestedKeyNullStrategy,
    count_limit: usize,
}

fn name_list(options: &CoreOptions, key: &str) -> Vec<String> {
    options
        .get(key)
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
        .unwrap_or_default()
}

impl NestedSpec {
    pub(super) fn new(
        data_type: &DataType,
        column: &str,
        options: &CoreOptions,
        partial: bool,
    ) -> Result<Self, String> {
        let key_names = name_list(options, &field_key(column, "nested-key"));
        if partial && key_names.is_empty() {
            return Err(format!(
                "nested_partial_update on column {column} requires 'fields.{column}.nested-key'"
            ));
        }
        let type_error = format!(
            "Data type for nested table column must be 'Array<Row>' but was '{data_type}'."
        );
        let TypeKind::Array(element) = &data_type.kind else {
            return Err(type_error);
        };
        let TypeKind::Row(fields) = &element.kind else {
            return Err(type_error);
        };
        let strategy_key = field_key(column, "nested-key-null-strategy");
        let seq_names = if partial {
            Vec::new()
        } else {
            name_list(options, &field_key(column, "nested-sequence-field"))
        };
        if !partial {
            if options.contains(&strategy_key) && key_names.is_empty() {
                return Err(
                    "Option 'fields.<field-name>.nested-key-null-strategy' requires \
                            'fields.<field-name>.nested-key' to be configured."
                        .into(),
                );
            }
            if !seq_names.is_empty() && key_names.is_empty() {
                return Err(
                    "Option 'fields.<field-name>.nested-sequence-field' requires \
                            'fields.<field-name>.nested-key' to be configured."
                        .into(),
                );
            }
        }
        let index = |name: &String| {
            fields.iter().position(|f| &f.name == name).ok_or_else(|| {
                format!("nested field '{name}' of column {column} does not exist in {element}")
            })
        };
        let null_strategy = match options.get(&strategy_key).map(str::to_ascii_lowercase) {
            None => NestedKeyNullStrategy::Merge,
            Some(v) if v == "merge" => NestedKeyNullStrategy::Merge,
            Some(v) if v == "ignore" => NestedKeyNullStrategy::Ignore,
            Some(v) if v == "error" => NestedKeyNullStrategy::Error,
            Some(v) => {
                return Err(format!(
                    "Could not parse value '{v}' for key '{strategy_key}' (expected merge, ignore or error)"
                ))
            }
        };
        let limit_key = field_key(column, "count-limit");
        let count_limit = match options.get(&limit_key) {
            None => i32::MAX,
            Some(v) => v
                .trim()
                .parse::<i32>()
                .map_err(|_| format!("Could not parse value '{v}' for key '{limit_key}'"))?,
        };
        Ok(NestedSpec {
            arity: fields.len(),
            key: key_names.iter().map(index).collect::<Result<_, _>>()?,
            sequence: seq_names.iter().map(index).collect::<Result<_, _>>()?,
            null_strategy,
            count_limit: usize::try_from(count_limit.max(0)).unwrap_or(0),
        })
    }

    fn rows<'a>(&self, v: &'a Value) -> Result<Vec<&'a Value>, String> {
        let mut out = Vec::new();
        for item in elements(v) {
            match item {
                Value::Null => {}
                Value::Row(f) if f.len() == self.arity => out.push(item),
                other => return Err(format!("nested element {other:?} is not a ROW")),
            }
        }
        Ok(out)
    }

    fn key_of(&self, row: &Value) -> Vec<Value> {
        self.key
            .iter()
            .map(|&i| row_field(row, i).clone())
            .collect()
    }

    /// Java `applyNestedKeyNullStrategy`: whether a row with this key takes part.
    fn accept(&self, key: &[Value]) -> Result<bool, String> {
        if !key.contains(&Value::Null) {
            return Ok(true);
        }
        match self.null_strategy {
            NestedKeyNullStrategy::Merge => Ok(true),
            NestedKeyNullStrategy::Ignore => Ok(false),
            NestedKeyNullStrategy::Error => {
                Err("Nested key contains null values. Primary key fields must not be null.".into())
            }
        }
    }

    fn find(map: &[(Vec<Value>, Value)], key: &[Value]) -> Option<usize> {
        map.iter().position(|(k, _)| {
            k.len() == key.len() && k.iter().zip(key).all(|(a, b)| values_equal(a, b))
        })
    }

    fn add_keyed(
        &self,
        rows: Vec<&Value>,
        map: &mut Vec<(Vec<Value>, Value)>,
        limit_new_keys: bool,
    ) -> Result<(), String> {
        for row in rows {
            let key = self.key_of(row);
            if !self.accept(&key)? {
                continue;
            }
            match Self::find(map, &key) {
                Some(i) => {
                    let newer = self.sequence.is_empty() || {
                        let new: Vec<Value> = self
                            .sequence
                            .iter()
                            .map(|&s| row_field(row, s).clone())
                            .collect();
                        let old: Vec<Value> = self
                            .sequence
                            .iter()
                            .map(|&s| row_field(&map[i].1, s).clone())
                            .collect();
                        compare_values(&Value::Row(new), &Value::Row(old)).is_ge()
                    };
                    if newer {
                        map[i].1 = row.clone();
                    }
                }
                None if !limit_new_keys || map.len() < self.count_limit => {
                    map.push((key, row.clone()))
                }
                None => {}
            }
        }
        Ok(())
    }

    /// `nested_update`.
    pub(super) fn update(&self, acc: Value, input: &Value) -> Result<Value, String> {
        if *input == Value::Null {
            return Ok(acc);
        }
        let new_rows = self.rows(input)?;
        if self.key.is_empty() {
            if acc == Value::Null {
                let rows = new_rows
                    .into_iter()
                    .take(self.count_limit)
                    .cloned()
                    .collect();
                return Ok(Value::Array(rows));
            }
            let acc_len = elements(&acc).len();
            if acc_len >= self.count_limit {
                return Ok(acc);
            }
            let mut rows: Vec<Value> = self.rows(&acc)?.into_iter().cloned().collect();
            rows.extend(
                new_rows
                    .into_iter()
                    .take(self.count_limit - acc_len)
                    .cloned(),
            );
            return Ok(Value::Array(rows));
        }
        let mut map = Vec::new();
        self.add_keyed(self.rows(&acc)?, &mut map, false)?;
        self.add_keyed(new_rows, &mut map, true)?;
        Ok(Value::Array(map.into_iter().map(|(_, r)| r).collect()))
    }

    /// `nested_update` retract: removes equal rows (no key) or rows with the same key.
    pub(super) fn retract(&self, acc: Value, input: &Value) -> Result<Value, String> {
        if acc == Value::Null || *input == Value::Null {
            return Ok(acc);
        }
        let retracted = self.rows(input)?;
        if self.key.is_empty() {
            let mut rows: Vec<Value> = self.rows(&acc)?.into_iter().cloned().collect();
            for r in retracted {
                rows.retain(|x| !values_equal(x, r));
            }
            return Ok(Value::Array(rows));
        }
        let mut map: Vec<(Vec<Value>, Value)> = Vec::new();
        for row in self.rows(&acc)? {
            let key = self.key_of(row);
            if !self.accept(&key)? {
                continue;
            }
            match Self::find(&map, &key) {
                Some(i) => map[i].1 = row.clone(),
                None => map.push((key, row.clone())),
            }
        }
        for row in retracted {
            let key = self.key_of(row);
            if !self.accept(&key)? {
                continue;
            }
            if let Some(i) = Self::find(&map, &key) {
                map.remove(i);
            }
        }
        Ok(Value::Array(map.into_iter().map(|(_, r)| r).collect()))
    }

    /// `nested_partial_update`: rows with the same key merge field by field, non-null wins.
    pub(super) fn partial_update(&self, acc: Value, input: &Value) -> Result<Value, String> {
        if *input == Value::Null {
            return Ok(acc);
        }
        let mut map: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
        for row in self.rows(&acc)?.into_iter().chain(self.rows(input)?) {
            let key = self.key_of(row);
            if !self.accept(&key)? {
                continue;
            }
            let i = match map
                .iter()
                .position(|(k, _)| k.iter().zip(&key).all(|(a, b)| values_equal(a, b)))
            {
                Some(i) => i,
                None => {
                    map.push((key, vec![Value::Null; self.arity]));
                    map.len() - 1
                }
            };
            for (f, v) in (0..self.arity).map(|f| (f, row_field(row, f))) {
                if *v != Value::Null {
                    map[i].1[f] = v.clone();
                }
            }
        }
        Ok(Value::Array(
            map.into_iter().map(|(_, r)| Value::Row(r)).collect(),
        ))
    }
}
