//! Metrics and health: the guard reports each call ([`Metrics::observe`]), the commit decision
//! its outcome ([`Metrics::commit`]), the token endpoint each vended credential
//! ([`Metrics::token_vended`]); [`routes`] serves `/metrics` (Prometheus text exposition format
//! 0.0.4) and `/healthz` outside authentication.
//!
//! Series (labels carry operation names and codes only, never a database, table or principal,
//! so `/metrics` reveals nothing about the warehouse's contents and stays small):
//! `requests_total{op,code}` (counter), `request_seconds{op}` (histogram, fixed buckets from
//! 1 ms to 10 s), `commits_total{result="success"|"conflict"|"error"}` (counter),
//! `tokens_vended_total{level="read"|"write"}` (counter).
//!
//! The encoder is hand-written (about a hundred lines: counters and one fixed-bucket histogram)
//! rather than the `prometheus` or `metrics` crates, whose registries and dependency trees are
//! far larger than four series need. This module is a leaf: the router's state hands it the
//! [`Metrics`] through `AsRef`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use crate::ops::Op;

/// The `Content-Type` of the Prometheus text exposition format.
pub const CONTENT_TYPE_PROMETHEUS: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds (seconds) of `request_seconds` buckets; `+Inf` follows.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// What a commit decision answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    /// `{"success":true}`.
    Success,
    /// `{"success":false}`: a stale base or a taken id.
    Conflict,
    /// An error answer.
    Error,
}

#[derive(Debug, Default, Clone)]
struct Histogram {
    /// Non-cumulative counts per bucket; the last one is `+Inf`.
    counts: [u64; BUCKETS.len() + 1],
    sum: f64,
}

#[derive(Debug, Default)]
struct Counters {
    requests: BTreeMap<(&'static str, u16), u64>,
    seconds: BTreeMap<&'static str, Histogram>,
    /// success, conflict, error.
    commits: [u64; 3],
    /// read, write.
    vended: [u64; 2],
}

/// The server's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    counters: Mutex<Counters>,
}

impl Metrics {
    /// Empty counters.
    pub fn new() -> Self {
        Metrics::default()
    }

    fn counters(&self) -> std::sync::MutexGuard<'_, Counters> {
        self.counters.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One call of `op` answered `status` after `seconds`.
    pub fn observe(&self, op: Op, status: u16, seconds: f64) {
        let name = op.operation_id();
        let seconds = if seconds.is_finite() {
            seconds.max(0.0)
        } else {
            0.0
        };
        let bucket = BUCKETS
            .iter()
            .position(|bound| seconds <= *bound)
            .unwrap_or(BUCKETS.len());
        let mut c = self.counters();
        *c.requests.entry((name, status)).or_default() += 1;
        let histogram = c.seconds.entry(name).or_default();
        histogram.counts[bucket] += 1;
        histogram.sum += seconds;
    }

    /// One commit decision.
    pub fn commit(&self, outcome: CommitOutcome) {
        let index = match outcome {
            CommitOutcome::Success => 0,
            CommitOutcome::Conflict => 1,
            CommitOutcome::Error => 2,
        };
        self.counters().commits[index] += 1;
    }

    /// One data token handed out by `getTableToken`: with write access (`write`) or read-only.
    pub fn token_vended(&self, write: bool) {
        self.counters().vended[usize::from(write)] += 1;
    }

