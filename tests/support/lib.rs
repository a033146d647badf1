//! Helpers shared by ctxbudget's integration tests, examples and benches.
