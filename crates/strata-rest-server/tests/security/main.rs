//! Security tests of `strata serve` (DESIGN32 §3): the grant boundaries of the token file, 401
//! without a valid token, names that would leave the warehouse (refused with 400 and nothing
//! created on disk), oversized and malformed bodies, and error answers that never name the
//! warehouse's location. Plus what operators rely on: audit lines without tokens, `/metrics`
//! and `/healthz`.
//!
//! Each test starts an in-process server on a loopback port over a fresh warehouse and talks
//! raw HTTP/1.1 over TCP: an HTTP client library would normalise `..`, reject NUL and refuse to
//! send what an attacker sends, which is exactly what these tests must send.
//!
//! | module | what |
//! |---|---|
//! | `server` | the test server (token file, databases) and the raw HTTP client |
//! | `grants` | 401s, read / database / table grants |
//! | `objects` | grants on views and functions |
//! | `requests` | names leaving the warehouse, oversized and malformed bodies |
//! | `operations` | audit, metrics, token file errors, slow clients |

mod grants;
mod objects;
mod operations;
mod requests;
mod server;
