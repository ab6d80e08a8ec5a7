#!/usr/bin/env bash
# `shardscope cost` (seed 004's budget sentence and guard) and `shardscope plan --size` (cost-optimal sizing).
set -u
binary="$1"
source_dir="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
rtx="$source_dir/assets/scenarios/gpt2-124m-2x-rtx4090-spot.json"
seven_b="$source_dir/assets/scenarios/llama2-7b-140b-tokens-14-days.json"

# The sentence, first line of the plain output; the shipped scenario is within its $3.00 budget.
"$binary" cost "$rtx" >"$work/out" 2>"$work/err"
status=$?
[ "$status" -eq 0 ] || fail "cost of the 2x RTX 4090 scenario: status $status: $(cat "$work/err")"
head -n 1 "$work/out" | grep -q '^This will spin up 2× RTX 4090 (spot) at \$0.34/hr each = \$0.68/hr total, run for .* Budget: \$3.00. Within budget, \$[0-9.]* buffer.$' ||
    fail "cost: the first line is not the sentence: $(head -n 1 "$work/out")"
[ -s "$work/err" ] && fail "cost wrote to stderr: $(cat "$work/err")"

# The guard: a budget below the total exits 3 with one line naming the overrun.
"$binary" cost --budget 0.5 "$rtx" >"$work/out" 2>"$work/err"
status=$?
[ "$status" -eq 3 ] || fail "cost --budget 0.5: status $status, expected 3"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q 'exceeds the budget \$0.50 by \$' "$work/err" || fail "cost --budget 0.5: stderr: $(cat "$work/err")"
grep -q 'Over budget by \$' "$work/out" || fail "cost --budget 0.5: the sentence does not say it is over budget"

# JSON for scripts: the arithmetic is there and there is no NaN.
"$binary" cost --json "$rtx" >"$work/cost.json" 2>"$work/err" || fail "cost --json: status $?"
for field in '"sentence"' '"dollars_per_gpu_hour": 0.34' '"total_dollars"' '"buffer_dollars"' '"setup_hours": 0.5'; do
    grep -q -- "$field" "$work/cost.json" || fail "cost --json lacks $field"
done
grep -Eqi ':[[:space:]]*(null|nan|-?inf)' "$work/cost.json" && fail "cost --json printed NaN or infinity"

