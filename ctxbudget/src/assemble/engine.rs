//! The engine behind every `assemble()`, in the four steps of the module docs: fit
//! the layers that do not grow ([`Engine::fit_fixed`]), pay the separators
//! ([`Engine::pay_separators`]), grow the others ([`Engine::grow`]), join and verify
//! ([`Engine::join_and_verify`]); when the join is over the limit, cap the cuttable
//! layers by the excess ([`Engine::cap_by_excess`]) and start again.

use std::cmp::Reverse;

use super::assembled::{Assembled, AssembledLayer};
use super::content::LayerContent;
use super::policy::{AssembleError, FitError, FittedLayer, LayerPolicy};
use super::share::{Member, share};
use crate::budget::{ContextLayers, LayerSpec, TypedUsage};
use crate::chat::ChatTrimError;
use crate::count::TokenCounter;

/// A layer's attribute settings, for generated code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LayerPlan {
    pub(crate) policy: Option<LayerPolicy>,
    pub(crate) grow: Option<u32>,
}

impl LayerPlan {
    /// `policy` (`None`: the content's default) and `grow` (`None`: does not grow).
    pub const fn new(policy: Option<LayerPolicy>, grow: Option<u32>) -> Self {
        LayerPlan { policy, grow }
    }
}

/// Forwards to a possibly unsized counter, so that it can be used as `&dyn`.
struct Dyn<'c, C: ?Sized>(&'c C);

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

/// How many times a prompt over the limit after a join is fitted again; also the
/// bound on the sharing rounds of growing layers and on [`fit_chat`]'s refits.
///
/// [`fit_chat`]: super::fit_chat
pub(crate) const ROUNDS: usize = 16;

/// Assembles the content layers `contents` (the first `contents.len()` rows of
/// `L::LAYERS`; the rows after them, the output reservation, get nothing) with the
/// settings `plans`, and records the spend in a fresh `TypedUsage<L>`.
pub(crate) fn assemble<'a, L: ContextLayers, C: TokenCounter + ?Sized>(
    contents: &[&'a dyn LayerContent],
    plans: &[LayerPlan],
    separator: &str,
    counter: &C,
) -> Result<Assembled<'a, TypedUsage<L>>, AssembleError> {
    let counter = Dyn(counter);
    let assembled = assemble_dyn(L::TOTAL, L::LAYERS, contents, plans, separator, &counter)?;
    let mut usage = TypedUsage::<L>::new();
    for (index, layer) in assembled.layers.iter().enumerate() {
        usage.spend_index_up_to(
            index,
            layer.fitted.tokens,
            layer.granted.max(layer.reservation),
        )?;
    }
    Ok(assembled.map_usage(|()| usage))
}

/// One layer: its row of the table, its content and its settings.
struct Slot<'a> {
    spec: LayerSpec,
    content: &'a dyn LayerContent,
    policy: LayerPolicy,
    grow: Option<u32>,
    /// At most this much, once a join went over the limit.
    cap: Option<usize>,
}

/// A layer's fitted content and the budget it was fitted to.
struct Fit<'a> {
    layer: FittedLayer<'a>,
    granted: usize,
}

/// The layers being assembled, and what every step needs to know about them.
struct Engine<'a, 'e> {
    slots: Vec<Slot<'a>>,
    /// The growing layers, highest priority first, declaration order among equals.
    growing: Vec<usize>,
    /// `total - output`.
    limit: usize,
    separator: &'e str,
    separator_tokens: usize,
    counter: &'e dyn TokenCounter,
    /// Tokens kept from the growing layers because a join was over the limit.
    withheld: usize,
}

/// The four steps of the module docs, started again with caps while the joined
/// prompt is over the limit ([`ROUNDS`] times at most).
fn assemble_dyn<'a>(
    total: usize,
    table: &[LayerSpec],
    contents: &[&'a dyn LayerContent],
    plans: &[LayerPlan],
    separator: &str,
    counter: &dyn TokenCounter,
) -> Result<Assembled<'a, ()>, AssembleError> {
    let mut engine = Engine::new(total, table, contents, plans, separator, counter);
    let mut smallest_over: Option<usize> = None;
    for _ in 0..ROUNDS {
        let mut fits = engine.fit_fixed()?;
        let pool = engine.pay_separators(&fits);
        engine.grow(&mut fits, pool)?;
        let fits: Vec<Fit<'a>> = fits.into_iter().flatten().collect();
        let (fits, tokens) = match engine.join_and_verify(fits) {
            Ok(assembled) => return Ok(assembled),
            Err(over) => over,
        };
        smallest_over = Some(smallest_over.map_or(tokens, |s| s.min(tokens)));
        if !engine.cap_by_excess(&fits, tokens) {
            break;
        }
    }
    let tokens = smallest_over.unwrap_or(engine.limit);
    Err(AssembleError::PromptOverBudget {
        tokens,
        limit: engine.limit,
        over: tokens.saturating_sub(engine.limit),
    })
}

