//! The integration tests, as one binary: one link instead of one per file (each
//! test binary carries the tokenizer vocabularies, tens of megabytes apiece).
//! `hygiene.rs` stays its own crate: it shadows items at its crate root.

mod anthropic_request;
mod anthropic_request_props;
mod any_request;
mod assemble;
mod assemble_edges;
mod assemble_edits;
mod assemble_messages;
mod assemble_report;
mod assemble_requests;
mod assemble_window;
mod bedrock_request;
mod budget;
mod budget_macro;
mod budget_shares;
mod calibration;
mod chat;
mod chat_langchain;
mod chat_precounted;
mod chat_session;
mod claude;
mod client_types;
mod derive;
mod derive_generics;
mod disclosure;
mod edits;
mod estimate;
mod gemini_request;
mod gemini_request_props;
mod huggingface;
mod misbehaving_counters;
mod models;
mod openai_request;
mod overflow;
mod request_costs;
mod request_fit;
mod request_fit_edits;
mod responses_request;
mod responses_request_props;
mod select;
mod session_edits;
mod tekken;
mod tiktoken;
mod tiktoken_linear;
mod trim;
