#!/usr/bin/env bash
# Instruction counts (callgrind) of trimming and of one count of what it keeps, for
# every shape, size, side and budget of BENCHMARKS.md; prints a Markdown table.
# Usage: [BYTES='1000000 10000000'] [BUDGETS='512 4096 32768'] [CLASSIC=1]
#        [COUNTER=o200k|hf-anthropic|hf-mistral-v1|tekken]
#        bash benches/instructions.sh [shape ...]
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
counter="${COUNTER:-o200k}"
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='instructions::counted' \
        "$binary" "$@" "$counter" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "| input | side | budget | ctxbudget (Ir) | floor (Ir) | ctxbudget / floor | tiktoken-rs floor / ctxbudget |"
echo "|---|---|---|---|---|---|---|"
for shape in "${shapes[@]}"; do
    for bytes in ${BYTES:-1000000 10000000}; do
        for side in head tail; do
            for budget in ${BUDGETS:-512 4096 32768}; do
                ours=$(count ctxbudget "$shape" "$bytes" "$side" "$budget")
                floor=$(count floor "$shape" "$bytes" "$side" "$budget")
                # The tiktoken-rs column costs a third more runs: CLASSIC=1 asks for it.
                classic=0
                if [ "${CLASSIC:-0}" = 1 ]; then
                    classic=$(count floor-tiktoken-rs "$shape" "$bytes" "$side" "$budget")
                fi
                label="$shape-$((bytes / 1000000))MB"
                awk -v l="$label" -v s="$side" -v b="$budget" -v o="$ours" -v f="$floor" -v c="$classic" \
                    'BEGIN { printf "| %s | %s | %d | %d | %d | %.2fx | %s |\n", l, s, b, o, f, o / f, (c > 0 ? sprintf("%.2fx", c / o) : "–") }'
            done
        done
    done
done