impl<'a, 'e> Engine<'a, 'e> {
    fn new(
        total: usize,
        table: &[LayerSpec],
        contents: &[&'a dyn LayerContent],
        plans: &[LayerPlan],
        separator: &'e str,
        counter: &'e dyn TokenCounter,
    ) -> Self {
        let n = contents.len().min(table.len());
        let output = table[n..]
            .iter()
            .fold(0usize, |sum, l| sum.saturating_add(l.tokens()));
        let slots: Vec<Slot<'a>> = (0..n)
            .map(|i| {
                let plan = plans.get(i).cloned().unwrap_or_default();
                Slot {
                    spec: table[i],
                    content: contents[i],
                    policy: plan.policy.unwrap_or_else(|| contents[i].default_policy()),
                    grow: plan.grow,
                    cap: None,
                }
            })
            .collect();
        let mut growing: Vec<usize> = (0..n).filter(|&i| slots[i].grow.is_some()).collect();
        growing.sort_by_key(|&i| (Reverse(slots[i].grow), i));
        Engine {
            slots,
            growing,
            limit: total.saturating_sub(output),
            separator,
            separator_tokens: counter.count(separator),
            counter,
            withheld: 0,
        }
    }

    /// Step 1: the layers that do not grow, in declaration order, each to its
    /// reservation (or its cap).
    fn fit_fixed(&self) -> Result<Vec<Option<Fit<'a>>>, AssembleError> {
        let mut fits: Vec<Option<Fit<'a>>> = self.slots.iter().map(|_| None).collect();
        for (i, slot) in self.slots.iter().enumerate() {
            if slot.grow.is_some() {
                continue;
            }
            let budget = slot
                .cap
                .map_or(slot.spec.tokens(), |c| c.min(slot.spec.tokens()));
            let layer = self
                .fit(i, budget)
                .map_err(|source| self.error(i, budget, source))?;
            fits[i] = Some(Fit {
                layer,
                granted: budget,
            });
        }
        Ok(fits)
    }

