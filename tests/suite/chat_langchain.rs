//! LangChain's `trim_messages` tests, ported by behaviour: the same histories,
//! budgets and counters, and LangChain's expected output, except where this crate
//! differs on purpose (each such case says why).
//!
//! LangChain has no protection of the latest user message and keeps only a leading
//! system message with `include_system=True`; [`langchain`] sets the trimmer up the
//! same way (`with_keep_latest_user(false)`, and `with_include_system(false)` unless
//! the test asks for `include_system`). Its message content can be a list of blocks;
//! here a block is a paragraph of the content.

use std::cell::RefCell;

use ctxbudget::{
    CharEstimate, ChatTrimmer, Message,
    chat::{ChatFormat, ChatStrategy, ChatTrimError, DropReason, Role, ToolCall, TrimmedChat},
    trim::Boundary,
};

// ---------------------------------------------------------------------------
// LangChain's fixtures
// ---------------------------------------------------------------------------

const OVER: DropReason = DropReason::OverBudget;
const START: DropReason = DropReason::StartOnUser;

/// LangChain's `dummy_token_counter` charges 10 for a message with string content
/// and `3 + 4 * blocks + 3` for list content (14 for two blocks), whatever the text.
/// Here: 4 per paragraph of text (a role name is one paragraph), and 2 per message
/// from the format. A one-paragraph message costs 2 + 4 + 4 = 10, a two-paragraph
/// one 14, one paragraph of it 10. An empty text (tool-call arguments below) is 0.
fn dummy(text: &str) -> usize {
    4 * text.split("\n\n").filter(|p| !p.trim().is_empty()).count()
}

fn dummy_format() -> ChatFormat {
    ChatFormat::content_only().with_tokens_per_message(2)
}

/// LangChain's other counters look at the content only; ours also sees the role
/// name, which these wrappers charge nothing.
fn ignoring_roles(count: impl Fn(&str) -> usize) -> impl Fn(&str) -> usize {
    move |text: &str| match text {
        "system" | "user" | "assistant" | "tool" => 0,
        _ => count(text),
    }
}

/// `len(content)`.
fn char_len(text: &str) -> usize {
    text.chars().count()
}

/// Words of the content (LangChain's `count_words` splits on single spaces).
fn count_words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// A trimmer set up as LangChain's `trim_messages` behaves: no latest-user
/// protection, system messages trimmed like the others (`include_system=False`).
fn langchain<C: ctxbudget::TokenCounter>(counter: C, max_tokens: usize) -> ChatTrimmer<C> {
    ChatTrimmer::new(counter, max_tokens)
        .with_format(ChatFormat::content_only())
        .with_include_system(false)
        .with_keep_latest_user(false)
}

/// [`langchain`] with LangChain's dummy counter.
fn langchain_dummy(max_tokens: usize) -> ChatTrimmer<fn(&str) -> usize> {
    langchain(dummy as fn(&str) -> usize, max_tokens).with_format(dummy_format())
}

const FOUR: &str = "This is a 4 token text.";
const FIRST_BLOCK: &str = "This is the FIRST 4 token block.";
const SECOND_BLOCK: &str = "This is the SECOND 4 token block.";

/// LangChain's `_MESSAGES_TO_TRIM` (M0 to M4; 10, 10, 14, 10 and 10 tokens).
fn messages_to_trim() -> Vec<Message> {
    vec![
        Message::system(FOUR),
        Message::user(FOUR),
        Message::assistant(format!("{FIRST_BLOCK}\n\n{SECOND_BLOCK}")),
        Message::user(FOUR),
        Message::assistant(FOUR),
    ]
}

/// LangChain's `_TOOL_CALL_MESSAGES` (TC0 to TC4; 10, 10, 10, 14 and 10 tokens).
fn tool_call_messages() -> Vec<Message> {
    vec![
        Message::user("hi"),
        Message::assistant("hello"),
        Message::user("what's the weather in florida?"),
        // A text block and a tool_use block there: the tool call's name here.
        Message::assistant("let's check the weather in florida").with_tool_call(ToolCall::new(
            "abc123",
            "get_weather",
            "",
        )),
        Message::tool("abc123", "It's sunny."),
    ]
}

/// The kept seqs.
fn seqs<M>(trimmed: &TrimmedChat<'_, M>) -> Vec<usize> {
    trimmed.elements().iter().map(|e| e.seq).collect()
}

