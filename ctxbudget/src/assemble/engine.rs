//! The engine behind every assembly — the derive's methods, a runtime
//! [`ContextBudget`](crate::ContextBudget)'s, string and messages prompts alike — in
//! the four steps of the module docs: fit the layers that do not grow
//! ([`Engine::fit_fixed`]), pay the overhead ([`Engine::pay_overhead`]), grow the
//! others ([`Engine::grow`]), join and verify ([`Engine::verify_text`],
//! [`Engine::verify_messages`]); when the prompt is over the limit, cap the cuttable
//! layers by the excess ([`Engine::cap_by_excess`]) and start again.
//!
//! The two forms differ only in what the prompt costs beyond its layers
//! ([`Engine::overhead`]) and in how it is put together and counted.

use std::cmp::Reverse;

use super::assembled::{Assembled, AssembledLayer, MessageSource, PromptMessages};
use super::options::LayerRole;
use super::plan::{Plan, Row};
use super::policy::{AssembleError, FitError, FittedLayer, ROUNDS};
use super::share::{Measured, Member, share};
use crate::chat::edit::{EditReport, Edits};
use crate::chat::{ChatFormat, ChatTrimError, Message, Role};
use crate::count::TokenCounter;

/// Forwards to a possibly unsized counter, so that it can be used as `&dyn`.
pub(crate) struct Dyn<'c, C: ?Sized>(pub(crate) &'c C);

impl<C: TokenCounter + ?Sized> TokenCounter for Dyn<'_, C> {
    fn count(&self, text: &str) -> usize {
        self.0.count(text)
    }
    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        self.0.next_split(text, from)
    }
    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        self.0.prev_split(text, before)
    }
    fn count_within(&self, text: &str, limit: usize) -> Option<usize> {
        self.0.count_within(text, limit)
    }
    fn exactness(&self) -> crate::count::Exactness {
        self.0.exactness()
    }
    fn __trusted(&self, seal: crate::count::seal::Seal) -> bool {
        self.0.__trusted(seal)
    }
}

/// What the prompt is put together as.
#[derive(Debug, Clone, Copy)]
pub(super) enum Form {
    /// One text: the layers joined by the separator.
    Text,
    /// Messages counted in a chat format.
    Messages(ChatFormat),
}

/// Assembles `plan` as a string prompt: the layers joined by `separator`.
pub(super) fn assemble_text<'a>(
    plan: Plan<'a>,
    separator: &str,
    counter: &dyn TokenCounter,
) -> Result<Assembled<'a, (), String>, AssembleError> {
    let mut engine = Engine::new(plan, separator, counter, Form::Text, None);
    engine.run(Engine::verify_text)
}

/// Assembles `plan` as messages counted in `format`, the chat histories edited as
/// `edits` say before they drop messages.
pub(super) fn assemble_messages<'a>(
    plan: Plan<'a>,
    separator: &str,
    counter: &dyn TokenCounter,
    format: ChatFormat,
    edits: Option<&Edits>,
) -> Result<Assembled<'a, (), PromptMessages>, AssembleError> {
    let mut engine = Engine::new(plan, separator, counter, Form::Messages(format), edits);
    engine.run(Engine::verify_messages)
}

/// One layer: its row and, once a join went over the limit, its cap.
struct Slot<'a> {
    row: Row<'a>,
    /// At most this much, once a join went over the limit.
    cap: Option<usize>,
}

/// A layer's fitted content: its report and, for a chat history sent as messages,
/// the kept messages and where they were.
struct Fitted<'a> {
    layer: FittedLayer<'a>,
    chat: Option<(Vec<Message>, Vec<usize>)>,
    /// What context edits did to a chat history sent as messages.
    edits: Option<EditReport>,
}

impl Measured for Fitted<'_> {
    fn tokens(&self) -> usize {
        self.layer.tokens
    }
    fn is_cut(&self) -> bool {
        self.layer.cut()
    }
    fn nothing() -> Self {
        Fitted {
            layer: FittedLayer::empty(),
            chat: None,
            edits: None,
        }
    }
}

/// A layer's fitted content and the budget it was fitted to.
struct Fit<'a> {
    fitted: Fitted<'a>,
    granted: usize,
}

impl Fit<'_> {
    fn tokens(&self) -> usize {
        self.fitted.layer.tokens
    }

    fn is_empty(&self) -> bool {
        self.fitted.layer.text.is_empty()
    }
}

/// What a verify step hands back when the prompt is over the limit: the layers, and
/// what the prompt costs.
type Over<'a> = (Vec<Fit<'a>>, usize);

