#!/bin/sh
# Runs every fuzz target (or the ones named) for SECONDS each, one after another,
# with the flags fuzz/README.md gives, and prints the runs and the coverage of each.
#
#   fuzz/run_all.sh [SECONDS] [TARGET...]      (default: 600 seconds, every target)
#
# Logs go to fuzz/logs/TARGET.log; a crash leaves its input in fuzz/artifacts/TARGET/.
# Exit code: 0 when no target failed, 1 otherwise.
set -u
cd "$(dirname "$0")" || exit 1
export RUSTC_BOOTSTRAP=1

seconds=${1:-600}
[ $# -gt 0 ] && shift
if [ $# -gt 0 ]; then
    targets=$*
else
    targets=$(cargo fuzz list)
fi

flags() {
    case $1 in
        trim | trim_tokenizers) echo "-max_len=8192" ;;
        trim_misbehaving) echo "-max_len=4096 -timeout=10" ;;
        openai_request) echo "-max_len=8192 -timeout=10" ;;
        anthropic_request) echo "-max_len=8192 -timeout=10 -dict=anthropic_request.dict" ;;
        responses_request) echo "-max_len=8192 -timeout=10 -dict=responses_request.dict" ;;
        gemini_request) echo "-max_len=8192 -timeout=10 -dict=gemini_request.dict" ;;
        bedrock_request) echo "-max_len=8192 -timeout=10 -dict=bedrock_request.dict" ;;
        fit_edits) echo "-max_len=262144 -timeout=10" ;;
        openai_structured | anthropic_structured | batch_lines)
            echo "-max_len=1048576 -timeout=180 -rss_limit_mb=4096" ;;
        *) echo "-max_len=4096" ;;
    esac
}

# The request targets start from the fixtures (with their option bytes in front).
seed() {
    case $1 in
        openai_request)
            mkdir -p corpus/openai_request
            for f in ../tests/fixtures/requests/openai/*.json; do
                [ -e "corpus/openai_request/$(basename "$f")" ] ||
                    { printf '\040'; cat "$f"; } > "corpus/openai_request/$(basename "$f")"
            done ;;
        anthropic_request)
            mkdir -p corpus/anthropic_request
            for f in ../tests/fixtures/requests/anthropic/*.json; do
                [ -e "corpus/anthropic_request/$(basename "$f")" ] ||
                    { printf 'AAA'; cat "$f"; } > "corpus/anthropic_request/$(basename "$f")"
            done ;;
        responses_request)
            mkdir -p corpus/responses_request
            [ -e corpus/responses_request/session.json ] ||
                { printf 'A'; cat ../tests/fixtures/responses/agent_session.json; } \
                    > corpus/responses_request/session.json ;;
        gemini_request)
            mkdir -p corpus/gemini_request
            [ -e corpus/gemini_request/session.json ] ||
                { printf 'A'; cat ../tests/fixtures/gemini/agent_session.json; } \
                    > corpus/gemini_request/session.json ;;
        bedrock_request)
            mkdir -p corpus/bedrock_request
            [ -e corpus/bedrock_request/session.json ] ||
                { printf 'A'; cat ../tests/fixtures/bedrock/agent_session.json; } \
                    > corpus/bedrock_request/session.json ;;
        openai_structured | anthropic_structured | batch_lines)
            # Random bytes read as the grammar are richer bodies than the short
            # inputs libFuzzer starts with (64 B to 2 KB).
            if [ ! -d "corpus/$1" ]; then
                mkdir -p "corpus/$1"
                i=1
                while [ $i -le 32 ]; do
                    head -c $((64 * i)) /dev/urandom > "corpus/$1/random-$i"
                    i=$((i + 1))
                done
            fi ;;
        fit_edits)
            # Limits of 2,048 and 8,192 tokens, keep 3 (bits 2-4), OpenAI (a even) or
            # Anthropic (a odd), with the default options or the grid at 10%.
            mkdir -p corpus/fit_edits
            for f in ../tests/fixtures/requests/openai/*.json; do
                out=corpus/fit_edits/openai-$(basename "$f")
                [ -e "$out" ] || { printf '\000\010\014\000'; cat "$f"; } > "$out"
            done
            for f in ../tests/fixtures/requests/anthropic/*.json; do
                out=corpus/fit_edits/anthropic-$(basename "$f")
                [ -e "$out" ] || { printf '\000\040\015\060'; cat "$f"; } > "$out"
            done ;;
    esac
}

cargo fuzz build || exit 1
mkdir -p logs
failed=0
printf '%-22s %12s %8s %9s %7s  %s\n' target runs cov ft corpus result
for target in $targets; do
    seed "$target"
    # shellcheck disable=SC2046
    cargo fuzz run "$target" -- -max_total_time="$seconds" -print_final_stats=1 \
        $(flags "$target") > "logs/$target.log" 2>&1
    code=$?
    last=$(grep -E '^#[0-9]+' "logs/$target.log" | grep 'cov:' | tail -n 1)
    runs=$(echo "$last" | sed -E 's/^#([0-9]+).*/\1/')
    cov=$(echo "$last" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
    ft=$(echo "$last" | sed -nE 's/.*ft: ([0-9]+).*/\1/p')
    corp=$(echo "$last" | sed -nE 's/.*corp: ([0-9]+).*/\1/p')
    if [ "$code" -eq 0 ]; then
        result=ok
    else
        failed=1
        result="FAILED: $(grep -m 1 -E 'panicked at|ERROR: libFuzzer|==ERROR' "logs/$target.log" | cut -c1-100)"
    fi
    printf '%-22s %12s %8s %9s %7s  %s\n' "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
exit $failed
