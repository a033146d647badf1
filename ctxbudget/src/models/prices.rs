//! [`Prices`]: what a model's provider charges per token, as LiteLLM's table gives it.

use std::fmt;

/// A price per token, kept exactly in picodollars (10⁻¹² US dollars) per token, which
/// is micro-dollars per million tokens: every price LiteLLM's table gives is a whole
/// number of them.
///
/// ```
/// use ctxbudget::models::Price;
///
/// let price = Price::from_per_million(2.5).unwrap();
/// assert_eq!(price.per_million(), 2.5);
/// assert_eq!(price.cost(1_000_000), 2.5);
/// assert_eq!(price.to_string(), "$2.50/M");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Price {
    picodollars: u64,
}

impl Price {
    /// A price of `picodollars` per token (micro-dollars per million tokens).
    pub const fn from_picodollars(picodollars: u64) -> Self {
        Price { picodollars }
    }

    /// A price of `dollars` per million tokens, rounded to the micro-dollar; `None`
    /// for a negative, infinite or NaN price, or one over a million dollars per
    /// token.
    pub fn from_per_million(dollars: f64) -> Option<Self> {
        /// A million dollars per token, in picodollars per token.
        const MOST: f64 = 1e18;
        let picodollars = (dollars * 1e6).round();
        if !(0.0..=MOST).contains(&picodollars) {
            return None;
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // Checked above.
        Some(Price {
            picodollars: picodollars as u64,
        })
    }

    /// The price in picodollars per token (micro-dollars per million tokens).
    pub const fn picodollars(self) -> u64 {
        self.picodollars
    }

    /// The price in US dollars per token.
    #[allow(clippy::cast_precision_loss)] // Prices are far below 2^53 picodollars.
    pub fn per_token(self) -> f64 {
        self.picodollars as f64 / 1e12
    }

    /// The price in US dollars per million tokens.
    #[allow(clippy::cast_precision_loss)] // Prices are far below 2^53 picodollars.
    pub fn per_million(self) -> f64 {
        self.picodollars as f64 / 1e6
    }

    /// What `tokens` tokens cost, in US dollars.
    pub fn cost(self, tokens: usize) -> f64 {
        picodollars_to_dollars(self.cost_picodollars(tokens))
    }

    /// What `tokens` tokens cost, in picodollars (saturating: no count a request can
    /// have comes near).
    pub(super) fn cost_picodollars(self, tokens: usize) -> u128 {
        let tokens = u128::try_from(tokens).unwrap_or(u128::MAX);
        tokens.saturating_mul(u128::from(self.picodollars))
    }
}

/// Picodollars as US dollars.
#[allow(clippy::cast_precision_loss)] // A cost is shown, not summed to the picodollar.
pub(super) fn picodollars_to_dollars(picodollars: u128) -> f64 {
    picodollars as f64 / 1e12
}

impl fmt::Display for Price {
    /// Dollars per million tokens, with at least two decimals: `$2.50/M`, `$0.075/M`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{:.6}", self.per_million());
        let text = text.trim_end_matches('0');
        let decimals = text.split_once('.').map_or(0, |(_, d)| d.len());
        let padding = "00".get(decimals.min(2)..).unwrap_or("");
        write!(f, "${text}{padding}/M")
    }
}

/// What a model's provider charges per token: input, output, and (where the provider
/// has them) input read from its prompt cache and input written to it.
///
/// Built-in models have the prices of LiteLLM's table (US dollars, the provider's
/// standard tier, without batch or priority rates), with the higher prices some models
/// charge for a whole request whose prompt is over a length
/// ([`long_prompt`](Self::long_prompt): GPT-5.4 and later over 272,000 input tokens,
/// Gemini Pro over 200,000); see [`Model::prices`](super::Model::prices).
///
/// ```
/// use ctxbudget::models::Model;
///
/// let prices = Model::lookup("gpt-4o")?.prices().unwrap();
/// assert_eq!(prices.input.per_million(), 2.5);
/// assert_eq!(prices.cached_input.unwrap().per_million(), 1.25);
/// # Ok::<(), ctxbudget::models::ModelNotFound>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Prices {
    /// Each input token.
    pub input: Price,
    /// Each output token (reasoning tokens included).
    pub output: Price,
    /// Each input token read from the prompt cache, when the provider has a price for
    /// it (otherwise such tokens cost [`input`](Self::input)).
    pub cached_input: Option<Price>,
    /// Each input token written to the prompt cache (Anthropic's 5-minute cache
    /// write), when the provider charges it apart.
    pub cache_write: Option<Price>,
    /// The prices of a request whose prompt is longer, when the provider charges more
    /// for it.
    pub long_prompt: Option<LongPrompt>,
}

