//! Compile errors: every mistake a user can make with the derive and `budget!` has a
//! case in `tests/ui/` with its expected `.stderr` (regenerate with
//! `TRYBUILD=overwrite cargo test -p ctxbudget-macros --test compiletest` on the CI toolchain and review
//! the diff).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
