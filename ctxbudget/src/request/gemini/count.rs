//! [`WireRequest`] for [`GeminiRequest`]: what the request costs outside its
//! contents, the image rule, what counting assumed, and how contents are kept,
//! edited and checked.

use super::content::{GeminiContent, content_tokens, part_tokens};
use super::media::{ImageRule, MediaRule};
use super::part::PartKind;
use super::request::GeminiRequest;
use super::validate;
use crate::chat::ChatFormat;
use crate::count::TokenCounter;
use crate::request::error::RequestError;
use crate::request::json::compact_json;
use crate::request::wire::{Assumption, RequestCost, RequestFormat, WireRequest, retain_kept};

/// The assumption every Gemini count rests on.
pub const TOKENIZER: &str = "Google publishes no Gemini tokenizer nor how contents are framed: texts are counted with the counter given (the catalogue's Gemini estimate for Gemini models), each content with an estimated 4 tokens of framing";
/// The assumption of a request with `cachedContent`.
pub const CACHED_CONTENT: &str =
    "cachedContent: a cached prefix of unknown size comes first; the count excludes it";
/// The assumption of tool declarations.
pub const TOOLS: &str = "tools are counted as the JSON text of each function declaration (and of each built-in tool); Google does not publish how it bills them";
/// The assumption of thought parts and signatures.
pub const THOUGHTS: &str = "thought parts are counted as their text and thoughtSignatures as nothing; Google does not publish what either costs when sent back";
/// The assumption of files, media other than images, and images whose size
/// could not be read.
pub const MEDIA: &str = "a file, audio, video, PDF or unreadable image is counted as one image at high media resolution (1,120 tokens; 2,240 at ultra high); audio, video and PDF pages cost more, by a length this count does not read";
/// The assumption of parts ctxbudget does not read.
pub const AS_JSON: &str = "a part of a kind ctxbudget does not read (executableCode, codeExecutionResult, ...) is counted as its JSON text";
/// The assumption of images when the model is not known.
pub const IMAGES: &str = "images are counted at 1,120 tokens or 258 a 768-pixel tile, whichever is more: the model is not known (give it with with_model)";

/// The Gemini chat format: an estimate of the turn framing of the open Gemma
/// models (`<start_of_turn>` and `<end_of_turn>` and their newlines, 4 tokens a
/// content, its role counted as text, 3 a function call, 3 to prime the reply).
pub const fn chat_format() -> ChatFormat {
    ChatFormat::content_only()
        .with_tokens_per_message(4)
        .with_tokens_per_tool_call(3)
        .with_reply_priming(3)
}

impl GeminiRequest {
    /// How this request's media are counted: by its model's image rule, at the
    /// `generationConfig.mediaResolution` it asks for.
    fn media_rule(&self) -> MediaRule {
        MediaRule {
            images: ImageRule::for_model(self.model()),
            resolution: self.media_resolution(),
        }
    }

    fn stamp_images(&self) {
        let rule = self.media_rule();
        for content in &self.contents {
            content.rule.set(rule);
        }
    }

    /// The whole request as [`RequestFitter::count`](crate::request::RequestFitter::count)
    /// counts it: [`fixed_cost`](WireRequest::fixed_cost), every content by
    /// [`chat_format`] and the reply priming, with every assumption made.
    pub fn count<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        let mut cost = self.fixed_cost(counter);
        let contents = self.chat_format().count_messages(counter, self.messages());
        cost.tokens = cost.tokens.saturating_add(contents);
        cost.assumptions.append(&mut self.message_assumptions());
        cost
    }
}

fn push(into: &mut Vec<Assumption>, assumption: Assumption) {
    if !into.contains(&assumption) {
        into.push(assumption);
    }
}

fn unpublished(message: Option<usize>, what: &'static str) -> Assumption {
    Assumption::UnpublishedRule { message, what }
}

/// See [`WireRequest`]; the Gemini specifics are in the method docs.
impl WireRequest for GeminiRequest {
    type Message = GeminiContent;
    const FORMAT: RequestFormat = RequestFormat::GeminiGenerateContent;

    /// The contents, each image set to be counted by the rule of the model.
    fn messages(&self) -> &[GeminiContent] {
        self.stamp_images();
        &self.contents
    }

    /// [`chat_format`]: an estimate, as Google publishes none.
    fn chat_format(&self) -> ChatFormat {
        chat_format()
    }

