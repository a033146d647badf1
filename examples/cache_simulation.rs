//! What the providers' prompt caches make of a long agent session, trimmed to the
//! minimal fit, with the cache-stable policy, or with the cache-stable policy and
//! context edits.
//!
//! ```sh
//! cargo run --release --example cache_simulation
//! cargo run --release --example cache_simulation -- --turns 500 --openai-cached 0.5
//! cargo run --release --example cache_simulation -- --largest-output 2000
//! ```
//!
//! A 2,000-turn tool-heavy session (`ctxbudget_tests::agent`: one model call per
//! turn, tool outputs of 200 to 5,000 o200k tokens from the benchmark corpus, a
//! 2,000-token system prompt; `--largest-output` lowers the 5,000) runs through a `ChatSession` whose limit is the whole
//! window, at 32k, 128k and 200k, with `CutPolicy::minimal_fit()`, with
//! `CutPolicy::cache_stable()`, with it and the default context edits
//! (`ChatSession::with_edits(Edits::default())`: old tool results cleared to a
//! placeholder, oversized ones cut to their head and tail, before the cut moves),
//! and with edits tuned for the cache: the 2 most recent results kept whole
//! (`--tuned-keep`) and the cut's low-water mark at 0.4 (`--edits-cut-low-water`);
//! `--edits-low-water` and `--max-tool-result` (shares of the limit) set the
//! engine's mark and largest result in both edit runs. Each prompt is then billed as the providers do,
//! with their cache rules (the 5-minute lifetime ignored: every call comes in time):
//!
//! - **Anthropic**: `cache_control` breakpoints where `Prepared::cache_breakpoints`
//!   puts them (the head, the stable prefix, the last message). A call reads the
//!   longest prefix, ending at a message, that an earlier call wrote at one of its
//!   breakpoints, and writes the rest up to its last breakpoint. Prefixes under
//!   1,024 tokens are not cached. Reads cost 0.1x the input price, writes 1.25x.
//! - **OpenAI**: no breakpoints. A call reads the longest prefix it shares with an
//!   earlier call, from 1,024 tokens on, in steps of 128. Cached input costs
//!   `--openai-cached` times the input price (default 0.1, as for GPT-5; 0.5 for
//!   GPT-4o); writes cost nothing extra.
//!
//! For each window, policy and provider it prints the share of input tokens read
//! from the cache, the billed-equivalent input tokens (input price = 1), their ratio
//! to minimal fit, the mean prompt as a share of the window, and the mean number of
//! messages a prompt holds.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::rc::Rc;

use ctxbudget::{
    Message, Tiktoken, TokenCounter,
    chat::{
        ChatSession, CutPolicy, Prepared,
        edit::{Edits, Threshold},
    },
};
use ctxbudget_tests::agent::AgentSession;

/// The tuned edits row: with edits on, the cut moves rarely and drops mostly
/// cleared results, so moving it further pays; every batch of clearing rewrites
/// the results kept whole after it, so keeping fewer pays (BENCHMARKS.md).
const EDITS_LOW_WATER: f64 = 0.4;
const TUNED_KEEP: usize = 2;

/// Anthropic and OpenAI do not cache prefixes shorter than this.
const MIN_CACHEABLE: u64 = 1_024;
/// OpenAI reports cached tokens in steps of this many past the minimum.
const OPENAI_STEP: u64 = 128;

/// Counts each distinct text once: the six runs share the same messages.
struct Memo<'c> {
    counter: &'c Tiktoken,
    seen: RefCell<HashMap<(usize, usize), usize>>,
}

impl TokenCounter for Memo<'_> {
    fn count(&self, text: &str) -> usize {
        let key = (text.as_ptr() as usize, text.len());
        if let Some(&tokens) = self.seen.borrow().get(&key) {
            return tokens;
        }
        let tokens = self.counter.count(text);
        self.seen.borrow_mut().insert(key, tokens);
        tokens
    }
}

#[derive(Debug, Clone, Copy)]
struct Prices {
    anthropic_read: f64,
    anthropic_write: f64,
    openai_cached: f64,
}

