#!/usr/bin/env python3
"""Refresh ctxbudget's copy of LiteLLM's model table from a pinned `litellm` wheel.

    python3 scripts/refresh_litellm_catalogue.py            # downloads the pinned wheel
    python3 scripts/refresh_litellm_catalogue.py --wheel W  # or uses one already here

It checks the wheel's SHA-256, takes `litellm/model_prices_and_context_window_backup.json`
(the table LiteLLM ships) and its LICENSE, keeps the rows of the filter below and the
fields the catalogue reads, and writes

    ctxbudget/data/litellm/model_prices_and_context_window.json   (the filtered rows)
    ctxbudget/data/litellm/LICENSE                                 (LiteLLM's license)
    ctxbudget/src/models/litellm.rs                                (the same rows as Rust)

The output depends only on the wheel and on `--checked` (the day written into the
Rust table, default today): running it twice on one wheel gives the same files.
To move to a newer LiteLLM, change VERSION and SHA256 (never 1.82.7 or 1.82.8,
which were compromised), run it, and review the diff of the JSON.

Filter (one row = one name of LiteLLM's table; `mode` "chat", or "responses" for
OpenAI; a window and an output limit given):
  - OpenAI's own API (`litellm_provider` "openai"): not fine-tunes (`ft:`, found
    through their base model), audio, realtime, search or computer-use models.
  - Anthropic's own API ("anthropic"): every row.
  - Google's Gemini API ("gemini"): the `gemini-` models (not Gemma, LearnLM, Lyria).
  - Claude and Gemini on Vertex AI (`vertex_ai/claude-...`, `vertex_ai/gemini-...`,
    and the unprefixed `gemini-...` rows of "vertex_ai-language-models") and Claude
    on Bedrock (`anthropic.claude-...` and `global.anthropic.claude-...`: the ids
    without a region, whose prices are the base ones; not Claude 1 and 2, retired).
  - Mistral's own API ("mistral"): Mistral's models, not the other makers' it hosts.
  - DeepSeek's own API ("deepseek"): the models whose tokenizer repository the
    catalogue names (DeepSeek-V3, V3.2 and R1).
Llama and Qwen are not taken from LiteLLM: it lists them per host, with each host's
limits and prices; the catalogue's Llama rows come from Meta's model cards.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

VERSION = "1.110.2"
COMPROMISED = {"1.82.7", "1.82.8"}  # never these: they were compromised
WHEEL = f"litellm-{VERSION}-cp310-abi3-manylinux_2_28_x86_64.whl"
SHA256 = "9d94d1c7d524b6fd10c14f9c8c6c4f0ac31705f9964ac59dcfd8337c046d8917"
MEMBER = "litellm/model_prices_and_context_window_backup.json"
LICENSE = f"litellm-{VERSION}.dist-info/licenses/LICENSE"

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "ctxbudget" / "data" / "litellm"
RUST = ROOT / "ctxbudget" / "src" / "models" / "litellm.rs"

# The fields kept: what the catalogue reads, and where LiteLLM says it took them from.
FIELDS = [
    "litellm_provider",
    "mode",
    "max_input_tokens",
    "max_output_tokens",
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "source",
]

# The long-prompt tier: the prices of a request whose input is over N thousand tokens
# (`input_cost_per_token_above_272k_tokens`, ...), kept with the fields above.
LONG = re.compile(
    r"(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost)_above_(\d+)k_tokens"
)

OPENAI_LEFT_OUT = re.compile(r"audio|realtime|search|computer-use|container|tts|transcribe")
MISTRAL_LEFT_OUT = re.compile(r"zai|glm|deepseek")
DEEPSEEK_KEPT = {
    "deepseek-chat",
    "deepseek-reasoner",
    "deepseek-v3",
    "deepseek-v3.2",
    "deepseek-r1",
}


def kept(name: str, row: dict) -> bool:
    provider = row.get("litellm_provider", "")
    mode = row.get("mode")
    if not isinstance(row.get("max_input_tokens"), int):
        return False
    if not isinstance(row.get("max_output_tokens"), int):
        return False
    if provider == "openai":
        return (
            mode in ("chat", "responses")
            and not name.startswith("ft:")
            and "/" not in name
            and not OPENAI_LEFT_OUT.search(name)
        )
    if mode != "chat":
        return False
    if provider == "anthropic":
        return True
    if provider == "gemini":
        short = name.removeprefix("gemini/")
        return short.startswith("gemini-") and not re.search(r"tts|gemma", short)
    if provider.startswith("vertex_ai"):
        return re.fullmatch(r"(vertex_ai/)?(claude|gemini)-[^@]*(@\d+)?", name) is not None and (
            "tts" not in name
        )
    if provider.startswith("bedrock"):
        return re.fullmatch(r"(global\.)?anthropic\.claude-(?!v\d|instant)[a-z0-9.:-]+", name) is not None
    if provider == "mistral":
        return name.startswith("mistral/") and not MISTRAL_LEFT_OUT.search(name)
    if provider == "deepseek":
        return name.removeprefix("deepseek/") in DEEPSEEK_KEPT
    return False


def long_tier(row: dict) -> tuple[str, dict]:
    """The row's long-prompt threshold (thousands of tokens, "" for none) and prices."""
    fields = {m: row[m] for m in row if LONG.fullmatch(m)}
    thresholds = {LONG.fullmatch(m).group(2) for m in fields}
    if len(thresholds) > 1:
        raise SystemExit(f"more than one long-prompt threshold: {sorted(fields)}")
    return (thresholds.pop() if thresholds else ""), fields