/// The kept contents, as they would be sent (a message kept in part: its kept part).
fn contents<'m>(trimmed: &TrimmedChat<'m, Message>) -> Vec<&'m str> {
    trimmed
        .elements()
        .iter()
        .map(ctxbudget::chat::ChatElement::content)
        .collect()
}

/// The kept messages rebuilt as they would be sent, counted again: the report must
/// agree, and fit.
fn assert_exact<C: ctxbudget::TokenCounter>(
    trimmed: &TrimmedChat<'_, Message>,
    chat_trimmer: &ChatTrimmer<C>,
) {
    let sent: Vec<Message> = trimmed
        .elements()
        .iter()
        .map(|e| Message {
            content: e.content().to_owned(),
            ..e.message.clone()
        })
        .collect();
    for (e, m) in trimmed.elements().iter().zip(&sent) {
        assert_eq!(
            e.tokens,
            chat_trimmer
                .format()
                .message_tokens(chat_trimmer.counter(), m)
        );
    }
    let tokens = chat_trimmer
        .format()
        .count_messages(chat_trimmer.counter(), &sent);
    assert_eq!(trimmed.tokens(), tokens);
    assert!(tokens <= chat_trimmer.budget().limit());
}

fn trim<'m, C: ctxbudget::TokenCounter>(
    chat_trimmer: &ChatTrimmer<C>,
    history: &'m [Message],
) -> TrimmedChat<'m, Message> {
    let before = history.to_vec();
    let trimmed = chat_trimmer.trim(history).expect("fits");
    // LangChain asserts that the input is not mutated; here it is borrowed.
    assert_eq!(history, before);
    assert_exact(&trimmed, chat_trimmer);
    trimmed
}

#[test]
fn dummy_counter_charges_what_langchain_charges() {
    let format = dummy_format();
    let costs: Vec<usize> = messages_to_trim()
        .iter()
        .map(|m| format.message_tokens(&dummy, m))
        .collect();
    assert_eq!(costs, [10, 10, 14, 10, 10]);
    let costs: Vec<usize> = tool_call_messages()
        .iter()
        .map(|m| format.message_tokens(&dummy, m))
        .collect();
    assert_eq!(costs, [10, 10, 10, 14, 10]);
}

// ---------------------------------------------------------------------------
// Core cases
// ---------------------------------------------------------------------------

#[test]
fn first_30() {
    let history = messages_to_trim();
    let chat_trimmer = langchain_dummy(30).with_strategy(ChatStrategy::KeepFirst);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [0, 1]);
}

#[test]
fn first_30_allow_partial() {
    let history = messages_to_trim();
    let chat_trimmer = langchain_dummy(30)
        .with_strategy(ChatStrategy::KeepFirst)
        .with_allow_partial(true);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(seqs(&trimmed), [0, 1, 2]);
    assert_eq!(contents(&trimmed), [FOUR, FOUR, FIRST_BLOCK]);
    let partial = trimmed.partial().unwrap();
    assert_eq!(partial.seq, 2);
    assert_eq!(partial.tokens, 10);
    let kept = partial.partial.unwrap();
    assert_eq!(kept.range(), 0..FIRST_BLOCK.len());
    assert_eq!(kept.boundary, Boundary::Paragraph);
    assert_eq!(kept.whole_tokens, 14);
    assert_eq!(trimmed.tokens(), 30);
}

#[test]
fn first_30_allow_partial_end_on_human() {
    let history = messages_to_trim();
    let chat_trimmer = langchain_dummy(30)
        .with_strategy(ChatStrategy::KeepFirst)
        .with_allow_partial(true)
        .with_end_on([Role::User]);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(seqs(&trimmed), [0, 1]);
    assert!(trimmed.partial().is_none());
    // The message cut in part was then dropped whole, and is reported whole.
    let m2 = trimmed.dropped().iter().find(|d| d.seq == 2).unwrap();
    assert_eq!((m2.reason, m2.tokens), (DropReason::EndOn, Some(14)));
}

#[test]
fn last_30_include_system() {
    let history = messages_to_trim();
    let chat_trimmer = langchain_dummy(30).with_include_system(true);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [0, 3, 4]);
}