    /// The `systemInstruction` (its parts as a content's, framed as one), the
    /// `tools` (each function declaration, and each other tool, as its compact
    /// JSON text: [`TOOLS`]) and `toolConfig` as its compact JSON text; always
    /// [`TOKENIZER`], and [`CACHED_CONTENT`] when the request names a cache.
    fn fixed_cost<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        let mut cost = RequestCost {
            tokens: 0,
            assumptions: vec![unpublished(None, TOKENIZER)],
        };
        if let Some(system) = self.system_instruction() {
            let content = GeminiContent::from_raw(system.clone());
            content.rule.set(self.media_rule());
            let format = chat_format();
            cost.tokens = format
                .tokens_per_message()
                .saturating_add(counter.count("system"))
                .saturating_add(content_tokens(&content, counter));
        }
        let tools = self.tools();
        for tool in &tools {
            let declarations = function_declarations(tool.get());
            let text = match &declarations {
                Some(list) => list
                    .iter()
                    .map(|d| compact_json(d.get()))
                    .collect::<Vec<_>>(),
                None => vec![compact_json(tool.get())],
            };
            for text in text {
                cost.tokens = cost.tokens.saturating_add(counter.count(&text));
            }
        }
        if let Some(config) = self
            .extra
            .get("toolConfig")
            .or(self.extra.get("tool_config"))
        {
            cost.tokens = cost
                .tokens
                .saturating_add(counter.count(&compact_json(config.get())));
        }
        if !tools.is_empty() {
            push(&mut cost.assumptions, unpublished(None, TOOLS));
        }
        if self.cached_content().is_some() {
            push(&mut cost.assumptions, unpublished(None, CACHED_CONTENT));
        }
        cost
    }

    /// Per content (an index into `contents`): [`THOUGHTS`], [`MEDIA`],
    /// [`AS_JSON`], and [`IMAGES`] when images are counted without a model.
    fn message_assumptions(&self) -> Vec<Assumption> {
        let rule = ImageRule::for_model(self.model());
        let mut out = Vec::new();
        for (index, content) in self.contents.iter().enumerate() {
            let at = Some(index);
            for part in &content.view.parts {
                if part.thought || part.signature {
                    push(&mut out, unpublished(at, THOUGHTS));
                }
                match &part.kind {
                    PartKind::Inline {
                        image: true,
                        size: Some(_),
                    } if rule == ImageRule::Unknown => push(&mut out, unpublished(at, IMAGES)),
                    PartKind::Inline {
                        image: true,
                        size: Some(_),
                    } => {}
                    // Gemini 3 bills any image by its media resolution alone.
                    PartKind::Inline { image: true, .. } if rule == ImageRule::Flat => {}
                    PartKind::Inline { .. } | PartKind::File => {
                        push(&mut out, unpublished(at, MEDIA));
                    }
                    PartKind::Response(r) if r.media > 0 => push(&mut out, unpublished(at, MEDIA)),
                    PartKind::Other(_) => push(&mut out, unpublished(at, AS_JSON)),
                    _ => {}
                }
            }
        }
        out
    }

    /// See [`validate`](super#checks).
    fn validate(&self) -> Result<(), RequestError> {
        validate::validate(self)
    }

    fn edit_messages<T>(&mut self, edit: impl FnOnce(&mut [GeminiContent]) -> T) -> T {
        self.stamp_images();
        edit(&mut self.contents)
    }

    /// Contents past the end of `keep` are kept.
    fn retain_messages(&mut self, keep: &[bool]) {
        retain_kept(&mut self.contents, keep);
    }

    /// The body's `model`, or the one given to [`GeminiRequest::with_model`].
    fn model(&self) -> Option<&str> {
        GeminiRequest::model(self)
    }

    /// `generationConfig.maxOutputTokens`.
    fn max_output_tokens(&self) -> Option<u64> {
        GeminiRequest::max_output_tokens(self)
    }
}

/// The `functionDeclarations` of a tool, when it has them.
fn function_declarations(tool: &str) -> Option<Vec<&serde_json::value::RawValue>> {
    #[derive(serde::Deserialize)]
    struct Tool<'a> {
        #[serde(
            borrow,
            default,
            rename = "functionDeclarations",
            alias = "function_declarations"
        )]
        declarations: Option<Vec<&'a serde_json::value::RawValue>>,
    }
    serde_json::from_str::<Tool<'_>>(tool).ok()?.declarations
}

/// What the droppable thought parts of a model content add to its count, when
/// dropping them would leave a part: 0 otherwise.
pub(crate) fn thinking_tokens<C: TokenCounter + ?Sized>(
    content: &GeminiContent,
    counter: &C,
) -> usize {
    let parts = &content.view.parts;
    let droppable = parts.iter().filter(|p| p.droppable_thought()).count();
    if !content.is_model() || droppable == 0 || droppable == parts.len() {
        return 0;
    }
    parts
        .iter()
        .filter(|p| p.droppable_thought())
        .fold(0usize, |sum, part| {
            sum.saturating_add(part_tokens(part, counter, &|_| 0))
        })
}