def picodollars(value) -> str:
    """A price per token in picodollars (= micro-dollars per million tokens)."""
    if value is None:
        return "None"
    return f"Some({round(value * 1e12)})"


def rust(rows: dict, checked: str) -> str:
    out = [
        "//! LiteLLM's model table, filtered: generated by",
        "//! `scripts/refresh_litellm_catalogue.py` from",
        "//! `ctxbudget/data/litellm/model_prices_and_context_window.json`. Do not edit: run the",
        "//! script. A test checks that the two agree.",
        "",
        "#![allow(clippy::unreadable_literal)] // Numbers as LiteLLM writes them.",
        "",
        "/// The `litellm` release the rows come from.",
        f'pub(super) const VERSION: &str = "{VERSION}";',
        "",
        "/// The day the rows were taken from it.",
        f'pub(super) const CHECKED: &str = "{checked}";',
        "",
        "/// One row: a name of LiteLLM's table and what it gives. Prices are per token,",
        "/// in picodollars (micro-dollars per million tokens).",
        "#[derive(Debug, Clone, Copy)]",
        "pub(super) struct Row {",
        "    pub(super) name: &'static str,",
        "    pub(super) provider: &'static str,",
        "    /// LiteLLM's `mode` is `responses`: the model is served by OpenAI's",
        "    /// Responses API only.",
        "    pub(super) responses: bool,",
        "    pub(super) max_input: usize,",
        "    pub(super) max_output: usize,",
        "    pub(super) input: Option<u64>,",
        "    pub(super) output: Option<u64>,",
        "    pub(super) cache_read: Option<u64>,",
        "    pub(super) cache_write: Option<u64>,",
        "    /// The long-prompt tier: over this many input tokens, these prices.",
        "    pub(super) long_above: Option<usize>,",
        "    pub(super) long_input: Option<u64>,",
        "    pub(super) long_output: Option<u64>,",
        "    pub(super) long_cache_read: Option<u64>,",
        "}",
        "",
        "/// The rows, in the order of the JSON file (by name).",
        "#[rustfmt::skip]",
        "pub(super) const ROWS: &[Row] = &[",
    ]
    for name, row in rows.items():
        above, _ = long_tier(row)
        tier = lambda field: row.get(f"{field}_above_{above}k_tokens") if above else None
        out.append(
            f"    Row {{ name: {json.dumps(name)}, provider: {json.dumps(row['litellm_provider'])}, "
            f"responses: {'true' if row.get('mode') == 'responses' else 'false'}, "
            f"max_input: {row['max_input_tokens']}, max_output: {row['max_output_tokens']}, "
            f"input: {picodollars(row.get('input_cost_per_token'))}, "
            f"output: {picodollars(row.get('output_cost_per_token'))}, "
            f"cache_read: {picodollars(row.get('cache_read_input_token_cost'))}, "
            f"cache_write: {picodollars(row.get('cache_creation_input_token_cost'))}, "
            f"long_above: {f'Some({above}_000)' if above else 'None'}, "
            f"long_input: {picodollars(tier('input_cost_per_token'))}, "
            f"long_output: {picodollars(tier('output_cost_per_token'))}, "
            f"long_cache_read: {picodollars(tier('cache_read_input_token_cost'))} }},"
        )
    out.append("];")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wheel", type=Path, help=f"a downloaded {WHEEL}")
    parser.add_argument("--checked", default=datetime.date.today().isoformat())
    args = parser.parse_args()
    if VERSION in COMPROMISED:
        print(f"litellm {VERSION} was compromised: pin another release", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel
        if wheel is None:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", f"litellm=={VERSION}",
                 "--no-deps", "--only-binary=:all:", "-d", tmp],
                check=True,
            )
            wheel = Path(tmp) / WHEEL
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if digest != SHA256:
            print(f"{wheel}: SHA-256 {digest}, expected {SHA256}", file=sys.stderr)
            return 1
        with zipfile.ZipFile(wheel) as archive:
            table = json.loads(archive.read(MEMBER))
            license_text = archive.read(LICENSE)
    rows = {
        name: {field: row[field] for field in FIELDS if field in row} | long_tier(row)[1]
        for name, row in sorted(table.items())
        if isinstance(row, dict) and name != "sample_spec" and kept(name, row)
    }
    DATA.mkdir(parents=True, exist_ok=True)
    (DATA / "LICENSE").write_bytes(license_text)
    text = json.dumps(rows, indent=1, sort_keys=True, ensure_ascii=True) + "\n"
    (DATA / "model_prices_and_context_window.json").write_text(text)
    RUST.write_text(rust(rows, args.checked))
    print(f"{len(rows)} of {len(table)} rows from litellm {VERSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