#[test]
fn last_40_include_system_allow_partial() {
    let history = messages_to_trim();
    let chat_trimmer = langchain_dummy(40)
        .with_include_system(true)
        .with_allow_partial(true);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(seqs(&trimmed), [0, 2, 3, 4]);
    assert_eq!(contents(&trimmed), [FOUR, SECOND_BLOCK, FOUR, FOUR]);
    let kept = trimmed.partial().unwrap().partial.unwrap();
    assert_eq!(kept.start, FIRST_BLOCK.len() + 2);
    assert_eq!(trimmed.tokens(), 40);
}

#[test]
fn last_30_include_system_allow_partial_end_on_human() {
    let history = messages_to_trim();
    let chat_trimmer = langchain_dummy(30)
        .with_include_system(true)
        .with_allow_partial(true)
        .with_end_on([Role::User]);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(contents(&trimmed), [FOUR, SECOND_BLOCK, FOUR]);
    assert_eq!(seqs(&trimmed), [0, 2, 3]);
    let m4 = trimmed.dropped().iter().find(|d| d.seq == 4).unwrap();
    assert_eq!(m4.reason, DropReason::EndOn);
}

/// Named `..._40_...` upstream, but it trims to 30.
#[test]
fn last_40_include_system_allow_partial_start_on_human() {
    let history = messages_to_trim();
    let chat_trimmer = langchain_dummy(30)
        .with_include_system(true)
        .with_allow_partial(true)
        .with_start_on([Role::User]);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(seqs(&trimmed), [0, 3, 4]);
    assert!(trimmed.partial().is_none());
}

#[test]
fn allow_partial_one_message() {
    let history = [Message::user("This is a funky text.")];
    let chat_trimmer = langchain(ignoring_roles(char_len), 2)
        .with_strategy(ChatStrategy::KeepFirst)
        .with_allow_partial(true);
    let trimmed = trim(&chat_trimmer, &history);
    // LangChain splits into characters here; not even a word fits, so the trim
    // engine cuts between graphemes: the same result.
    assert_eq!(contents(&trimmed), ["Th"]);
    assert_eq!(
        trimmed.partial().unwrap().partial.unwrap().boundary,
        Boundary::Grapheme
    );
}

#[test]
fn last_allow_partial_one_message() {
    let history = [Message::user("This is a funky text.")];
    let chat_trimmer = langchain(ignoring_roles(char_len), 2).with_allow_partial(true);
    assert_eq!(contents(&trim(&chat_trimmer, &history)), ["t."]);
}

#[test]
fn allow_partial_text_splitter() {
    let history = messages_to_trim();
    let chat_trimmer = langchain(ignoring_roles(count_words), 10).with_allow_partial(true);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(seqs(&trimmed), [3, 4]);
    assert_eq!(contents(&trimmed), ["a 4 token text.", FOUR]);
    assert_eq!(
        trimmed.partial().unwrap().partial.unwrap().boundary,
        Boundary::Word
    );
}

#[test]
fn include_system_strategy_last_empty_messages() {
    let chat_trimmer = langchain_dummy(10).with_include_system(true);
    assert!(trim(&chat_trimmer, &[]).elements().is_empty());
    // With the OpenAI format, the reply priming (3) fits in 10 as well.
    let trimmed = ChatTrimmer::new(CharEstimate, 10)
        .trim::<Message>(&[])
        .unwrap();
    assert_eq!(trimmed.tokens(), 3);
}

/// LangChain's `invoke` test: the default strategy keeps the last messages.
#[test]
fn default_strategy_is_last() {
    let history = messages_to_trim();
    assert_eq!(seqs(&trim(&langchain_dummy(10), &history)), [4]);
}

#[test]
fn partial_text_splitting() {
    let history = [Message::user("This is a long message that needs trimming")];
    let chat_trimmer = langchain(ignoring_roles(char_len), 10)
        .with_strategy(ChatStrategy::KeepFirst)
        .with_allow_partial(true);
    // LangChain, splitting into characters, keeps "This is a " (10 characters); the
    // trim engine cuts at the word boundary and keeps no whitespace at the cut.
    assert_eq!(contents(&trim(&chat_trimmer, &history)), ["This is a"]);
}

#[test]
fn mixed_content_with_partial() {
    let history = [Message::assistant(
        "First part of text.\n\nSecond part that should be trimmed.",
    )];
    let chat_trimmer = langchain(ignoring_roles(char_len), 20)
        .with_strategy(ChatStrategy::KeepFirst)
        .with_allow_partial(true);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(contents(&trimmed), ["First part of text."]);
    assert_eq!(trimmed.tokens(), 19);
}

