//! Assembling to messages: instructions in the system message, a chat history's
//! messages as messages, the user layer as the final user message, and the fit
//! checked on the messages as the chat format counts them.

use ctxbudget::assemble::{AssembleOptions, LayerInput, LayerPolicy, LayerRole, PromptMessages};
use ctxbudget::chat::{ChatFormat, ChatMessage, Role, ToolCall, ToolCallRef};
use ctxbudget::{
    AssembleError, CharEstimate, ContextBudget, ContextLayers, Message, Tiktoken, TokenCounter,
};
use ctxbudget_tests::{CODE, MARKDOWN, PROSE};
use proptest::prelude::*;
use std::sync::LazyLock;

static TIKTOKEN: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::o200k_base);

/// An agent context: instructions, a guide, the conversation, retrieved passages
/// read with the question, and the question.
#[derive(ContextLayers, Debug, Clone)]
#[context(total = 8192, output = 1024)]
struct Agent {
    #[budget(tokens = 256, required, policy = never)]
    system: String,
    #[budget(tokens = 1024, policy = disclose, recovery = "read GUIDE.md")]
    guide: String,
    #[budget(tokens = 2048, grow)]
    history: Vec<Message>,
    #[budget(tokens = 1024, grow, role = user)]
    retrieval: Vec<String>,
    #[budget(tokens = 256, required, policy = never)]
    user: String,
}

