#!/usr/bin/env bash
# Instruction counts (callgrind) of `ctxbudget batch fit` on the bodies of
# benches/python/side_by_side.py, per request: at the three limits of its table
# (keeping 10%, 40% and 90% of the tokens) and at a limit above every request (every
# message counted once, nothing dropped: the counting row). One thread, --drop-only;
# a run over an empty file (process start, vocabulary load) is taken off. Instruction
# counts do not depend on the load of a shared machine, where the clock does.
# Usage: [PYTHON=venv/bin/python] [COUNT=60] [DIR=/tmp/bodies]
#        bash benches/python/instructions.sh
# (needs valgrind, the release binary and side_by_side.py's requirements)
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${PYTHON:-python3}"
dir="${DIR:-$(mktemp -d)}"
binary="${CTXBUDGET:-target/release/ctxbudget}"
count="${COUNT:-60}"
if [ ! -f "$dir/small.limits" ]; then
    "$python" benches/python/side_by_side.py --count "$count" --write "$dir"
fi
: >"$dir/empty.jsonl"
ir() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" batch fit \
        --model gpt-4o --drop-only --threads 1 -o /dev/null "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
base=$(ir --max-input 1000 -i "$dir/empty.jsonl")
echo "| set | limit (share kept) | instructions per request | / everything counted once |"
echo "| --- | --- | ---: | ---: |"
for set in small large; do
    lines=$(wc -l <"$dir/$set.jsonl")
    all=$(ir --max-input 1000000 -i "$dir/$set.jsonl")
    per_all=$(((all - base) / lines))
    while read -r limit kept; do
        fit=$(ir --max-input "$limit" -i "$dir/$set.jsonl")
        awk -v s="$set" -v l="$limit" -v k="$kept" -v f="$(((fit - base) / lines))" -v a="$per_all" \
            'BEGIN { printf "| %s | %d (%.0f%%) | %d | %.2fx |\n", s, l, k * 100, f, f / a }'
    done <"$dir/$set.limits"
    echo "| $set | above every request (100%) | $per_all | 1.00x |"
done
echo "(process start and vocabulary load, taken off: $base instructions)"
