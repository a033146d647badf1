//! OpenAI Chat Completions request bodies.
