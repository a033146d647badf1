//! Runtime budgets: `ContextBudget`, `ContextUsage`, `BudgetError`, serde and the usage
//! log.

use ctxbudget::{BudgetError, ContextBudget, budget::ContextUsage, budget::UsageLog};
use proptest::prelude::*;

fn agent() -> ContextBudget {
    ContextBudget::agent(
        8192,
        [512, 256, 256, 2048, 512, 256, 256, 2048, 256, 512, 1024],
    )
    .unwrap()
}

#[test]
fn reserved_available_and_layer_budget() {
    let budget = agent();
    assert_eq!(budget.total(), 8192);
    assert_eq!(budget.reserved(), 7936);
    assert_eq!(budget.available(), 256);
    assert_eq!(budget.layer_budget("memory"), Ok(2048));
    assert_eq!(budget.len(), 11);
    let names: Vec<&str> = budget.layers().map(|(name, _)| name).collect();
    assert_eq!(names, ContextBudget::AGENT_LAYERS);
}

#[test]
fn the_preset_is_not_a_limit() {
    let budget = ContextBudget::new(100, [("a", 10), ("b", 20), ("c", 30)]).unwrap();
    assert_eq!(budget.reserved(), 60);
    let empty = ContextBudget::new(100, Vec::<(String, usize)>::new()).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.available(), 100);
}

#[test]
fn unknown_layer_names_the_known_ones() {
    let err = agent().layer_budget("total").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown layer `total`; the budget declares: system, mission, plan, memory, \
         artifacts, graph, ast, semantic, task, user, output"
    );
}

#[test]
fn construction_errors() {
    assert_eq!(
        ContextBudget::new(1000, [("system", 512), ("memory", 1024)]),
        Err(BudgetError::OverAllocated {
            reserved: 1536,
            total: 1000,
            terms: "system 512 + memory 1024".into()
        })
    );
    assert_eq!(
        ContextBudget::new(1000, [("a", 1), ("a", 2)]),
        Err(BudgetError::DuplicateLayer { name: "a".into() })
    );
    for bad in ["", "total", "spent", "remaining"] {
        assert_eq!(
            ContextBudget::new(1000, [(bad, 1)]),
            Err(BudgetError::InvalidLayerName { name: bad.into() })
        );
    }
    let err = ContextBudget::new(5, [("x", usize::MAX), ("y", 1)]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("layer reservations add up to more than usize::MAX tokens at layer `y`")
    );
}

/// Regression: reservations adding up past `usize::MAX` were reported as
/// `18446744073709551615`, which reads as a sum that saturated. Messages say
/// `usize::MAX` by name; sums of two numbers are exact.
#[test]
fn huge_reservations_never_print_usize_max_as_a_number() {
    let max = usize::MAX;
    let mut messages = vec![
        ContextBudget::new(5, [("x", max), ("y", 1)]).unwrap_err(),
        ContextBudget::new(5, [("x", max - 1), ("y", 2)]).unwrap_err(),
        ContextBudget::new(5, [("x", max)]).unwrap_err(),
        ContextBudget::new(max - 1, [("x", max)]).unwrap_err(),
    ];
    let mut usage = ContextBudget::new(max, [("x", max - 5), ("y", 5)])
        .unwrap()
        .usage();
    usage.spend("x", max - 5).unwrap();
    messages.push(usage.spend("x", max).unwrap_err());
    messages.push(usage.spend("y", 6).unwrap_err());
    let messages: Vec<String> = messages.iter().map(ToString::to_string).collect();
    for message in &messages {
        assert!(!message.contains(&max.to_string()), "{message}");
    }
    assert_eq!(
        messages[0],
        "layer reservations add up to more than usize::MAX tokens at layer `y` (1, after \
         usize::MAX for the layers before it); lower the reservations"
    );
    assert_eq!(
        messages[1],
        format!(
            "layer reservations add up to more than usize::MAX tokens at layer `y` (2, after \
             {} for the layers before it); lower the reservations",
            max - 1
        )
    );
    assert_eq!(
        messages[2],
        format!(
            "layers reserve usize::MAX tokens (x usize::MAX) but the total is 5: {} over; \
             lower a reservation or raise the total",
            max - 5
        )
    );
    assert!(
        messages[3].starts_with(&format!(
            "layers reserve usize::MAX tokens (x usize::MAX) but the total is {}: 1 over",
            max - 1
        )),
        "{}",
        messages[3]
    );
    // The sum of what was spent and what was asked is exact, past usize::MAX too.
    let asked = u128::try_from(max - 5).unwrap() + u128::try_from(max).unwrap();
    assert!(
        messages[4].starts_with(&format!(
            "layer `x` over budget: {asked} > {} ({} spent, usize::MAX more asked)",
            max - 5,
            max - 5
        )),
        "{}",
        messages[4]
    );
    assert!(
        messages[5].starts_with("layer `y` over budget: 6 > 5"),
        "{}",
        messages[5]
    );
}