fn history(turns: usize) -> Vec<Message> {
    let mut chat = vec![Message::system("Tool results are trusted.")];
    for i in 0..turns {
        chat.push(Message::user(format!("Open step {i} and explain it.")));
        chat.push(Message::assistant("").with_tool_call(ToolCall::new(
            format!("call_{i}"),
            "read_file",
            format!(r#"{{"path":"src/step{i}.rs"}}"#),
        )));
        let start = (i * 311) % (CODE.len() - 700);
        let start = ctxbudget_tests::floor_char_boundary(CODE, start);
        let end = ctxbudget_tests::floor_char_boundary(CODE, start + 600);
        chat.push(Message::tool(format!("call_{i}"), &CODE[start..end]));
        chat.push(Message::assistant(format!("Step {i} parses the header.")));
    }
    chat
}

fn agent(turns: usize) -> Agent {
    Agent::builder()
        .system("You are a careful coding agent.")
        .guide(MARKDOWN)
        .history(history(turns))
        .retrieval(
            PROSE
                .split("\n\n")
                .filter(|p| p.len() > 100)
                .map(str::to_owned)
                .collect::<Vec<_>>(),
        )
        .user("Why does the parser stop at the header?")
        .build()
}

/// The invariants every messages prompt keeps: it fits, its count is the chat
/// format's count of its messages, the report adds up, each tool result follows its
/// call, and every history message is the one its source points at.
fn check(
    out: &ctxbudget::assemble::Assembled<'_, impl Sized, PromptMessages>,
    history: &[Message],
    format: ChatFormat,
    counter: &dyn TokenCounter,
) {
    let chat = out.prompt.to_chat();
    assert_eq!(out.tokens, format.count_messages(counter, &chat));
    assert!(out.tokens <= out.limit);
    assert_eq!(
        isize::try_from(out.tokens).unwrap(),
        isize::try_from(out.layer_tokens()).unwrap() + out.overhead()
    );
    assert_eq!(out.prompt.messages.len(), out.prompt.sources.len());
    for (message, source) in out.prompt.messages.iter().zip(&out.prompt.sources) {
        if let Some(index) = source.index {
            assert_eq!(message, &history[index]);
            assert_eq!(out.layers[source.layer].role, Some(LayerRole::History));
        }
    }
    for (i, message) in out.prompt.messages.iter().enumerate() {
        if let Some(id) = &message.tool_call_id {
            let call = out.prompt.messages[..i]
                .iter()
                .rev()
                .find(|m| m.role != Role::Tool)
                .expect("a tool result after a message");
            assert!(
                call.tool_calls.iter().any(|c| &c.id == id),
                "{id} without its call"
            );
        }
    }
}

#[test]
fn layers_go_to_the_system_message_the_history_and_the_final_user_message() {
    let ctx = agent(40);
    let out = ctx
        .assemble_messages(&*TIKTOKEN, &AssembleOptions::new())
        .unwrap();
    check(&out, &ctx.history, ChatFormat::openai(), &*TIKTOKEN);
    let roles: Vec<Option<LayerRole>> = out.layers.iter().map(|l| l.role).collect();
    let (system, history, user) = (
        Some(LayerRole::System),
        Some(LayerRole::History),
        Some(LayerRole::User),
    );
    assert_eq!(roles, [system, system, history, user, user]);
    // The system message: the system prompt and the disclosed guide.
    let guide = out.layer("guide").unwrap();
    assert_eq!(
        out.prompt.system,
        format!("{}\n\n{}", ctx.system, guide.text())
    );
    assert!(guide.text().ends_with("full text: read GUIDE.md>"));
    // The history's latest messages, as messages, tool calls with their results.
    let history = out.layer("history").unwrap();
    assert!(history.cut() && history.fitted.unit == "messages");
    assert_eq!(history.fitted.kept, out.prompt.messages.len() - 1);
    assert_eq!(out.prompt.messages[0].role, Role::System); // the history's own, kept
    // The last message is the user's: the passages read with the question.
    let user = out.prompt.user().unwrap();
    let retrieval = out.layer("retrieval").unwrap();
    assert_eq!(
        user.content,
        format!("{}\n\n{}", retrieval.text(), ctx.user)
    );
    assert_eq!(out.prompt.sources.last().unwrap().index, None);
    assert_eq!(out.prompt.sources.last().unwrap().layer, 4);
    // Framing: the system and user messages (3 + "system", 3 + "user") and the
    // reply priming; two separators, one in each.
    assert_eq!(out.framing, 3 + 1 + 3 + 1 + 3);
    assert_eq!(out.separators, 2);
    // The table and the telemetry say where each layer went.
    let table = out.to_string();
    assert!(
        table
            .lines()
            .next()
            .unwrap()
            .starts_with("layer     role     policy"),
        "{table}"
    );
    assert!(table.contains("history   history  tail, grow 1"), "{table}");
    assert!(
        table.contains("for the system and user messages' framing"),
        "{table}"
    );
    assert!(out.to_json().contains(r#""history":{"reservation":2048,"#));
    assert!(out.to_json().contains(r#""role":"history"}"#));
    // Both growing layers used what the others left: little is unused.
    assert!(out.unused() < 200, "{} unused", out.unused());
}

#[test]
fn the_string_and_messages_forms_fit_the_same_layers() {
    let ctx = agent(40);
    let text = ctx.assemble(&*TIKTOKEN).unwrap();
    let messages = ctx
        .assemble_messages(&*TIKTOKEN, &AssembleOptions::new())
        .unwrap();
    assert_eq!(
        text.layer("guide").unwrap().text(),
        messages.layer("guide").unwrap().text()
    );
    assert_eq!(text.limit, messages.limit);
    // The string form renders the history into the prompt; the messages form sends
    // the messages, whose per-message tokens are in the history layer's tokens.
    assert!(text.prompt.contains("tool [call_39]: "));
    assert!(
        messages
            .prompt
            .messages
            .iter()
            .any(|m| m.tool_call_id.as_deref() == Some("call_39"))
    );
}

/// A chat history marked `role = user`: sent as text in the user message.
#[derive(ContextLayers)]
#[context(total = 1000)]
struct Rendered {
    #[budget(tokens = 300, role = user)]
    transcript: Vec<Message>,
    #[budget(tokens = 100)]
    question: String,
}

#[test]
fn roles_and_position_place_the_layers() {
    /// No chat history: every layer but the last goes to the system message.
    #[derive(ContextLayers)]
    #[context(total = 1000)]
    struct Plain {
        #[budget(tokens = 100)]
        rules: String,
        #[budget(tokens = 100)]
        notes: String,
        #[budget(tokens = 100, role = system)]
        reminder: String,
        #[budget(tokens = 100)]
        question: String,
    }
    let ctx = Plain {
        rules: "Be brief.".into(),
        notes: "The build is green.".into(),
        reminder: "Cite sources.".into(),
        question: "What changed?".into(),
    };
    let out = ctx
        .assemble_messages(
            &CharEstimate,
            &AssembleOptions::new().with_chat_format(ChatFormat::content_only()),
        )
        .unwrap();
    assert_eq!(
        out.prompt.system,
        "Be brief.\n\nThe build is green.\n\nCite sources."
    );
    assert_eq!(out.prompt.messages, [Message::user("What changed?")]);
    // Content only: no per-message tokens and no reply priming, the roles as text.
    let roles = CharEstimate.count("system") + CharEstimate.count("user");
    assert_eq!(out.framing, roles);
    assert_eq!(
        out.tokens,
        roles + CharEstimate.count(&out.prompt.system) + CharEstimate.count("What changed?")
    );
    check(&out, &[], ChatFormat::content_only(), &CharEstimate);

    // A history marked as text goes in the user message, rendered.
    let ctx = Rendered {
        transcript: vec![Message::user("hi"), Message::assistant("hello")],
        question: "Summarise.".into(),
    };
    let out = ctx
        .assemble_messages(&CharEstimate, &AssembleOptions::new())
        .unwrap();
    assert_eq!(out.prompt.system, "");
    assert_eq!(
        out.prompt.to_chat(),
        [Message::user("user: hi\nassistant: hello\n\nSummarise.")]
    );
}

#[test]
fn empty_parts_send_no_message() {
    let ctx = Agent {
        system: String::new(),
        guide: String::new(),
        history: Vec::new(),
        retrieval: Vec::new(),
        user: String::new(),
    };
    let out = ctx
        .assemble_messages(&CharEstimate, &AssembleOptions::new())
        .unwrap();
    assert_eq!(out.prompt, PromptMessages::default());
    assert!(out.prompt.to_chat().is_empty());
    // Only the reply priming is left.
    assert_eq!((out.tokens, out.framing), (3, 3));
}

/// A message type of the caller's own, whose content costs more than its text (an
/// image, say): the history layer counts it with its own `content_tokens`.
#[derive(Debug, Clone, PartialEq)]
struct Photo {
    role: Role,
    caption: String,
}

impl ChatMessage for Photo {
    fn role(&self) -> Role {
        self.role
    }
    fn content(&self) -> &str {
        &self.caption
    }
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        std::iter::empty()
    }
    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        counter.count(&self.caption) + 85
    }
}

#[test]
fn a_history_of_your_own_messages_is_counted_as_they_count() {
    let photos: Vec<Photo> = (0..20)
        .map(|i| Photo {
            role: if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            caption: format!("photo {i}"),
        })
        .collect();
    let budget = ContextBudget::new(1000, [("history", 600), ("output", 100)]).unwrap();
    let words = |t: &str| t.split_whitespace().count();
    let out = budget
        .assemble_messages(
            &[LayerInput::new("history", &photos)],
            &words,
            &AssembleOptions::new(),
        )
        .unwrap();
    // Each photo: 3 per message + 1 (role) + 2 words + 85: 91. Six fit in 600.
    let history = out.layer("history").unwrap();
    assert_eq!((history.fitted.kept, history.tokens()), (6, 546));
    assert_eq!(out.tokens, 546 + 3);
    let kept: Vec<usize> = out.prompt.sources.iter().filter_map(|s| s.index).collect();
    assert_eq!(kept, [14, 15, 16, 17, 18, 19]);
    assert_eq!(out.prompt.messages[0].content, "photo 14");
}

#[test]
fn errors_name_the_layer_and_the_excess() {
    let budget = ContextBudget::new(100, [("system", 10), ("notes", 50), ("output", 20)]).unwrap();
    let words = |t: &str| t.split_whitespace().count();
    let err = budget
        .assemble_messages(
            &[LayerInput::new("notes", &"a b c").with_role(LayerRole::History)],
            &words,
            &AssembleOptions::new(),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "layer `notes`: only a chat history can take the history role; place it in the system \
         or the user message instead"
    );
    // The pinned messages of a history over its reservation, counted as messages:
    // 3 per message + 1 for the role + 10 words.
    let chat = vec![Message::user(
        "one two three four five six seven eight nine ten",
    )];
    let small = ContextBudget::new(100, [("history", 10), ("output", 20)]).unwrap();
    let err = small
        .assemble_messages(
            &[LayerInput::new("history", &chat)],
            &words,
            &AssembleOptions::new(),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            AssembleError::PinnedOverBudget {
                tokens: 14,
                budget: 10,
                over: 4,
                grows: false,
                ..
            }
        ),
        "{err}"
    );
    let err = budget
        .assemble_messages(
            &[
                LayerInput::new("notes", &chat),
                LayerInput::new("system", &"x ".repeat(20)).with_policy(LayerPolicy::Never),
            ],
            &words,
            &AssembleOptions::new(),
        )
        .unwrap_err();
    assert_eq!(
        err,
        AssembleError::LayerOverBudget {
            layer: "system".into(),
            tokens: 20,
            budget: 10,
            reservation: 10,
            over: 10
        }
    );
}

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (0usize..PROSE.len(), 0usize..4000).prop_map(|(s, l)| slice(PROSE, s, l)),
        (0usize..CODE.len(), 0usize..4000).prop_map(|(s, l)| slice(CODE, s, l)),
        "\\PC{0,200}",
    ]
}

