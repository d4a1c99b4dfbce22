//! The progress bar of long reads, writes and compactions: drawn on stderr only when stderr is
//! a terminal (indicatif hides it otherwise, so notebooks' captured output, logs and CI stay
//! clean) and only once the operation has run for a second, so short calls never flash one.
//! `progress=False` turns it off, `progress=True` shows it from the start.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

const DELAY: Duration = Duration::from_secs(1);

/// A bar counting `unit` up to `total`.
pub(crate) struct Progress {
    bar: ProgressBar,
    started: Instant,
    shown: bool,
    enabled: bool,
}

impl Progress {
    /// `mode`: `None` = after a second in a terminal, `Some(true)` = at once in a terminal,
    /// `Some(false)` = never. A `total` of 0 means unknown.
    pub(crate) fn new(mode: Option<bool>, total: u64, what: &str, unit: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        let template =
            format!("{{spinner}} {what} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} ({{eta}})");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        let mut p = Progress {
            bar,
            started: Instant::now(),
            shown: false,
            enabled: mode != Some(false),
        };
        if mode == Some(true) {
            p.show();
        }
        p
    }

    fn show(&mut self) {
        if self.enabled && !self.shown {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
    }

    pub(crate) fn inc(&mut self, n: u64) {
        self.bar.inc(n);
        if !self.shown && self.started.elapsed() >= DELAY {
            self.show();
        }
    }

    pub(crate) fn set_position(&mut self, n: u64) {
        self.bar.set_position(n);
        if !self.shown && self.started.elapsed() >= DELAY {
            self.show();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