#[test]
fn spend_refuses_and_records_nothing() {
    let mut usage = ContextBudget::new(4096, [("system", 512), ("memory", 2048)])
        .unwrap()
        .usage();
    usage.spend("memory", 2000).unwrap();
    let before = usage.clone();

    let over = usage.spend("memory", 100).unwrap_err();
    assert_eq!(
        over,
        BudgetError::LayerOverBudget {
            layer: "memory".into(),
            spent: 2000,
            tokens: 100,
            budget: 2048
        }
    );
    assert!(
        over.to_string()
            .starts_with("layer `memory` over budget: 2100 > 2048")
    );
    assert!(matches!(
        usage.spend("plan", 1),
        Err(BudgetError::UnknownLayer { .. })
    ));
    // An amount whose sum overflows usize is refused too, with the exact sum.
    let huge = usage.spend("memory", usize::MAX).unwrap_err();
    assert!(
        huge.to_string()
            .contains(&format!("{} > 2048", u128::from(u64::MAX) + 2000))
    );
    assert_eq!(usage, before);
    assert_eq!(usage.spent("memory"), Ok(2000));
    assert_eq!(usage.total_spent(), 2000);
    assert_eq!(usage.remaining(), 2096);

    usage.spend("memory", 48).unwrap();
    usage.spend("system", 0).unwrap();
    assert_eq!(usage.spent("memory"), Ok(2048));
    usage.reset();
    assert_eq!(usage.total_spent(), 0);
}

#[test]
fn telemetry_is_one_flat_object_in_declaration_order() {
    let mut usage = ContextBudget::new(4096, [("user", 1024), ("system", 512)])
        .unwrap()
        .usage();
    usage.spend("system", 300).unwrap();
    assert_eq!(
        usage.to_json(),
        r#"{"total":4096,"spent":300,"remaining":3796,"user":{"budget":1024,"spent":0},"system":{"budget":512,"spent":300}}"#
    );
}

#[test]
fn usage_log_writes_one_flushed_line_per_record() {
    /// Counts flushes and refuses to let a line be split across them.
    #[derive(Default)]
    struct Flushes {
        bytes: Vec<u8>,
        flushed_at: Vec<usize>,
    }
    impl std::io::Write for Flushes {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.flushed_at.push(self.bytes.len());
            Ok(())
        }
    }

    let mut usage = agent().usage();
    let mut log = UsageLog::new(Flushes::default());
    log.record(&usage).unwrap();
    usage.spend("user", 12).unwrap();
    log.record(&usage).unwrap();
    let out = log.into_inner();
    let text = String::from_utf8(out.bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    // Flushed after each complete line.
    assert_eq!(out.flushed_at, [lines[0].len() + 1, text.len()]);
    let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(second["spent"], 12);
    assert_eq!(second["user"]["spent"], 12);
    assert_eq!(second["user"]["budget"], 512);
}

/// A disk that fills up: it accepts at most `room` more bytes (`None`: no limit), at
/// most `chunk` per call, then fails.
struct Disk {
    bytes: Vec<u8>,
    room: Option<usize>,
    chunk: usize,
}

impl Disk {
    fn new() -> Self {
        Disk {
            bytes: Vec::new(),
            room: None,
            chunk: usize::MAX,
        }
    }
}

