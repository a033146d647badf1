//! The report of an [`Assembled`] prompt for people (its `Display`, a table) and for
//! machines (with the `serde` feature, one flat JSON object).

use std::fmt;

use super::assembled::{Assembled, AssembledLayer};

impl AssembledLayer<'_> {
    /// How the layer was cut, as the report prints it: the policy, and `grow N` for
    /// a growing layer.
    fn how(&self) -> String {
        match self.grow {
            Some(priority) => format!("{}, grow {priority}", self.policy),
            None => self.policy.to_string(),
        }
    }

    /// What of its content was kept, with units: `kept 3 of 10 messages, 7 dropped`,
    /// and what context edits saved, when they edited something.
    fn kept(&self) -> String {
        let fitted = &self.fitted;
        let kept = if fitted.total == 0 {
            "empty".to_owned()
        } else if fitted.cut() {
            format!(
                "kept {} of {} {}, {} dropped",
                fitted.kept,
                fitted.total,
                fitted.unit,
                self.dropped()
            )
        } else {
            format!("all {} {}", fitted.total, fitted.unit)
        };
        match self.edits.as_ref().filter(|e| e.edited()) {
            Some(edits) => {
                let t = &edits.totals;
                format!(
                    "{kept}; edits saved {}: {} tool results cleared, {} truncated, thinking dropped in {}",
                    t.saved_tokens, t.cleared_tool_uses, t.truncated, t.thinking_dropped
                )
            }
            None => kept,
        }
    }
}

/// A table: one row per layer (name, where it went in a messages prompt, policy,
/// reservation, grant, tokens, what was kept and dropped), then the layers' sum, the
/// overhead with its parts, and the prompt against the limit, the output
/// reservation and what is unused.
///
/// ```
/// use ctxbudget::{CharEstimate, ContextLayers};
///
/// #[derive(ContextLayers)]
/// #[context(total = 200, output = 50)]
/// struct Note {
///     #[budget(tokens = 20, policy = never)]
///     title: String,
///     #[budget(tokens = 100)]
///     body: String,
/// }
///
/// let note = Note { title: "A title".into(), body: "Some words. ".repeat(100) };
/// let report = note.assemble(&CharEstimate)?.to_string();
/// assert!(report.contains("kept 395 of 1200 bytes, 805 dropped"));
/// assert!(report.ends_with("of a limit of 150 (window 200 - output 50), 49 unused"));
/// # Ok::<(), ctxbudget::AssembleError>(())
/// ```
///
/// prints
///
/// ```text
/// layer    policy reserved  granted   tokens  kept
/// title    never        20       20        2  all 7 bytes
/// body     head        100      100       99  kept 395 of 1200 bytes, 805 dropped
/// layers                                 101  the layers' own counts
/// overhead                                 0  1 separator of 1 token, -1 across joins
/// prompt                                 101  of a limit of 150 (window 200 - output 50), 49 unused
/// ```
///
/// `chars / 4` rounds up, so the joined text costs a token less than its parts:
/// the overhead is the separator's token less that one.
impl<U, P> fmt::Display for Assembled<'_, U, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name_width = self
            .layers
            .iter()
            .map(|l| l.name.chars().count())
            .chain([8])
            .max()
            .unwrap_or(8);
        let how_width = self
            .layers
            .iter()
            .map(|l| l.how().chars().count())
            .chain([6])
            .max()
            .unwrap_or(6);
        let roles = self.layers.iter().any(|l| l.role.is_some());
        let role_column = |role: &str| {
            if roles {
                format!("{role:<8} ")
            } else {
                String::new()
            }
        };
        writeln!(
            f,
            "{:<name_width$} {}{:<how_width$} {:>8} {:>8} {:>8}  kept",
            "layer",
            role_column("role"),
            "policy",
            "reserved",
            "granted",
            "tokens",
        )?;
        for layer in &self.layers {
            writeln!(
                f,
                "{:<name_width$} {}{:<how_width$} {:>8} {:>8} {:>8}  {}",
                layer.name,
                role_column(layer.role.map_or("", |r| r.as_str())),
                layer.how(),
                layer.reservation,
                layer.granted,
                layer.tokens(),
                layer.kept(),
            )?;
        }
        let pad = name_width + 1 + if roles { 9 } else { 0 } + how_width + 18;
        writeln!(
            f,
            "{:<pad$} {:>8}  the layers' own counts",
            "layers",
            self.layer_tokens()
        )?;
        let mut parts = Vec::new();
        if self.framing > 0 {
            parts.push(format!(
                "{} for the system and user messages' framing and the reply priming",
                self.framing
            ));
        }
        if self.separators > 0 {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            parts.push(format!(
                "{} separator{} of {} token{}",
                self.separators,
                plural(self.separators),
                self.separator_tokens,
                plural(self.separator_tokens)
            ));
        }
        let joins = self.join_difference();
        if joins != 0 || parts.is_empty() {
            parts.push(format!("{joins:+} across joins"));
        }
        writeln!(
            f,
            "{:<pad$} {:>8}  {}",
            "overhead",
            self.overhead(),
            parts.join(", ")
        )?;
        write!(
            f,
            "{:<pad$} {:>8}  of a limit of {} (window {} - output {}), {} unused",
            "prompt",
            self.tokens,
            self.limit,
            self.window(),
            self.output,
            self.unused()
        )
    }
}