/// The layers being assembled, and what every step needs to know about them.
struct Engine<'a, 'e> {
    slots: Vec<Slot<'a>>,
    /// The growing layers, highest priority first, declaration order among equals.
    growing: Vec<usize>,
    /// `window - output`.
    limit: usize,
    output: usize,
    separator: &'e str,
    separator_tokens: usize,
    counter: &'e dyn TokenCounter,
    form: Form,
    /// For messages: what the system and the final user message cost beyond their
    /// text (per-message tokens and the role).
    frames: [usize; 2],
    /// Tokens kept from the growing layers because a join was over the limit.
    withheld: usize,
    /// The context edits of the chat histories of a messages prompt.
    edits: Option<&'e Edits>,
}

impl<'a, 'e> Engine<'a, 'e> {
    fn new(
        plan: Plan<'a>,
        separator: &'e str,
        counter: &'e dyn TokenCounter,
        form: Form,
        edits: Option<&'e Edits>,
    ) -> Self {
        let slots: Vec<Slot<'a>> = plan
            .rows
            .into_iter()
            .map(|row| Slot { row, cap: None })
            .collect();
        let mut growing: Vec<usize> = (0..slots.len())
            .filter(|&i| slots[i].row.grow.is_some())
            .collect();
        growing.sort_by_key(|&i| (Reverse(slots[i].row.grow), i));
        let frames = match form {
            Form::Text => [0, 0],
            Form::Messages(format) => [
                format.system_text_frame(counter),
                format.message_overhead(counter, &Message::new(Role::User, "")),
            ],
        };
        Engine {
            slots,
            growing,
            limit: plan.limit,
            output: plan.output,
            separator,
            separator_tokens: counter.count(separator),
            counter,
            form,
            frames,
            withheld: 0,
            edits,
        }
    }

    /// The four steps of the module docs, started again with caps while the prompt
    /// is over the limit ([`ROUNDS`] times at most).
    fn run<P>(
        &mut self,
        verify: impl Fn(&Self, Vec<Fit<'a>>) -> Result<Assembled<'a, (), P>, Over<'a>>,
    ) -> Result<Assembled<'a, (), P>, AssembleError> {
        let mut smallest_over: Option<usize> = None;
        for _ in 0..ROUNDS {
            let mut fits = self.fit_fixed()?;
            let pool = self.pay_overhead(&fits);
            self.grow(&mut fits, pool)?;
            let fits: Vec<Fit<'a>> = fits.into_iter().flatten().collect();
            let (fits, tokens) = match verify(self, fits) {
                Ok(assembled) => return Ok(assembled),
                Err(over) => over,
            };
            smallest_over = Some(smallest_over.map_or(tokens, |s| s.min(tokens)));
            if !self.cap_by_excess(&fits, tokens) {
                break;
            }
        }
        let tokens = smallest_over.unwrap_or(self.limit);
        Err(AssembleError::PromptOverBudget {
            tokens,
            limit: self.limit,
            over: tokens.saturating_sub(self.limit),
        })
    }

    /// Whether layer `i`'s text is joined into a text of the prompt (all of them in
    /// a string prompt, all but the chat histories in a messages prompt), so that
    /// showing it costs a separator.
    fn joined(&self, i: usize) -> bool {
        self.slots[i].row.role != Some(LayerRole::History)
    }

    /// What the prompt costs beyond its layers when the layers `shows` says have
    /// text: the separators, and for messages the framing of the system and user
    /// messages and the reply priming.
    fn overhead(&self, shows: &[bool]) -> usize {
        let separators = |k: usize| self.separator_tokens.saturating_mul(k.saturating_sub(1));
        let count = |role: Option<LayerRole>| {
            self.slots
                .iter()
                .zip(shows)
                .filter(|(slot, shows)| **shows && slot.row.role == role)
                .count()
        };
        match self.form {
            Form::Text => separators(count(None)),
            Form::Messages(format) => [LayerRole::System, LayerRole::User]
                .iter()
                .zip(self.frames)
                .fold(format.reply_priming(), |sum, (role, frame)| {
                    match count(Some(*role)) {
                        0 => sum,
                        k => sum.saturating_add(frame).saturating_add(separators(k)),
                    }
                }),
        }
    }

