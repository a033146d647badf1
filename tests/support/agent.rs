//! A simulated tool-heavy agent session, the same on every run: for the session
//! benches and the cache simulation.
//!
//! Each turn is one call to the model. It brings the assistant's previous reply (a
//! short thought and one tool call, or two in parallel every fifth turn) and the
//! tool results, each of 200 to 5,000 tokens (log-uniform: most outputs are short,
//! a few are long) cut from the real Markdown, prose and code of the benchmark
//! corpus; every 25th turn starts with a new user request.

use ctxbudget::{Message, chat::ToolCall};

use crate::corpus_or_fixture;

/// A small deterministic random number generator (`SplitMix64`).
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator started from `state`.
    pub fn new(state: u64) -> Self {
        Self(state)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next_u64() % n as u64).unwrap_or(0)
    }

    /// A number in `0.0..1.0`.
    pub fn unit(&mut self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        unit
    }
}

/// The texts tool outputs are cut from, and the generator of turns.
#[derive(Debug, Clone)]
pub struct AgentSession {
    texts: [String; 3],
    rng: SplitMix,
    turn: usize,
    largest_output: f64,
}

/// About how many characters a token of the corpus takes, to size outputs without
/// counting them.
const CHARS_PER_TOKEN: usize = 4;

impl AgentSession {
    /// A session whose outputs come from the benchmark corpus (or the shipped
    /// fixtures), with the random choices made from `state`.
    pub fn new(state: u64) -> Self {
        Self {
            texts: [
                corpus_or_fixture("code.txt"),
                corpus_or_fixture("markdown.md"),
                corpus_or_fixture("prose.txt"),
            ],
            rng: SplitMix::new(state),
            turn: 0,
            largest_output: 5_000.0,
        }
    }

    /// The same session with tool outputs of at most `tokens` (at least 201), for
    /// sessions that bring fewer new tokens a turn.
    #[must_use]
    pub fn with_largest_output(mut self, tokens: u32) -> Self {
        self.largest_output = f64::from(tokens.max(201));
        self
    }

    /// The system prompt: about `tokens` tokens of Markdown (instructions and tool
    /// descriptions).
    pub fn system_prompt(&self, tokens: usize) -> Message {
        let text = &self.texts[1];
        let end = crate::floor_char_boundary(text, tokens * CHARS_PER_TOKEN);
        Message::system(&text[..end])
    }

    /// About `tokens` tokens of corpus text of kind `kind` (0 code, 1 Markdown, 2
    /// prose), from a random place.
    pub fn text(&mut self, kind: usize, tokens: usize) -> String {
        let text = &self.texts[kind % 3];
        let chars = (tokens * CHARS_PER_TOKEN).min(text.len() / 2);
        let start = crate::floor_char_boundary(text, self.rng.below(text.len() - chars));
        let end = crate::floor_char_boundary(text, start + chars);
        text[start..end].to_owned()
    }

    /// A tool output size: log-uniform in 200..=5,000 tokens (or up to the largest
    /// output set).
    pub fn output_tokens(&mut self) -> usize {
        let (low, high) = (200f64, self.largest_output);
        let tokens = low * (high / low).powf(self.rng.unit());
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let tokens = tokens.round() as usize;
        tokens
    }

    /// The messages of the next turn.
    pub fn next_turn(&mut self) -> Vec<Message> {
        let turn = self.turn;
        self.turn += 1;
        let mut messages = Vec::with_capacity(4);
        if turn % 25 == 0 {
            let tokens = 30 + self.rng.below(170);
            messages.push(Message::user(self.text(2, tokens)));
        }
        let calls = if turn % 5 == 4 { 2 } else { 1 };
        let thought = 20 + self.rng.below(130);
        let mut call = Message::assistant(self.text(2, thought));
        let mut results = Vec::with_capacity(calls);
        for c in 0..calls {
            let id = format!("call_{turn}_{c}");
            let (tool, kind) =
                [("read_file", 0), ("read_docs", 1), ("web_search", 2)][self.rng.below(3)];
            let arguments = format!(r#"{{"query":"item {turn}","page":{c}}}"#);
            call = call.with_tool_call(ToolCall::new(&id, tool, arguments));
            let tokens = self.output_tokens();
            results.push(Message::tool(id, self.text(kind, tokens)));
        }
        messages.push(call);
        messages.extend(results);
        messages
    }
}
