//! What the crate's leaf `ExecutionPlan`s share: the scan ([`crate::provider::scan`]), the
//! incremental read ([`crate::provider::incremental`]) and the copy-on-write rewrite
//! ([`crate::dml::cow`]) have no children and no expressions DataFusion may rewrite; each only
//! streams batches it reads (or computes) itself. Their `PlanProperties`, the tree methods
//! DataFusion asks of every plan ([`leaf_plan_methods!`]), the first words of their `EXPLAIN`
//! line, the stream adapter and the dealing of read units into partitions are written once here.
//!
//! A leaf at the bottom of the crate: it knows DataFusion and strata's `Table`, nothing of the
//! crate's layers above.

use std::fmt;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use datafusion::common::Result;
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{Partitioning, PlanProperties, SendableRecordBatchStream};
use futures::Stream;
use strata::table::Table;

/// The properties of a bounded leaf plan of `partitions` partitions (at least one) producing
/// `schema`, emitting as `emission` says.
pub(crate) fn properties(
    schema: SchemaRef,
    partitions: usize,
    emission: EmissionType,
) -> Arc<PlanProperties> {
    Arc::new(PlanProperties::new(
        EquivalenceProperties::new(schema),
        Partitioning::UnknownPartitioning(partitions.max(1)),
        emission,
        Boundedness::Bounded,
    ))
}

/// The start of a leaf plan's `EXPLAIN` line: `Name: table=db.t`; the plan adds its own
/// `, key=value` parts.
pub(crate) fn display_head(f: &mut fmt::Formatter, name: &str, table: &Table) -> fmt::Result {
    write!(f, "{name}: table={}", table.identifier())
}

/// `stream` as the `SendableRecordBatchStream` of a plan producing `schema`.
pub(crate) fn record_stream(
    schema: SchemaRef,
    stream: impl Stream<Item = Result<RecordBatch>> + Send + 'static,
) -> SendableRecordBatchStream {
    Box::pin(RecordBatchStreamAdapter::new(schema, stream))
}

/// Deals `units` into at most `n` groups (at least one), the largest first onto the group with
/// the fewest rows so far, so DataFusion's partitions read about equal row counts.
pub(crate) fn deal<T>(mut units: Vec<T>, n: usize, rows: impl Fn(&T) -> i64) -> Vec<Vec<T>> {
    units.sort_by_key(|u| std::cmp::Reverse(rows(u)));
    let n = n.min(units.len()).max(1);
    let mut groups: Vec<(i64, Vec<T>)> = (0..n).map(|_| (0, Vec::new())).collect();
    for u in units {
        let g = groups
            .iter_mut()
            .min_by_key(|(rows, _)| *rows)
            .expect("at least one group");
        g.0 += rows(&u);
        g.1.push(u);
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// The `ExecutionPlan` methods of a leaf plan, inside its `impl ExecutionPlan`: its `name`, the
/// `properties` field (made by [`properties`]), no children, no expressions, and the same plan
/// back for new children.
macro_rules! leaf_plan_methods {
    ($name:literal) => {
        fn name(&self) -> &str {
            $name
        }

        fn properties(&self) -> &::std::sync::Arc<::datafusion::physical_plan::PlanProperties> {
            &self.properties
        }

        fn children(
            &self,
        ) -> ::std::vec::Vec<&::std::sync::Arc<dyn ::datafusion::physical_plan::ExecutionPlan>> {
            ::std::vec::Vec::new()
        }

        fn apply_expressions(
            &self,
            _f: &mut dyn FnMut(
                &::std::sync::Arc<dyn ::datafusion::physical_expr::PhysicalExpr>,
            ) -> ::datafusion::common::Result<
                ::datafusion::common::tree_node::TreeNodeRecursion,
            >,
        ) -> ::datafusion::common::Result<::datafusion::common::tree_node::TreeNodeRecursion> {
            Ok(::datafusion::common::tree_node::TreeNodeRecursion::Continue)
        }

        fn replace_children(
            self: ::std::sync::Arc<Self>,
            _children: ::std::vec::Vec<
                ::std::sync::Arc<dyn ::datafusion::physical_plan::ExecutionPlan>,
            >,
            _options: ::datafusion::physical_plan::ReplaceChildrenOptions,
        ) -> ::datafusion::common::Result<
            ::std::sync::Arc<dyn ::datafusion::physical_plan::ExecutionPlan>,
        > {
            Ok(self)
        }

        fn with_new_children(
            self: ::std::sync::Arc<Self>,
            _children: ::std::vec::Vec<
                ::std::sync::Arc<dyn ::datafusion::physical_plan::ExecutionPlan>,
            >,
        ) -> ::datafusion::common::Result<
            ::std::sync::Arc<dyn ::datafusion::physical_plan::ExecutionPlan>,
        > {
            Ok(self)
        }
    };
}
pub(crate) use leaf_plan_methods;
