//! Views in Paimon's REST catalog: the view's definition ([`ViewSchema`], Java's
//! `org.apache.paimon.view.ViewSchema`), its changes ([`ViewChange`], Java's `ViewChange` with
//! `@JsonTypeInfo(property = "action")`), and the request / response bodies of the `…/views`
//! routes (Java's `CreateViewRequest`, `AlterViewRequest`, `GetViewResponse`,
//! `ListViewsResponse`, `ListViewDetailsResponse`, `ListViewsGloballyResponse`). A view is
//! renamed with the tables' `RenameTableRequest` (`POST /v1/{prefix}/views/rename`), as Java's
//! `RESTApi.renameView` sends it.
//!
//! Also home of the serde adapters for a list of [`DataField`]s in Jackson's shape
//! ([`fields`], [`opt_fields`]), which views and functions share.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{de_default, ObjectIdentifier};
use crate::types::DataField;

/// A view's definition (Java's `ViewSchema`): its output columns, its default query, the query
/// per SQL dialect (`"spark"`, `"flink"`, …), a comment and options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewSchema {
    /// The view's output columns (Java's `DataField` JSON: `id`, `name`, `type`, …).
    #[serde(default, with = "fields")]
    pub fields: Vec<DataField>,
    /// The default query (used when the engine's dialect has none of its own).
    #[serde(default, deserialize_with = "de_default")]
    pub query: String,
    /// Dialect name → that dialect's query.
    #[serde(default, deserialize_with = "de_default")]
    pub dialects: BTreeMap<String, String>,
    /// The view's comment (written only when set, as Java's `@JsonInclude(NON_NULL)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// View options.
    #[serde(default, deserialize_with = "de_default")]
    pub options: BTreeMap<String, String>,
}

impl ViewSchema {
    /// The query for `dialect`: its own if the view has one, else the default `query` (Java's
    /// `View.query(dialect)`).
    pub fn query_for(&self, dialect: &str) -> &str {
        self.dialects
            .get(dialect)
            .map(String::as_str)
            .unwrap_or(&self.query)
    }
}

/// One change of `ALTER VIEW` (Java's `ViewChange`, sub-types named by `action`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum ViewChange {
    /// Sets an option (Java's `SetViewOption`).
    SetOption {
        /// The option key.
        key: String,
        /// Its new value.
        value: String,
    },
    /// Removes an option (Java's `RemoveViewOption`).
    RemoveOption {
        /// The option key.
        key: String,
    },
    /// Sets the comment; `None` removes it (Java's `UpdateViewComment`).
    UpdateComment {
        /// The new comment.
        #[serde(default)]
        comment: Option<String>,
    },
    /// Adds a dialect's query; the dialect must not exist yet (Java's `AddDialect`).
    AddDialect {
        /// The dialect name.
        dialect: String,
        /// Its query.
        query: String,
    },
    /// Replaces an existing dialect's query (Java's `UpdateDialect`).
    UpdateDialect {
        /// The dialect name.
        dialect: String,
        /// Its new query.
        query: String,
    },
    /// Drops a dialect's query (Java's `DropDialect`).
    DropDialect {
        /// The dialect name.
        dialect: String,
    },
}

/// `POST /v1/{prefix}/databases/{db}/views` (Java's `CreateViewRequest`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateViewRequest {
    /// The new view.
    pub identifier: ObjectIdentifier,
    /// Its definition.
    pub schema: ViewSchema,
}

/// `POST /v1/{prefix}/databases/{db}/views/{view}` (Java's `AlterViewRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterViewRequest {
    /// The changes, applied in order.
    #[serde(default, deserialize_with = "de_default")]
    pub changes: Vec<ViewChange>,
}

/// `GET /v1/{prefix}/databases/{db}/views/{view}` (Java's `GetViewResponse`), also each entry
/// of [`ListViewDetailsResponse`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetViewResponse {
    /// The view's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The view name.
    pub name: String,
    /// Its definition.
    pub schema: ViewSchema,
    /// Owner (Java's `AuditRESTResponse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Creation time, epoch milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
    /// Who created it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// Last update, epoch milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<i64>,
    /// Who updated it last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_by: Option<String>,
}

/// `GET /v1/{prefix}/databases/{db}/views` (Java's `ListViewsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListViewsResponse {
    /// View names of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub views: Vec<String>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `GET /v1/{prefix}/databases/{db}/view-details` (Java's `ListViewDetailsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListViewDetailsResponse {
    /// The views of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub view_details: Vec<GetViewResponse>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `GET /v1/{prefix}/views` (Java's `ListViewsGloballyResponse`): views of every database.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListViewsGloballyResponse {
    /// The views of this page, database and name.
    #[serde(default, deserialize_with = "de_default")]
    pub views: Vec<ObjectIdentifier>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `#[serde(with = "fields")]` for a `Vec<DataField>` in Java's `DataField` JSON (`null` reads
/// as empty; ids all present or all missing, missing ones numbered 0, 1, … as Java's parser).
pub mod fields {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    use crate::types::json::{field_to_json, parse_fields};
    use crate::types::DataField;

    /// Writes each field with `field_to_json`.
    pub fn serialize<S: Serializer>(fields: &[DataField], s: S) -> Result<S::Ok, S::Error> {
        Value::Array(fields.iter().map(field_to_json).collect()).serialize(s)
    }

    /// Reads the fields (`null` → empty).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<DataField>, D::Error> {
        let v = Option::<Vec<Value>>::deserialize(d)?.unwrap_or_default();
        parse_fields(&v).map_err(D::Error::custom)
    }
}

/// `#[serde(with = "opt_fields")]` for an `Option<Vec<DataField>>` (absent or `null` is
/// `None`, written as `null`, as Java's function parameters).
pub mod opt_fields {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    use crate::types::json::{field_to_json, parse_fields};
    use crate::types::DataField;

    /// Writes the fields, or `null`.
    pub fn serialize<S: Serializer>(
        fields: &Option<Vec<DataField>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match fields {
            Some(f) => Value::Array(f.iter().map(field_to_json).collect()).serialize(s),
            None => s.serialize_none(),
        }
    }

    /// Reads the fields or `None`.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Vec<DataField>>, D::Error> {
        match Option::<Vec<Value>>::deserialize(d)? {
            Some(v) => parse_fields(&v).map(Some).map_err(D::Error::custom),
            None => Ok(None),
        }
    }
}
