//! Prints the model catalogue: window, output limit, prices (US dollars per million
//! input and output tokens), tokenizer, API format and the source of every row.
//!
//! ```sh
//! cargo run -p ctxbudget --example models            # every model
//! cargo run -p ctxbudget --example models claude     # names containing "claude"
//! ```

use ctxbudget::models::Catalogue;

fn main() {
    let filter = std::env::args()
        .nth(1)
        .unwrap_or_default()
        .to_ascii_lowercase();
    println!(
        "| model | provider | window | max output | input | output | tokenizer | API | source | checked |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- |");
    for model in Catalogue::builtin()
        .models()
        .filter(|model| model.name().contains(&filter))
    {
        let output = model.max_output_tokens().map_or_else(
            || "shares the window".to_owned(),
            |tokens| tokens.to_string(),
        );
        let price = |output: bool| {
            model.prices().map_or_else(
                || "-".to_owned(),
                |p| if output { p.output } else { p.input }.to_string(),
            )
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            model.name(),
            model.provider(),
            model.context_window(),
            output,
            price(false),
            price(true),
            model.tokenizer(),
            model.api(),
            model.source(),
            model.checked().unwrap_or("-"),
        );
    }
}
