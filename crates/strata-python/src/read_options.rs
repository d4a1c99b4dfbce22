//! What a read builder has been given ([`ReadOptions`]: filter, projection, limit, time
//! travel), and filters given as text or as a `strata.Predicate` ([`filter_text`]).

use pyo3::prelude::*;
use strata::maintenance::time_travel::TravelTarget;

use crate::errors::invalid;

/// Where a read travels to.
#[derive(Clone, Debug)]
pub(crate) enum Travel {
    Snapshot(i64),
    Target(TravelTarget),
}

/// What a read builder has been given.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReadOptions {
    pub projection: Option<Vec<String>>,
    pub filter: Option<String>,
    pub limit: Option<usize>,
    pub travel: Option<Travel>,
}

impl ReadOptions {
    /// At most one of snapshot id, tag, timestamp (a `yyyy-MM-dd HH:mm:ss` local time text,
    /// epoch milliseconds, or a datetime).
    pub(crate) fn set_travel(
        &mut self,
        snapshot_id: Option<i64>,
        tag: Option<String>,
        timestamp: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let given = snapshot_id.is_some() as u8 + tag.is_some() as u8 + timestamp.is_some() as u8;
        if given > 1 {
            return Err(invalid(
                "give at most one of snapshot_id=, tag= and timestamp=",
            ));
        }
        if let Some(id) = snapshot_id {
            self.travel = Some(Travel::Snapshot(id));
        } else if let Some(name) = tag {
            self.travel = Some(Travel::Target(TravelTarget::Tag(name)));
        } else if let Some(ts) = timestamp {
            self.travel = Some(Travel::Target(travel_timestamp(ts)?));
        }
        Ok(())
    }
}

fn travel_timestamp(ts: &Bound<'_, PyAny>) -> PyResult<TravelTarget> {
    let py = ts.py();
    if let Ok(ms) = ts.extract::<i64>() {
        return Ok(TravelTarget::TimestampMillis(ms));
    }
    if let Ok(text) = ts.extract::<String>() {
        return TravelTarget::timestamp(&text)
            .map_err(|e| invalid(format!("timestamp {text:?}: {e}")));
    }
    if ts.is_instance(&py.import("datetime")?.getattr("datetime")?)? {
        let secs: f64 = ts.call_method0("timestamp")?.extract()?;
        return Ok(TravelTarget::TimestampMillis((secs * 1000.0).round() as i64));
    }
    Err(invalid(
        "timestamp= takes epoch milliseconds, a 'yyyy-MM-dd HH:mm:ss' local time or a datetime",
    ))
}

/// The SQL text of a filter given as text or as a `strata.Predicate`.
pub(crate) fn filter_text(filter: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = filter.extract::<String>() {
        return Ok(s);
    }
    if filter.hasattr("to_sql")? {
        return filter.call_method0("to_sql")?.extract();
    }
    Err(invalid(format!(
        "a filter is SQL text (\"id < 10\") or a strata.Predicate, not a {}",
        filter.get_type().name()?
    )))
}
