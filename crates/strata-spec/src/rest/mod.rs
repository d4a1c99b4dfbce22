//! Paimon's REST catalog protocol: the JSON bodies of every request and response, as Java's
//! `org.apache.paimon.rest.requests.*` / `responses.*` (Jackson) and the OpenAPI contract
//! `rest-catalog-open-api.yaml` (release 2.0) spell them. Pure serde types, no I/O: strata's
//! REST client (`strata::catalog::rest`) and its server (`strata-rest-server`) share them.
//!
//! Conventions (Java's): members are camelCase; unknown members are ignored
//! (`@JsonIgnoreProperties(ignoreUnknown = true)`); optional members are omitted when absent
//! (Java writes some as `null`, which every type here reads as absent).
//!
//! | file | what |
//! |---|---|
//! | `common` | what requests and responses share (`ObjectIdentifier`, `Instant`, `Partition`, `TableSnapshot`) |
//! | `requests` | request bodies (`CreateTableRequest`, `CommitTableRequest`, …) |
//! | `responses` | response bodies (`ConfigResponse`, `GetTableResponse`, `ErrorResponse`, …) |
//! | `views` | views: `ViewSchema`, `ViewChange`, their requests and responses; the `DataField` list adapters |
//! | `functions` | functions: `FunctionDefinition` (`file`/`sql`/`lambda`), `FunctionChange`, their requests and responses |
//! | `json` | serde adapters for the types whose JSON is hand-written in this crate: the create-table [`Schema`](crate::schema::Schema) and [`SchemaChange`](crate::schema::SchemaChange) (Java's `@JsonSubTypes` on `action`) |

mod common;
pub mod functions;
pub mod json;
mod requests;
mod responses;
#[cfg(test)]
mod tests;
pub mod views;
#[cfg(test)]
mod views_tests;

pub use common::{Instant, ObjectIdentifier, Partition, TableSnapshot};
pub use functions::{
    is_valid_function_name, AlterFunctionRequest, CreateFunctionRequest, FunctionChange,
    FunctionDefinition, FunctionFileResource, GetFunctionResponse, ListFunctionDetailsResponse,
    ListFunctionsGloballyResponse, ListFunctionsResponse,
};
pub use requests::*;
pub use responses::*;
pub use views::{
    AlterViewRequest, CreateViewRequest, GetViewResponse, ListViewDetailsResponse,
    ListViewsGloballyResponse, ListViewsResponse, ViewChange, ViewSchema,
};
