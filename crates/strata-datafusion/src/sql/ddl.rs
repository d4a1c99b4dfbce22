//! DDL with Paimon's meaning, and INSERT into static partitions.
//!
//! `CREATE TABLE` takes Flink/Spark-style Paimon DDL:
//!
//! ```sql
//! CREATE TABLE [IF NOT EXISTS] db.t (
//!     id BIGINT NOT NULL, dt STRING, v DECIMAL(10, 2) COMMENT 'price', m MAP<STRING, INT>,
//!     PRIMARY KEY (dt, id) [NOT ENFORCED]
//! ) [COMMENT '…'] PARTITIONED BY (dt) WITH ('bucket' = '4', 'merge-engine' = 'deduplicate')
//! ```
//!
//! Types are Paimon's SQL type names (`strata::spec::types::json::sql`: `STRING`,
//! `TIMESTAMP(3)`, `TIMESTAMP_LTZ(6)`, `ARRAY<T>`, `MAP<K, V>`, `ROW<a INT, …>`, …). The schema
//! is created by strata's catalog exactly as Java's `SchemaManager.createTable` does (field ids,
//! primary-key columns made NOT NULL, option validation; unsupported options refused).
//! `CREATE TABLE … AS SELECT` takes its columns from the query (Arrow types mapped to Paimon's)
//! and writes the rows in one commit. `PARTITIONED BY (dt STRING)` (Hive style, with a type)
//! adds the column.

use std::collections::BTreeMap;

use datafusion::common::Result;
use datafusion::dataframe::DataFrame;
use datafusion::sql::sqlparser::ast::{
    ColumnOption, CreateTable, CreateTableOptions, Expr, HiveDistributionStyle, Insert, ObjectName,
    SqlOption, TableConstraint, TableObject,
};
use strata::commit::OverwriteScope;
use strata::spec::schema::Schema;
use strata::spec::types::DataField;
use strata::spec::Datum;

use super::ast::{column_type, name_parts, option_text, type_text};
use super::context::{SqlContext, CATALOG};
use super::rewrite::Parsed;
use crate::dml::sink::{insert_with, SinkMode};
use crate::error::{plan_error, to_df};
use crate::provider::options::TableOptions;

/// Field id meaning "assigned at creation".
const UNASSIGNED: i32 = -1;

/// `WITH ('k' = 'v', …)` / `TBLPROPERTIES (…)` as options.
fn table_options(o: &CreateTableOptions) -> Result<BTreeMap<String, String>> {
    let list = match o {
        CreateTableOptions::None => return Ok(BTreeMap::new()),
        CreateTableOptions::With(l)
        | CreateTableOptions::Options(l)
        | CreateTableOptions::Plain(l)
        | CreateTableOptions::TableProperties(l) => l,
    };
    let mut out = BTreeMap::new();
    for opt in list {
        match opt {
            SqlOption::KeyValue { key, value } => {
                out.insert(key.value.clone(), option_text(value)?);
            }
            other => {
                return Err(plan_error(format!(
                    "table option {other}: expected 'key' = 'value'"
                )))
            }
        }
    }
    Ok(out)
}