    /// Which layers have text: the fixed ones that came out with some, and, when
    /// `assume_growing`, every growing layer.
    fn shows(&self, fits: &[Option<Fit<'a>>], assume_growing: bool) -> Vec<bool> {
        self.slots
            .iter()
            .zip(fits)
            .enumerate()
            .map(|(i, (slot, fit))| {
                let has_text = fit.as_ref().is_some_and(|f| !f.is_empty());
                self.joined(i) && (has_text || (assume_growing && slot.row.grow.is_some()))
            })
            .collect()
    }

    /// Step 1: the layers that do not grow, in declaration order, each to its
    /// reservation (or its cap).
    fn fit_fixed(&self) -> Result<Vec<Option<Fit<'a>>>, AssembleError> {
        let mut fits: Vec<Option<Fit<'a>>> = self.slots.iter().map(|_| None).collect();
        for (i, slot) in self.slots.iter().enumerate() {
            if slot.row.grow.is_some() {
                continue;
            }
            let reservation = slot.row.reservation;
            let budget = slot.cap.map_or(reservation, |c| c.min(reservation));
            let fitted = self
                .fit(i, budget)
                .map_err(|source| self.error(i, budget, source))?;
            fits[i] = Some(Fit {
                fitted,
                granted: budget,
            });
        }
        Ok(fits)
    }