#[test]
fn exact_token_boundary() {
    let history = [
        Message::system("10 tokens exactly."),
        Message::user("Another 10 tokens."),
    ];
    let first = |max| langchain_dummy(max).with_strategy(ChatStrategy::KeepFirst);
    assert_eq!(seqs(&trim(&first(10), &history)), [0]);
    assert_eq!(seqs(&trim(&first(20), &history)), [0, 1]);
}

#[test]
fn start_on_with_allow_partial() {
    let history = [
        Message::user("First human message"),
        Message::assistant("AI response"),
        Message::user("Second human message"),
    ];
    let chat_trimmer = langchain_dummy(20)
        .with_allow_partial(true)
        .with_start_on([Role::User]);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(seqs(&trimmed), [2]);
    assert_eq!(trimmed.dropped()[1].reason, DropReason::StartOnUser);
}

/// LangChain's `token_counter_shortcut_with_options`, with its "approximate"
/// counter (chars / 4 + 3 per message) replaced by [`CharEstimate`] in the OpenAI
/// format: everything fits, and the result starts with the system message and a user
/// message after it.
#[test]
fn approximate_counter_with_options() {
    let history = [
        Message::system("System instructions"),
        Message::user("First human message"),
        Message::assistant("First AI response"),
        Message::user("Second human message"),
        Message::assistant("Second AI response"),
    ];
    let chat_trimmer = ChatTrimmer::new(CharEstimate, 100).with_start_on([Role::User]);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(seqs(&trimmed), [0, 1, 2, 3, 4]);
}

// ---------------------------------------------------------------------------
// Tool calls (written upstream for the tool-aware variant, whose guarantee is ours)
// ---------------------------------------------------------------------------

#[test]
fn tool_group_never_split_first() {
    let history = tool_call_messages();
    let chat_trimmer = langchain_dummy(35).with_strategy(ChatStrategy::KeepFirst);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [0, 1, 2]);
}

/// Released LangChain returns `[Tool]` here: a tool result without its call, which
/// providers reject. The call and its result cost 24, over 15, so both go.
#[test]
fn tool_group_never_split_last() {
    let history = tool_call_messages();
    let trimmed = trim(&langchain_dummy(15), &history);
    assert!(trimmed.elements().is_empty());
}

#[test]
fn tool_group_included_together_last() {
    let history = tool_call_messages();
    assert_eq!(seqs(&trim(&langchain_dummy(25), &history)), [3, 4]);
}

#[test]
fn tool_group_included_together_first() {
    let history = tool_call_messages();
    let chat_trimmer = langchain_dummy(55).with_strategy(ChatStrategy::KeepFirst);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [0, 1, 2, 3, 4]);
}

/// Upstream checks that the counter never sees a tool message before its call
/// (released LangChain counts reversed lists for "last"). Here the counter sees
/// texts, not lists: the kept messages' texts and those of the message that did not
/// fit (the unit next to them), each once, unit by unit from the newest, and nothing
/// of the messages beyond.
#[test]
fn counter_sees_the_kept_messages_and_the_next_unit_once() {
    let history = tool_call_messages();
    let seen = RefCell::new(Vec::new());
    let recording = |text: &str| {
        seen.borrow_mut().push(text.to_owned());
        dummy(text)
    };
    let chat_trimmer = langchain(&recording, 30).with_format(dummy_format());
    let trimmed = chat_trimmer.trim(&history).unwrap();
    assert_eq!(seqs(&trimmed), [3, 4]);
    let texts = |m: &Message| -> Vec<String> {
        let calls = m.tool_calls.iter().flat_map(|c| [&c.name, &c.arguments]);
        // Per message: the role, the tool calls, the content.
        std::iter::once(m.role.as_str())
            .chain(calls.map(String::as_str))
            .chain([m.content.as_str()])
            .map(str::to_owned)
            .collect()
    };
    // The tool call 3 with its result 4 is kept (24 tokens); 2 is the unit that did
    // not fit (34 > 30); 1 and 0 are dropped without being counted.
    let expected: Vec<String> = [3, 4, 2].iter().flat_map(|&s| texts(&history[s])).collect();
    assert_eq!(*seen.borrow(), expected);
    let uncounted: Vec<usize> = trimmed
        .dropped()
        .iter()
        .filter(|d| d.tokens.is_none())
        .map(|d| d.seq)
        .collect();
    assert_eq!(uncounted, [0, 1]);
}

