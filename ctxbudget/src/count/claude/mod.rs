//! Exact offline counts of Claude's tokenizer generations (feature `claude`), from
//! the vocabularies `ctok` 1.3.0 (MIT) measured against Anthropic's `count_tokens`.
//!
//! Read bottom up: `unicode` (the character table), `vocab` (pieces, byte prefixes,
//! the newline ladder), `normalize` (text -> characters and their classes),
//! `stream` (-> the marked stream), `tile` (-> the fewest pieces), `generation`
//! (what differs between generations), `counter` (the [`Claude`] counter), `parts`
//! (exact counts of many beginnings or ends of one text, for the trimming engine).

mod counter;
mod generation;
mod normalize;
mod parts;
mod stream;
mod tile;
mod unicode;
mod vocab;

pub use counter::Claude;
pub use generation::ClaudeGeneration;
pub(crate) use parts::Parts;