/// What one provider billed over a session.
#[derive(Debug, Default, Clone, Copy)]
struct Bill {
    input: u64,
    read: u64,
    written: u64,
    billed: f64,
}

impl Bill {
    #[allow(clippy::cast_precision_loss)]
    fn read_share(&self) -> f64 {
        self.read as f64 / self.input.max(1) as f64
    }
}

/// The outcome of one session under one policy.
#[derive(Default)]
struct Run {
    anthropic: Bill,
    openai: Bill,
    mean_use: f64,
    mean_messages: f64,
    cuts: usize,
    /// Prompts whose edits changed something.
    edited: usize,
}

/// Bills each prompt of a session, as both providers would.
#[derive(Default)]
struct Biller {
    /// Anthropic: the prefixes written at breakpoints; OpenAI: every prefix sent.
    written: HashSet<u64>,
    sent: HashSet<u64>,
    run: Run,
    use_sum: f64,
    messages: usize,
    prompts: usize,
}

impl Biller {
    /// Bills `prompt`, whose messages are known by `ids` (equal ids: equal
    /// messages).
    #[allow(clippy::cast_precision_loss)]
    fn bill<M>(&mut self, prompt: &Prepared<'_, M>, ids: &[usize], window: usize, prices: Prices) {
        let run = &mut self.run;
        run.cuts += usize::from(prompt.cut_moved());
        run.edited += usize::from(prompt.edits().is_some_and(|r| !r.edits.is_empty()));
        self.use_sum += prompt.tokens() as f64 / window as f64;
        self.messages += ids.len();
        self.prompts += 1;
        let hashes = prefix_hashes(ids);
        // Tokens up to and including each message; the reply priming is the last.
        let mut upto = Vec::with_capacity(ids.len());
        let mut sum = 0u64;
        for tokens in prompt.message_tokens() {
            sum += tokens as u64;
            upto.push(sum);
        }
        let input = prompt.tokens() as u64;

        // Anthropic.
        let read = (0..ids.len())
            .rev()
            .find(|&i| self.written.contains(&hashes[i]))
            .map_or(0, |i| upto[i]);
        let breakpoints = prompt.cache_breakpoints();
        let last = breakpoints.last().map_or(0, |&b| upto[b]);
        let write = if last >= MIN_CACHEABLE {
            last.saturating_sub(read)
        } else {
            0
        };
        for &b in &breakpoints {
            if upto[b] >= MIN_CACHEABLE {
                self.written.insert(hashes[b]);
            }
        }
        let anthropic = &mut run.anthropic;
        anthropic.input += input;
        anthropic.read += read;
        anthropic.written += write;
        anthropic.billed += prices.anthropic_read * read as f64
            + prices.anthropic_write * write as f64
            + (input - read - write) as f64;

        // OpenAI.
        let shared = (0..ids.len())
            .rev()
            .find(|&i| self.sent.contains(&hashes[i]))
            .map_or(0, |i| upto[i]);
        let cached = if shared >= MIN_CACHEABLE {
            MIN_CACHEABLE + (shared - MIN_CACHEABLE) / OPENAI_STEP * OPENAI_STEP
        } else {
            0
        };
        self.sent.extend(hashes.iter().copied());
        let openai = &mut run.openai;
        openai.input += input;
        openai.read += cached;
        openai.billed += prices.openai_cached * cached as f64 + (input - cached) as f64;
    }

    #[allow(clippy::cast_precision_loss)]
    fn finish(mut self) -> Run {
        let prompts = self.prompts.max(1) as f64;
        self.run.mean_use = self.use_sum / prompts;
        self.run.mean_messages = self.messages as f64 / prompts;
        self.run
    }
}

/// The hash of each prefix of `ids` (`prefixes[i]` covers `ids[..=i]`).
fn prefix_hashes(ids: &[usize]) -> Vec<u64> {
    let mut hasher = DefaultHasher::new();
    ids.iter()
        .map(|id| {
            id.hash(&mut hasher);
            hasher.finish()
        })
        .collect()
}