# Usage errors: exit 2 and one line.
expect_usage_error() {
    local description="$1" pattern="$2"
    shift 2
    "$@" >"$work/out" 2>"$work/err"
    local status=$?
    if [ "$status" -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -q -- "$pattern" "$work/err"; then
        fail "$description: status $status: $(cat "$work/err")"
    fi
}
expect_usage_error "negative budget" "--budget" "$binary" cost --budget -1 "$rtx"
expect_usage_error "a sizing flag without --size" "--size" "$binary" plan --deadline-days 3 "$seven_b"
expect_usage_error "an unknown GPU type" "size.gpus" "$binary" plan --size --gpu-types nope "$seven_b"
printf '{"budget": {"setup_hourz": 1}}' >"$work/typo.json"
expect_usage_error "an unknown budget key" "budget.setup_hourz" "$binary" cost "$work/typo.json"

# Sizing: a ranked table with the front, and JSON whose first row is the cheapest feasible one.
"$binary" plan --size --table --max-gpus 64 --gpu-types h100-sxm,a100-sxm "$seven_b" >"$work/size.txt" 2>"$work/err" || fail "plan --size: status $?: $(cat "$work/err")"
grep -q '^The cheapest way to train Llama 2 7B on 140 B tokens within 14.0 days' "$work/size.txt" || fail "plan --size: no heading: $(head -n 1 "$work/size.txt")"
grep -q 'Pareto front' "$work/size.txt" || fail "plan --size: no Pareto front"
"$binary" plan --size --json --max-gpus 64 --gpu-types h100-sxm,a100-sxm "$seven_b" >"$work/size.json" 2>"$work/err" || fail "plan --size --json: status $?"
grep -q '"rank": 1' "$work/size.json" && grep -q '"front"' "$work/size.json" || fail "plan --size --json: no ranking or front"
# Down a pipe, without --json or --table, JSON: as eval and plan.
"$binary" plan --size --max-gpus 16 --gpu-types h100-sxm "$seven_b" 2>/dev/null | head -c 1 | grep -q '{' || fail "plan --size down a pipe: not JSON"
expect_usage_error "--size with --csv" "--size" "$binary" plan --size --csv "$seven_b"

# A fine-tune sized across the catalog (--method): Megatron's fused layers give way to hf-transformers, where PEFT attaches
# its adapters, and the ranking holds consumer and datacenter GPUs alike; a method that is not one is refused (status 2).
"$binary" plan --size --table --method lora --deadline-days 5000 --max-gpus 2 --gpu-types rtx-4090,h100-sxm "$seven_b" >"$work/lora.txt" 2>"$work/err" ||
    fail "plan --size --method lora: status $?: $(cat "$work/err")"
grep -q '^The cheapest way to fine-tune Llama 2 7B with LoRA rank 8 on 140 B tokens' "$work/lora.txt" || fail "plan --size --method lora: heading: $(head -n 1 "$work/lora.txt")"
grep -q 'RTX 4090' "$work/lora.txt" && grep -q 'H100 SXM' "$work/lora.txt" || fail "plan --size --method lora: not both GPUs ranked: $(cat "$work/lora.txt")"
grep -q 'Framework megatron -> hf-transformers' "$work/err" || fail "plan --size --method lora: no note that the framework changed: $(cat "$work/err")"
"$binary" plan --size --json --method qlora --deadline-days 5000 --max-gpus 1 --gpu-types rtx-4090 "$seven_b" 2>/dev/null >"$work/qlora.json"
grep -q '"method": "qlora"' "$work/qlora.json" && grep -q '"finetune": "QLoRA rank 8 (NF4 base)"' "$work/qlora.json" || fail "plan --size --json --method qlora: $(head -c 300 "$work/qlora.json")"
expect_usage_error "--method that is not one" "--method" "$binary" plan --size --method dora "$seven_b"

# Nothing trains 140B tokens in 15 minutes: exit 3, one line.
"$binary" plan --size --deadline-days 0.01 --max-gpus 16 --gpu-types h100-sxm "$seven_b" >"$work/out" 2>"$work/err"
status=$?
[ "$status" -eq 3 ] && [ "$(wc -l <"$work/err")" -eq 1 ] || fail "plan --size with an impossible deadline: status $status: $(cat "$work/err")"
# A layout that cannot start is still priced, with a warning after the sentence, on stderr and in the JSON; plan finds no
# layout for it and exits 3 with one line.
printf '{"model": {"preset": "llama3-405b"}, "train": {"global_batch": 64, "tokens": 1e9}, "parallel": {"tp": 8, "pp": 1, "dp": 1}, "cluster": {"gpu": "h100-sxm", "gpus": 8}}' >"$work/nofit.json"
"$binary" cost "$work/nofit.json" >"$work/out" 2>"$work/err"
status=$?
[ "$status" -eq 0 ] || fail "cost of a layout that does not fit: status $status"
sed -n 2p "$work/out" | grep -q '^Warning: the layout does not fit: .* per GPU against 85.0 GB of HBM, so this run would not start.$' ||
    fail "cost of a layout that does not fit: no warning under the sentence: $(sed -n 2p "$work/out")"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q '^shardscope: cost: warning: the layout does not fit' "$work/err" || fail "cost, no fit: stderr: $(cat "$work/err")"
"$binary" cost --json "$work/nofit.json" 2>/dev/null | grep -q '"fits": false' || fail "cost --json of a layout that does not fit: no \"fits\": false"
"$binary" plan --table "$work/nofit.json" >"$work/out" 2>"$work/err"
status=$?
[ "$status" -eq 3 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q 'no layout fits in 85.0 GB' "$work/err" || fail "plan with nothing fitting: status $status: $(cat "$work/err")"
grep -q '^No layout fits (' "$work/out" || fail "plan with nothing fitting: the table does not say so: $(cat "$work/out")"

# One text per figure (core/cost/report/figure_text.h): `cost` and `eval --table` say the time to train and the step alike.
"$binary" cost "$seven_b" >"$work/cost.txt" 2>/dev/null
"$binary" eval --table "$seven_b" >"$work/eval.txt" 2>/dev/null
training=$(sed -n 's/^  training  *//p' "$work/cost.txt")
step=$(sed -n 's/^  step  *//p' "$work/cost.txt")
[ -n "$training" ] && grep -q "no failures$" <<<"$training" || fail "cost: no time to train line: $(cat "$work/cost.txt")"
tr -s ' ' <"$work/eval.txt" >"$work/eval-squeezed.txt"  # the table's columns pad with runs of spaces
grep -qF -- "time to train ${training%%: *} (${training#*: })" "$work/eval-squeezed.txt" ||
    fail "eval's time to train differs from cost's \"$training\": $(grep 'time to train' "$work/eval.txt")"
[ -n "$step" ] && grep -qF -- "step time $step" "$work/eval-squeezed.txt" ||
    fail "eval's step time differs from cost's \"$step\": $(grep 'step time' "$work/eval.txt")"

exit $((failures > 0))
