//! The Claude counter on arbitrary text, in every generation: it never panics, and
//! counts add up at its split points (the whole text against the sum of the pieces
//! between all of them, and against each split point's two sides).

#![no_main]

use ctxbudget::TokenCounter;
use ctxbudget::count::{Claude, ClaudeGeneration};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let counter = Claude::new(ClaudeGeneration::ALL[usize::from(pick) % ClaudeGeneration::ALL.len()]);
    let whole = counter.count(&text);

    let mut splits = Vec::new();
    let mut from = 0;
    while let Some(at) = counter.next_split(&text, from) {
        assert!(at >= from && at > 0 && at < text.len() && text.is_char_boundary(at));
        assert_eq!(counter.prev_split(&text, at + 1), Some(at));
        splits.push(at);
        from = at + 1;
    }
    let mut start = 0;
    let mut sum = 0;
    for &at in splits.iter().chain([text.len()].iter()) {
        sum += counter.count(&text[start..at]);
        start = at;
    }
    assert_eq!(sum, whole, "{:?} {splits:?}", counter.generation());
    for &at in splits.iter().take(8) {
        assert_eq!(
            counter.count(&text[..at]) + counter.count(&text[at..]),
            whole,
            "{:?} at {at}",
            counter.generation()
        );
    }
});