/// The prices a model charges for a whole request, input and output, when its prompt
/// is over [`above`](Self::above) input tokens (cached ones included).
///
/// ```
/// use ctxbudget::models::Model;
///
/// let prices = Model::lookup("gpt-5.5")?.prices().unwrap();
/// let long = prices.long_prompt.unwrap();
/// assert_eq!((long.above, long.input.per_million()), (272_000, 10.0));
/// // 300,000 input tokens: all of them at the long-prompt price.
/// assert_eq!(prices.input_cost(300_000, 0), 3.0);
/// assert_eq!(prices.input_cost(272_000, 0), 1.36);
/// # Ok::<(), ctxbudget::models::ModelNotFound>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct LongPrompt {
    /// Over this many input tokens, the request pays these prices.
    pub above: usize,
    /// Each input token.
    pub input: Price,
    /// Each output token.
    pub output: Price,
    /// Each input token read from the prompt cache, when the provider gives it.
    pub cached_input: Option<Price>,
}

impl LongPrompt {
    /// Prices of `input` and `output` tokens for a request of more than `above` input
    /// tokens, with no cache price.
    pub fn new(above: usize, input: Price, output: Price) -> Self {
        LongPrompt {
            above,
            input,
            output,
            cached_input: None,
        }
    }

    /// Sets the price of input read from the prompt cache.
    #[must_use]
    pub fn with_cached_input(mut self, price: Option<Price>) -> Self {
        self.cached_input = price;
        self
    }
}

impl Prices {
    /// Prices of `input` and `output` tokens, with no cache prices.
    pub fn new(input: Price, output: Price) -> Self {
        Prices {
            input,
            output,
            cached_input: None,
            cache_write: None,
            long_prompt: None,
        }
    }

    /// Sets the prices of a request with a long prompt.
    #[must_use]
    pub fn with_long_prompt(mut self, long: Option<LongPrompt>) -> Self {
        self.long_prompt = long;
        self
    }

    /// The prices a request of `prompt_tokens` input tokens pays: these, or those of
    /// [`long_prompt`](Self::long_prompt) when the prompt is over its threshold (the
    /// cache write price stays), with no long-prompt tier of their own.
    #[must_use]
    pub fn for_prompt(&self, prompt_tokens: usize) -> Prices {
        match self.long_prompt {
            Some(long) if prompt_tokens > long.above => Prices {
                input: long.input,
                output: long.output,
                cached_input: long.cached_input.or(self.cached_input),
                cache_write: self.cache_write,
                long_prompt: None,
            },
            _ => Prices {
                long_prompt: None,
                ..*self
            },
        }
    }

    /// Sets the price of input read from the prompt cache.
    #[must_use]
    pub fn with_cached_input(mut self, price: Option<Price>) -> Self {
        self.cached_input = price;
        self
    }

    /// Sets the price of input written to the prompt cache.
    #[must_use]
    pub fn with_cache_write(mut self, price: Option<Price>) -> Self {
        self.cache_write = price;
        self
    }