/// With `allow_partial`, the message kept in part is counted again, to cut it; no
/// other message is.
#[test]
fn only_the_message_kept_in_part_is_counted_again() {
    let history = messages_to_trim();
    let seen = RefCell::new(Vec::new());
    let recording = |text: &str| {
        seen.borrow_mut().push(text.to_owned());
        dummy(text)
    };
    let chat_trimmer = langchain(&recording, 40)
        .with_format(dummy_format())
        .with_include_system(true)
        .with_allow_partial(true);
    let trimmed = chat_trimmer.trim(&history).unwrap();
    assert_eq!(seqs(&trimmed), [0, 2, 3, 4]);
    let seen = seen.borrow();
    // The system message (kept whatever the budget), then from the newest back:
    // 4 and 3 fit, 2 does not; 1 is never counted.
    let once: Vec<&str> = [0, 4, 3, 2]
        .iter()
        .flat_map(|&s| [history[s].role.as_str(), &history[s].content])
        .collect();
    assert_eq!(seen[..once.len()], once);
    // Then M2's role, for its overhead, and pieces of M2's content while cutting it.
    assert_eq!(seen[once.len()], "assistant");
    let cut = &history[2].content;
    let rest = &seen[once.len() + 1..];
    assert!(rest.iter().all(|t| cut.contains(t.as_str())), "{rest:?}");
}

#[test]
fn tool_group_with_include_system() {
    let mut history = vec![Message::system("You are a helpful assistant.")];
    history.extend(tool_call_messages());
    let chat_trimmer = langchain_dummy(35).with_include_system(true);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [0, 4, 5]);
}

#[test]
fn tool_group_start_on_human() {
    let history = tool_call_messages();
    let chat_trimmer = langchain_dummy(25).with_start_on([Role::User]);
    let trimmed = trim(&chat_trimmer, &history);
    assert!(trimmed.elements().is_empty());
    let reasons: Vec<DropReason> = trimmed.dropped().iter().map(|d| d.reason).collect();
    assert_eq!(reasons, [OVER, OVER, OVER, START, START]);
}

#[test]
fn multiple_tool_groups() {
    let history = [
        Message::user("query 1"),
        Message::assistant("calling tool A").with_tool_call(ToolCall::new("a1", "tool_a", "")),
        Message::tool("a1", "result A"),
        Message::user("query 2"),
        Message::assistant("calling tool B").with_tool_call(ToolCall::new("b1", "tool_b", "")),
        Message::tool("b1", "result B"),
    ];
    assert_eq!(seqs(&trim(&langchain_dummy(35), &history)), [3, 4, 5]);
}

#[test]
fn tool_group_boundary_exact_fit() {
    let history = tool_call_messages();
    let trimmed = trim(&langchain_dummy(24), &history);
    assert_eq!(seqs(&trimmed), [3, 4]);
    assert_eq!(trimmed.tokens(), 24);
}

// ---------------------------------------------------------------------------
// Further cases derived from LangChain's algorithm
// ---------------------------------------------------------------------------

/// `token_counter=len`: one token per message.
fn per_message() -> ChatFormat {
    ChatFormat::content_only().with_tokens_per_message(1)
}

fn nothing(_: &str) -> usize {
    0
}

fn shs() -> Vec<Message> {
    vec![
        Message::system("s"),
        Message::user("h1"),
        Message::assistant("a1"),
        Message::user("h2"),
        Message::assistant("a2"),
        Message::user("h3"),
    ]
}

/// LangChain's docstring example; our defaults give the same result.
#[test]
fn last_start_on_human_include_system() {
    let history = shs();
    let chat_trimmer = ChatTrimmer::new(nothing, 4)
        .with_format(per_message())
        .with_start_on([Role::User]);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [0, 3, 4, 5]);
}

#[test]
fn first_end_on_human_or_system() {
    let history = shs();
    let chat_trimmer = langchain(nothing, 4)
        .with_format(per_message())
        .with_strategy(ChatStrategy::KeepFirst)
        .with_end_on([Role::User, Role::System]);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [0, 1, 2, 3]);
    // With the latest user message kept (the default), it takes the place of h2.
    let chat_trimmer = chat_trimmer.with_keep_latest_user(true);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [0, 1, 2, 5]);
}

