//! VARIANT values in SQL: the `parse_json(text)` function (Spark's and Paimon's name for JSON
//! text into a VARIANT) builds Paimon's VARIANT encoding (value and metadata bytes, as Java's
//! `GenericVariant.fromJson`) with [`strata::arrow::variant_from_json`], so that
//! `INSERT INTO t VALUES (1, parse_json('{"a": 1}'))` writes a VARIANT column; and the named
//! refusal of other values DataFusion cannot cast into a VARIANT column (a struct literal, a
//! bare string), which says how to write variants instead.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BinaryBuilder, StringArray, StructArray};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{exec_err, plan_err, DataFusionError, Result};
use datafusion::dataframe::DataFrame;
use datafusion::execution::context::SessionContext;
use datafusion::logical_expr::{
    ColumnarValue, LogicalPlan, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    TypeSignature, Volatility,
};
use datafusion::sql::sqlparser::ast::{Insert, TableObject};

use super::context::SqlContext;

/// The Arrow type of a VARIANT column as strata's tables expose it: `value` and `metadata`
/// bytes with their Parquet field ids (Paimon's `VariantType` in Parquet).
fn variant_type() -> DataType {
    let field = |name: &str, id: &str| {
        Field::new(name, DataType::Binary, false).with_metadata(
            [("PARQUET:field_id".to_string(), id.to_string())]
                .into_iter()
                .collect(),
        )
    };
    DataType::Struct(Fields::from(vec![
        field("value", "0"),
        field("metadata", "1"),
    ]))
}

/// `parse_json(text)`: JSON text into a VARIANT; NULL stays NULL, text that is not JSON is an
/// error naming the value.
#[derive(Debug, PartialEq, Eq, Hash)]
struct ParseJson {
    signature: Signature,
}

impl ParseJson {
    fn new() -> Self {
        ParseJson {
            signature: Signature::new(
                TypeSignature::Coercible(vec![datafusion::logical_expr::Coercion::new_exact(
                    datafusion::logical_expr::TypeSignatureClass::Native(
                        datafusion::common::types::logical_string(),
                    ),
                )]),
                Volatility::Immutable,
            ),
        }
    }
}

impl ScalarUDFImpl for ParseJson {
    fn name(&self) -> &str {
        "parse_json"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(variant_type())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [arg] = args.args.as_slice() else {
            return plan_err!("parse_json takes one argument, the JSON text");
        };
        let texts = arg.to_array(args.number_rows)?;
        let texts = datafusion::arrow::compute::cast(&texts, &DataType::Utf8)?;
        let texts = texts
            .as_any()
            .downcast_ref::<StringArray>()
            .ok_or_else(|| DataFusionError::Internal("parse_json: text expected".into()))?;
        let mut values = BinaryBuilder::new();
        let mut metadata = BinaryBuilder::new();
        for i in 0..texts.len() {
            if texts.is_null(i) {
                values.append_value([]);
                metadata.append_value([]);
                continue;
            }
            let json: serde_json::Value = match serde_json::from_str(texts.value(i)) {
                Ok(v) => v,
                Err(e) => return exec_err!("parse_json: {:?} is not JSON: {e}", texts.value(i)),
            };
            let (value, meta) = strata::arrow::variant_from_json(&json);
            values.append_value(value);
            metadata.append_value(meta);
        }
        let DataType::Struct(fields) = variant_type() else {
            unreachable!("variant_type is a struct")
        };
        let columns: Vec<ArrayRef> = vec![Arc::new(values.finish()), Arc::new(metadata.finish())];
        let nulls = texts
            .nulls()
            .cloned()
            .map(|n| NullBuffer::from(n.inner().clone()));
        let out = StructArray::try_new(fields, columns, nulls)?;
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}

/// Registers `parse_json` with `ctx`.
pub(crate) fn register(ctx: &SessionContext) {
    ctx.register_udf(ScalarUDF::from(ParseJson::new()));
}

/// An INSERT planned by DataFusion (`planned`), with DataFusion's failures to cast a value into
/// a VARIANT column turned into [`variant_insert_refusal`]: at planning (a string into
/// `VALUES`) and at optimization (a struct literal, which the plan would otherwise only meet
/// when run; checked here only for tables with a VARIANT column).
pub(crate) async fn checked_insert(
    cx: &SqlContext,
    insert: &Insert,
    planned: Result<DataFrame>,
) -> Result<DataFrame> {
    let table = match &insert.table {
        TableObject::TableName(n) => n.to_string(),
        other => other.to_string(),
    };
    let df = match planned {
        Err(e) if is_variant_cast_error(&e) => {
            let columns = match &insert.table {
                TableObject::TableName(n) => variant_columns(cx, n).await,
                _ => Vec::new(),
            };
            return Err(variant_insert_refusal(&table, &columns));
        }
        other => other?,
    };
    if let LogicalPlan::Dml(dml) = df.logical_plan() {
        let schema = dml.target.schema();
        let columns: Vec<String> = schema
            .fields()
            .iter()
            .filter(|f| f.data_type() == &variant_type())
            .map(|f| f.name().clone())
            .collect();
        if !columns.is_empty() {
            if let Err(e) = cx.context().state().optimize(df.logical_plan()) {
                if is_variant_cast_error(&e) {
                    return Err(variant_insert_refusal(&table, &columns));
                }
            }
        }
    }
    Ok(df)
}

/// The VARIANT columns of the table `name` names (none when it cannot be opened: the
/// refusal then names no column).
async fn variant_columns(
    cx: &SqlContext,
    name: &datafusion::sql::sqlparser::ast::ObjectName,
) -> Vec<String> {
    let Ok(id) = cx.identifier(&super::ast::name_parts(name)) else {
        return Vec::new();
    };
    let Ok(table) = cx.catalog().get_table(&id).await else {
        return Vec::new();
    };
    table
        .schema()
        .fields
        .iter()
        .filter(|f| matches!(f.data_type.kind, strata::spec::TypeKind::Variant))
        .map(|f| f.name.clone())
        .collect()
}

/// Whether `e` is DataFusion failing to cast a value into a VARIANT column's type (its
/// planner's and its optimizer's messages both print the target type).
pub(crate) fn is_variant_cast_error(e: &DataFusionError) -> bool {
    let text = e.to_string().to_ascii_lowercase();
    text.contains("cast")
        && text.contains("\"value\": non-null binary")
        && text.contains("\"metadata\": non-null binary")
}

/// The refusal of a value DataFusion cannot cast into `columns` (the VARIANT columns of
/// `table`), saying how to write variants.
pub(crate) fn variant_insert_refusal(table: &str, columns: &[String]) -> DataFusionError {
    let columns = match columns {
        [] => "a VARIANT column".to_string(),
        [c] => format!("VARIANT column {c}"),
        more => format!("VARIANT columns {}", more.join(", ")),
    };
    DataFusionError::Plan(format!(
        "{columns} of {table}: SQL writes a VARIANT from JSON text with \
         parse_json('…') (INSERT INTO {table} VALUES (…, parse_json('{{\"a\": 1}}'))); a struct \
         or a bare string is not a VARIANT. Other ways: `strata write` with JSON lines, or \
         strata::arrow::variant_from_json in Rust"
    ))
}
