// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `log` crate's macros, with `debug!` and `trace!` made per-statement
//! dynamic debug (the feature `log`).
//!
//! A crate written for `log` switches by changing its `use` line:
//!
//! ```
//! // use log::{debug, info};
//! use statickeys::log::{debug, info};
//!
//! fn flush(queue: u32, items: usize) {
//!     debug!("queue {}: {} items", queue, items); // one no-op while off
//!     info!("flushed queue {queue}");             // log's own info!, unchanged
//! }
//!
//! fn main() {
//!     flush(1, 3); // the debug! record is not even built
//!     statickeys::dyndbg::query("format 'queue ' +p").unwrap();
//!     flush(2, 5); // log::logger() gets it: Level::Debug, file, line, module path
//! }
//! ```
//!
//! [`debug!`] and [`trace!`] are statements as [`sk_debug!`](crate::sk_debug)
//! is: each its own site and key in the catalogue, off by default (one
//! no-op, arguments not evaluated), switched by the query language.  While
//! on, each builds the record the `log` crate's macro would (level, target,
//! module path, file, line, message) and hands it to `log::logger().log()`:
//! the program's logger formats and writes it, and its own filter still
//! applies there (`env_logger` drops what `RUST_LOG` leaves out).  What is
//! no longer consulted is `log`'s level switch: `log::max_level()` and the
//! compile-time `max_level_*` features; the query is the switch.  The
//! decorations a query sets (`+mflst`) and [`set_sink`](crate::dyndbg::set_sink)
//! are the sink's, which these records do not go through.
//!
//! `debug!(target: "net", "sent {}", n)` is accepted: the record's target is
//! "net" (an expression, evaluated only when the statement is on), as with
//! `log`; the query language does not see targets: the statement is found
//! by its file, module path (`func`), line and format like any other.
//! Group statements that should be switched by name with
//! [`sk_debug!(class: ...)`](crate::sk_debug) instead.  The forms of `log`
//! 0.4 that take key-values (`debug!(id = 3; "...")`), a logger
//! (`debug!(logger: l, ...)`) or a non-literal format do not compile: the
//! format string is the statement's format in the catalogue.
//!
//! ```compile_fail
//! use statickeys::log::debug;
//! let id = 3;
//! debug!(id = id; "request"); // log's key-value form: "no rules expected `id`"
//! ```
//!
//! ```compile_fail
//! use statickeys::log::debug;
//! let fmt = "request";
//! debug!(fmt); // a format that is not a literal
//! ```
//!
//! [`error!`], [`warn!`] and [`info!`] are `log`'s, re-exported unchanged,
//! so that one `use` line covers a module's macros.
use core::fmt;

pub use ::log::{error, info, warn};

pub use crate::__log_debug as debug;
pub use crate::__log_trace as trace;

/// An enabled statement: the record `log`'s macros build, to the logger.
/// Out of line and cold, as the sink path.
#[doc(hidden)]
#[cold]
#[inline(never)]
pub fn __log(
    level: ::log::Level,
    target: &str,
    module_path: &'static str,
    file: &'static str,
    line: u32,
    args: fmt::Arguments<'_>,
) {
    ::log::logger().log(
        &::log::Record::builder()
            .args(args)
            .level(level)
            .target(target)
            .module_path_static(Some(module_path))
            .file_static(Some(file))
            .line(Some(line))
            .build(),
    );
}

/// `log::debug!`, one statement of dynamic debug: see [the module](self).
#[doc(hidden)]
#[macro_export]
macro_rules! __log_debug {
    ($($statement:tt)+) => {
        $crate::__log_statement!(Debug, $($statement)+)
    };
}

/// `log::trace!`, one statement of dynamic debug: see [the module](self).
#[doc(hidden)]
#[macro_export]
macro_rules! __log_trace {
    ($($statement:tt)+) => {
        $crate::__log_statement!(Trace, $($statement)+)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __log_statement {
    ($level:ident, target: $target:expr, $fmt:literal $($arg:tt)*) => {
        $crate::__dyndbg_statement!("", $fmt, |_| $crate::log::__log(
            $crate::__private::log::Level::$level,
            $target,
            ::core::module_path!(),
            ::core::file!(),
            ::core::line!(),
            ::core::format_args!($fmt $($arg)*),
        ))
    };
    ($level:ident, $fmt:literal $($arg:tt)*) => {
        $crate::__log_statement!($level, target: ::core::module_path!(), $fmt $($arg)*)
    };
}