/// LangChain issue #33245: released LangChain keeps `[Tool, H, A, H, A]`, a tool
/// result without its call. Here the call goes with its result, as in the
/// tool-aware variant and as LangChain's `start_on="human"` workaround gives.
#[test]
fn issue_33245_no_leading_tool_message() {
    let history = [
        Message::user("q"),
        Message::assistant("").with_tool_call(ToolCall::new("abc123", "f", "")),
        Message::tool("abc123", "r"),
        Message::user("I see"),
        Message::assistant("anything else?"),
        Message::user("no"),
        Message::assistant("bye"),
    ];
    let chat_trimmer = langchain(nothing, 5).with_format(per_message());
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [3, 4, 5, 6]);
    let chat_trimmer = chat_trimmer.with_start_on([Role::User]);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [3, 4, 5, 6]);
}

/// LangChain keeps whole trailing blocks of list content, or cuts the text of the
/// last block; here the blocks are paragraphs and the trim engine keeps the end at
/// the strongest boundary that fits.
#[test]
fn partial_blocks_by_characters() {
    let history = [Message::assistant("abcdef\n\nghij")];
    let last = |max| langchain(ignoring_roles(char_len), max).with_allow_partial(true);
    assert_eq!(contents(&trim(&last(3), &history)), ["hij"]);
    assert_eq!(contents(&trim(&last(5), &history)), ["ghij"]);
    let first = last(3).with_strategy(ChatStrategy::KeepFirst);
    assert_eq!(contents(&trim(&first, &history)), ["abc"]);
}

#[test]
fn partial_keeps_whole_lines() {
    let lines = |text: &str| text.lines().count();
    let history = [Message::user("l1\nl2\nl3")];
    let chat_trimmer = langchain(ignoring_roles(lines), 2).with_allow_partial(true);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(contents(&trimmed), ["l2\nl3"]);
    assert_eq!(
        trimmed.partial().unwrap().partial.unwrap().boundary,
        Boundary::Line
    );
}

/// LangChain returns the system message alone, over `max_tokens`; here the result
/// always fits, so the trim fails and says what to do.
#[test]
fn system_message_alone_over_budget_is_an_error() {
    let history = [
        Message::system("x"),
        Message::user("a"),
        Message::assistant("b"),
    ];
    let chat_trimmer = langchain_dummy(5).with_include_system(true);
    let err = chat_trimmer.trim(&history).unwrap_err();
    assert_eq!(
        err,
        ChatTrimError::OverBudget {
            needed: 10,
            budget: 5,
            over: 5
        }
    );
    assert!(err.to_string().contains("raise the budget to at least 10"));
    assert!(err.to_string().ends_with("or shorten them"), "{err}");
    // Without include_system, nothing fits and nothing is kept, as in LangChain.
    assert!(trim(&langchain_dummy(5), &history).elements().is_empty());
}

#[test]
fn last_end_on_a_role_that_never_comes() {
    let history = [Message::user("a"), Message::assistant("b")];
    let chat_trimmer = langchain_dummy(100).with_end_on([Role::Tool]);
    let trimmed = trim(&chat_trimmer, &history);
    assert!(trimmed.elements().is_empty());
    assert!(
        trimmed
            .dropped()
            .iter()
            .all(|d| d.reason == DropReason::EndOn)
    );
}

#[test]
fn first_end_on_human_when_everything_fits() {
    let history = [Message::user("a"), Message::assistant("b")];
    let chat_trimmer = langchain_dummy(100)
        .with_strategy(ChatStrategy::KeepFirst)
        .with_end_on([Role::User]);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [0]);
}

#[test]
fn last_start_on_human_when_everything_fits() {
    let history = [
        Message::assistant("a"),
        Message::user("b"),
        Message::assistant("c"),
    ];
    let chat_trimmer = langchain_dummy(100).with_start_on([Role::User]);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [1, 2]);
}

#[test]
fn zero_budget_keeps_nothing() {
    let history = messages_to_trim();
    for strategy in [ChatStrategy::KeepLast, ChatStrategy::KeepFirst] {
        for partial in [false, true] {
            let chat_trimmer = langchain_dummy(0)
                .with_strategy(strategy)
                .with_allow_partial(partial);
            assert!(trim(&chat_trimmer, &history).elements().is_empty());
        }
    }
}

