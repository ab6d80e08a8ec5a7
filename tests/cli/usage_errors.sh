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

expect_usage_error "a mistyped command" "unknown command \"evall\" (did you mean eval?)" "$binary" evall "$work/tp3.json"
expect_usage_error "a mistyped command alone" "did you mean scaling?" "$binary" scalin
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
# Errors name the file, and a Hugging Face config's key as the file spells it.
mkdir -p "$work/hf_bad"
printf '{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 128256}' \
  >"$work/hf_bad/config.json"
printf '{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 30, "num_hidden_layers": 32, "vocab_size": 128256}' \
  >"$work/hf_bad/heads.json"
expect_usage_error "malformed JSON names its file" "$work/malformed.json: malformed JSON: parse error at line 1" "$binary" eval "$work/malformed.json"
expect_usage_error "an unknown key names its file" "$work/unknown.json: train.seq_lenx: unknown key" "$binary" eval "$work/unknown.json"
expect_usage_error "a config without hidden_size names it" "$work/hf_bad/config.json: hidden_size: is required" "$binary" eval "$work/hf_bad/config.json"
expect_usage_error "a bad head count in the config's own keys" "$work/hf_bad/heads.json: num_attention_heads: 30 does not divide hidden_size 4096" \
  "$binary" eval "$work/hf_bad/heads.json"
# Serving lengths, rates and targets must be positive: the field is named (eval and serve alike).
printf '{"serving": {"prompt_tokens": 0}}' >"$work/prompt0.json"
printf '{"serving": {"target_qps": -1}}' >"$work/qps.json"
printf '{"serving": {"tpot_ms": 0}}' >"$work/tpot0.json"
printf '{"serving": {"output_tokens": -3}}' >"$work/output.json"
expect_usage_error "zero prompt tokens" "serving.prompt_tokens" "$binary" serve "$work/prompt0.json"
expect_usage_error "negative query rate" "serving.target_qps" "$binary" serve "$work/qps.json"
expect_usage_error "zero TPOT target" "serving.tpot_ms" "$binary" eval "$work/tpot0.json"
expect_usage_error "negative output tokens" "serving.output_tokens" "$binary" serve --table "$work/output.json"
# The finetune section: rank and alpha above 0, a target module of the layer, base_bytes 2, 1 or 0.5.
finetune_base='"model": {"preset": "llama3-8b"}, "train": {"framework": "hf-transformers", "micro_batch": 1, "global_batch": 1}, "cluster": {"gpus": 1}'
printf '{%s, "finetune": {"method": "lora", "rank": 0}}' "$finetune_base" >"$work/rank0.json"
printf '{%s, "finetune": {"method": "lora", "alpha": -2}}' "$finetune_base" >"$work/alpha.json"
printf '{%s, "finetune": {"method": "lora", "targets": ["q_proj", "qkv"]}}' "$finetune_base" >"$work/module.json"
printf '{%s, "finetune": {"method": "qlora", "base_bytes": 0.25}}' "$finetune_base" >"$work/base.json"
expect_usage_error "LoRA rank 0" "finetune.rank" "$binary" eval "$work/rank0.json"
expect_usage_error "negative LoRA alpha" "finetune.alpha" "$binary" eval "$work/alpha.json"
expect_usage_error "unknown target module" "finetune.targets" "$binary" eval "$work/module.json"
expect_usage_error "base_bytes 0.25" "finetune.base_bytes" "$binary" eval "$work/base.json"
expect_usage_error "serve without a scenario" "" "$binary" serve
expect_usage_error "unknown subcommand argument" "" "$binary" eval

# A valid eval prints JSON with the fields the issue lists, and no NaN.
"$binary" eval "$source_dir/assets/scenarios/default.json" >"$work/report.json" 2>"$work/stderr" || { echo "FAIL: eval of the default scenario"; failures=$((failures + 1)); }
for field in '"state_bytes"' '"per_gpu"' '"model_flops_per_step"' '"step_seconds"' '"bubble_fraction"' '"ridge_flops_per_byte"'; do
    grep -q "$field" "$work/report.json" || { echo "FAIL: eval output lacks $field"; failures=$((failures + 1)); }
done
# nlohmann/json writes NaN and infinity as null: no figure may be null.
# (memory.timeline's "layer" is null at a phase boundary: a value, not NaN.)
if grep -v '"layer": null' "$work/report.json" | grep -Eqi ':[[:space:]]*(null|nan|-?inf)'; then echo "FAIL: eval printed NaN or infinity"; failures=$((failures + 1)); fi

