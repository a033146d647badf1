#!/usr/bin/env bash
# How `ctxbudget batch` scales with threads, and what a drop-only fit costs when it
# does not count what it drops.
#
#   bash benches/batch_scaling.sh [RUNS=5] [N_SMALL=20000] [N_LARGE=1000]
#
# Makes JSON lines of about 1 KB and of about 50 KB (about 10,000 `o200k_base`
# tokens): texts for `batch count` and `batch trim`, OpenAI Chat Completions bodies
# for `batch fit` (cut from tests/fixtures/requests/openai/coding_session.json at a
# message boundary that leaves every tool call with its results). Then runs each
# command with `-j 1` and `-j 2`, interleaved RUNS times, and prints the median
# lines/s of each (from the summary `batch` prints, which leaves out start-up) and
# the ratio of 2 threads to 1.
#
# Then fits the ~10,000-token bodies to 4,000 tokens (`--max-input 4000
# --drop-only`) on one thread with this build and, when BEFORE names another
# `ctxbudget` binary (a build of an earlier commit), with that one, interleaved, and
# counts the instructions a line costs with each (callgrind, when valgrind is there).
#
# The machine's load moves these figures: run it on an idle machine, or read the
# ratios of runs made side by side. Writes only under $WORK (default /tmp).
set -euo pipefail
RUNS=${1:-5}
N_SMALL=${2:-20000}
N_LARGE=${3:-1000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp}/ctxbudget-batch-scaling
BIN=${BIN:-$ROOT/target/release/ctxbudget}
BEFORE=${BEFORE:-}
mkdir -p "$WORK"

if [[ -z ${BIN_BUILT:-} ]]; then
  cargo build -q --release --manifest-path "$ROOT/Cargo.toml" -p ctxbudget-cli --bin ctxbudget
fi

python3 - "$ROOT/tests/fixtures/requests/openai/coding_session.json" "$WORK" \
  "$N_SMALL" "$N_LARGE" <<'PY'
import json, sys

fixture, work, n_small, n_large = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
body = json.load(open(fixture))
messages = body["messages"]


def valid_cut(i):
    """A prefix of i messages leaves no tool call without its results."""
    if i < 3 or i >= len(messages):
        return False
    last, nxt = messages[i - 1], messages[i]
    return nxt["role"] != "tool" and not (last["role"] == "assistant" and last.get("tool_calls"))


def cut(size):
    best = None
    for i in range(3, len(messages)):
        if valid_cut(i):
            line = json.dumps(dict(body, messages=messages[:i]), separators=(",", ":"))
            if best is None or abs(len(line) - size) < abs(len(best) - size):
                best = line
    return best


small_body = json.dumps(
    {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "You are a careful coding assistant."},
            {"role": "user", "content": "Why does the build fail? " + "The log says: error[E0308]: mismatched types. " * 6},
            {"role": "assistant", "content": "The function returns a `usize` where the caller expects a `u64`. " * 4},
            {"role": "user", "content": "And how do I fix it without a cast? " + "It is called from three places. " * 5},
        ],
    },
    separators=(",", ":"),
)
large_body = cut(50_000)
prose = " ".join(m.get("content") or "" for m in messages if isinstance(m.get("content"), str))


def text_line(size, i):
    start = (i * 997) % max(1, len(prose) - size)
    return json.dumps({"id": i, "text": prose[start : start + size]})


with open(f"{work}/text-1k.jsonl", "w") as f:
    for i in range(n_small):
        f.write(text_line(1000, i) + "\n")
with open(f"{work}/text-50k.jsonl", "w") as f:
    for i in range(n_large):
        f.write(text_line(50_000, i) + "\n")
with open(f"{work}/fit-1k.jsonl", "w") as f:
    f.write((small_body + "\n") * n_small)
with open(f"{work}/fit-50k.jsonl", "w") as f:
    f.write((large_body + "\n") * n_large)
print(f"bodies: {len(small_body)} and {len(large_body)} bytes; texts: 1000 and 50000 characters")
PY

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# One run: prints `LINES_PER_S CORES`, the lines/s the summary gives (`... in 1.23 s
# (456 lines/s)`) and the cores the process had on average (CPU time over wall
# time): when `-j 2` gets fewer than 2, the machine's other work took the rest.
run_one() { # binary threads input args...
  local bin=$1 threads=$2 input=$3
  shift 3
  local times="$WORK/time.txt"
  local summary
  summary=$(/usr/bin/time -f '%U %S %e' -o "$times" \
    "$bin" batch "$@" -j "$threads" -i "$input" -o /dev/null 2>&1 >/dev/null || true)
  local rate
  rate=$(sed -n 's/.*(\([0-9]*\) lines\/s).*/\1/p' <<<"$summary" | head -1)
  awk -v rate="${rate:-0}" '{ printf "%s %.2f\n", rate, ($3 > 0 ? ($1 + $2) / $3 : 0) }' "$times"
}