pub(crate) async fn create_table(
    session: &SqlContext,
    parsed: &Parsed,
    ct: &CreateTable,
) -> Result<DataFrame> {
    if ct.or_replace || ct.temporary || ct.external {
        return Err(plan_error(
            "CREATE OR REPLACE / TEMPORARY / EXTERNAL TABLE: strata creates Paimon tables only",
        ));
    }
    if ct.like.is_some() || ct.clone.is_some() {
        return Err(plan_error("CREATE TABLE … LIKE / CLONE is not supported"));
    }
    let id = session.identifier(&name_parts(&ct.name))?;
    let mut fields = Vec::new();
    let mut primary_keys = Vec::new();
    for c in &ct.columns {
        let mut t = column_type(&c.name.value, &type_text(&c.data_type))?;
        let mut description = None;
        for o in &c.options {
            match &o.option {
                ColumnOption::NotNull => t.nullable = false,
                ColumnOption::Null => t.nullable = true,
                ColumnOption::PrimaryKey(_) => primary_keys.push(c.name.value.clone()),
                ColumnOption::Comment(text) => description = Some(text.clone()),
                other => {
                    return Err(plan_error(format!(
                        "column {}: option {other} is not supported",
                        c.name.value
                    )))
                }
            }
        }
        let mut f = DataField::new(UNASSIGNED, c.name.value.clone(), t);
        f.description = description;
        fields.push(f);
    }
    for c in &ct.constraints {
        match c {
            TableConstraint::PrimaryKey(pk) => {
                for col in &pk.columns {
                    primary_keys.push(col.column.expr.to_string().trim_matches('"').to_string());
                }
            }
            other => return Err(plan_error(format!("constraint {other} is not supported"))),
        }
    }
    let mut partition_keys = Vec::new();
    if let HiveDistributionStyle::PARTITIONED { columns } = &ct.hive_distribution {
        for c in columns {
            let name = c.name.value.clone();
            let typed = type_text(&c.data_type);
            if !typed.is_empty() && !fields.iter().any(|f: &DataField| f.name == name) {
                fields.push(DataField::new(
                    UNASSIGNED,
                    name.clone(),
                    column_type(&name, &typed)?,
                ));
            }
            partition_keys.push(name);
        }
    } else if !matches!(ct.hive_distribution, HiveDistributionStyle::NONE) {
        return Err(plan_error(
            "only PARTITIONED BY (columns) partitioning is supported",
        ));
    }
    let options = table_options(&ct.table_options)?;
    let comment = ct.comment.as_ref().map(|c| match c {
        datafusion::sql::sqlparser::ast::CommentDef::WithEq(s)
        | datafusion::sql::sqlparser::ast::CommentDef::WithoutEq(s) => s.clone(),
    });
    let query = match &ct.query {
        Some(q) => {
            if !fields.is_empty() {
                return Err(plan_error(
                    "CREATE TABLE … AS SELECT takes its columns from the query; give no column list",
                ));
            }
            // Planned from the parsed query itself, so that its time travel and option hints
            // apply (the query's text would lose the hints, which the parser drops, and
            // `VERSION AS OF 'tag'`, which the parser only takes as a placeholder number).
            let mut stmt = datafusion::sql::sqlparser::ast::Statement::Query(q.clone());
            let df = session.datafusion_statement(parsed, &mut stmt).await?;
            let arrow = df.schema().as_arrow().clone();
            let row = strata::arrow::from_arrow_schema(&arrow).map_err(to_df)?;
            fields = row
                .fields
                .into_iter()
                .map(|f| DataField::new(UNASSIGNED, f.name, f.data_type))
                .collect();
            Some(df)
        }
        None => None,
    };
    if fields.is_empty() {
        return Err(plan_error(format!("CREATE TABLE {id}: no columns")));
    }
    let schema = Schema {
        fields,
        partition_keys,
        primary_keys,
        options,
        comment,
    };
    let created = session
        .catalog()
        .create_table(&id, &schema, ct.if_not_exists)
        .await
        .map_err(to_df)?;
    if let (Some(df), true) = (query, created) {
        let target = format!("{}.\"{}\".\"{}\"", CATALOG, id.database, id.table);
        // One CREATE_TABLE_AS_SELECT snapshot, as Spark's `PaimonCreateTableAsSelectStrategy`.
        let written = super::ctas::write(df, &target).await;
        if let Err(e) = written {
            // A failed CREATE TABLE … AS SELECT leaves no table behind, as in Spark (its
            // `V2CreateTableAsSelectBaseExec` drops the table it created when the write fails).
            return Err(match session.catalog().drop_table(&id, true).await {
                Ok(_) => e,
                Err(d) => plan_error(format!(
                    "{e}; and the table {id} it created could not be dropped: {d}"
                )),
            });
        }
    }
    Ok(session.empty())
}

pub(crate) async fn drop_tables(
    session: &SqlContext,
    names: &[ObjectName],
    if_exists: bool,
) -> Result<DataFrame> {
    for n in names {
        let id = session.identifier(&name_parts(n))?;
        session
            .catalog()
            .drop_table(&id, if_exists)
            .await
            .map_err(to_df)?;
    }
    Ok(session.empty())
}

