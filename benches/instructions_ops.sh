#!/usr/bin/env bash
# Instruction counts (callgrind) of Keep::HeadAndTail, disclose_within and select
# against one count of their output and one count of the whole input, for every
# shape at 1 MB and 4,096 tokens; prints the Markdown table of BENCHMARKS.md.
# Usage: [BYTES=1000000] [BUDGET=4096] bash benches/instructions_ops.sh [shape ...]
# (needs valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench instructions --no-run 2>/dev/null
target="${CARGO_TARGET_DIR:-target}"
binary=$(ls -t "$target"/release/deps/instructions-* | grep -v '\.d$' | head -1)
shapes=("$@")
if [ ${#shapes[@]} -eq 0 ]; then
    shapes=(prose markdown code one-line one-letter cjk cjk-nopunct emoji-zwj base64 base64-alnum)
fi
bytes="${BYTES:-1000000}"
budget="${BUDGET:-4096}"
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='instructions::counted' \
        "$binary" "$@" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "| input | operation | ours (Ir) | floor (Ir) | ours / floor | full count / ours |"
echo "| --- | --- | --- | --- | --- | --- |"
for shape in "${shapes[@]}"; do
    full=$(count count-bpe-openai "$shape" "$bytes" head "$budget")
    for op in head-and-tail disclose_within select; do
        ours=$(count "$op" "$shape" "$bytes" head "$budget")
        floor=$(count "$op-floor" "$shape" "$bytes" head "$budget")
        awk -v s="$shape" -v op="$op" -v o="$ours" -v f="$floor" -v c="$full" \
            'BEGIN { printf "| %s | %s | %d | %d | %.2fx | %.1fx |\n", s, op, o, f, o / f, c / o }'
    done
done
