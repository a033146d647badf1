//! How growing layers of one priority share what is left (step 3 of the module docs).
//!
//! 1. Layers that may not be cut come first, in declaration order: each may use its
//!    reservation plus everything the group has beyond the others' reservations, and
//!    takes only what its whole content costs.
//! 2. The cuttable layers get their reservations plus equal shares of what is left
//!    (prompt-tsx's `flexGrow` elements with the default `flexBasis`).
//! 3. In rounds, a layer that is whole gives back what it did not use, and that is
//!    shared equally among the layers still cut, until none is cut, nothing is given
//!    back, or [`ROUNDS`] rounds.
//! 4. What is still unused — given back too late, or the slack of a cut layer whose
//!    next unit did not fit — is offered to each layer still cut in turn, the ones
//!    refused for want of tokens first, then in declaration order: each may use all
//!    of it.
//!
//! Nothing here assumes the content behaves: a layer that uses less with more
//! tokens, or reports itself cut when it is not, only costs a few more fits.

use super::policy::{FitError, FittedLayer, ROUNDS};

/// What sharing needs to know of a fitted layer.
pub(super) trait Measured {
    /// What it costs.
    fn tokens(&self) -> usize;
    /// Whether some of its content was left out.
    fn is_cut(&self) -> bool;
    /// An empty layer, before the first fit.
    fn nothing() -> Self;
}

impl Measured for FittedLayer<'_> {
    fn tokens(&self) -> usize {
        self.tokens
    }
    fn is_cut(&self) -> bool {
        self.cut()
    }
    fn nothing() -> Self {
        FittedLayer::empty()
    }
}

/// A growing layer of the priority being shared.
#[derive(Debug, Clone, Copy)]
pub(super) struct Member {
    /// Its position among the context's layers.
    pub index: usize,
    /// Its reservation.
    pub reservation: usize,
    /// At most this much, once a join went over the limit (`usize::MAX`: no cap).
    pub cap: usize,
    /// Whether its policy allows cutting.
    pub may_cut: bool,
}

/// A member's content fitted to what it was granted.
#[derive(Debug)]
pub(super) struct Shared<T> {
    /// The member's position among the context's layers.
    pub index: usize,
    /// The fitted content.
    pub layer: T,
    /// The budget it was fitted to.
    pub granted: usize,
}

/// A member that could not be fitted to the most it was offered.
#[derive(Debug)]
pub(super) struct Refused {
    /// The member's position among the context's layers.
    pub index: usize,
    /// The most it was offered.
    pub budget: usize,
    /// Why it could not be fitted.
    pub source: FitError,
}

/// One member's state while sharing.
struct State<T> {
    /// The tokens set aside for it: what it may use, or, once whole, what it used.
    allotted: usize,
    /// The budget of its last fit.
    granted: usize,
    /// Its last fit.
    fitted: Result<T, FitError>,
    /// Whether its allotment grew since its last fit.
    stale: bool,
}

impl<T: Measured> State<T> {
    fn used(&self) -> usize {
        self.fitted.as_ref().map_or(0, Measured::tokens)
    }

    /// Whether more tokens could help: it was cut or refused, and is below its cap.
    fn wants_more(&self, cap: usize) -> bool {
        let short = match &self.fitted {
            Ok(layer) => layer.is_cut(),
            Err(_) => true,
        };
        short && self.allotted < cap
    }
}

/// The error of a fit that more tokens cannot mend: any but content that may not be
/// cut ([`FitError::NeverCut`]) or a chat history whose pinned messages are over
/// ([`FitError::PinnedMessages`], [`FitError::Chat`]).
fn final_error<T>(fitted: &Result<T, FitError>) -> Result<(), FitError> {
    match fitted {
        Err(error)
            if !matches!(
                error,
                FitError::NeverCut { .. } | FitError::PinnedMessages { .. } | FitError::Chat(_)
            ) =>
        {
            Err(error.clone())
        }
        _ => Ok(()),
    }
}

