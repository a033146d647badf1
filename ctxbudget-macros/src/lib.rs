//! Procedural macros for [`ctxbudget`](https://docs.rs/ctxbudget).
//!
//! Use them through `ctxbudget`'s re-exports; generated code names items of
//! `ctxbudget::__private`, so the two crates ship together.
