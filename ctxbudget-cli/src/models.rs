//! `ctxbudget models`: the model catalogue as a table.

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::Args;
use ctxbudget::models::{Catalogue, Model, ModelCounter};

use crate::counter::did_you_mean;
use crate::error::CliError;
use crate::input::Output;

const EXAMPLES: &str = "\
The names are those --model takes (on count, trim, fit and batch); a dated snapshot
(gpt-4o-2024-08-06) or a provider prefix (openai/gpt-4o) finds its model too. Windows,
output limits and prices (US dollars per million input and output tokens) are from
LiteLLM's model table, and from the providers' documentation for the rows we checked.

Examples:
  ctxbudget models
  ctxbudget models claude
  ctxbudget models gpt-4o-2024-08-06";

/// Print the model catalogue: context window, output limit, prices and tokenizer of each
/// model
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct ModelsArgs {
    /// Show only the models whose name or an alias contains this (case does not
    /// matter)
    #[arg(value_name = "PATTERN")]
    pattern: Option<String>,
}

/// Prints the models that match as a table, one line each.
///
/// # Errors
///
/// No model matches: exit code 1, with the closest names.
pub fn run(args: &ModelsArgs) -> Result<ExitCode, CliError> {
    let pattern = args
        .pattern
        .as_deref()
        .unwrap_or_default()
        .trim()
        .to_lowercase();
    let mut models: Vec<&Model> = Catalogue::builtin()
        .models()
        .filter(|model| matches(model, &pattern))
        .collect();
    if models.is_empty() {
        // A dated snapshot, a provider prefix: a name `--model` takes.
        match Model::lookup(&pattern) {
            Ok(model) => models.push(model),
            Err(error) => {
                return Err(CliError::input(format!(
                    "no model of the catalogue matches `{}`: {}`ctxbudget models` lists them all",
                    args.pattern.as_deref().unwrap_or_default(),
                    did_you_mean(&error.suggestions)
                )));
            }
        }
    }
    let mut out = Output::stdout();
    out.write(table(&models).as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Whether the model's name or one of its aliases contains `pattern` (lower case).
fn matches(model: &Model, pattern: &str) -> bool {
    std::iter::once(model.name())
        .chain(model.aliases().iter().map(String::as_str))
        .any(|name| name.to_lowercase().contains(pattern))
}

/// The table: a header, then one row per model; numbers aligned right.
fn table(models: &[&Model]) -> String {
    let header = [
        "MODEL",
        "WINDOW",
        "MAX OUTPUT",
        "INPUT",
        "OUTPUT",
        "TOKENIZER",
    ];
    let price = |model: &Model, output: bool| {
        model.prices().map_or_else(
            || "-".to_owned(),
            |p| if output { p.output } else { p.input }.to_string(),
        )
    };
    let rows: Vec<[String; 6]> = models
        .iter()
        .map(|model| {
            [
                model.name().to_owned(),
                model.context_window().to_string(),
                model
                    .max_output_tokens()
                    .map_or_else(|| "shares window".to_owned(), |t| t.to_string()),
                price(model, false),
                price(model, true),
                tokenizer(model),
            ]
        })
        .collect();
    let width = |column: usize| {
        rows.iter()
            .map(|row| row[column].chars().count())
            .chain([header[column].len()])
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2, w3, w4) = (width(0), width(1), width(2), width(3), width(4));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<w0$}  {:>w1$}  {:>w2$}  {:>w3$}  {:>w4$}  {}",
        header[0], header[1], header[2], header[3], header[4], header[5]
    );
    for [name, window, output, input_price, output_price, tokenizer] in &rows {
        let _ = writeln!(
            out,
            "{name:<w0$}  {window:>w1$}  {output:>w2$}  {input_price:>w3$}  {output_price:>w4$}  \
             {tokenizer}"
        );
    }
    out
}

/// The tokenizer column: the Claude tokenizer generation a Claude model counts
/// with, exactly, else the catalogue's tokenizer.
fn tokenizer(model: &Model) -> String {
    match model.counter() {
        Ok(ModelCounter::Claude(claude)) => format!("claude {} tokenizer", claude.generation()),
        _ => model.tokenizer().to_string(),
    }
}