#[cfg(feature = "serde")]
mod json {
    use serde::ser::{Serialize, SerializeMap, Serializer};

    use super::{Assembled, AssembledLayer};
    use crate::assemble::options::LayerRole;
    use crate::chat::edit::EditTotals;

    /// One layer's entry.
    #[derive(serde::Serialize)]
    struct Entry {
        reservation: usize,
        granted: usize,
        tokens: usize,
        kept: usize,
        dropped: usize,
        unit: &'static str,
        policy: &'static str,
        grow: Option<u32>,
        role: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        edits: Option<EditTotals>,
    }

    impl Entry {
        fn of(layer: &AssembledLayer<'_>) -> Self {
            Entry {
                reservation: layer.reservation,
                granted: layer.granted,
                tokens: layer.tokens(),
                kept: layer.fitted.kept,
                dropped: layer.dropped(),
                unit: layer.fitted.unit,
                policy: layer.policy.name(),
                grow: layer.grow,
                role: layer.role.map(LayerRole::as_str),
                edits: layer.edits.as_ref().map(|e| e.totals),
            }
        }
    }

    /// The layers, by name, in declaration order.
    struct Layers<'r, 'a>(&'r [AssembledLayer<'a>]);

    impl Serialize for Layers<'_, '_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(self.0.len()))?;
            for layer in self.0 {
                map.serialize_entry(layer.name, &Entry::of(layer))?;
            }
            map.end()
        }
    }

    /// The report as one JSON object; see [`Assembled::to_json`].
    impl<U, P> Serialize for Assembled<'_, U, P> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(8))?;
            map.serialize_entry("window", &self.window())?;
            map.serialize_entry("output", &self.output)?;
            map.serialize_entry("limit", &self.limit)?;
            map.serialize_entry("tokens", &self.tokens)?;
            map.serialize_entry("layer_tokens", &self.layer_tokens())?;
            map.serialize_entry("overhead", &self.overhead())?;
            map.serialize_entry("unused", &self.unused())?;
            map.serialize_entry("layers", &Layers(&self.layers))?;
            map.end()
        }
    }

    impl<U, P> Assembled<'_, U, P> {
        /// The report as one JSON object on one line (feature `serde`): the telemetry
        /// of one assembly. Append it to a log with
        /// [`UsageLog::record`](crate::budget::UsageLog::record).
        ///
        /// ```json
        /// {"window": 8192, "output": 1024, "limit": 7168, "tokens": 7114,
        ///  "layer_tokens": 7115, "overhead": -1, "unused": 54,
        ///  "layers": {"system": {"reservation": 512, "granted": 512, "tokens": 27,
        ///    "kept": 1, "dropped": 0, "unit": "texts", "policy": "never", "grow": null,
        ///    "role": null}, ...}}
        /// ```
        ///
        /// - `window` = `limit` + `output`: the window assembled for, and the tokens
        ///   of it kept for the reply;
        /// - `tokens`: the exact count of the prompt, at most `limit`;
        ///   `tokens = layer_tokens + overhead` (see [`Assembled::overhead`]; it can
        ///   be negative);
        /// - `unused` = `limit - tokens`: the output reservation is not in it;
        /// - `layers`: one entry per layer, by name, in declaration order: its
        ///   `reservation` in this window, the budget it was `granted`, the `tokens`
        ///   it used, how many of its units were `kept` and `dropped` and the
        ///   `unit`, its `policy`, its `grow` priority (or `null`) and, for a messages
        ///   prompt, its `role` (or `null`); for a chat history assembled with
        ///   [edits](crate::assemble::AssembleOptions::with_edits), their totals under
        ///   `edits` (`cleared_tool_uses`, `cleared_input_tokens`, `truncated`,
        ///   `thinking_dropped`, `summarized`, `saved_tokens`), left out without.
        ///
        /// The shape may change before 1.0.
        ///
        /// ```
        /// use ctxbudget::{CharEstimate, ContextLayers};
        ///
        /// #[derive(ContextLayers)]
        /// #[context(total = 100, output = 20)]
        /// struct Note {
        ///     #[budget(tokens = 40)]
        ///     body: String,
        /// }
        ///
        /// let note = Note { body: "Four words right here.".into() };
        /// let json = note.assemble(&CharEstimate)?.to_json();
        /// assert_eq!(
        ///     json,
        ///     r#"{"window":100,"output":20,"limit":80,"tokens":6,"layer_tokens":6,"overhead":0,"unused":74,"layers":{"body":{"reservation":40,"granted":40,"tokens":6,"kept":22,"dropped":0,"unit":"bytes","policy":"head","grow":null,"role":null}}}"#
        /// );
        /// # Ok::<(), ctxbudget::AssembleError>(())
        /// ```
        pub fn to_json(&self) -> String {
            serde_json::to_string(self).unwrap_or_default()
        }
    }
}