    /// What `tokens` input tokens cost, in US dollars, when `cached` of them are read
    /// from the prompt cache (at most `tokens`: OpenAI's `cached_tokens` are part of
    /// `prompt_tokens`): the cached ones at [`cached_input`](Self::cached_input) (or
    /// the input price when there is none), the others at [`input`](Self::input); at
    /// the [`long_prompt`](Self::long_prompt) prices when `tokens` is over their
    /// threshold.
    pub fn input_cost(&self, tokens: usize, cached: usize) -> f64 {
        let prices = self.for_prompt(tokens);
        let cached = cached.min(tokens);
        let fresh = prices.input.cost_picodollars(tokens - cached);
        let reused = prices
            .cached_input
            .unwrap_or(prices.input)
            .cost_picodollars(cached);
        picodollars_to_dollars(fresh.saturating_add(reused))
    }

    /// What `tokens` output tokens cost, in US dollars, at [`output`](Self::output);
    /// for a request with a long prompt, ask [`for_prompt`](Self::for_prompt)'s
    /// prices.
    pub fn output_cost(&self, tokens: usize) -> f64 {
        self.output.cost(tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_show_in_dollars_per_million() {
        let shown = |picodollars| Price::from_picodollars(picodollars).to_string();
        assert_eq!(shown(2_500_000), "$2.50/M");
        assert_eq!(shown(75_000), "$0.075/M");
        assert_eq!(shown(15_000_000), "$15.00/M");
        assert_eq!(shown(5_000), "$0.005/M");
        assert_eq!(shown(0), "$0.00/M");
        assert_eq!(shown(1), "$0.000001/M");
    }

    #[test]
    fn per_million_round_trips_and_refuses_nonsense() {
        for dollars in [0.0, 0.005, 0.075, 1.25, 3.75, 150.0] {
            let price = Price::from_per_million(dollars).unwrap();
            assert!((price.per_million() - dollars).abs() < 1e-12, "{dollars}");
        }
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e13] {
            assert_eq!(Price::from_per_million(bad), None, "{bad}");
        }
    }

    #[test]
    fn cached_input_is_part_of_the_input() {
        let price = |dollars| Price::from_per_million(dollars).unwrap();
        let prices = Prices::new(price(2.0), price(8.0)).with_cached_input(Some(price(0.5)));
        // 1M tokens, 400k of them cached: 600k at $2/M + 400k at $0.5/M.
        assert!((prices.input_cost(1_000_000, 400_000) - 1.4).abs() < 1e-12);
        // More cached than input: all of it cached.
        assert!((prices.input_cost(1_000, 5_000) - 0.0005).abs() < 1e-12);
        // No cached price: cached tokens cost the input price.
        let plain = Prices::new(price(2.0), price(8.0));
        assert!((plain.input_cost(1_000_000, 400_000) - 2.0).abs() < 1e-12);
        assert!((prices.output_cost(1_000_000) - 8.0).abs() < 1e-12);
        // No overflow on any count.
        assert!(prices.input_cost(usize::MAX, 0).is_finite());
    }

    #[test]
    fn a_long_prompt_pays_the_long_prices_for_all_of_it() {
        let price = |dollars| Price::from_per_million(dollars).unwrap();
        let long =
            LongPrompt::new(200_000, price(4.0), price(18.0)).with_cached_input(Some(price(0.4)));
        let prices = Prices::new(price(2.0), price(12.0))
            .with_cached_input(Some(price(0.2)))
            .with_long_prompt(Some(long));
        // At the threshold: the standard prices.
        assert!((prices.input_cost(200_000, 0) - 0.4).abs() < 1e-12);
        // One token over: every token at the long price, cached ones too.
        assert!((prices.input_cost(200_001, 0) - 0.800_004).abs() < 1e-12);
        assert!((prices.input_cost(300_000, 100_000) - (0.8 + 0.04)).abs() < 1e-12);
        let tier = prices.for_prompt(300_000);
        assert_eq!(
            (tier.input, tier.output, tier.long_prompt),
            (price(4.0), price(18.0), None)
        );
        assert_eq!(prices.for_prompt(10).output, price(12.0));
        // A long tier without a cached price keeps the standard cached price.
        let plain = prices.with_long_prompt(Some(LongPrompt::new(10, price(4.0), price(18.0))));
        assert_eq!(plain.for_prompt(11).cached_input, Some(price(0.2)));
    }
}
