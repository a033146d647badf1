//! `--help` of every command shows examples; usage errors exit with 1.

use crate::support::run;

#[test]
fn every_command_has_examples_in_its_help() {
    for command in [
        &["--help"][..],
        &["count", "--help"],
        &["trim", "--help"],
        &["disclose", "--help"],
        &["fit", "--help"],
        &["models", "--help"],
        &["batch", "--help"],
        &["batch", "count", "--help"],
        &["batch", "trim", "--help"],
        &["batch", "fit", "--help"],
    ] {
        let out = run(command, b"");
        let help = out.ok();
        assert!(
            help.contains("Examples:\n  ctxbudget "),
            "{command:?}: {help}"
        );
    }
}

#[test]
fn no_command_is_a_usage_error() {
    run(&[], b"").fails(1, "Usage: ctxbudget <COMMAND>");
    run(&["frobnicate"], b"").fails(1, "unrecognized subcommand 'frobnicate'");
}
