#!/usr/bin/env bash
# A Hugging Face config.json is a scenario wherever one is taken: eval, plan, export, trace and cost read it directly, as
# the default scenario with its model, for every family the import reads (tests/cli/hf_configs: the published files).
# The import keeps the scenario's 8,192-token sequence (max_position_embeddings is the context window, 131,072 for Llama
# 3.1: 584 GB of activations when it was taken for the training length), cut only to a shorter window (GPT-2's 1,024
# learned positions), and names the model after the architecture and its size, the published count within 1 %.
set -u
binary="$1"
source_dir="$2"
configs="$source_dir/tests/cli/hf_configs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
ok() { echo "ok: $*"; }

# file, architecture, published parameter count, tokens per sequence (GPT-2 learns 1,024 positions: its window)
while read -r file architecture published tokens; do
    if ! "$binary" eval --json "$configs/$file" >"$work/eval.json" 2>"$work/err"; then
        fail "eval $file: $(cat "$work/err")"
        continue
    fi
    if python3 - "$work/eval.json" "$architecture" "$published" "$tokens" <<'PY'; then ok "eval $file: $architecture, $tokens tokens per sequence, the published size"; else fail "eval $file"; fi
import json, sys
report = json.load(open(sys.argv[1]))
architecture, published, tokens = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
params = report["params"]["total"] if isinstance(report["params"], dict) else report["params"]
tokens_per_sequence = report["compute"]["tokens_per_step"] / 512  # the default global batch
problems = []
if not report["model"].startswith(architecture + " "): problems.append("model named %r" % report["model"])
if abs(params - published) > 0.01 * published: problems.append("%.4g parameters, published %.4g" % (params, published))
if tokens_per_sequence != tokens: problems.append("%g tokens per sequence" % tokens_per_sequence)
for problem in problems: print("  " + problem)
sys.exit(1 if problems else 0)
PY
done <<'LIST'
llama-3.1-8b.json LlamaForCausalLM 8.03e9 8192
gpt2.json GPT2LMHeadModel 124439808 1024
mixtral-8x7b.json MixtralForCausalLM 46.7e9 8192
deepseek-v2-lite.json DeepseekV2ForCausalLM 15.7e9 8192
deepseek-v3.json DeepseekV3ForCausalLM 671e9 8192
qwen1.5-moe-a2.7b.json Qwen2MoeForCausalLM 14.3e9 8192
qwen3-235b-a22b.json Qwen3MoeForCausalLM 235e9 8192
llama4-maverick.json Llama4ForConditionalGeneration 400e9 8192
LIST

# The other commands take the config too.
llama="$configs/llama-3.1-8b.json"
"$binary" plan --json --top 3 "$llama" >"$work/plan.json" 2>"$work/err" &&
    python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); sys.exit(not (p["seq_len"] == 8192 and p["ranking"]))' "$work/plan.json" \
    && ok "plan llama-3.1-8b.json" || fail "plan llama-3.1-8b.json: $(cat "$work/err")"
"$binary" cost "$llama" >"$work/cost.txt" 2>"$work/err" && grep -q "LlamaForCausalLM\|64 x H100" "$work/cost.txt" \
    && ok "cost llama-3.1-8b.json" || fail "cost llama-3.1-8b.json: $(cat "$work/err")"
"$binary" trace "$llama" --out "$work/trace.json" >"$work/out" 2>"$work/err" && [ -s "$work/trace.json" ] \
    && ok "trace llama-3.1-8b.json" || fail "trace llama-3.1-8b.json: $(cat "$work/err")"
if [ -n "${DISPLAY:-}" ] || command -v xvfb-run >/dev/null; then
    run=("$binary"); [ -z "${DISPLAY:-}" ] && run=(xvfb-run -a "$binary")
    "${run[@]}" export --scenario "$llama" --panel stack --out "$work/png" >"$work/out" 2>"$work/err" && [ -s "$work/png/stack.png" ] \
        && ok "export --scenario llama-3.1-8b.json" || fail "export llama-3.1-8b.json: $(cat "$work/err")"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