/// Shares `available` tokens among `members` (one priority, in declaration order),
/// fitting each with `fit(index, budget)`. The fitted layers use at most `available`
/// tokens together.
///
/// # Errors
///
/// A layer that may not be cut and does not fit in its reservation plus what the
/// others leave, a chat history whose pinned messages do not fit in the most it was
/// offered, or any other fit error at once.
pub(super) fn share<T: Measured>(
    members: &[Member],
    available: usize,
    fit: impl Fn(usize, usize) -> Result<T, FitError>,
) -> Result<Vec<Shared<T>>, Refused> {
    let mut sharing = Sharing::new(members, available, fit);
    sharing.whole_first()?;
    let cuttable: Vec<usize> = (0..members.len()).filter(|&k| members[k].may_cut).collect();
    sharing.hand_out(&cuttable);
    sharing.rounds(&cuttable)?;
    sharing.offer_rest(&cuttable)?;
    sharing.finish()
}

/// The members, their states and what no one has been given yet.
struct Sharing<'m, T, F> {
    members: &'m [Member],
    states: Vec<State<T>>,
    free: usize,
    fit: F,
}

impl<'m, T: Measured, F> Sharing<'m, T, F>
where
    F: Fn(usize, usize) -> Result<T, FitError>,
{
    /// Every member allotted its reservation; when `available` is short of them, the
    /// last declared give up theirs first. A cap withholds the rest of a member's
    /// allotment from everyone: the join that set it was over the limit.
    fn new(members: &'m [Member], available: usize, fit: F) -> Self {
        let reserved = members
            .iter()
            .fold(0usize, |sum, m| sum.saturating_add(m.reservation));
        let mut deficit = reserved.saturating_sub(available);
        let mut allotted: Vec<usize> = members.iter().map(|m| m.reservation).collect();
        for a in allotted.iter_mut().rev() {
            let take = deficit.min(*a);
            *a -= take;
            deficit -= take;
        }
        let states = members
            .iter()
            .zip(allotted)
            .map(|(m, allotted)| State {
                allotted: allotted.min(m.cap),
                granted: 0,
                fitted: Ok(T::nothing()),
                stale: m.may_cut,
            })
            .collect();
        Sharing {
            members,
            states,
            free: available.saturating_sub(reserved),
            fit,
        }
    }

    fn refuse(&self, k: usize, budget: usize, source: FitError) -> Refused {
        Refused {
            index: self.members[k].index,
            budget,
            source,
        }
    }

    /// Fits member `k` to `budget`; an error more tokens cannot mend is final.
    fn refit(&mut self, k: usize, budget: usize) -> Result<(), Refused> {
        let fitted = (self.fit)(self.members[k].index, budget);
        if let Err(source) = final_error(&fitted) {
            return Err(self.refuse(k, budget, source));
        }
        let state = &mut self.states[k];
        state.stale = false;
        state.granted = budget;
        state.fitted = fitted;
        Ok(())
    }

    /// Step 1: layers that may not be cut, whole or not at all, each with its
    /// allotment and everything free.
    fn whole_first(&mut self) -> Result<(), Refused> {
        for (k, m) in self.members.iter().enumerate() {
            if m.may_cut {
                continue;
            }
            let offer = self.states[k].allotted.saturating_add(self.free);
            let budget = offer.min(m.cap);
            let layer = (self.fit)(m.index, budget).map_err(|e| self.refuse(k, budget, e))?;
            self.free = offer.saturating_sub(layer.tokens());
            let state = &mut self.states[k];
            state.allotted = layer.tokens();
            state.granted = budget;
            state.fitted = Ok(layer);
        }
        Ok(())
    }

    /// Hands what is free out to the members `to` in equal shares (the remainder one
    /// token each to the first), none past its cap.
    fn hand_out(&mut self, to: &[usize]) {
        let Some(count) = std::num::NonZeroUsize::new(to.len()) else {
            return;
        };
        let (share, mut extra) = (self.free / count, self.free % count);
        for &k in to {
            let mut give = share;
            if extra > 0 {
                give += 1;
                extra -= 1;
            }
            let state = &mut self.states[k];
            let give = give.min(self.members[k].cap.saturating_sub(state.allotted));
            if give > 0 {
                state.allotted += give;
                state.stale = true;
                self.free -= give;
            }
        }
    }

    /// The members of `among` that more tokens could help.
    fn hungry(&self, among: &[usize]) -> Vec<usize> {
        among
            .iter()
            .copied()
            .filter(|&k| self.states[k].wants_more(self.members[k].cap))
            .collect()
    }

    /// Steps 2 and 3: the cuttable members are fitted to their allotments; in each
    /// round, the whole ones give back what they did not use, and that is handed out
    /// to the ones still cut.
    fn rounds(&mut self, cuttable: &[usize]) -> Result<(), Refused> {
        for _ in 0..ROUNDS {
            for &k in cuttable {
                if self.states[k].stale {
                    self.refit(k, self.states[k].allotted)?;
                }
            }
            for &k in cuttable {
                let state = &mut self.states[k];
                if !state.wants_more(self.members[k].cap) {
                    let used = state.used().min(state.allotted);
                    self.free = self.free.saturating_add(state.allotted - used);
                    state.allotted = used;
                }
            }
            let hungry = self.hungry(cuttable);
            if hungry.is_empty() || self.free == 0 {
                break;
            }
            self.hand_out(&hungry);
        }
        Ok(())
    }

    /// Step 4: what is left — free, or the slack of a member cut at a unit — is
    /// offered to each member still cut in turn, refused ones first: all of it.
    fn offer_rest(&mut self, cuttable: &[usize]) -> Result<(), Refused> {
        let mut hungry = self.hungry(cuttable);
        hungry.sort_by_key(|&k| self.states[k].fitted.is_ok());
        let mut spare = hungry.iter().fold(self.free, |sum, &k| {
            let state = &self.states[k];
            sum.saturating_add(state.allotted.saturating_sub(state.used()))
        });
        for k in hungry {
            let state = &self.states[k];
            let used = state.used();
            let offer = used.saturating_add(spare).min(self.members[k].cap);
            if offer <= state.granted && !state.stale {
                continue;
            }
            self.refit(k, offer)?;
            spare = spare
                .saturating_add(used)
                .saturating_sub(self.states[k].used());
        }
        Ok(())
    }

    /// The fitted members, or the first still refused.
    fn finish(self) -> Result<Vec<Shared<T>>, Refused> {
        let members = self.members;
        let mut shared = Vec::with_capacity(members.len());
        for (k, state) in self.states.into_iter().enumerate() {
            match state.fitted {
                Ok(layer) => shared.push(Shared {
                    index: members[k].index,
                    layer,
                    granted: state.granted,
                }),
                Err(source) => {
                    return Err(Refused {
                        index: members[k].index,
                        budget: state.granted,
                        source,
                    });
                }
            }
        }
        Ok(shared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Content that is cut below `needs` tokens and whole at `needs`, using every
    /// token it gets up to that.
    fn greedy(
        needs: &[usize],
    ) -> impl Fn(usize, usize) -> Result<FittedLayer<'static>, FitError> + '_ {
        |i, budget| {
            let tokens = budget.min(needs[i]);
            Ok(FittedLayer::whole("x", tokens).with_kept(tokens, needs[i], "tokens"))
        }
    }

    fn member(index: usize, reservation: usize) -> Member {
        Member {
            index,
            reservation,
            cap: usize::MAX,
            may_cut: true,
        }
    }

    fn granted(shared: &[Shared<FittedLayer<'_>>]) -> Vec<(usize, usize)> {
        shared.iter().map(|s| (s.granted, s.layer.tokens)).collect()
    }

    #[test]
    fn equal_shares_beyond_the_reservations() {
        let needs = [1000, 1000];
        let members = [member(0, 30), member(1, 10)];
        let shared = share(&members, 141, greedy(&needs)).unwrap();
        // 101 beyond the reservations: 51 and 50.
        assert_eq!(granted(&shared), [(81, 81), (60, 60)]);
    }

    #[test]
    fn what_a_whole_layer_leaves_goes_to_the_others() {
        let needs = [20, 1000, 1000];
        let members = [member(0, 10), member(1, 10), member(2, 10)];
        let shared = share(&members, 300, greedy(&needs)).unwrap();
        // 270 in thirds: 100 each; the first uses 20, its 80 split between the others.
        let used: Vec<usize> = shared.iter().map(|s| s.layer.tokens).collect();
        assert_eq!(used, [20, 140, 140]);
    }

    #[test]
    fn never_cut_layers_are_served_first_and_whole() {
        // Layer 0 is cut below 1000; layer 1 needs 90, whole.
        let fit = |i: usize, budget: usize| -> Result<FittedLayer<'static>, FitError> {
            match i {
                0 => greedy(&[1000])(0, budget),
                _ if budget < 90 => Err(FitError::never_cut(90, budget)),
                _ => Ok(FittedLayer::whole("x", 90)),
            }
        };
        let members = [
            member(0, 10),
            Member {
                may_cut: false,
                ..member(1, 10)
            },
        ];
        // Layer 1 may use its 10 and the 80 beyond both reservations.
        let shared = share(&members, 100, fit).unwrap();
        assert_eq!(granted(&shared), [(10, 10), (90, 90)]);
        let refused = share(&members, 80, fit).unwrap_err();
        assert_eq!((refused.index, refused.budget), (1, 70));
    }

    #[test]
    fn slack_of_a_layer_cut_at_a_unit_goes_to_the_next() {
        // Layer 0 keeps whole units of 30; layer 1 uses every token.
        let fit = |i: usize, budget: usize| -> Result<FittedLayer<'static>, FitError> {
            let tokens = if i == 0 { budget / 30 * 30 } else { budget };
            Ok(FittedLayer::whole("x", tokens).with_kept(0, 1, "units"))
        };
        let shared = share(&[member(0, 0), member(1, 0)], 100, fit).unwrap();
        // 50 each: layer 0 keeps 30, and its 20 go to layer 1.
        let used: Vec<usize> = shared.iter().map(|s| s.layer.tokens).collect();
        assert_eq!(used, [30, 70]);
    }

    #[test]
    fn caps_withhold_and_short_pools_cut_the_last_reservations() {
        let needs = [1000, 1000];
        let capped = [
            Member {
                cap: 5,
                ..member(0, 30)
            },
            member(1, 30),
        ];
        let shared = share(&capped, 100, greedy(&needs)).unwrap();
        // The cap withholds 25 of layer 0's reservation; layer 1 gets the 40 free.
        assert_eq!(granted(&shared), [(5, 5), (70, 70)]);
        let shared = share(&[member(0, 30), member(1, 30)], 40, greedy(&needs)).unwrap();
        assert_eq!(granted(&shared), [(30, 30), (10, 10)]);
    }

    #[test]
    fn a_refused_layer_gets_what_the_others_leave_or_errs() {
        // Layer 0 needs 60 whole (a chat's pinned messages), layer 1 needs 10.
        let fit = |i: usize, budget: usize| -> Result<FittedLayer<'static>, FitError> {
            let needs = [60, 10][i];
            if budget < needs {
                return Err(FitError::never_cut(needs, budget));
            }
            Ok(FittedLayer::whole("x", needs))
        };
        let shared = share(&[member(0, 10), member(1, 10)], 80, fit).unwrap();
        assert_eq!(granted(&shared), [(70, 60), (40, 10)]);
        let refused = share(&[member(0, 10), member(1, 10)], 65, fit).unwrap_err();
        assert_eq!((refused.index, refused.budget), (0, 55));
    }

    #[test]
    fn misbehaving_content_terminates() {
        // Cut whatever it gets, and uses less with more.
        let fit = |_: usize, budget: usize| -> Result<FittedLayer<'static>, FitError> {
            Ok(
                FittedLayer::whole("x", usize::MAX.saturating_sub(budget).min(budget))
                    .with_kept(0, 1, "units"),
            )
        };
        let members = [member(0, usize::MAX), member(1, 3)];
        let shared = share(&members, usize::MAX, fit).unwrap();
        assert!(shared.iter().all(|s| s.layer.tokens <= s.granted));
    }
}