/// `INSERT INTO|OVERWRITE t PARTITION (k = v, …) SELECT …`: the query gives the other
/// columns in table order; the partition values are added to every row. OVERWRITE replaces
/// exactly the partitions the spec selects (Paimon's static partition overwrite).
pub(crate) async fn insert_static_partition(
    session: &SqlContext,
    parsed: &Parsed,
    insert: &Insert,
) -> Result<DataFrame> {
    let TableObject::TableName(name) = &insert.table else {
        return Err(plan_error("INSERT … PARTITION: expected a table name"));
    };
    let id = session.identifier(&name_parts(name))?;
    let mut table = session.catalog().get_table(&id).await.map_err(to_df)?;
    if let Some(options) = parsed.hint_of(name) {
        table = TableOptions::new(options.clone()).for_write(&table)?;
    }
    let Some(source) = &insert.source else {
        return Err(plan_error("INSERT … PARTITION: expected a query"));
    };
    if !insert.columns.is_empty() {
        return Err(plan_error(
            "INSERT … PARTITION (…) with a column list is not supported",
        ));
    }
    let mut spec: Vec<(String, String)> = Vec::new();
    for e in insert.partitioned.as_deref().unwrap_or_default() {
        let Expr::BinaryOp { left, op, right } = e else {
            return Err(plan_error(format!(
                "PARTITION ({e}): expected column = value"
            )));
        };
        if op.to_string() != "=" {
            return Err(plan_error(format!(
                "PARTITION ({e}): expected column = value"
            )));
        }
        spec.push((
            left.to_string().trim_matches('"').to_string(),
            option_text(right)?,
        ));
    }
    let schema = table.schema();
    for (k, _) in &spec {
        if !schema.partition_keys.iter().any(|p| p == k) {
            return Err(plan_error(format!(
                "PARTITION ({k} = …): {k} is not a partition column of {id} (partition keys: {})",
                schema.partition_keys.join(", ")
            )));
        }
    }
    // The query's columns are the table's columns other than the fixed ones, in order.
    let mut stmt = datafusion::sql::sqlparser::ast::Statement::Query(source.clone());
    let df = session.datafusion_statement(parsed, &mut stmt).await?;
    let rest: Vec<&DataField> = schema
        .fields
        .iter()
        .filter(|f| !spec.iter().any(|(k, _)| k == &f.name))
        .collect();
    if df.schema().fields().len() != rest.len() {
        return Err(plan_error(format!(
            "INSERT INTO {id} PARTITION (…): the query has {} columns, the table has {} besides \
             the partition spec ({})",
            df.schema().fields().len(),
            rest.len(),
            rest.iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let mut exprs = Vec::new();
    let mut query_cols = df.schema().columns().into_iter();
    for f in &schema.fields {
        match spec.iter().find(|(k, _)| k == &f.name) {
            Some((_, v)) => exprs.push(datafusion::prelude::lit(v.clone()).alias(&f.name)),
            None => {
                let c = query_cols.next().expect("counted above");
                exprs.push(datafusion::prelude::Expr::Column(c).alias(&f.name));
            }
        }
    }
    let df = df.select(exprs)?;
    let mode = if insert.overwrite {
        let computer = table.partition_computer();
        let values = computer
            .parse_partial_spec(&spec)
            .map_err(|e| to_df(e.into()))?;
        let names = &schema.partition_keys;
        let static_spec: Vec<(String, Option<Datum>)> = values
            .into_iter()
            .map(|(i, v)| (names[i].clone(), v))
            .collect();
        SinkMode::Overwrite(OverwriteScope::Static(static_spec))
    } else {
        SinkMode::Append
    };
    let plan = df.create_physical_plan().await?;
    let exec = insert_with(&table, plan, mode)?;
    let batches = datafusion::physical_plan::collect(exec, session.context().task_ctx()).await?;
    session.result(
        batches
            .into_iter()
            .next()
            .ok_or_else(|| plan_error("INSERT returned no count"))?,
    )
}