fn simulate(
    system: &Rc<Message>,
    turns: &[Vec<Rc<Message>>],
    counter: &Memo<'_>,
    window: usize,
    policy: CutPolicy,
    prices: Prices,
) -> Run {
    let mut session = ChatSession::new(counter as &dyn TokenCounter, window).with_policy(policy);
    session
        .push(Rc::clone(system))
        .expect("the system prompt fits");
    let mut biller = Biller::default();
    for turn in turns {
        for message in turn {
            session
                .push(Rc::clone(message))
                .expect("tool outputs fit the window");
        }
        let prompt = session.prepare().expect("no call is pending");
        let ids: Vec<usize> = prompt
            .messages()
            .iter()
            .map(|m| Rc::as_ptr(m) as usize)
            .collect();
        biller.bill(&prompt, &ids, window, prices);
    }
    biller.finish()
}

/// A message's identity once edits can change it in place: a hash of what is
/// sent.
fn content_id(message: &Message) -> usize {
    let mut hasher = DefaultHasher::new();
    message.role.hash(&mut hasher);
    message.content.hash(&mut hasher);
    message.tool_call_id.hash(&mut hasher);
    for call in &message.tool_calls {
        (&call.id, &call.name, &call.arguments).hash(&mut hasher);
    }
    // The hash is an id, not a number: truncating it on 32-bit targets is fine.
    #[allow(clippy::cast_possible_truncation)]
    let id = hasher.finish() as usize;
    id
}

