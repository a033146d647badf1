#!/usr/bin/env bash
# Compile-time cost of #[derive(ContextLayers)]: `cargo build` of a crate with N derived
# structs against the same crate with the derive's output written out by hand.
#
#   bash benches/compile_time.sh [N=100] [RUNS=3]
#
# Both crates depend on this checkout's ctxbudget and share one target directory, so
# dependencies are built once, before timing. Each run touches src/lib.rs and times an
# incremental-free debug build of that crate alone (CARGO_INCREMENTAL=0). Prints the
# median of RUNS for each side. Writes only under $WORK (default /tmp).
set -euo pipefail
N=${1:-100}
RUNS=${2:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp}/ctxbudget-compile-time
rm -rf "$WORK/derived" "$WORK/handwritten"
mkdir -p "$WORK/derived/src" "$WORK/handwritten/src"

# The derive's output for one struct named `Template` (written by a unit test).
CTXBUDGET_DUMP_EXPANSION="$WORK/template.rs" \
  cargo test -q --manifest-path "$ROOT/Cargo.toml" -p ctxbudget-macros \
  expansion_parses_and_has_every_item >/dev/null

for side in derived handwritten; do
  cat >"$WORK/$side/Cargo.toml" <<TOML
[package]
name = "ct-$side"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
ctxbudget = { path = "$ROOT/ctxbudget" }

[workspace]
TOML
  echo '#![allow(dead_code, missing_docs)]' >"$WORK/$side/src/lib.rs"
done
echo 'use ctxbudget::ContextLayers;' >>"$WORK/derived/src/lib.rs"

template=$(cat "$WORK/template.rs")
for i in $(seq 1 "$N"); do
  cat >>"$WORK/derived/src/lib.rs" <<RS
#[derive(ContextLayers)]
#[context(total = 8192, output = 1024)]
pub struct Ctx$i {
    #[budget(tokens = 512, required)] system: String,
    #[budget(tokens = 2048)] memory: String,
    #[budget(tokens = 4096)] semantic: Vec<String>,
    #[budget(tokens = 512, required)] user: String,
}
RS
  cat >>"$WORK/handwritten/src/lib.rs" <<RS
pub struct Ctx$i {
    system: String,
    memory: String,
    semantic: Vec<String>,
    user: String,
}
${template//Template/Ctx$i}
RS
done

export CARGO_TARGET_DIR="$WORK/target" CARGO_INCREMENTAL=0
for side in derived handwritten; do
  cargo build -q --manifest-path "$WORK/$side/Cargo.toml" # dependencies, untimed
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for side in derived handwritten; do
  for _ in $(seq 1 "$RUNS"); do
    touch "$WORK/$side/src/lib.rs"
    start=$(date +%s.%N)
    cargo build -q --manifest-path "$WORK/$side/Cargo.toml"
    end=$(date +%s.%N)
    echo "$end - $start" | bc
  done | median | xargs printf "%-12s N=$N  median of $RUNS builds: %.2f s\n" "$side"
done
