//! The engine behind every `assemble()`: fit the layers that do not grow, pay the
//! separators, grow the others, join and verify.

use super::assembled::{Assembled, AssembledLayer};
use super::content::LayerContent;
use super::policy::{AssembleError, FitError, FittedLayer, LayerPolicy};
use crate::budget::{ContextLayers, LayerSpec, TypedUsage};
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
    fn __trusted(&self, seal: crate::count::seal::Seal) -> bool {
        self.0.__trusted(seal)
    }
}

/// How many times a prompt over the limit after a join is fitted again.
const ROUNDS: usize = 16;

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

struct Slot<'a> {
    spec: LayerSpec,
    content: &'a dyn LayerContent,
    policy: LayerPolicy,
    grow: Option<u32>,
    /// At most this much, once a join went over the limit.
    cap: Option<usize>,
}

#[allow(clippy::too_many_lines)] // the four steps of the module docs, in order
fn assemble_dyn<'a>(
    total: usize,
    table: &[LayerSpec],
    contents: &[&'a dyn LayerContent],
    plans: &[LayerPlan],
    separator: &str,
    counter: &dyn TokenCounter,
) -> Result<Assembled<'a, ()>, AssembleError> {
    let n = contents.len().min(table.len());
    let output = table[n..]
        .iter()
        .fold(0usize, |sum, l| sum.saturating_add(l.tokens()));
    let limit = total.saturating_sub(output);
    let separator_tokens = counter.count(separator);
    let mut slots: Vec<Slot<'a>> = (0..n)
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
    growing.sort_by_key(|&i| (std::cmp::Reverse(slots[i].grow), i));

    let fit = |slot: &Slot<'a>, budget: usize| -> Result<FittedLayer<'a>, AssembleError> {
        let budget = slot.cap.map_or(budget, |cap| cap.min(budget));
        let name = slot.spec.name();
        let fitted =
            slot.content
                .fit(budget, counter, &slot.policy)
                .map_err(|source| match source {
                    FitError::NeverCut { tokens, over, .. } => AssembleError::LayerOverBudget {
                        layer: name.to_owned(),
                        tokens,
                        budget,
                        reservation: slot.spec.tokens(),
                        over,
                    },
                    source => AssembleError::Layer {
                        layer: name.to_owned(),
                        budget,
                        source,
                    },
                })?;
        if fitted.tokens > budget {
            return Err(AssembleError::Layer {
                layer: name.to_owned(),
                budget,
                source: FitError::custom(format_args!(
                    "the content reported {} tokens for a budget of {budget}",
                    fitted.tokens
                )),
            });
        }
        Ok(fitted)
    };

    let mut smallest_over: Option<usize> = None;
    for _ in 0..ROUNDS {
        let mut fitted: Vec<Option<(FittedLayer<'a>, usize)>> = (0..n).map(|_| None).collect();
        // 1. Layers that do not grow, in declaration order, to their reservations.
        let mut used = 0usize;
        let mut non_empty = 0usize;
        for (i, slot) in slots.iter().enumerate() {
            if slot.grow.is_some() {
                continue;
            }
            let budget = slot
                .cap
                .map_or(slot.spec.tokens(), |c| c.min(slot.spec.tokens()));
            let layer = fit(slot, budget)?;
            used = used.saturating_add(layer.tokens);
            non_empty += usize::from(!layer.text.is_empty());
            fitted[i] = Some((layer, budget));
        }
        // 2. The separators, assuming every growing layer has something to show.
        let joins = (non_empty + growing.len()).saturating_sub(1);
        let separators = separator_tokens.saturating_mul(joins);
        let mut pool = limit.saturating_sub(used).saturating_sub(separators);
        // 3. Growing layers, highest priority first.
        let mut kept_for_later: usize = growing
            .iter()
            .fold(0usize, |sum, &i| sum.saturating_add(slots[i].spec.tokens()));
        for &i in &growing {
            let slot = &slots[i];
            kept_for_later = kept_for_later.saturating_sub(slot.spec.tokens());
            let grant = pool.saturating_sub(kept_for_later);
            let grant = slot.cap.map_or(grant, |c| c.min(grant));
            let layer = fit(slot, grant)?;
            pool = pool.saturating_sub(layer.tokens);
            fitted[i] = Some((layer, grant));
        }
        // 4. Join, count, check.
        let fitted: Vec<(FittedLayer<'a>, usize)> = fitted.into_iter().flatten().collect();
        let mut prompt = String::with_capacity(
            fitted
                .iter()
                .map(|(l, _)| l.text.len() + separator.len())
                .sum(),
        );
        for (layer, _) in &fitted {
            if layer.text.is_empty() {
                continue;
            }
            if !prompt.is_empty() {
                prompt.push_str(separator);
            }
            prompt.push_str(&layer.text);
        }
        if let Some(tokens) = counter.count_within(&prompt, limit) {
            let layers = slots
                .iter()
                .zip(fitted)
                .map(|(slot, (fitted, granted))| AssembledLayer {
                    name: slot.spec.name(),
                    reservation: slot.spec.tokens(),
                    granted,
                    policy: slot.policy.clone(),
                    grow: slot.grow,
                    fitted,
                })
                .collect();
            return Ok(Assembled {
                layers,
                prompt,
                tokens,
                limit,
                separator_tokens,
                usage: (),
            });
        }
        let tokens = counter.count(&prompt);
        smallest_over = Some(smallest_over.map_or(tokens, |s| s.min(tokens)));
        // Cap the cuttable layers by the excess: growing ones (lowest priority first),
        // then the others from the last declared.
        let mut over = tokens.saturating_sub(limit);
        let order = growing
            .iter()
            .rev()
            .copied()
            .chain((0..n).rev().filter(|&i| slots[i].grow.is_none()))
            .collect::<Vec<usize>>();
        for i in order {
            if over == 0 {
                break;
            }
            let slot = &mut slots[i];
            let has = fitted[i].0.tokens;
            if !slot.policy.may_cut() || has == 0 {
                continue;
            }
            let take = over.min(has);
            slot.cap = Some(has - take);
            over -= take;
        }
        if over > 0 {
            break;
        }
    }
    let tokens = smallest_over.unwrap_or(limit);
    Err(AssembleError::PromptOverBudget {
        tokens,
        limit,
        over: tokens.saturating_sub(limit),
    })
}