    /// Step 2: what is left for the growing layers once the fixed layers and the
    /// overhead are paid, assuming every growing layer has something to show.
    fn pay_overhead(&self, fits: &[Option<Fit<'a>>]) -> usize {
        let used = fits
            .iter()
            .flatten()
            .fold(0usize, |sum, f| sum.saturating_add(f.tokens()));
        let overhead = self.overhead(&self.shows(fits, true));
        self.limit
            .saturating_sub(used)
            .saturating_sub(overhead)
            .saturating_sub(self.withheld)
    }

    /// Step 3: the growing layers, highest priority first. Each priority may use what
    /// is left less the reservations of the lower ones, and its layers share it
    /// ([`share`]).
    fn grow(&self, fits: &mut [Option<Fit<'a>>], pool: usize) -> Result<(), AssembleError> {
        let reservation = |&i: &usize| self.slots[i].row.reservation;
        let mut pool = pool;
        let mut lower = self
            .growing
            .iter()
            .map(reservation)
            .fold(0usize, usize::saturating_add);
        for group in self
            .growing
            .chunk_by(|&a, &b| self.slots[a].row.grow == self.slots[b].row.grow)
        {
            let members: Vec<Member> = group
                .iter()
                .map(|&i| Member {
                    index: i,
                    reservation: self.slots[i].row.reservation,
                    cap: self.slots[i].cap.unwrap_or(usize::MAX),
                    may_cut: self.slots[i].row.policy.may_cut(),
                })
                .collect();
            let own = group
                .iter()
                .map(reservation)
                .fold(0usize, usize::saturating_add);
            lower = lower.saturating_sub(own);
            let available = pool.saturating_sub(lower);
            let shared = share(&members, available, |i, budget| self.fit(i, budget))
                .map_err(|r| self.error(r.index, r.budget, r.source))?;
            for s in shared {
                pool = pool.saturating_sub(s.layer.tokens());
                fits[s.index] = Some(Fit {
                    fitted: s.layer,
                    granted: s.granted,
                });
            }
        }
        self.top_up(fits, pool);
        Ok(())
    }

    /// The end of step 3: what no growing layer used — a lower priority's unused
    /// reservation, the overhead paid for growing layers that came out empty — is
    /// offered to the growing layers still cut, highest priority first.
    fn top_up(&self, fits: &mut [Option<Fit<'a>>], unused: usize) {
        // Step 2 paid the overhead of every growing layer showing something.
        let assumed = self.overhead(&self.shows(fits, true));
        let mut shows = self.shows(fits, false);
        let mut spare = assumed
            .saturating_sub(self.overhead(&shows))
            .saturating_add(unused);
        for &i in &self.growing {
            if spare == 0 {
                break;
            }
            let Some(fit) = fits[i].as_ref() else {
                continue;
            };
            if !fit.fitted.layer.cut() || !self.slots[i].row.policy.may_cut() {
                continue;
            }
            // An empty layer that comes to show something pays its share of the
            // overhead.
            let join = if fit.is_empty() && self.joined(i) {
                let before = self.overhead(&shows);
                shows[i] = true;
                let after = self.overhead(&shows);
                shows[i] = false;
                after.saturating_sub(before)
            } else {
                0
            };
            let cap = self.slots[i].cap.unwrap_or(usize::MAX);
            let offer = fit
                .tokens()
                .saturating_add(spare.saturating_sub(join))
                .min(cap);
            if offer <= fit.granted {
                continue;
            }
            // More tokens cannot make a layer fail that fitted with fewer; should it,
            // the fit it had stays.
            let Ok(fitted) = self.fit(i, offer) else {
                continue;
            };
            let paid = if fitted.layer.text.is_empty() {
                0
            } else {
                shows[i] = self.joined(i);
                join
            };
            spare = spare
                .saturating_add(fit.tokens())
                .saturating_sub(fitted.layer.tokens)
                .saturating_sub(paid);
            fits[i] = Some(Fit {
                fitted,
                granted: offer,
            });
        }
    }

    /// The report of each fitted layer, in declaration order.
    fn layers(&self, fits: Vec<Fit<'a>>) -> (Vec<AssembledLayer<'a>>, Vec<ChatPart>) {
        let mut chats = Vec::new();
        let layers = self
            .slots
            .iter()
            .zip(fits)
            .enumerate()
            .map(|(i, (slot, fit))| {
                if let Some((messages, indices)) = fit.fitted.chat {
                    chats.push(ChatPart {
                        layer: i,
                        messages,
                        indices,
                    });
                }
                AssembledLayer {
                    name: slot.row.name,
                    reservation: slot.row.reservation,
                    granted: fit.granted,
                    policy: slot.row.policy.clone(),
                    grow: slot.row.grow,
                    role: slot.row.role,
                    fitted: fit.fitted.layer,
                    edits: fit.fitted.edits,
                }
            })
            .collect();
        (layers, chats)
    }

    /// Step 4 of a string prompt: joins the layers in declaration order (empty ones
    /// and their separators left out) and counts the prompt. Hands the layers back
    /// with the prompt's count when it is over the limit.
    fn verify_text(&self, fits: Vec<Fit<'a>>) -> Result<Assembled<'a, (), String>, Over<'a>> {
        let texts = fits.iter().map(|f| f.fitted.layer.text.as_ref());
        let (prompt, separators) = join(texts, self.separator);
        let Some(tokens) = self.counter.count_within(&prompt, self.limit) else {
            let tokens = self.counter.count(&prompt);
            return Err((fits, tokens));
        };
        let (layers, _) = self.layers(fits);
        Ok(self.assembled(layers, prompt, tokens, separators, 0))
    }

    /// Step 4 of a messages prompt: the system text and the final user message
    /// joined from their layers, the chat histories' messages between them, counted
    /// as the chat format counts them.
    fn verify_messages(
        &self,
        fits: Vec<Fit<'a>>,
    ) -> Result<Assembled<'a, (), PromptMessages>, Over<'a>> {
        let format = match self.form {
            Form::Messages(format) => format,
            Form::Text => ChatFormat::content_only(),
        };
        let part = |role: LayerRole| {
            join(
                self.slots
                    .iter()
                    .zip(&fits)
                    .filter(|(slot, _)| slot.row.role == Some(role))
                    .map(|(_, fit)| fit.fitted.layer.text.as_ref()),
                self.separator,
            )
        };
        let (system, system_joins) = part(LayerRole::System);
        let (user, user_joins) = part(LayerRole::User);
        let history = self
            .slots
            .iter()
            .zip(&fits)
            .filter(|(slot, _)| slot.row.role == Some(LayerRole::History))
            .fold(0usize, |sum, (_, fit)| sum.saturating_add(fit.tokens()));
        let mut framing = format.reply_priming();
        let mut tokens = history;
        for (text, frame) in [(&system, self.frames[0]), (&user, self.frames[1])] {
            if !text.is_empty() {
                framing = framing.saturating_add(frame);
                tokens = tokens.saturating_add(self.counter.count(text));
            }
        }
        let tokens = tokens.saturating_add(framing);
        if tokens > self.limit {
            return Err((fits, tokens));
        }
        let last_user = self
            .slots
            .iter()
            .rposition(|slot| slot.row.role == Some(LayerRole::User))
            .unwrap_or(0);
        let (layers, chats) = self.layers(fits);
        let mut prompt = PromptMessages {
            system,
            ..PromptMessages::default()
        };
        for chat in chats {
            for (message, index) in chat.messages.into_iter().zip(chat.indices) {
                prompt.messages.push(message);
                prompt.sources.push(MessageSource {
                    layer: chat.layer,
                    index: Some(index),
                });
            }
        }
        if !user.is_empty() {
            prompt.messages.push(Message::user(user));
            prompt.sources.push(MessageSource {
                layer: last_user,
                index: None,
            });
        }
        Ok(self.assembled(layers, prompt, tokens, system_joins + user_joins, framing))
    }

    fn assembled<P>(
        &self,
        layers: Vec<AssembledLayer<'a>>,
        prompt: P,
        tokens: usize,
        separators: usize,
        framing: usize,
    ) -> Assembled<'a, (), P> {
        Assembled {
            layers,
            prompt,
            tokens,
            limit: self.limit,
            output: self.output,
            separators,
            separator_tokens: self.separator_tokens,
            framing,
            usage: (),
        }
    }

    /// After a prompt `tokens` long went over the limit: caps the cuttable layers by
    /// the excess, growing ones first (lowest priority first), then the others from
    /// the last declared; what a growing layer gives up is withheld from the pool, so
    /// that another growing layer does not take it. Returns false when the cuttable
    /// layers cannot cover the excess.
    fn cap_by_excess(&mut self, fits: &[Fit<'a>], tokens: usize) -> bool {
        let mut over = tokens.saturating_sub(self.limit);
        let n = self.slots.len();
        let order = self
            .growing
            .iter()
            .rev()
            .copied()
            .chain((0..n).rev().filter(|&i| self.slots[i].row.grow.is_none()))
            .collect::<Vec<usize>>();
        for i in order {
            if over == 0 {
                break;
            }
            let slot = &mut self.slots[i];
            let has = fits[i].tokens();
            if !slot.row.policy.may_cut() || has == 0 {
                continue;
            }
            let take = over.min(has);
            slot.cap = Some(has - take);
            if slot.row.grow.is_some() {
                self.withheld = self.withheld.saturating_add(take);
            }
            over -= take;
        }
        over == 0
    }

    /// Fits layer `i` to `budget`, checking the content's report against it: as
    /// messages for a chat history in a messages prompt, as text otherwise.
    fn fit(&self, i: usize, budget: usize) -> Result<Fitted<'a>, FitError> {
        let row = &self.slots[i].row;
        let fitted = match (self.form, row.role) {
            (Form::Messages(format), Some(LayerRole::History)) => {
                let (content, counter, policy) = (row.content, self.counter, &row.policy);
                let out = match self.edits {
                    Some(edits) => {
                        content.fit_messages_edited(budget, counter, &format, policy, edits)?
                    }
                    None => content.fit_messages(budget, counter, &format, policy)?,
                };
                Fitted {
                    layer: out.layer,
                    chat: Some((out.messages, out.indices)),
                    edits: out.edits,
                }
            }
            _ => Fitted {
                layer: row.content.fit(budget, self.counter, &row.policy)?,
                chat: None,
                edits: None,
            },
        };
        if fitted.layer.tokens > budget {
            return Err(FitError::custom(format_args!(
                "the content reported {} tokens for a budget of {budget}",
                fitted.layer.tokens
            )));
        }
        Ok(fitted)
    }

    /// The error of layer `i` refused at `budget` for `source`.
    fn error(&self, i: usize, budget: usize, source: FitError) -> AssembleError {
        let row = &self.slots[i].row;
        let layer = row.name.to_owned();
        let reservation = row.reservation;
        match source {
            FitError::NeverCut { tokens, .. } => AssembleError::LayerOverBudget {
                layer,
                tokens,
                budget,
                reservation,
                over: tokens.saturating_sub(budget),
            },
            FitError::PinnedMessages { tokens, .. }
            | FitError::Chat(ChatTrimError::OverBudget { needed: tokens, .. }) => {
                AssembleError::PinnedOverBudget {
                    layer,
                    tokens,
                    budget,
                    reservation,
                    over: tokens.saturating_sub(budget),
                    grows: row.grow.is_some(),
                }
            }
            source => AssembleError::Layer {
                layer,
                budget,
                source,
            },
        }
    }
}

/// The kept messages of one chat-history layer.
struct ChatPart {
    layer: usize,
    messages: Vec<Message>,
    indices: Vec<usize>,
}

/// `texts` joined by `separator`, empty ones and their separators left out, and how
/// many separators that took.
fn join<'t>(texts: impl Iterator<Item = &'t str> + Clone, separator: &str) -> (String, usize) {
    let texts = texts.filter(|t| !t.is_empty());
    let capacity = texts.clone().fold(0usize, |sum, t| {
        sum.saturating_add(t.len() + separator.len())
    });
    let mut out = String::with_capacity(capacity);
    let mut separators = 0;
    for text in texts {
        if !out.is_empty() {
            out.push_str(separator);
            separators += 1;
        }
        out.push_str(text);
    }
    (out, separators)
}