/// [`simulate`] with context edits: the session owns its messages (it edits them
/// in place) and counts them with the tokenizer itself (the memo's keys are
/// addresses, which owned messages reuse once dropped).
fn simulate_edits(
    system: &Rc<Message>,
    turns: &[Vec<Rc<Message>>],
    counter: &Tiktoken,
    window: usize,
    policy: CutPolicy,
    edits: &Edits,
    prices: Prices,
) -> Run {
    let mut session = ChatSession::new(counter, window)
        .with_policy(policy)
        .with_edits(edits.clone());
    session
        .push((**system).clone())
        .expect("the system prompt fits");
    let mut biller = Biller::default();
    for turn in turns {
        for message in turn {
            session
                .push((**message).clone())
                .expect("tool outputs fit the window");
        }
        let prompt = session.prepare().expect("no call is pending");
        let ids: Vec<usize> = prompt.messages().iter().map(content_id).collect();
        biller.bill(&prompt, &ids, window, prices);
    }
    biller.finish()
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// The default edits, with `--edits-low-water` and `--max-tool-result` (shares of
/// the limit) when given.
fn edits_from(args: &[String]) -> Edits {
    let mut edits = Edits::default();
    if let Some(mark) = arg(args, "--edits-low-water").and_then(|m| m.parse().ok()) {
        edits = edits.low_water(Threshold::share(mark));
    }
    if let Some(share) = arg(args, "--max-tool-result").and_then(|m| m.parse().ok()) {
        edits = edits.truncate_tool_results(Threshold::share(share));
    }
    edits
}

/// One row of the table: `run` at `window`, against `minimal`.
fn print_row(window: usize, name: &str, run: &Run, minimal: &Run) {
    println!(
        "| {}k | {name} | {} | {} | {:.1}% | {:.0} | {:.1}% | {:.2}M | {:.2}x | {:.1}% | {:.2}M | {:.2}x |",
        window / 1_000,
        run.cuts,
        run.edited,
        100.0 * run.mean_use,
        run.mean_messages,
        100.0 * run.anthropic.read_share(),
        run.anthropic.billed / 1e6,
        run.anthropic.billed / minimal.anthropic.billed,
        100.0 * run.openai.read_share(),
        run.openai.billed / 1e6,
        run.openai.billed / minimal.openai.billed,
    );
}

#[allow(clippy::cast_precision_loss)]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let turns_wanted: usize = arg(&args, "--turns").map_or(2_000, |t| t.parse().unwrap_or(2_000));
    let prices = Prices {
        anthropic_read: 0.1,
        anthropic_write: 1.25,
        openai_cached: arg(&args, "--openai-cached").map_or(0.1, |p| p.parse().unwrap_or(0.1)),
    };
    let low_water: f64 = arg(&args, "--low-water").map_or(CutPolicy::DEFAULT_LOW_WATER, |p| {
        p.parse().unwrap_or(CutPolicy::DEFAULT_LOW_WATER)
    });
    let grid: f64 = arg(&args, "--grid").map_or(CutPolicy::DEFAULT_GRID, |p| {
        p.parse().unwrap_or(CutPolicy::DEFAULT_GRID)
    });
    // The cut's low-water mark of the tuned edits row (see BENCHMARKS.md).
    let edits_cut: f64 = arg(&args, "--edits-cut-low-water")
        .map_or(EDITS_LOW_WATER, |p| p.parse().unwrap_or(EDITS_LOW_WATER));
    let keep: usize =
        arg(&args, "--tuned-keep").map_or(TUNED_KEEP, |k| k.parse().unwrap_or(TUNED_KEEP));
    let edits = edits_from(&args);

    let tiktoken = Tiktoken::o200k_base();
    let counter = Memo {
        counter: &tiktoken,
        seen: RefCell::new(HashMap::new()),
    };
    let largest_output: u32 =
        arg(&args, "--largest-output").map_or(5_000, |t| t.parse().unwrap_or(5_000));
    let mut agent = AgentSession::new(2_026).with_largest_output(largest_output);
    let system = Rc::new(agent.system_prompt(2_000));
    let turns: Vec<Vec<Rc<Message>>> = (0..turns_wanted)
        .map(|_| agent.next_turn().into_iter().map(Rc::new).collect())
        .collect();
    let outputs: u64 = turns
        .iter()
        .flatten()
        .filter(|m| m.role == ctxbudget::chat::Role::Tool)
        .map(|m| counter.count(&m.content) as u64)
        .sum();
    let new_tokens: u64 = turns
        .iter()
        .flatten()
        .map(|m| ctxbudget::chat::ChatFormat::openai().message_tokens(&counter, m.as_ref()) as u64)
        .sum();
    println!(
        "{} turns, {} messages, {new_tokens} new tokens ({:.0} per turn; tool outputs {outputs}); system prompt {} tokens",
        turns.len(),
        turns.iter().map(Vec::len).sum::<usize>(),
        new_tokens as f64 / turns.len().max(1) as f64,
        counter.count(&system.content),
    );
    println!(
        "prices: Anthropic read {}x, write {}x; OpenAI cached {}x; cache-stable: low water {low_water}, grid {grid}; edits: low water {:?}, largest result {:?}; tuned: keep {keep}, cut's low water {edits_cut}\n",
        prices.anthropic_read,
        prices.anthropic_write,
        prices.openai_cached,
        edits.low_water_threshold(),
        edits.max_tool_result_tokens(),
    );
    println!(
        "| window | policy | cuts | edited prompts | mean window use | mean messages | Anthropic: from cache | billed input | vs minimal fit | OpenAI: from cache | billed input | vs minimal fit |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let stable = CutPolicy::cache_stable()
        .with_low_water(low_water)
        .with_grid(grid);
    for window in [32_000, 128_000, 200_000] {
        let minimal = simulate(
            &system,
            &turns,
            &counter,
            window,
            CutPolicy::minimal_fit(),
            prices,
        );
        let cached = simulate(&system, &turns, &counter, window, stable, prices);
        let edited = simulate_edits(&system, &turns, &tiktoken, window, stable, &edits, prices);
        let lower = stable.with_low_water(edits_cut);
        let tuned_edits = edits.clone().clear_tool_results(keep);
        let tuned = simulate_edits(
            &system,
            &turns,
            &tiktoken,
            window,
            lower,
            &tuned_edits,
            prices,
        );
        let tuned_name = format!("cache-stable {edits_cut} + edits, keep {keep}");
        for (name, run) in [
            ("minimal fit", &minimal),
            ("cache-stable", &cached),
            ("cache-stable + edits", &edited),
            (tuned_name.as_str(), &tuned),
        ] {
            print_row(window, name, run, &minimal);
        }
    }
}