declare -A CASES=(
  [count-1k]="text-1k.jsonl|count --encoding o200k_base"
  [count-50k]="text-50k.jsonl|count --encoding o200k_base"
  [trim-1k]="text-1k.jsonl|trim --encoding o200k_base --tokens 100"
  [trim-50k]="text-50k.jsonl|trim --encoding o200k_base --tokens 4000"
  [fit-1k]="fit-1k.jsonl|fit --model gpt-4o --drop-only --max-input 150"
  [fit-50k]="fit-50k.jsonl|fit --model gpt-4o --drop-only"
  [fit-50k-4000]="fit-50k.jsonl|fit --model gpt-4o --drop-only --max-input 4000"
)
ORDER=(count-1k count-50k trim-1k trim-50k fit-1k fit-50k fit-50k-4000)

# Median of the first (lines/s) and second (cores) fields of lines on stdin.
medians() {
  local data
  data=$(cat)
  printf '%s %s' "$(cut -d' ' -f1 <<<"$data" | median)" "$(cut -d' ' -f2 <<<"$data" | median)"
}

echo "threads: -j 1 against -j 2, median of $RUNS interleaved runs: lines/s (cores had)"
printf '%-14s %16s %16s %7s\n' case "-j 1" "-j 2" ratio
for case in "${ORDER[@]}"; do
  IFS='|' read -r input args <<<"${CASES[$case]}"
  one="" two=""
  for _ in $(seq "$RUNS"); do
    # shellcheck disable=SC2086
    one+="$(run_one "$BIN" 1 "$WORK/$input" $args)"$'\n'
    # shellcheck disable=SC2086
    two+="$(run_one "$BIN" 2 "$WORK/$input" $args)"$'\n'
  done
  read -r r1 c1 <<<"$(printf '%s' "$one" | medians)"
  read -r r2 c2 <<<"$(printf '%s' "$two" | medians)"
  printf '%-14s %9s (%4s) %9s (%4s) %6.2fx\n' "$case" "$r1" "$c1" "$r2" "$c2" \
    "$(echo "$r2 / $r1" | bc -l)"
done

if [[ -n $BEFORE ]]; then
  echo
  echo "fit of ~10,000-token bodies to 4,000 tokens, --drop-only, -j 1: $BEFORE against $BIN"
  args="fit --model gpt-4o --drop-only --max-input 4000"
  before="" after=""
  for _ in $(seq "$RUNS"); do
    # shellcheck disable=SC2086
    before+="$(run_one "$BEFORE" 1 "$WORK/fit-50k.jsonl" $args)"$'\n'
    # shellcheck disable=SC2086
    after+="$(run_one "$BIN" 1 "$WORK/fit-50k.jsonl" $args)"$'\n'
  done
  read -r r1 c1 <<<"$(printf '%s' "$before" | medians)"
  read -r r2 c2 <<<"$(printf '%s' "$after" | medians)"
  printf 'before %s lines/s (%s cores), after %s lines/s (%s cores): %.2fx\n' \
    "$r1" "$c1" "$r2" "$c2" "$(echo "$r2 / $r1" | bc -l)"
  # On a loaded machine, lines per second of CPU time compare the work itself.
  printf 'per CPU second: before %.0f, after %.0f: %.2fx\n' "$(echo "$r1 / $c1" | bc -l)" \
    "$(echo "$r2 / $c2" | bc -l)" "$(echo "($r2 / $c2) / ($r1 / $c1)" | bc -l)"
fi

# Instructions (callgrind) per line, which the machine's load does not move: 100
# lines less an empty input (the counter's loading), before and after.
if [[ -n $BEFORE ]] && command -v valgrind >/dev/null; then
  head -100 "$WORK/fit-50k.jsonl" >"$WORK/fit-50k-100.jsonl"
  instructions() { # binary input
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" batch fit --model gpt-4o \
      --drop-only --max-input 4000 -j 1 -i "$2" -o /dev/null 2>&1 |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  per_line() { # binary
    echo "($(instructions "$1" "$WORK/fit-50k-100.jsonl") - $(instructions "$1" /dev/null)) / 100" | bc
  }
  i1=$(per_line "$BEFORE")
  i2=$(per_line "$BIN")
  printf 'instructions a line: before %s, after %s: %.2fx fewer\n' "$i1" "$i2" \
    "$(echo "$i1 / $i2" | bc -l)"
fi
