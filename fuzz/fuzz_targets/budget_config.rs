//! Budget configs from arbitrary bytes, as JSON and as TOML, then arbitrary spending:
//! never panics; every budget that loads is valid (unique, allowed names; the sum of
//! its reservations at most its total) and survives a JSON and a TOML round trip;
//! spends keep every layer within its reservation and the total, refused ones change
//! nothing; a usage log on a disk that fills up keeps every record it reported
//! written as a whole line.
//!
//! Input: 1 byte of options (bit 0: spend by name or by index; bits 1..: the disk's
//! room for the log, in 8-byte steps), then the config text up to the first `0xFF`
//! byte (never valid UTF-8, so it cannot occur in a config), then 3-byte spends: a
//! layer (past the last one: an unknown name) and 2 bytes of tokens (little endian;
//! `0xFFFF` means `usize::MAX`, `0xFFFE` what the layer has left).
#![no_main]

use std::collections::HashSet;
use std::io::Write;

use ctxbudget::ContextBudget;
use ctxbudget::budget::{ContextUsage, UsageLog};
use libfuzzer_sys::fuzz_target;

/// A disk that accepts `room` more bytes, then fails.
struct Disk {
    bytes: Vec<u8>,
    room: usize,
}

impl Write for Disk {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::Error::other("disk full"));
        }
        let n = buf.len().min(self.room);
        self.bytes.extend_from_slice(&buf[..n]);
        self.room -= n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn check_budget(budget: &ContextBudget) {
    let mut names = HashSet::new();
    let mut sum = 0u128;
    for (name, tokens) in budget.layers() {
        assert!(!name.is_empty() && !["total", "spent", "remaining"].contains(&name));
        assert!(names.insert(name), "duplicate layer {name:?}");
        sum += tokens as u128;
    }
    assert_eq!(sum, budget.reserved() as u128);
    assert!(budget.reserved() <= budget.total());
    assert_eq!(budget.available(), budget.total() - budget.reserved());

    let json = serde_json::to_string(budget).unwrap();
    assert_eq!(&ContextBudget::from_json(&json).unwrap(), budget);
    // TOML integers are i64: larger counts cannot be written, which is an error, not
    // a panic.
    if let Ok(text) = toml::to_string(budget) {
        assert_eq!(
            &toml::from_str::<ContextBudget>(&text).unwrap(),
            budget,
            "{text}"
        );
    }
}

fn check_usage(usage: &ContextUsage) {
    let budget = usage.budget();
    let mut total = 0;
    for (name, reservation, spent) in usage.layers() {
        assert!(spent <= reservation, "{name}: {spent} > {reservation}");
        total += spent;
    }
    assert_eq!(total, usage.total_spent());
    assert!(usage.total_spent() <= budget.total());
    assert_eq!(usage.total_spent() + usage.remaining(), budget.total());
}

fn spend(usage: &mut ContextUsage, by_name: bool, ops: &[u8]) {
    for op in ops.chunks_exact(3) {
        let layers: Vec<(String, usize, usize)> = usage
            .layers()
            .map(|(name, budget, spent)| (name.to_owned(), budget, spent))
            .collect();
        let index = usize::from(op[0]) % (layers.len() + 1);
        let tokens = match u16::from_le_bytes([op[1], op[2]]) {
            0xFFFF => usize::MAX,
            0xFFFE => layers
                .get(index)
                .map_or(0, |(_, budget, spent)| budget - spent),
            t => usize::from(t),
        };
        let before = usage.clone();
        let result = if by_name {
            let name = layers.get(index).map_or("no such layer", |(name, ..)| name);
            usage.spend(name, tokens)
        } else {
            usage.spend_at(index, tokens)
        };
        match result {
            Ok(()) => {
                assert_eq!(usage.total_spent(), before.total_spent() + tokens);
                let (_, _, spent) = usage.layers().nth(index).unwrap();
                assert_eq!(spent, layers[index].2 + tokens);
            }
            Err(err) => {
                assert_eq!(usage, &before);
                assert!(!err.to_string().is_empty());
            }
        }
        check_usage(usage);
    }
}

fn log(usage: &ContextUsage, room: usize) {
    let mut log = UsageLog::new(Disk {
        bytes: Vec::new(),
        room,
    });
    let first = log.record(usage).is_ok();
    log.get_mut().room = usize::MAX;
    log.record(usage).unwrap();
    let text = String::from_utf8(log.into_inner().bytes).unwrap();
    let json = usage.to_json();
    let lines: Vec<&str> = text.lines().collect();
    // The second record is whole; the first is whole or, if it failed, a beginning.
    assert_eq!(lines.last(), Some(&json.as_str()), "{text}");
    match lines.len() {
        1 => assert!(!first && room == 0, "{text}"),
        2 => assert!(lines[0] == json || (!first && json.starts_with(lines[0]))),
        _ => panic!("{text}"),
    }
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value.as_object().unwrap().len(), 3 + usage.budget().len());
}

fuzz_target!(|data: &[u8]| {
    let Some((&options, rest)) = data.split_first() else {
        return;
    };
    let (config, ops) = match rest.iter().position(|&b| b == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let text = String::from_utf8_lossy(config);
    let loaded = [
        ContextBudget::from_json(&text).ok(),
        serde_json::from_slice::<ContextBudget>(config).ok(),
        toml::from_str::<ContextBudget>(&text).ok(),
    ];
    for budget in loaded.into_iter().flatten() {
        check_budget(&budget);
        let mut usage = budget.usage();
        spend(&mut usage, options & 1 != 0, ops);
        log(&usage, usize::from(options >> 1) * 8);
    }
});