impl std::io::Write for Disk {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = self.room.unwrap_or(usize::MAX);
        if room == 0 {
            return Err(std::io::Error::other("disk full"));
        }
        let n = buf.len().min(room).min(self.chunk);
        self.bytes.extend_from_slice(&buf[..n]);
        self.room = self.room.map(|room| room - n);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Regression: a record that failed partway left half a line, the next record was
/// glued to it, and both were lost.
#[test]
fn usage_log_starts_a_new_line_after_a_failed_write() {
    let mut usage = agent().usage();
    let mut log = UsageLog::new(Disk::new());
    log.record(&usage).unwrap();
    let first = usage.to_json();

    // Full after ten bytes of the second record.
    usage.spend("user", 1).unwrap();
    let cut = usage.to_json();
    log.get_mut().room = Some(10);
    assert!(log.record(&usage).is_err());

    // Room again: the next two records are whole lines.
    log.get_mut().room = None;
    usage.spend("user", 2).unwrap();
    log.record(&usage).unwrap();
    let third = usage.to_json();
    usage.spend("user", 3).unwrap();
    log.record(&usage).unwrap();
    let fourth = usage.to_json();

    let text = String::from_utf8(log.into_inner().bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines, [&first, &cut[..10], &third, &fourth]);
    assert!(text.ends_with('\n'));
}

/// A write that failed before any byte was accepted left no half line: no blank line
/// follows.
#[test]
fn usage_log_adds_no_blank_line_after_a_write_that_wrote_nothing() {
    let usage = agent().usage();
    let mut log = UsageLog::new(Disk::new());
    log.get_mut().room = Some(0);
    assert!(log.record(&usage).is_err());
    log.get_mut().room = None;
    log.record(&usage).unwrap();
    let text = String::from_utf8(log.into_inner().bytes).unwrap();
    assert_eq!(text, format!("{}\n", usage.to_json()));
}

#[test]
fn usage_log_survives_short_writes_and_interrupts() {
    /// Accepts three bytes per call and is interrupted every other call.
    struct Stuttering {
        bytes: Vec<u8>,
        calls: usize,
    }
    impl std::io::Write for Stuttering {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.calls += 1;
            if self.calls % 2 == 0 {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let n = buf.len().min(3);
            self.bytes.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let usage = agent().usage();
    let mut log = UsageLog::new(Stuttering {
        bytes: Vec::new(),
        calls: 0,
    });
    log.record(&usage).unwrap();
    log.record(&usage).unwrap();
    let text = String::from_utf8(log.into_inner().bytes).unwrap();
    assert_eq!(text, format!("{0}\n{0}\n", usage.to_json()));
}

/// `write_all` retries interrupted writes forever; the log gives up instead of
/// hanging on a writer that is always interrupted.
#[test]
fn usage_log_gives_up_on_a_writer_that_is_always_interrupted() {
    struct Interrupted;
    impl std::io::Write for Interrupted {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::Interrupted.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let usage = agent().usage();
    let err = UsageLog::new(Interrupted).record(&usage).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::Interrupted);
}

#[test]
fn budget_from_json_and_toml() {
    let json = r#"{"total": 8192, "layers": {"system": 512, "memory": 2048}}"#;
    let budget: ContextBudget = serde_json::from_str(json).unwrap();
    assert_eq!(budget.layer_budget("memory"), Ok(2048));
    let names: Vec<&str> = budget.layers().map(|(n, _)| n).collect();
    assert_eq!(names, ["system", "memory"]);
    assert_eq!(
        serde_json::to_string(&budget).unwrap(),
        json.replace(' ', "")
    );

    // Declaration order survives with toml's `preserve_order` feature.
    let toml_text = "total = 4096\n[layers]\nuser = 1024\nsystem = 512\n";
    let budget: ContextBudget = toml::from_str(toml_text).unwrap();
    let names: Vec<&str> = budget.layers().map(|(n, _)| n).collect();
    assert_eq!(names, ["user", "system"]);
}

/// `{"total": total, "layers": {"layer0": 1, "layer1": 1, ..}}` with `n` layers,
/// and `extra` appended to the layers map.
fn many_layers_json(n: usize, total: usize, extra: &str) -> String {
    let mut entries: Vec<String> = (0..n).map(|i| format!("\"layer{i}\": 1")).collect();
    if !extra.is_empty() {
        entries.push(extra.to_owned());
    }
    format!(
        "{{\"total\": {total}, \"layers\": {{{}}}}}",
        entries.join(", ")
    )
}

/// Loading checks names in linear time. Not a timing test: 200 000 layers take a
/// fraction of a second, while the pairwise duplicate check this replaced needed
/// 2 * 10^10 comparisons here (64 000 layers took 16 s), so a regression shows up as
/// a test run that does not finish rather than a flaky bound. The comparison count
/// itself is checked in the unit test `duplicate_check_compares_each_name_about_once`.
#[test]
fn budgets_with_200k_layers_load() {
    let n = 200_000;
    let budget: ContextBudget = serde_json::from_str(&many_layers_json(n, n, "")).unwrap();
    assert_eq!(budget.len(), n);
    assert_eq!(budget.reserved(), n);
    assert_eq!(budget.available(), 0);
    assert_eq!(budget.layer_budget("layer199999"), Ok(1));

    // A repeat of the first name, found at the very end.
    let err = json_error(&many_layers_json(n, n + 1, r#""layer0": 1"#));
    assert!(err.starts_with("duplicate layer `layer0`"), "{err}");

    // And the same through `new`.
    let layers = (0..n)
        .map(|i| (format!("layer{i}"), 1))
        .chain([("layer7".into(), 1)]);
    assert_eq!(
        ContextBudget::new(n + 1, layers),
        Err(BudgetError::DuplicateLayer {
            name: "layer7".into()
        })
    );
}

/// Windows editors often start UTF-8 files with a byte-order mark; a budget config
/// saved by one must load.
#[test]
fn config_files_may_start_with_a_byte_order_mark() {
    let json = "\u{feff}{\"total\": 8192, \"layers\": {\"system\": 512}}";
    let budget = ContextBudget::from_json(json).unwrap();
    assert_eq!(budget.layer_budget("system"), Ok(512));
    // What `from_json` spares its callers.
    let err = serde_json::from_str::<ContextBudget>(json).unwrap_err();
    assert_eq!(err.to_string(), "expected value at line 1 column 1");
    // Only one mark, and only at the start.
    assert!(ContextBudget::from_json(&format!("\u{feff}{json}")).is_err());
    assert!(ContextBudget::from_json("{\"total\": 1}\u{feff}").is_err());

    // TOML: the `toml` crate skips the mark itself.
    let toml_text = "\u{feff}total = 8192\n[layers]\nsystem = 512\n";
    let budget: ContextBudget = toml::from_str(toml_text).unwrap();
    assert_eq!(budget.layer_budget("system"), Ok(512));
}

/// A malformed config's error gives the line and column (from `serde_json` or
/// `toml`) and what ctxbudget expected there. Budget-level errors point at the
/// layers map, where the fix goes, rather than at the end of the document.
#[test]
fn malformed_configs_say_where_and_what_was_expected() {
    let json_cases = [
        (
            "{\"total\": 100,\n \"layers\": {\"a\": \"x\"}}",
            "`layers.a` is the string \"x\": a token count must be a number; remove the \
             quotes at line 2 column 20",
        ),
        (
            "[8192]",
            "invalid type: sequence, expected a budget like {\"total\": 8192, \"layers\": \
             {\"system\": 512}} at line 1 column 0",
        ),
        (
            "{\"total\": 100,\n \"layers\": [1]}",
            "invalid type: sequence, expected a map from layer name to its reservation in \
             tokens at line 2 column 11",
        ),
        (
            "{\"total\": 100,\n \"layers\": {\"a\": 1,}}",
            "trailing comma at line 2 column 20",
        ),
        (
            "{\"total\": 100,\n \"layers\": {\"a\": 1,\n  \"a\": 2},\n \"note\": 1}",
            "duplicate layer `a`; give each layer one reservation at line 3 column 9",
        ),
        (
            "{\"total\": 100,\n \"layers\": {\"a\": 60,\n  \"b\": 50}\n}",
            "layers reserve 110 tokens (a 60 + b 50) but the total is 100: 10 over; lower a \
             reservation or raise the total at line 3 column 10",
        ),
        (
            "{\"layers\": {},\n \"total\": 100,\n \"total\": 100}",
            "duplicate field `total` at line 3 column 8",
        ),
    ];
    let wrong: Vec<String> = json_cases
        .iter()
        .map(|(json, expected)| {
            (
                ContextBudget::from_json(json).unwrap_err().to_string(),
                expected,
            )
        })
        .filter(|(message, expected)| message != *expected)
        .map(|(message, expected)| format!("got      {message}\nexpected {expected}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    let toml_cases = [
        (
            "total = 100\n[layers]\nplan = \"x\"\n",
            "TOML parse error at line 3, column 8",
            "`layers.plan` is the string \"x\": a token count must be a number; remove the quotes",
        ),
        (
            "total = 100\n[layers]\na = 60\nb = 50\n",
            "TOML parse error at line 2, column 1",
            "layers reserve 110 tokens (a 60 + b 50) but the total is 100: 10 over",
        ),
        (
            "total = 1\n[layers]\nspent = 1\n",
            "TOML parse error at line 2, column 1",
            "invalid layer name `spent`",
        ),
        (
            "layers = 3\ntotal = 1\n",
            "TOML parse error at line 1, column 10",
            "invalid type: integer `3`, expected a map from layer name to its reservation in tokens",
        ),
    ];
    for (text, position, expected) in toml_cases {
        let message = toml_error(text);
        assert!(message.starts_with(position), "{text}: {message}");
        assert!(message.contains(expected), "{text}: {message}");
    }
}

fn json_error(json: &str) -> String {
    serde_json::from_str::<ContextBudget>(json)
        .unwrap_err()
        .to_string()
}

fn toml_error(text: &str) -> String {
    toml::from_str::<ContextBudget>(text)
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_numbers_name_the_field() {
    let cases = [
        (
            r#"{"total": -1, "layers": {}}"#,
            "`total` is -1: a token count cannot be negative",
        ),
        (
            r#"{"total": 100, "layers": {"memory": -5}}"#,
            "`layers.memory` is -5: a token count cannot be negative",
        ),
        (
            r#"{"total": 100, "layers": {"memory": 1.5}}"#,
            "`layers.memory` is 1.5: a token count must be a whole number",
        ),
        (
            r#"{"total": 100, "layers": {"memory": 12.0}}"#,
            "`layers.memory` is the float 12.0: a token count must be an integer",
        ),
        (
            r#"{"total": 100, "layers": {"memory": 18446744073709551616}}"#,
            "`layers.memory` is 18446744073709552000: a token count must be at most",
        ),
        (
            r#"{"total": "100", "layers": {}}"#,
            "invalid type: string \"100\", expected `total` as a non-negative integer token count",
        ),
        (
            r#"{"total": 100, "layers": {"a": 60, "b": 50}}"#,
            "layers reserve 110 tokens (a 60 + b 50) but the total is 100: 10 over",
        ),
        (r#"{"layers": {}}"#, "missing field `total`"),
        (r#"{"total": 1, "layer": {}}"#, "unknown field `layer`"),
    ];
    for (json, expected) in cases {
        let message = json_error(json);
        assert!(message.contains(expected), "{json}: {message}");
    }
    let message = toml_error("total = 100\n[layers]\nplan = -2\n");
    assert!(
        message.contains("`layers.plan` is -2: a token count cannot be negative"),
        "{message}"
    );
    let message = toml_error("total = 100.5\n");
    assert!(message.contains("`total` is 100.5"), "{message}");
    // TOML has NaN and infinities: NaN is not a whole number, infinity is too large.
    let message = toml_error("total = nan\n");
    assert!(
        message.contains("`total` is NaN: a token count must be a whole number"),
        "{message}"
    );
    let message = toml_error("total = inf\n");
    assert!(
        message.contains("`total` is inf: a token count must be at most"),
        "{message}"
    );
    let message = toml_error("total = -inf\n");
    assert!(
        message.contains("`total` is -inf: a token count cannot be negative"),
        "{message}"
    );
}

/// A budget of up to six layers whose reservations fit the total.
fn budgets() -> impl Strategy<Value = ContextBudget> {
    (prop::collection::vec(0usize..5_000, 0..6), 0usize..10_000).prop_map(
        |(reservations, headroom)| {
            let total = reservations.iter().sum::<usize>() + headroom;
            let layers = reservations
                .into_iter()
                .enumerate()
                .map(|(i, tokens)| (format!("layer{i}"), tokens));
            ContextBudget::new(total, layers).unwrap()
        },
    )
}

proptest! {
    /// Whatever the disk's room before each record and however short its writes,
    /// every record that succeeded is a whole line, in order, every other line is
    /// the beginning of a record that failed, and no line is blank.
    #[test]
    fn usage_log_loses_only_the_records_that_failed(
        rooms in prop::collection::vec(prop::option::of(0usize..200), 1..12),
        chunk in 1usize..400,
    ) {
        let mut usage = ContextBudget::new(1_000_000, [("a", 1_000_000)]).unwrap().usage();
        let mut log = UsageLog::new(Disk { chunk, ..Disk::new() });
        let mut records = Vec::new();
        for (i, room) in rooms.into_iter().enumerate() {
            usage.spend("a", i * 1111).unwrap();
            log.get_mut().room = room;
            let ok = log.record(&usage).is_ok();
            records.push((usage.to_json(), ok));
        }
        let text = String::from_utf8(log.into_inner().bytes).unwrap();
        let mut lines = text.lines().peekable();
        for (json, ok) in &records {
            match lines.peek() {
                Some(line) if line == json => {
                    lines.next();
                }
                Some(line) if !ok && !line.is_empty() && json.starts_with(line) => {
                    lines.next();
                }
                _ => prop_assert!(!ok, "record {} missing from {:?}", json, text),
            }
        }
        prop_assert_eq!(lines.next(), None, "{}", text);
    }

    #[test]
    fn spend_never_exceeds_reservations_and_refusals_record_nothing(
        budget in budgets(),
        spends in prop::collection::vec((0usize..8, 0usize..3_000), 0..40),
    ) {
        let mut usage = ContextUsage::new(budget.clone());
        for (layer, tokens) in spends {
            let name = format!("layer{layer}");
            let before = usage.clone();
            if usage.spend(&name, tokens).is_ok() {
                prop_assert_eq!(usage.spent(&name)?, before.spent(&name)? + tokens);
                prop_assert_eq!(usage.total_spent(), before.total_spent() + tokens);
            } else {
                prop_assert_eq!(&usage, &before);
            }
            for (name, reservation, spent) in usage.layers() {
                prop_assert!(spent <= reservation, "{} spent {} > {}", name, spent, reservation);
            }
            prop_assert!(usage.total_spent() <= budget.total());
            prop_assert_eq!(usage.total_spent() + usage.remaining(), budget.total());
        }
    }

    #[test]
    fn serialisation_round_trips_the_numbers(
        budget in budgets(),
        spends in prop::collection::vec((0usize..6, 0usize..3_000), 0..20),
    ) {
        let json = serde_json::to_string(&budget).unwrap();
        let back: ContextBudget = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &budget);

        let mut usage = budget.usage();
        for (layer, tokens) in spends {
            let _ = usage.spend(&format!("layer{layer}"), tokens);
        }
        let value: serde_json::Value = serde_json::from_str(&usage.to_json()).unwrap();
        prop_assert_eq!(value["total"].as_u64(), Some(budget.total() as u64));
        prop_assert_eq!(value["spent"].as_u64(), Some(usage.total_spent() as u64));
        prop_assert_eq!(value["remaining"].as_u64(), Some(usage.remaining() as u64));
        let object = value.as_object().unwrap();
        prop_assert_eq!(object.len(), 3 + budget.len());
        for (name, reservation, spent) in usage.layers() {
            prop_assert_eq!(value[name]["budget"].as_u64(), Some(reservation as u64));
            prop_assert_eq!(value[name]["spent"].as_u64(), Some(spent as u64));
        }
    }
}
