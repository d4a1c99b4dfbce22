//! Functions in Paimon's REST catalog: a function's definitions per dialect
//! ([`FunctionDefinition`], Java's `org.apache.paimon.function.FunctionDefinition` with
//! `@JsonTypeInfo(property = "type")`: `file`, `sql`, `lambda`), its changes
//! ([`FunctionChange`], Java's `FunctionChange`, `action`), and the request / response bodies
//! of the `…/functions` routes (Java's `CreateFunctionRequest`, `AlterFunctionRequest`,
//! `GetFunctionResponse`, `ListFunctionsResponse`, `ListFunctionDetailsResponse`,
//! `ListFunctionsGloballyResponse`), plus Java's function-name rule
//! ([`is_valid_function_name`], `RESTFunctionValidator`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{de_default, ObjectIdentifier};
use crate::types::DataField;

/// A file a `file` function is loaded from (Java's `FunctionDefinition.FunctionFileResource`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionFileResource {
    /// The kind of resource (`JAR`, `FILE`, …; free text to the catalog).
    #[serde(default, deserialize_with = "de_default")]
    pub resource_type: String,
    /// Where the file is.
    #[serde(default, deserialize_with = "de_default")]
    pub uri: String,
}

/// How a function is implemented in one dialect (Java's `FunctionDefinition`, sub-types named
/// by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum FunctionDefinition {
    /// A class in files (Java's `FileFunctionDefinition`).
    #[serde(rename_all = "camelCase")]
    File {
        /// The files to load.
        #[serde(default, deserialize_with = "de_default")]
        file_resources: Vec<FunctionFileResource>,
        /// The implementation language (`JAVA`, `PYTHON`, …).
        #[serde(default)]
        language: Option<String>,
        /// The implementing class.
        #[serde(default)]
        class_name: Option<String>,
        /// The method or function in it.
        #[serde(default)]
        function_name: Option<String>,
    },
    /// A SQL expression (Java's `SQLFunctionDefinition`).
    Sql {
        /// The SQL text.
        #[serde(default, deserialize_with = "de_default")]
        definition: String,
    },
    /// A lambda in a language (Java's `LambdaFunctionDefinition`).
    Lambda {
        /// The lambda's text.
        #[serde(default, deserialize_with = "de_default")]
        definition: String,
        /// Its language.
        #[serde(default)]
        language: Option<String>,
    },
}

/// One change of a function (Java's `FunctionChange`, sub-types named by `action`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum FunctionChange {
    /// Sets an option (Java's `SetFunctionOption`).
    SetOption {
        /// The option key.
        key: String,
        /// Its new value.
        value: String,
    },
    /// Removes an option (Java's `RemoveFunctionOption`).
    RemoveOption {
        /// The option key.
        key: String,
    },
    /// Sets the comment; `None` removes it (Java's `UpdateFunctionComment`).
    UpdateComment {
        /// The new comment.
        #[serde(default)]
        comment: Option<String>,
    },
    /// Adds a dialect's definition; it must not exist yet (Java's `AddDefinition`).
    AddDefinition {
        /// The dialect name.
        name: String,
        /// Its definition.
        definition: FunctionDefinition,
    },
    /// Replaces an existing dialect's definition (Java's `UpdateDefinition`).
    UpdateDefinition {
        /// The dialect name.
        name: String,
        /// Its new definition.
        definition: FunctionDefinition,
    },
    /// Drops a dialect's definition (Java's `DropDefinition`).
    DropDefinition {
        /// The dialect name.
        name: String,
    },
}

/// `POST /v1/{prefix}/databases/{db}/functions` (Java's `CreateFunctionRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateFunctionRequest {
    /// The function name.
    pub name: String,
    /// Input parameters (`None`: not declared).
    #[serde(default, with = "super::views::opt_fields")]
    pub input_params: Option<Vec<DataField>>,
    /// Return parameters (`None`: not declared).
    #[serde(default, with = "super::views::opt_fields")]
    pub return_params: Option<Vec<DataField>>,
    /// Whether the same input always gives the same output.
    #[serde(default, deserialize_with = "de_default")]
    pub deterministic: bool,
    /// Dialect name → the function's definition in it.
    #[serde(default, deserialize_with = "de_default")]
    pub definitions: BTreeMap<String, FunctionDefinition>,
    /// The function's comment (written only when set: the OpenAPI file declares a string;
    /// Java reads an absent member as null).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Function options.
    #[serde(default, deserialize_with = "de_default")]
    pub options: BTreeMap<String, String>,
}

/// `POST /v1/{prefix}/databases/{db}/functions/{function}` (Java's `AlterFunctionRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterFunctionRequest {
    /// The changes, applied in order.
    #[serde(default, deserialize_with = "de_default")]
    pub changes: Vec<FunctionChange>,
}

/// `GET /v1/{prefix}/databases/{db}/functions/{function}` (Java's `GetFunctionResponse`), also
/// each entry of [`ListFunctionDetailsResponse`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFunctionResponse {
    /// The function's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// The function name.
    pub name: String,
    /// Input parameters (`None`: not declared).
    #[serde(default, with = "super::views::opt_fields")]
    pub input_params: Option<Vec<DataField>>,
    /// Return parameters (`None`: not declared).
    #[serde(default, with = "super::views::opt_fields")]
    pub return_params: Option<Vec<DataField>>,
    /// Whether the same input always gives the same output.
    #[serde(default, deserialize_with = "de_default")]
    pub deterministic: bool,
    /// Dialect name → the function's definition in it.
    #[serde(default, deserialize_with = "de_default")]
    pub definitions: BTreeMap<String, FunctionDefinition>,
    /// The function's comment (written only when set: the OpenAPI file declares a string;
    /// Java reads an absent member as null).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Function options.
    #[serde(default, deserialize_with = "de_default")]
    pub options: BTreeMap<String, String>,
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

/// `GET /v1/{prefix}/databases/{db}/functions` (Java's `ListFunctionsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListFunctionsResponse {
    /// Function names of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub functions: Vec<String>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `GET /v1/{prefix}/databases/{db}/function-details` (Java's `ListFunctionDetailsResponse`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListFunctionDetailsResponse {
    /// The functions of this page.
    #[serde(default, deserialize_with = "de_default")]
    pub function_details: Vec<GetFunctionResponse>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// `GET /v1/{prefix}/functions` (Java's `ListFunctionsGloballyResponse`): functions of every
/// database.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListFunctionsGloballyResponse {
    /// The functions of this page, database and name.
    #[serde(default, deserialize_with = "de_default")]
    pub functions: Vec<ObjectIdentifier>,
    /// The next page's token; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// Java's `RESTFunctionValidator.isValidFunctionName`: not empty, only `A-Z a-z 0-9 . _ -`,
/// at least one letter.
pub fn is_valid_function_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().any(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}
