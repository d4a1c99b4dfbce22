//! `CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v [(c, …)] [COMMENT '…'] AS query` and
//! `DROP VIEW [IF EXISTS] v, …`: the catalog's views (`strata::catalog::View`, kept by a REST
//! catalog; the filesystem and JDBC catalogs refuse them by name). The query is planned as it
//! will be read — in the view's database, by `crate::provider::view` — so a view that is
//! created also resolves; its columns come from that plan (renamed by the column list), its
//! text is kept as the default `query` and as the `datafusion` dialect's. A name a table holds
//! is refused (Java's catalogs keep tables and views apart).

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::dataframe::DataFrame;
use datafusion::sql::sqlparser::ast::{CreateTableOptions, CreateView, ObjectName, SqlOption};
use strata::catalog::{object_identifier, Catalog, Identifier, View, DATAFUSION_DIALECT};

use super::ast::{name_parts, option_text};
use super::context::SqlContext;
use crate::error::{plan_error, to_df};
use crate::provider::catalog::StrataCatalog;
use crate::provider::view::view_provider;

/// The view identifier of `name` as written (`v`, `db.v`, `paimon.db.v`).
fn view_id(cx: &SqlContext, name: &ObjectName) -> Result<Identifier> {
    let id = cx.identifier(&name_parts(name))?;
    let view = match &id.branch {
        None => id.table.clone(),
        Some(b) => format!("{}$branch_{b}", id.table),
    };
    object_identifier("view", &id.database, &view).map_err(to_df)
}

/// The options of `WITH ('k' = 'v', …)`.
fn view_options(options: &CreateTableOptions) -> Result<Vec<(String, String)>> {
    let list = match options {
        CreateTableOptions::None => return Ok(Vec::new()),
        CreateTableOptions::With(l) => l,
        other => {
            return Err(plan_error(format!(
                "CREATE VIEW … {other}: view options are given as WITH ('k' = 'v')"
            )))
        }
    };
    list.iter()
        .map(|o| match o {
            SqlOption::KeyValue { key, value } => Ok((
                key.value.trim_matches('\'').to_string(),
                option_text(value)?,
            )),
            other => Err(plan_error(format!(
                "CREATE VIEW … WITH ({other}): expected 'key' = 'value'"
            ))),
        })
        .collect()
}

/// The view `id` of `query` (its text as the default query and the `datafusion` dialect's),
/// with the columns `query` gives when planned as a reader will plan it: in the view's
/// database, by DataFusion over `catalog`. No comment, no options; nothing is created.
pub async fn plan_view(catalog: &Arc<dyn Catalog>, id: Identifier, query: &str) -> Result<View> {
    let mut view = View::new(id, Vec::new(), query, Some(DATAFUSION_DIALECT));
    let warehouse = Arc::new(StrataCatalog::new(catalog.clone()));
    let provider = view_provider(&view, warehouse, 0).await?;
    view.schema.fields = strata::arrow::from_arrow_schema(provider.schema().as_ref())
        .map_err(to_df)?
        .fields;
    Ok(view)
}

/// `CREATE VIEW`.
pub(crate) async fn create_view(cx: &SqlContext, cv: &CreateView) -> Result<DataFrame> {
    let refused = [
        (cv.materialized, "MATERIALIZED"),
        (cv.temporary, "TEMPORARY"),
        (cv.or_alter, "OR ALTER"),
        (cv.secure, "SECURE"),
        (cv.to.is_some(), "TO"),
        (!cv.cluster_by.is_empty(), "CLUSTER BY"),
        (cv.with_no_schema_binding, "WITH NO SCHEMA BINDING"),
        (cv.copy_grants, "COPY GRANTS"),
        (cv.params.is_some(), "view parameters"),
    ];
    if let Some((_, what)) = refused.iter().find(|(on, _)| *on) {
        return Err(plan_error(format!(
            "CREATE VIEW … {what}: a Paimon view is a named query (no {what})"
        )));
    }
    let id = view_id(cx, &cv.name)?;
    let catalog = cx.catalog().clone();
    let table_id = Identifier::new(id.database.clone(), id.table.clone()).map_err(to_df)?;
    if catalog.table_exists(&table_id).await.map_err(to_df)? {
        return Err(plan_error(format!(
            "cannot create view {id}: a table of that name exists"
        )));
    }
    let exists = match catalog.get_view(&id).await {
        Ok(_) => true,
        Err(e) if e.kind() == strata::ErrorKind::NotFound => false,
        Err(e) => return Err(to_df(e)),
    };
    if exists && cv.if_not_exists {
        return Ok(cx.empty());
    }
    if exists && !cv.or_replace {
        return Err(plan_error(format!("view {id} already exists")));
    }
    let mut view = plan_view(&catalog, id.clone(), &cv.query.to_string()).await?;
    let fields = &mut view.schema.fields;
    if !cv.columns.is_empty() {
        if cv.columns.len() != fields.len() {
            return Err(plan_error(format!(
                "view {id}: {} column names for a query of {} columns",
                cv.columns.len(),
                fields.len()
            )));
        }
        for (f, c) in fields.iter_mut().zip(&cv.columns) {
            f.name = c.name.value.clone();
        }
    }
    view.schema.comment = cv.comment.clone();
    view.schema.options = view_options(&cv.options)?.into_iter().collect();
    if exists {
        catalog.drop_view(&id, true).await.map_err(to_df)?;
    }
    catalog.create_view(&view, false).await.map_err(to_df)?;
    Ok(cx.empty())
}

/// `DROP VIEW [IF EXISTS] v, …`.
pub(crate) async fn drop_views(
    cx: &SqlContext,
    names: &[ObjectName],
    if_exists: bool,
) -> Result<DataFrame> {
    for n in names {
        let id = view_id(cx, n)?;
        cx.catalog()
            .drop_view(&id, if_exists)
            .await
            .map_err(to_df)?;
    }
    Ok(cx.empty())
}
