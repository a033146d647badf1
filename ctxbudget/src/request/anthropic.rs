//! Anthropic Messages request bodies.