    /// Step 2: what is left for the growing layers once the fixed layers' text and
    /// the separators are paid, assuming every growing layer has something to show.
    fn pay_separators(&self, fits: &[Option<Fit<'a>>]) -> usize {
        let (used, non_empty) = fits.iter().flatten().fold((0usize, 0usize), |(u, n), f| {
            (
                u.saturating_add(f.layer.tokens),
                n + usize::from(!f.layer.text.is_empty()),
            )
        });
        let joins = (non_empty + self.growing.len()).saturating_sub(1);
        self.limit
            .saturating_sub(used)
            .saturating_sub(self.separator_tokens.saturating_mul(joins))
            .saturating_sub(self.withheld)
    }

    /// Step 3: the growing layers, highest priority first. Each priority may use what
    /// is left less the reservations of the lower ones, and its layers share it
    /// ([`share`]).
    fn grow(&self, fits: &mut [Option<Fit<'a>>], pool: usize) -> Result<(), AssembleError> {
        let reservation = |&i: &usize| self.slots[i].spec.tokens();
        let mut pool = pool;
        let mut lower = self
            .growing
            .iter()
            .map(reservation)
            .fold(0usize, usize::saturating_add);
        for group in self
            .growing
            .chunk_by(|&a, &b| self.slots[a].grow == self.slots[b].grow)
        {
            let members: Vec<Member> = group
                .iter()
                .map(|&i| Member {
                    index: i,
                    reservation: self.slots[i].spec.tokens(),
                    cap: self.slots[i].cap.unwrap_or(usize::MAX),
                    may_cut: self.slots[i].policy.may_cut(),
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
                pool = pool.saturating_sub(s.layer.tokens);
                fits[s.index] = Some(Fit {
                    layer: s.layer,
                    granted: s.granted,
                });
            }
        }
        self.top_up(fits, pool);
        Ok(())
    }

    /// The end of step 3: what no growing layer used — a lower priority's unused
    /// reservation, the separators of growing layers that came out empty — is
    /// offered to the growing layers still cut, highest priority first.
    fn top_up(&self, fits: &mut [Option<Fit<'a>>], unused: usize) {
        let non_empty = fits
            .iter()
            .flatten()
            .filter(|f| !f.layer.text.is_empty())
            .count();
        let fixed_non_empty = self
            .slots
            .iter()
            .zip(fits.iter())
            .filter(|(slot, fit)| {
                slot.grow.is_none() && fit.as_ref().is_some_and(|f| !f.layer.text.is_empty())
            })
            .count();
        // Step 2 paid a separator for every growing layer.
        let assumed = (fixed_non_empty + self.growing.len()).saturating_sub(1);
        let needed = non_empty.saturating_sub(1);
        let mut spare = self
            .separator_tokens
            .saturating_mul(assumed.saturating_sub(needed))
            .saturating_add(unused);
        for &i in &self.growing {
            let Some(fit) = fits[i].as_mut() else {
                continue;
            };
            if spare == 0 {
                break;
            }
            if !fit.layer.cut() || !self.slots[i].policy.may_cut() {
                continue;
            }
            // An empty layer that comes to show something needs its separator.
            let join = if fit.layer.text.is_empty() {
                self.separator_tokens
            } else {
                0
            };
            let cap = self.slots[i].cap.unwrap_or(usize::MAX);
            let offer = fit
                .layer
                .tokens
                .saturating_add(spare.saturating_sub(join))
                .min(cap);
            if offer <= fit.granted {
                continue;
            }
            // More tokens cannot make a layer fail that fitted with fewer; should it,
            // the fit it had stays.
            let Ok(layer) = self.fit(i, offer) else {
                continue;
            };
            let paid = if layer.text.is_empty() { 0 } else { join };
            spare = spare
                .saturating_add(fit.layer.tokens)
                .saturating_sub(layer.tokens)
                .saturating_sub(paid);
            *fit = Fit {
                layer,
                granted: offer,
            };
        }
    }

    /// Step 4: joins the layers in declaration order (empty ones and their
    /// separators left out) and counts the prompt. Hands the layers back with the
    /// prompt's count when it is over the limit.
    fn join_and_verify(
        &self,
        fits: Vec<Fit<'a>>,
    ) -> Result<Assembled<'a, ()>, (Vec<Fit<'a>>, usize)> {
        let mut prompt = String::with_capacity(
            fits.iter()
                .map(|f| f.layer.text.len() + self.separator.len())
                .sum(),
        );
        for fit in &fits {
            if fit.layer.text.is_empty() {
                continue;
            }
            if !prompt.is_empty() {
                prompt.push_str(self.separator);
            }
            prompt.push_str(&fit.layer.text);
        }
        let Some(tokens) = self.counter.count_within(&prompt, self.limit) else {
            let tokens = self.counter.count(&prompt);
            return Err((fits, tokens));
        };
        let layers = self
            .slots
            .iter()
            .zip(fits)
            .map(|(slot, fit)| AssembledLayer {
                name: slot.spec.name(),
                reservation: slot.spec.tokens(),
                granted: fit.granted,
                policy: slot.policy.clone(),
                grow: slot.grow,
                fitted: fit.layer,
            })
            .collect();
        Ok(Assembled {
            layers,
            prompt,
            tokens,
            limit: self.limit,
            separator_tokens: self.separator_tokens,
            usage: (),
        })
    }

    /// After a join `tokens` long went over the limit: caps the cuttable layers by
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
            .chain((0..n).rev().filter(|&i| self.slots[i].grow.is_none()))
            .collect::<Vec<usize>>();
        for i in order {
            if over == 0 {
                break;
            }
            let slot = &mut self.slots[i];
            let has = fits[i].layer.tokens;
            if !slot.policy.may_cut() || has == 0 {
                continue;
            }
            let take = over.min(has);
            slot.cap = Some(has - take);
            if slot.grow.is_some() {
                self.withheld = self.withheld.saturating_add(take);
            }
            over -= take;
        }
        over == 0
    }

    /// Fits layer `i` to `budget`, checking the content's report against it.
    fn fit(&self, i: usize, budget: usize) -> Result<FittedLayer<'a>, FitError> {
        let slot = &self.slots[i];
        let fitted = slot.content.fit(budget, self.counter, &slot.policy)?;
        if fitted.tokens > budget {
            return Err(FitError::custom(format_args!(
                "the content reported {} tokens for a budget of {budget}",
                fitted.tokens
            )));
        }
        Ok(fitted)
    }

    /// The error of layer `i` refused at `budget` for `source`.
    fn error(&self, i: usize, budget: usize, source: FitError) -> AssembleError {
        let slot = &self.slots[i];
        let layer = slot.spec.name().to_owned();
        let reservation = slot.spec.tokens();
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
                    grows: slot.grow.is_some(),
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
