//! What went wrong, as the user reads it, and the exit code that goes with it.

use std::fmt;
use std::process::ExitCode;

/// A failure of a command: a message that says what was wrong and how to fix it, and
/// whether it was bad input (exit code 1) or something that cannot fit its budget
/// (exit code 2).
#[derive(Debug)]
pub struct CliError {
    kind: Kind,
    message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Bad input or arguments: exit code 1.
    Input,
    /// Valid input that cannot fit the budget: exit code 2.
    DoesNotFit,
}

impl CliError {
    /// Bad input (a missing file, text that is not UTF-8, invalid JSON, an unknown
    /// encoding): exit code 1.
    pub fn input(message: impl Into<String>) -> Self {
        CliError {
            kind: Kind::Input,
            message: message.into(),
        }
    }

    /// Valid input that cannot fit the budget: exit code 2.
    pub fn does_not_fit(message: impl Into<String>) -> Self {
        CliError {
            kind: Kind::DoesNotFit,
            message: message.into(),
        }
    }

    /// Whether the input was valid but cannot fit its budget (exit code 2).
    pub fn is_does_not_fit(&self) -> bool {
        self.kind == Kind::DoesNotFit
    }

    /// The process exit code for this failure.
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(match self.kind {
            Kind::Input => EXIT_BAD_INPUT,
            Kind::DoesNotFit => EXIT_DOES_NOT_FIT,
        })
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// Exit code 1: bad input or arguments.
pub const EXIT_BAD_INPUT: u8 = 1;

/// Exit code 2: the input is valid but cannot fit its budget.
pub const EXIT_DOES_NOT_FIT: u8 = 2;
