//! Gemini generateContent request bodies from arbitrary bytes: the checks of `raw_body.rs`.
#![no_main]

use ctxbudget::request::gemini::GeminiRequest;
use libfuzzer_sys::fuzz_target;

#[path = "raw_body.rs"]
mod raw_body;

fuzz_target!(|data: &[u8]| raw_body::check::<GeminiRequest>(data));