    /// The Prometheus text exposition of every series.
    pub fn render(&self) -> String {
        let c = self.counters();
        let mut out = String::new();
        header(
            &mut out,
            "requests_total",
            "counter",
            "REST calls answered, by operation and HTTP status.",
        );
        for ((op, code), n) in &c.requests {
            let _ = writeln!(
                out,
                "requests_total{{op=\"{}\",code=\"{code}\"}} {n}",
                escape(op)
            );
        }
        header(
            &mut out,
            "request_seconds",
            "histogram",
            "Time from request to answer, by operation.",
        );
        for (op, h) in &c.seconds {
            let op = escape(op);
            let mut cumulative = 0;
            for (i, n) in h.counts.iter().enumerate() {
                cumulative += n;
                let le = BUCKETS
                    .get(i)
                    .map_or("+Inf".to_string(), |b| format!("{b}"));
                let _ = writeln!(
                    out,
                    "request_seconds_bucket{{op=\"{op}\",le=\"{le}\"}} {cumulative}"
                );
            }
            let _ = writeln!(out, "request_seconds_sum{{op=\"{op}\"}} {}", h.sum);
            let _ = writeln!(out, "request_seconds_count{{op=\"{op}\"}} {cumulative}");
        }
        header(
            &mut out,
            "commits_total",
            "counter",
            "Commit decisions, by result.",
        );
        for (result, n) in ["success", "conflict", "error"].iter().zip(c.commits) {
            let _ = writeln!(out, "commits_total{{result=\"{result}\"}} {n}");
        }
        header(
            &mut out,
            "tokens_vended_total",
            "counter",
            "Data tokens handed out, by access level.",
        );
        for (level, n) in ["read", "write"].iter().zip(c.vended) {
            let _ = writeln!(out, "tokens_vended_total{{level=\"{level}\"}} {n}");
        }
        out
    }
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// A label value escaped as the exposition format wants (`\`, `"`, newline).
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `/metrics` and `/healthz`, served without authentication (they name no database or table).
pub fn routes<S>() -> Router<S>
where
    S: AsRef<Metrics> + Clone + Send + Sync + 'static,
{
    Router::new()
        .route("/metrics", get(metrics::<S>))
        .route("/healthz", get(|| async { "ok" }))
}

async fn metrics<S: AsRef<Metrics>>(State(state): State<S>) -> impl IntoResponse {
    let body = state.as_ref().render();
    ([(CONTENT_TYPE, CONTENT_TYPE_PROMETHEUS)], body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_has_every_series_with_cumulative_buckets() {
        let m = Metrics::new();
        m.observe(Op::GetTable, 200, 0.0005);
        m.observe(Op::GetTable, 200, 0.2);
        m.observe(Op::GetTable, 404, 30.0);
        m.observe(Op::CommitTable, 200, 0.01);
        m.commit(CommitOutcome::Success);
        m.commit(CommitOutcome::Conflict);
        m.commit(CommitOutcome::Conflict);
        m.token_vended(false);
        let text = m.render();
        let has = |line: &str| text.lines().any(|l| l == line);
        assert!(has("# TYPE requests_total counter"));
        assert!(has("requests_total{op=\"getTable\",code=\"200\"} 2"));
        assert!(has("requests_total{op=\"getTable\",code=\"404\"} 1"));
        assert!(has("requests_total{op=\"commitTable\",code=\"200\"} 1"));
        assert!(has("# TYPE request_seconds histogram"));
        assert!(has(
            "request_seconds_bucket{op=\"getTable\",le=\"0.001\"} 1"
        ));
        assert!(has("request_seconds_bucket{op=\"getTable\",le=\"0.1\"} 1"));
        assert!(has("request_seconds_bucket{op=\"getTable\",le=\"0.25\"} 2"));
        assert!(has("request_seconds_bucket{op=\"getTable\",le=\"10\"} 2"));
        assert!(has("request_seconds_bucket{op=\"getTable\",le=\"+Inf\"} 3"));
        assert!(has("request_seconds_count{op=\"getTable\"} 3"));
        let sum = text
            .lines()
            .find_map(|l| l.strip_prefix("request_seconds_sum{op=\"getTable\"} "))
            .unwrap();
        assert!((sum.parse::<f64>().unwrap() - 30.2005).abs() < 1e-9);
        assert!(has("commits_total{result=\"success\"} 1"));
        assert!(has("commits_total{result=\"conflict\"} 2"));
        assert!(has("commits_total{result=\"error\"} 0"));
        assert!(has("tokens_vended_total{level=\"read\"} 1"));
        assert!(has("tokens_vended_total{level=\"write\"} 0"));
        // Every sample line is `name{labels} value` with a numeric value.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (series, value) = line.rsplit_once(' ').unwrap();
            assert!(series.ends_with('}'), "{line}");
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