/// A system message that does not come first is an ordinary message in LangChain;
/// here it is kept wherever it is. With this history the results agree: LangChain
/// keeps it because it falls in the last 20 tokens.
#[test]
fn system_message_not_first() {
    let history = [
        Message::user("a"),
        Message::system("s"),
        Message::assistant("b"),
    ];
    let chat_trimmer = langchain_dummy(20).with_include_system(true);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [1, 2]);
    // Where they differ: with room for one message, the system message stays here.
    let chat_trimmer = langchain_dummy(10).with_include_system(true);
    assert_eq!(seqs(&trim(&chat_trimmer, &history)), [1]);
}

// ---------------------------------------------------------------------------
// Where the options meet this crate's guarantees
// ---------------------------------------------------------------------------

/// With `include_system` (the default) no option drops a system message:
/// `start_on` and `end_on` look past them. Without it, they are ordinary messages.
#[test]
fn start_on_and_end_on_look_past_included_system_messages() {
    let history = [
        Message::system("s"),
        Message::assistant("hello"),
        Message::user("u"),
        Message::assistant("a"),
        Message::system("reminder"),
    ];
    let chat_trimmer = ChatTrimmer::new(CharEstimate, 1_000)
        .with_start_on([Role::User])
        .with_end_on([Role::User]);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(seqs(&trimmed), [0, 2, 4]);
    let trimmed = trim(&chat_trimmer.with_include_system(false), &history);
    assert_eq!(seqs(&trimmed), [2]);
    let reasons: Vec<DropReason> = trimmed.dropped().iter().map(|d| d.reason).collect();
    assert_eq!(
        reasons,
        [START, START, DropReason::EndOn, DropReason::EndOn]
    );
}

/// The shape asked for wins over the protection of the latest user message.
#[test]
fn end_on_may_drop_the_latest_user_message() {
    let history = [
        Message::system("s"),
        Message::user("u1"),
        Message::assistant("a1"),
        Message::user("u2"),
    ];
    let trimmed = trim(
        &ChatTrimmer::new(CharEstimate, 1_000).with_end_on([Role::Assistant]),
        &history,
    );
    assert_eq!(seqs(&trimmed), [0, 1, 2]);
    assert_eq!(trimmed.dropped()[0].reason, DropReason::EndOn);
}

#[test]
fn start_on_roles_and_the_user_shorthand() {
    let history = [
        Message::assistant("").with_tool_call(ToolCall::new("c", "f", "")),
        Message::tool("c", "r"),
        Message::assistant("a"),
        Message::user("u"),
    ];
    let chat_trimmer = ChatTrimmer::new(CharEstimate, 1_000);
    let trimmed = trim(
        &chat_trimmer.clone().with_start_on([Role::Assistant]),
        &history,
    );
    assert_eq!(seqs(&trimmed), [0, 1, 2, 3]);
    // A tool call starts with its assistant message; a tool result never starts a
    // kept history, so Role::Tool never matches.
    let trimmed = trim(&chat_trimmer.clone().with_start_on([Role::Tool]), &history);
    assert!(trimmed.elements().is_empty());
    assert!(
        trimmed
            .dropped()
            .iter()
            .all(|d| d.reason == DropReason::StartOn)
    );
    let trimmed = trim(
        &chat_trimmer.clone().with_start_on([Role::User, Role::Tool]),
        &history,
    );
    assert_eq!(seqs(&trimmed), [3]);
    assert!(
        trimmed
            .dropped()
            .iter()
            .all(|d| d.reason == DropReason::StartOn)
    );
    // The user role alone reports StartOnUser.
    let trimmed = trim(&chat_trimmer.clone().with_start_on([Role::User]), &history);
    assert_eq!(seqs(&trimmed), [3]);
    assert!(
        trimmed
            .dropped()
            .iter()
            .all(|d| d.reason == DropReason::StartOnUser)
    );
    // The deprecated shorthand keeps its meaning: `true` is `[Role::User]`, `false`
    // is `[]`, whatever was set before.
    #[allow(deprecated)]
    let (on, off) = (
        chat_trimmer.clone().with_start_on_user(true),
        chat_trimmer
            .clone()
            .with_start_on([Role::Assistant])
            .with_start_on_user(false),
    );
    assert_eq!(seqs(&trim(&on, &history)), [3]);
    assert_eq!(seqs(&trim(&off, &history)), [0, 1, 2, 3]);
    assert_eq!(
        seqs(&trim(&chat_trimmer.with_start_on([]), &history)),
        [0, 1, 2, 3]
    );
}

