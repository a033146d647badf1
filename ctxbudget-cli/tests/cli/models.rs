//! `ctxbudget models`.

use ctxbudget::models::{Catalogue, Model, ModelCounter};

use crate::support::run;

/// The rows of the table: name, window, max output, input and output prices, tokenizer.
fn table_rows(out: &str) -> Vec<Vec<String>> {
    let mut lines = out.lines();
    let header = lines.next().expect("a header");
    assert!(header.starts_with("MODEL "), "{header}");
    lines
        .map(|line| {
            let cells: Vec<&str> = line.split("  ").filter(|c| !c.is_empty()).collect();
            cells.iter().map(|c| c.trim().to_owned()).collect()
        })
        .collect()
}

#[test]
fn every_model_of_the_catalogue_is_listed_with_its_numbers() {
    let out = run(&["models"], b"");
    let rows = table_rows(out.ok());
    let catalogue = Catalogue::builtin();
    assert_eq!(rows.len(), catalogue.len());
    for (row, model) in rows.iter().zip(catalogue.models()) {
        assert_eq!(row[0], model.name());
        assert_eq!(row[1], model.context_window().to_string());
        let output = model
            .max_output_tokens()
            .map_or_else(|| "shares window".to_owned(), |t| t.to_string());
        assert_eq!(row[2], output);
        let prices = model.prices();
        let shown = |price: Option<ctxbudget::models::Price>| {
            price.map_or_else(|| "-".to_owned(), |p| p.to_string())
        };
        assert_eq!(row[3], shown(prices.map(|p| p.input)), "{}", model.name());
        assert_eq!(row[4], shown(prices.map(|p| p.output)), "{}", model.name());
        // A Claude model counts with its tokenizer generation, and says which.
        let tokenizer = match model.counter() {
            Ok(ModelCounter::Claude(claude)) => {
                format!("claude {} tokenizer", claude.generation())
            }
            _ => model.tokenizer().to_string(),
        };
        assert_eq!(row[5], tokenizer, "{}", model.name());
    }
    let claude = rows.iter().find(|row| row[0] == "claude-opus-4-7").unwrap();
    assert_eq!(claude[5], "claude v4.7 tokenizer");
}

#[test]
fn a_pattern_filters_by_name_whatever_the_case() {
    let out = run(&["models", "CLAUDE"], b"");
    let rows = table_rows(out.ok());
    let expected: Vec<&str> = Catalogue::builtin()
        .models()
        .filter(|m| {
            std::iter::once(m.name())
                .chain(m.aliases().iter().map(String::as_str))
                .any(|n| n.to_lowercase().contains("claude"))
        })
        .map(Model::name)
        .collect();
    assert!(expected.len() > 3);
    let names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, expected);
    // A dated snapshot finds its model, as `--model` does.
    let out = run(&["models", "gpt-4o-2024-08-06"], b"");
    let rows = table_rows(out.ok());
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0][0],
        Model::lookup("gpt-4o-2024-08-06").unwrap().name()
    );
}

#[test]
fn no_match_exits_1_with_the_closest_names() {
    let suggestions = Model::lookup("claud-sonet").unwrap_err().suggestions;
    let out = run(&["models", "claud-sonet"], b"");
    out.fails(
        1,
        "no model of the catalogue matches `claud-sonet`: did you mean",
    );
    for name in suggestions {
        assert!(out.stderr.contains(&format!("`{name}`")), "{}", out.stderr);
    }
    assert!(out.stdout.is_empty());
}