fn slice(text: &str, start: usize, len: usize) -> String {
    let start = ctxbudget_tests::floor_char_boundary(text, start);
    let end = ctxbudget_tests::floor_char_boundary(text, start.saturating_add(len));
    text[start..end].to_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Whatever the content and the window: messages that fit `window - output` as
    /// the chat format counts them, a report that adds up, tool results after their
    /// calls; or an error that names a layer that may not be cut.
    #[test]
    fn messages_fit_as_the_format_counts_them(
        guide in arb_text(),
        turns in prop::collection::vec((arb_text(), any::<bool>()), 0..12),
        chunks in prop::collection::vec(arb_text(), 0..5),
        window in 3_000usize..20_000,
        output in 0usize..1_000,
    ) {
        let mut history = Vec::new();
        for (i, (text, tool)) in turns.iter().enumerate() {
            history.push(Message::user(format!("turn {i}")));
            if *tool {
                history.push(Message::assistant("").with_tool_call(ToolCall::new(format!("c{i}"), "read", "{}")));
                history.push(Message::tool(format!("c{i}"), text.clone()));
            } else {
                history.push(Message::assistant(text.clone()));
            }
        }
        let ctx = Agent {
            system: "Be brief.".into(),
            guide,
            history: history.clone(),
            retrieval: chunks,
            user: "And now?".into(),
        };
        let options = AssembleOptions::for_window(window, output);
        match ctx.assemble_messages(&*TIKTOKEN, &options) {
            Ok(out) => {
                prop_assert_eq!(out.limit, window - output);
                check(&out, &history, ChatFormat::openai(), &*TIKTOKEN);
                for layer in &out.layers {
                    prop_assert!(layer.tokens() <= layer.granted, "{} over its grant", layer.name);
                }
            }
            Err(AssembleError::WindowTooSmall { .. }) => {
                prop_assert!(256 + 1024 + 2048 + 1024 + 256 + output > window);
            }
            Err(AssembleError::PinnedOverBudget { layer, .. }) => {
                // The latest user message with the history's system message, over
                // what the history was given.
                prop_assert_eq!(layer, "history");
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }
}