/// LangChain's "first" strategy keeps a cut of the first message that does not
/// fit even when it makes tool calls, whose results are then missing. A tool call
/// or result is never kept in part here.
#[test]
fn tool_calls_and_results_are_never_kept_in_part() {
    let history = tool_call_messages();
    let first = langchain_dummy(35)
        .with_strategy(ChatStrategy::KeepFirst)
        .with_allow_partial(true);
    let trimmed = trim(&first, &history);
    assert_eq!(seqs(&trimmed), [0, 1, 2]);
    assert!(trimmed.partial().is_none());
    let last = langchain_dummy(20).with_allow_partial(true);
    let trimmed = trim(&last, &history);
    assert!(trimmed.elements().is_empty());
    assert!(trimmed.partial().is_none());
}

/// A protected message is kept whole or the trim fails: it is never cut.
#[test]
fn protected_messages_are_never_cut() {
    let history = [
        Message::system("Be brief."),
        Message::user("A long question that goes on and on and on and on."),
    ];
    let words = |t: &str| t.split_whitespace().count();
    // (3 + 1 + 2) + (3 + 1 + 12) + 3 = 25 tokens.
    let chat_trimmer = ChatTrimmer::new(words, 16).with_allow_partial(true);
    assert!(matches!(
        chat_trimmer.trim(&history),
        Err(ChatTrimError::OverBudget { .. })
    ));
    // Let the latest user message go and it is kept in part: its end.
    let trimmed = trim(&chat_trimmer.with_keep_latest_user(false), &history);
    assert_eq!(contents(&trimmed), ["Be brief.", "on and on."]);
    assert_eq!(trimmed.tokens(), 16);
}

/// The cost of a message kept in part is exact in the OpenAI format too: the
/// per-message tokens, the role and the name are counted with the kept text.
#[test]
fn partial_cost_is_exact_with_the_chat_format() {
    let history = [
        Message::system("You summarise."),
        Message::user(
            "Here is the report. Revenue grew by a tenth. Costs fell. The outlook is calm.",
        )
        .with_name("analyst"),
        Message::assistant("Noted."),
        Message::user("Summarise it."),
    ];
    let format = ChatFormat::openai();
    let whole = format.count_messages(&CharEstimate, &history);
    for budget in 0..=whole {
        let chat_trimmer = ChatTrimmer::new(CharEstimate, budget).with_allow_partial(true);
        if let Ok(trimmed) = chat_trimmer.trim(&history) {
            assert_exact(&trimmed, &chat_trimmer);
            if let Some(partial) = trimmed.partial() {
                // The report, or "Noted." once the report is gone too.
                let whole = &history[partial.seq].content;
                assert!([1, 2].contains(&partial.seq));
                assert!(whole.ends_with(partial.content()));
                assert!(partial.content().len() < whole.len());
            }
        }
    }
    let chat_trimmer = ChatTrimmer::new(CharEstimate, whole - 4).with_allow_partial(true);
    let trimmed = trim(&chat_trimmer, &history);
    let partial = trimmed.partial().unwrap();
    assert_eq!(
        partial.content(),
        "Revenue grew by a tenth. Costs fell. The outlook is calm."
    );
    assert_eq!(partial.partial.unwrap().boundary, Boundary::Sentence);
}

/// With `KeepFirst`, the message kept in part is the first that did not fit, cut to
/// its beginning; a protected message after it stays whole.
#[test]
fn keep_first_cuts_the_first_message_that_does_not_fit() {
    let history = [
        Message::system("s"),
        Message::user("one two three four five six"),
        Message::assistant("seven eight"),
        Message::user("last"),
    ];
    let words = |t: &str| t.split_whitespace().count();
    let chat_trimmer = ChatTrimmer::new(ignoring_roles(words), 5)
        .with_format(ChatFormat::content_only())
        .with_strategy(ChatStrategy::KeepFirst)
        .with_allow_partial(true);
    let trimmed = trim(&chat_trimmer, &history);
    assert_eq!(seqs(&trimmed), [0, 1, 3]);
    assert_eq!(contents(&trimmed), ["s", "one two three", "last"]);
    assert_eq!(trimmed.tokens(), 5);
}
