//! Tests of the predicate layer: examples per stage and property tests across stages.

mod map_key_bind;
mod parse_bind;
mod props;
mod stats_eval;
mod support;
