//! `ctxbudget`: count, trim and disclose text within a token budget from the shell,
//! and do it for whole JSON-lines data sets on all cores. The commands live in the
//! `ctxbudget_cli` library of this package.

use std::process::ExitCode;

fn main() -> ExitCode {
    ctxbudget_cli::main()
}