# serve: the answer as a table on request, JSON otherwise; a target no replica meets is answered (exit 3), never a NaN.
"$binary" serve --table "$source_dir/assets/scenarios/default.json" >"$work/serve.txt" 2>"$work/stderr"
if [ $? -eq 0 ] && grep -q "^answer .*GPUs at batch" "$work/serve.txt" && grep -q "TP 4" "$work/serve.txt"; then echo "ok: serve --table"; else echo "FAIL: serve --table: $(cat "$work/serve.txt" "$work/stderr")"; failures=$((failures + 1)); fi
printf '{"serving": {"tpot_ms": 1}}' >"$work/tpot1.json"
"$binary" serve --json "$work/tpot1.json" >"$work/serve.json" 2>"$work/stderr"
status=$?
if [ "$status" -eq 3 ] && grep -q '"verdict": "latency"' "$work/serve.json" && grep -q '"shortfall"' "$work/serve.json" &&
   ! grep -Eqi ':[[:space:]]*(null|nan|-?inf)' "$work/serve.json"; then echo "ok: serve of an unmeetable TPOT: exit 3, the shortfall"
else echo "FAIL: serve of an unmeetable TPOT: status $status: $(head -c 400 "$work/serve.json")"; failures=$((failures + 1)); fi
# serve's verdict follows the budget: the QLoRA file's one RTX 4090 cannot serve 10 QPS, though three of them can (exit 3).
"$binary" serve --json "$source_dir/assets/scenarios/llama3-8b-qlora-rtx4090.json" >"$work/serve_qlora.json" 2>"$work/stderr"
status=$?
if [ "$status" -eq 3 ] && grep -q '"verdict": "over_budget"' "$work/serve_qlora.json"; then echo "ok: serve over its GPU budget: exit 3, over_budget"
else echo "FAIL: serve over its GPU budget: status $status: $(grep verdict "$work/serve_qlora.json")"; failures=$((failures + 1)); fi
"$binary" eval --json "$work/tpot1.json" >"$work/unmet.json" 2>"$work/stderr" || { echo "FAIL: eval of an unmeetable TPOT"; failures=$((failures + 1)); }
if grep -v '"layer": null' "$work/unmet.json" | grep -Eqi ':[[:space:]]*(null|nan|-?inf)'; then echo "FAIL: eval of an unmeetable TPOT printed NaN or infinity"; failures=$((failures + 1)); fi

# A recipe file with an unknown op, a missing source or a negative size: the file, the op and the field named.
corpus="$source_dir/fuzz/corpus/recipe"
expect_usage_error "recipe: unknown op" 'unknown_op.json: layer op 1 (input_layernorm.to_fp32): op: unknown op' "$binary" recipe "$corpus/unknown_op.json"
expect_usage_error "recipe: missing source" 'missing_source.json: layer op 2 (input_layernorm.pow): source: missing' "$binary" recipe "$corpus/missing_source.json"
expect_usage_error "recipe: negative size" "negative_size.json: layer op 3 (input_layernorm.mean): shape: unknown size '-'" "$binary" recipe "$corpus/negative_size.json"
expect_usage_error "recipe: a size beyond a double" 'size_beyond_double.json: layer op 3 (input_layernorm.mean): shape: a size must be a finite number > 0' "$binary" recipe --json "$corpus/size_beyond_double.json"
expect_usage_error "recipe: an unknown LoRA style" 'unknown_lora_style.json: lora.style: must be peft or fused_post_dropout, got "dora"' "$binary" recipe "$corpus/unknown_lora_style.json"
expect_usage_error "recipe: an unknown ring-attention rotation" 'unknown_cp_rotation.json: context_parallel.rotation: must be ring or all_gather, got "ulysses"' "$binary" recipe "$corpus/unknown_cp_rotation.json"
expect_usage_error "recipe: an unknown FSDP rule under a pipeline" 'unknown_fsdp_under_pipeline.json: fsdp_under_pipeline.weights: must be kept or per_microbatch, got "resharded"' "$binary" recipe "$corpus/unknown_fsdp_under_pipeline.json"
expect_usage_error "recipe: a condition naming an unknown attention implementation" 'unknown_attention_condition.json: layer op 31 (self_attn.eager.scores): when: unknown condition "eager_attention&flex_attention"' "$binary" recipe "$corpus/unknown_attention_condition.json"
expect_usage_error "eval: a config naming an unknown attn_implementation" 'attn_implementation_flex.json: attn_implementation: must be one of sdpa, flash_attention_2, eager, got "flex_attention"' "$binary" eval "$source_dir/fuzz/corpus/hf_config/attn_implementation_flex.json"
expect_usage_error "eval: an unknown train.attention" 'train.attention: must be one of sdpa, flash_attention_2, eager, got "flex_attention"' "$binary" eval "$source_dir/fuzz/corpus/scenario/train_attention_unknown"
"$binary" recipe --json "$source_dir/assets/frameworks/torchtitan.json" | grep -q '"id": "torchtitan"' || { echo "FAIL: recipe --json of a shipped recipe"; failures=$((failures + 1)); }

"$binary" --help >/dev/null || { echo "FAIL: --help"; failures=$((failures + 1)); }
"$binary" --version | grep -q '^shardscope [0-9]' || { echo "FAIL: --version"; failures=$((failures + 1)); }
exit $((failures > 0))
