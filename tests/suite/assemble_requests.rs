//! An assembled prompt as a provider request: `PromptMessages::to_openai` and
//! `to_anthropic` give requests the providers take (they validate, round-trip, keep
//! every call with its results) and that cost, counted as the provider counts them,
//! what the assembly reported.

use std::sync::LazyLock;

use ctxbudget::assemble::{AssembleOptions, LayerInput, PromptMessages};
use ctxbudget::chat::{ChatFormat, ChatMessage, ToolCall};
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::{RequestFitter, WireRequest};
use ctxbudget::{ContextBudget, ContextLayers, Message, Model, Tiktoken, TokenCounter};
use ctxbudget_tests::{CODE, MARKDOWN};
use proptest::prelude::*;

static TIKTOKEN: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::o200k_base);

/// A coding agent's context.
#[derive(ContextLayers, Debug, Clone)]
#[context(total = 16384, output = 2048)]
struct Agent {
    #[budget(tokens = 256, required, policy = never)]
    system: String,
    #[budget(tokens = 2048, policy = disclose, recovery = "read GUIDE.md")]
    guide: String,
    #[budget(tokens = 4096, grow)]
    history: Vec<Message>,
    #[budget(tokens = 256, required, policy = never)]
    user: String,
}

/// Turns of one user question, parallel tool calls and their results (real code),
/// and an answer.
fn history(turns: usize) -> Vec<Message> {
    let mut chat = Vec::new();
    for i in 0..turns {
        chat.push(Message::user(format!(
            "Compare step {i} with the next one."
        )));
        let calls = ["a", "b"].map(|side| format!("call_{i}_{side}"));
        let mut assistant = Message::assistant(if i % 2 == 0 { "Reading both." } else { "" });
        for (n, id) in calls.iter().enumerate() {
            assistant = assistant.with_tool_call(ToolCall::new(
                id.clone(),
                "read_file",
                format!(r#"{{"path":"src/step{}.rs"}}"#, i + n),
            ));
        }
        chat.push(assistant);
        for (n, id) in calls.iter().enumerate() {
            let start = ctxbudget_tests::floor_char_boundary(
                CODE,
                (i * 977 + n * 131) % (CODE.len() - 900),
            );
            let end = ctxbudget_tests::floor_char_boundary(CODE, start + 800);
            chat.push(Message::tool(id.clone(), &CODE[start..end]));
        }
        chat.push(Message::assistant(format!(
            "Step {i} and step {} differ in the header.",
            i + 1
        )));
    }
    chat
}

fn agent(turns: usize) -> Agent {
    Agent::builder()
        .system("You are a careful coding agent.")
        .guide(MARKDOWN)
        .history(history(turns))
        .user("Which step breaks the parser?")
        .build()
}

#[test]
fn an_openai_request_costs_what_the_assembly_reported() {
    let agent = agent(60);
    let out = agent
        .assemble_messages(&*TIKTOKEN, &AssembleOptions::new())
        .unwrap();
    let request = out.prompt.to_openai("gpt-4o");
    request.validate().unwrap();
    assert_eq!(ChatRequest::from_json(&request.to_json()).unwrap(), request);
    let request_fitter = RequestFitter::new(&*TIKTOKEN).with_max_input(out.limit);
    assert_eq!(request_fitter.count(&request).tokens, out.tokens);
    // The history was trimmed by the assembly: nothing is left to drop.
    assert!(out.layer("history").unwrap().dropped() > 0);
    let fitted = request_fitter.fit(request.clone()).unwrap();
    assert!(!fitted.report.trimmed());
    assert_eq!(fitted.request, request);
}

#[test]
fn an_anthropic_request_keeps_parallel_results_together_and_fits() {
    let options = AssembleOptions::new().with_chat_format(ChatFormat::anthropic());
    let agent = agent(20);
    let out = agent.assemble_messages(&*TIKTOKEN, &options).unwrap();
    let request = out.prompt.to_anthropic("claude-sonnet-4-5", 2048);
    request.validate().unwrap();
    assert_eq!(
        MessagesRequest::from_json(&request.to_json()).unwrap(),
        request
    );
    // Four messages a turn: the question, the calls, both results in one message,
    // the answer; then the final question.
    let kept_turns = out
        .prompt
        .messages
        .iter()
        .filter(|m| m.tool_calls.len() == 2)
        .count();
    assert_eq!(request.messages().len(), 4 * kept_turns + 1);
    for message in request.messages() {
        assert!(
            message.tool_result_ids().count() != 1,
            "parallel results split"
        );
    }
    let counted = RequestFitter::new(&*TIKTOKEN).count(&request).tokens;
    assert!(counted <= out.limit, "{counted} over {}", out.limit);
    // The assembly counts each result as if it had a user message of its own; the
    // request gathers parallel results in one, and is that much cheaper.
    let user_frame = 3 + TIKTOKEN.count("user");
    let gathered: usize = request
        .messages()
        .iter()
        .map(|m| m.tool_result_ids().count().saturating_sub(1) * user_frame)
        .sum();
    assert!(gathered > 0);
    assert_eq!(counted + gathered, out.tokens);
}

/// One call takes the window, the output to keep and the chat format from the
/// catalogue; the assembly's output is the request's `max_tokens`, and the fitter of
/// the same model reserves it and takes the request as it is (the glue was about ten
/// lines: the window, the output, the format, and `max_tokens` kept in step by hand).
#[test]
fn for_model_assembles_what_the_models_fitter_accepts() {
    let claude = Model::lookup("claude-sonnet-4-5").unwrap();
    let options = AssembleOptions::for_model(claude);
    assert_eq!(options.window(), Some((200_000, 64_000)));
    assert_eq!(options.chat_format(), ChatFormat::anthropic());
    let counter = claude.counter().unwrap();
    let agent = agent(60);
    let out = agent.assemble_messages(&counter, &options).unwrap();
    assert_eq!((out.window(), out.output), (200_000, 64_000));
    let request = out
        .prompt
        .to_anthropic(claude.name(), u64::try_from(out.output).unwrap());
    request.validate().unwrap();
    let fitted = RequestFitter::for_model(claude)
        .unwrap()
        .fit(request.clone())
        .unwrap();
    assert_eq!(
        (fitted.report.limit, fitted.report.output_reserved),
        (out.limit, out.output)
    );
    assert!(!fitted.report.trimmed());
    assert_eq!(fitted.request, request);

    let gpt_4o = AssembleOptions::for_model(Model::lookup("gpt-4o").unwrap());
    assert_eq!(gpt_4o.window(), Some((128_000, 16_384)));
    assert_eq!(gpt_4o.chat_format(), ChatFormat::openai());
    // gpt-4's output limit is its whole window: reserving it would leave no input.
    let gpt_4 = Model::lookup("gpt-4").unwrap();
    assert_eq!(gpt_4.max_output_tokens(), Some(gpt_4.context_window()));
    let options = AssembleOptions::for_model(gpt_4);
    assert_eq!(options.window(), Some((8_192, 4_096)));
    let budget =
        ContextBudget::new(8_192, [("system", 256), ("user", 256), ("output", 1_024)]).unwrap();
    let layers = [
        LayerInput::new("system", &"You are a careful coding agent."),
        LayerInput::new("user", &"Which step breaks the parser?"),
    ];
    let out = budget
        .assemble_messages(&layers, &gpt_4.counter().unwrap(), &options)
        .unwrap();
    assert_eq!((out.limit, out.output), (4_096, 4_096));
}

/// A history of user turns, each with 0 to 3 parallel calls, arguments of any text.
fn arb_history() -> impl Strategy<Value = Vec<Message>> {
    prop::collection::vec(
        (
            "[a-z ]{0,20}",
            prop::collection::vec(
                prop_oneof![
                    "[ -~]{0,12}",
                    "[a-z]{0,6}".prop_map(|v| format!(r#" {{"k": "{v}"}} "#)),
                ],
                0..4,
            ),
            any::<bool>(),
        ),
        0..8,
    )
    .prop_map(|turns| {
        let mut chat = Vec::new();
        for (i, (text, arguments, system)) in turns.into_iter().enumerate() {
            if system {
                chat.push(Message::system(format!("note {i}")));
            }
            chat.push(Message::user(format!("question {i}")));
            if arguments.is_empty() {
                chat.push(Message::assistant(text));
                continue;
            }
            let mut calls = Message::assistant(text);
            for (n, args) in arguments.iter().enumerate() {
                calls =
                    calls.with_tool_call(ToolCall::new(format!("t{i}_{n}"), "tool", args.clone()));
            }
            chat.push(calls);
            for n in 0..arguments.len() {
                chat.push(Message::tool(format!("t{i}_{n}"), format!("result {n}")));
            }
        }
        chat
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any history: both requests validate and round-trip, every call keeps its
    /// results, and a history's system messages join the Anthropic system prompt.
    #[test]
    fn any_history_converts_to_requests_the_providers_take(
        system in "[a-z ]{0,20}",
        history in arb_history(),
    ) {
        let mut prompt = PromptMessages::default();
        prompt.system = system;
        prompt.messages = history.clone();
        let openai = prompt.to_openai("gpt-4o");
        // OpenAI refuses an empty `messages`, as Anthropic does.
        prop_assert_eq!(openai.validate().is_ok(), !openai.messages.is_empty(), "{:?}", openai.validate());
        prop_assert_eq!(ChatRequest::from_json(&openai.to_json()).unwrap(), openai.clone());

        let anthropic = prompt.to_anthropic("claude-sonnet-4-5", 1024);
        if !anthropic.messages().is_empty() {
            prop_assert!(anthropic.validate().is_ok(), "{:?}", anthropic.validate());
        }
        prop_assert_eq!(MessagesRequest::from_json(&anthropic.to_json()).unwrap(), anthropic.clone());
        let calls: Vec<&str> = anthropic.messages().iter().flat_map(|m| m.tool_calls().map(|c| c.id)).collect();
        let results: Vec<&str> = anthropic.messages().iter().flat_map(ChatMessage::tool_result_ids).collect();
        let expected: Vec<&str> = history.iter().flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str())).collect();
        prop_assert_eq!(&calls, &expected);
        prop_assert_eq!(&results, &expected);
        let non_system = history.iter().filter(|m| m.role != ctxbudget::chat::Role::System).count();
        prop_assert!(anthropic.messages().len() <= non_system);
        // The Anthropic format counts the messages at least at what the request costs.
        let assembled = TIKTOKEN.count(&prompt.system)
            + ChatFormat::anthropic().count_messages(&*TIKTOKEN, &history);
        let requested = anthropic.count(&*TIKTOKEN).tokens;
        prop_assert!(requested <= assembled, "{} over {}", requested, assembled);
    }
}

/// The request errors an assembled request can meet say what went wrong, with the
/// numbers, and how to fix it, in about 160 characters (they ran to 200-300).
#[test]
fn request_error_messages_are_one_sentence_of_what_and_one_of_how() {
    use ctxbudget::request::RequestError;

    let not_json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
    let errors = [
        RequestError::NotJson { source: not_json },
        RequestError::OrphanToolResult {
            message: 12,
            id: "call_7Xk2pQ".into(),
        },
        RequestError::UnansweredToolCall {
            message: 12,
            id: "call_7Xk2pQ".into(),
        },
        RequestError::DoesNotFit {
            needed: 130_000,
            limit: 120_000,
            over: 10_000,
        },
        RequestError::NoLimit,
        RequestError::OutputOverWindow {
            output: 8_192,
            window: 8_192,
        },
    ];
    for err in errors {
        let message = err.to_string();
        assert!(
            message.len() <= 170,
            "{} characters: {message}",
            message.len()
        );
        assert!(
            message.contains(": ") || message.contains("; "),
            "no fix: {message}"
        );
    }
}
