//! End-to-end tests of the `ctxbudget` binary: each command on files and on standard
//! input, every exit code, and bad input with its message. Expected values come from
//! the library, never from the binary itself.

mod batch;
mod batch_fit;
mod count;
mod disclose;
mod fit;
mod help;
mod models;
mod streams;
mod support;
mod trim;
