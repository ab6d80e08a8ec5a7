#!/usr/bin/env bash
# Invalid command-line use exits with status 2 and exactly one line naming what is wrong.
set -u
binary="$1"
source_dir="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

expect_usage_error() {
    local description="$1" pattern="$2"
    shift 2
    local stderr_file="$work/stderr"
    "$@" >"$work/stdout" 2>"$stderr_file"
    local status=$?
    local lines
    lines=$(wc -l <"$stderr_file")
    if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$pattern" "$stderr_file"; then
        echo "FAIL: $description: status $status, $lines line(s): $(cat "$stderr_file")"
        failures=$((failures + 1))
    else
        echo "ok: $description -> $(cat "$stderr_file")"
    fi
}

printf '{"parallel": {"tp": 3}}' >"$work/tp3.json"
printf '{"train": {"seq_len": 4096,}' >"$work/malformed.json"
printf '{"cluster": {"gpus": -8}}' >"$work/negative.json"
printf '{"train": {"seq_lenx": 4096}}' >"$work/unknown.json"
printf '{"train": {"seq_len": "long"}}' >"$work/type.json"
printf '{"cluster": {"gpus": 64}, "parallel": {"dp": 4}}' >"$work/contradiction.json"
printf '{"cluster": {"gpus": 60}, "parallel": {"tp": 8}}' >"$work/indivisible.json"

expect_usage_error "unknown panel" "panel" "$binary" export --panel nope --out "$work/out"
expect_usage_error "size 0x0" "size" "$binary" export --size 0x0 --out "$work/out"
expect_usage_error "sidebar neither open nor folded" "sidebar" "$binary" export --sidebar sideways --out "$work/out"
expect_usage_error "missing scenario file" "no such file" "$binary" export --scenario "$work/none.json" --out "$work/out"
expect_usage_error "eval of a missing file" "no such file" "$binary" eval "$work/none.json"
expect_usage_error "TP does not divide the heads" "parallel.tp" "$binary" eval "$work/tp3.json"
expect_usage_error "malformed JSON" "malformed JSON" "$binary" eval "$work/malformed.json"
expect_usage_error "negative GPU count" "cluster.gpus" "$binary" eval "$work/negative.json"
expect_usage_error "unknown key" "train.seq_lenx" "$binary" eval "$work/unknown.json"
expect_usage_error "wrong type" "train.seq_len" "$binary" eval "$work/type.json"
expect_usage_error "dp contradicts the GPU count" "parallel.dp" "$binary" eval "$work/contradiction.json"
expect_usage_error "GPUs not divisible by tp x pp x cp" "cluster.gpus" "$binary" eval "$work/indivisible.json"
expect_usage_error "unknown option" "--bogus" "$binary" eval --bogus "$work/tp3.json"
expect_usage_error "unknown subcommand argument" "" "$binary" eval

# A valid eval prints JSON with the fields the issue lists, and no NaN.
"$binary" eval "$source_dir/assets/scenarios/default.json" >"$work/report.json" 2>"$work/stderr" || { echo "FAIL: eval of the default scenario"; failures=$((failures + 1)); }
for field in '"state_bytes"' '"per_gpu"' '"model_flops_per_step"' '"step_seconds"' '"bubble_fraction"' '"ridge_flops_per_byte"'; do
    grep -q "$field" "$work/report.json" || { echo "FAIL: eval output lacks $field"; failures=$((failures + 1)); }
done
# nlohmann/json writes NaN and infinity as null: no figure may be null.
if grep -Eqi ':[[:space:]]*(null|nan|-?inf)' "$work/report.json"; then echo "FAIL: eval printed NaN or infinity"; failures=$((failures + 1)); fi

"$binary" --help >/dev/null || { echo "FAIL: --help"; failures=$((failures + 1)); }
"$binary" --version | grep -q '^shardscope [0-9]' || { echo "FAIL: --version"; failures=$((failures + 1)); }
exit $((failures > 0))
