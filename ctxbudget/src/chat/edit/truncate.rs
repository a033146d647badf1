//! Truncating one text: its head and tail, cut by the trim engine at the strongest
//! boundaries that do not waste the budget, around a marker that says how many
//! tokens were cut.

use super::options::Edits;
use crate::count::TokenCounter;
use crate::trim::{Keep, TrimOptions, trim_with};

/// Rounds in which a marker whose number grew a digit takes the excess from the
/// kept text.
const MARKER_ROUNDS: usize = 4;

/// `text` (of `tokens` tokens) cut to at most `budget` tokens: head, marker, tail.
/// Returns the new text and its tokens, or `None` when the text fits, or when the
/// marker alone takes the budget.
pub(super) fn truncate<C: TokenCounter + ?Sized>(
    text: &str,
    tokens: usize,
    budget: usize,
    counter: &C,
    edits: &Edits,
) -> Option<(String, usize)> {
    if tokens <= budget {
        return None;
    }
    let mut room = budget;
    let mut guess = tokens - budget;
    for _ in 0..MARKER_ROUNDS {
        let marker = edits.marker(guess);
        let marker_tokens = counter.count(&marker);
        if marker_tokens >= room {
            return None;
        }
        let options = TrimOptions::new()
            .keep(Keep::HeadAndTail)
            .with_elision(marker.clone());
        let trimmed = trim_with(text, room, counter, &options);
        if !trimmed.cut || trimmed.tokens > room {
            return None;
        }
        let kept = trimmed.tokens.saturating_sub(marker_tokens);
        let cut = tokens.saturating_sub(kept);
        if cut == guess {
            return Some((trimmed.text().into_owned(), trimmed.tokens));
        }
        // The number in the marker was a guess: write the real one and count again.
        let exact = edits.marker(cut);
        let joined = [trimmed.kept, &exact, trimmed.tail.unwrap_or("")].concat();
        let joined_tokens = counter.count(&joined);
        if joined_tokens <= budget {
            return Some((joined, joined_tokens));
        }
        room = room.saturating_sub(joined_tokens - budget);
        guess = cut;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::CharEstimate;

    fn lines(n: usize) -> String {
        (0..n)
            .map(|i| format!("line {i} of the log"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn keeps_head_and_tail_around_a_marker_with_the_cut() {
        let text = lines(200);
        let tokens = CharEstimate.count(&text);
        let (cut, cut_tokens) =
            truncate(&text, tokens, 100, &CharEstimate, &Edits::default()).unwrap();
        assert!(cut_tokens <= 100, "{cut_tokens}");
        assert_eq!(cut_tokens, CharEstimate.count(&cut));
        assert!(cut.starts_with("line 0 of the log"));
        assert!(cut.ends_with("line 199 of the log"));
        let number: String = cut
            .split("[… ")
            .nth(1)
            .unwrap()
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(char::is_ascii_digit)
            .collect();
        let number: usize = number.parse().unwrap();
        // What was cut is about what is missing: the whole less the kept parts.
        let kept = cut_tokens - CharEstimate.count(&Edits::default().marker(number));
        assert!(
            number.abs_diff(tokens - kept) <= 2,
            "{number} vs {}",
            tokens - kept
        );
    }

    #[test]
    fn a_text_that_fits_or_a_budget_below_the_marker_is_left() {
        let text = lines(200);
        let tokens = CharEstimate.count(&text);
        assert!(truncate(&text, tokens, tokens, &CharEstimate, &Edits::default()).is_none());
        assert!(truncate(&text, tokens, 3, &CharEstimate, &Edits::default()).is_none());
    }
}
