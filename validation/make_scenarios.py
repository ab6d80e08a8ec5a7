#!/usr/bin/env python3
"""Turns each published run of published_runs.json into the ShardScope scenario a knowledgeable user would write for it,
and writes runs.json: for every run the scenario, the published figure it is checked against (the step in seconds, from
the published step or tokens/s per GPU; the peak memory in bytes) and the run's family; runs the model cannot represent are
listed apart with the reason. The rules below are the only place a run's setup is read: framework defaults are stated
with the line of the framework they come from.

Usage: make_scenarios.py            writes runs.json beside this file
       make_scenarios.py --check    fails when runs.json differs from what this script writes (CTest runs it)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Models the catalog holds under these names (assets/models.json), by the names the sources give.
PRESETS = {"llama3-8b", "llama3-70b", "llama3-405b", "llama2-7b", "gpt3-175b", "mixtral-8x7b", "deepseek-v3"}

# GPUs by catalog id; the sources' names mapped where they differ. "a100-unspecified": the A100s of Selene and MegaScale
# are the 80 GB SXM part (Narayanan et al. 2021 sec 5: "80-GB A100"; MegaScale sec 6: A100 80GB? not stated: kept 80 GB).
GPUS = {"a100-sxm": "a100-sxm", "a100-40gb": "a100-40gb", "h100-sxm": "h100-sxm", "h200-sxm": "h200-sxm", "b200": "b200",
        "a100-unspecified": "a100-sxm", "rtx-4090": "rtx-4090"}


def tokens_per_step(run):
    layout = run["layout"]
    if not layout.get("global_batch") or not layout.get("seq_len"):
        return None
    return layout["global_batch"] * layout["seq_len"]


def published_step_seconds(run):
    """The step the run reports, or the one its tokens/s per GPU implies for its global batch."""
    measured = run["measured"]
    if measured.get("step_seconds"):
        return measured["step_seconds"], "step_seconds"
    tokens = tokens_per_step(run)
    if measured.get("tokens_per_s_per_gpu") and tokens:
        return tokens / (measured["tokens_per_s_per_gpu"] * run["hardware"]["count"]), "tokens_per_s_per_gpu"
    return None, None


def model_of(run):
    model = run["model"]
    preset = model.get("preset")
    if preset in PRESETS:
        return {"preset": preset}
    needed = ("layers", "hidden", "heads", "ffn_hidden", "vocab")
    if not all(isinstance(model.get(key), int) for key in needed):
        return None
    name = model.get("name", run["id"])
    spec = {"name": name, "layers": model["layers"], "hidden": model["hidden"], "heads": model["heads"],
            "kv_heads": model.get("kv_heads") or model["heads"], "ffn_hidden": model["ffn_hidden"], "vocab": model["vocab"],
            "gated_mlp": bool(model.get("gated_mlp")), "tied_embeddings": bool(model.get("tied_embeddings", False)),
            "bias": False}
    if name.lower().startswith("mpt"):
        # MPT (llm-foundry mpt yamls): learned absolute positions up to max_seq_len, no biases, tied embeddings.
        spec.update({"learned_positions": True, "positions": run["layout"]["seq_len"], "tied_embeddings": True})
    return spec


def recompute_of(run):
    text = (run["layout"].get("recompute") or "none").lower()
    if text.startswith("full"):
        return "full"
    if text.startswith("selective"):
        return "selective"
    return "none"


def scenario_of(run):
    """The scenario, or (None, reason)."""
    family = run["family"]
    layout = run["layout"]
    hardware = run["hardware"]
    gpu = GPUS.get(hardware["gpu"])
    if gpu is None:
        return None, f"GPU {hardware['gpu']} is not in the catalog"
    model = model_of(run)
    if model is None:
        return None, "the model's shape is not given"
    if run.get("layout_inconsistent"):
        return None, "its layout does not multiply out to its GPU count"
    precision = layout.get("precision")
    if precision not in ("bf16", "fp16", "fp8", None):
        return None, f"{precision} training is not modelled"
    gpus = hardware["count"]
    tp, pp, cp = layout.get("tp") or 1, layout.get("pp") or 1, layout.get("cp") or 1
    if gpus % (tp * pp * cp):
        return None, "tp x pp x cp does not divide the GPU count"
    micro_batch = layout.get("micro_batch") or 1
    scenario = {
        "model": model,
        "train": {"seq_len": layout["seq_len"], "micro_batch": micro_batch, "global_batch": layout["global_batch"],
                  "recompute": recompute_of(run), "flash_attention": True, "dropout": False},
        "parallel": {"tp": tp, "pp": pp, "cp": cp},
        "cluster": {"gpu": gpu, "gpus": gpus, "gpus_per_node": hardware.get("gpus_per_node") or 8},
    }
    train, parallel = scenario["train"], scenario["parallel"]
    fp8 = precision == "fp8"
    virtual = layout.get("virtual_stages") or 1
    if pp > 1 and virtual > 1:
        parallel["schedule"] = "interleaved"
        parallel["virtual_stages"] = virtual
    if family == "torchtitan":
        # FSDP2 with torchtitan's mixed precision (bf16 parameters gathered, fp32 gradients reduced: its MixedPrecisionPolicy
        # defaults), Float8 through torchao's float8 linears (tensorwise scaling). TP applies sequence parallelism to the
        # norms (torchtitan parallelize_llama.py apply_tp: SequenceParallel); async TP overlaps its collectives with the
        # GEMMs; PP runs 1F1B or interleaved 1F1B over micro-batches of one sequence (pipeline_parallel_microbatch_size 1).
        if layout.get("float8_recipe") == "rowwise":
            return None, "row-wise scaled float8 GEMMs are not in the GPU tables (only tensor-wise scaling is)"
        train["framework"] = "torchtitan"
        train["sequence_parallel"] = tp > 1
        if layout.get("async_tp"):
            scenario["overlap"] = {"tp_comm": True}
        train["compile"] = bool(layout.get("compile"))
        parallel["zero"] = 3
        scenario["precision"] = {"recipe": "fp8-bf16-activations" if fp8 else "pytorch-fsdp2-mixed"}
    elif family.startswith("nemo-automodel"):
        train["framework"] = "hf-transformers"
        train["compile"] = bool(layout.get("compile"))
        parallel["zero"] = 3
        scenario["precision"] = {"recipe": "pytorch-fsdp2-mixed"}
    elif family == "llm-foundry":
        # Composer's FSDP (FULL_SHARD: ZeRO-3), mixed precision DEFAULT (bf16 parameters gathered).
        train["framework"] = "llm-foundry"
        parallel["zero"] = 3
        scenario["precision"] = {"recipe": "fp8-bf16-activations" if fp8 else "pytorch-fsdp2-mixed"}
    elif family in ("nemo", "megatron-bridge"):
        # NeMo's and Megatron-Bridge's recipes: Megatron-Core with Transformer Engine, the distributed optimizer, sequence
        # parallelism and TP communication overlap with TP (their performance recipes' defaults: tp_comm_overlap=True).
        train["framework"] = "megatron-core"
        train["sequence_parallel"] = bool(layout.get("sequence_parallel", tp > 1)) and tp > 1
        if tp > 1:
            scenario["overlap"] = {"tp_comm": True}
        scenario["precision"] = {"recipe": "fp8-transformer-engine" if fp8 else "megatron-distributed-optimizer"}
        parallel["zero"] = 1
    elif family in ("megatron-lm",):
        train["framework"] = "megatron"
        scenario["precision"] = {"recipe": "megatron-fp32-grads"}
    elif family in ("megatron-deepspeed", "deepspeed"):
        train["framework"] = "deepspeed"
        parallel["zero"] = 1
        scenario["precision"] = {"recipe": "deepspeed-zero-bf16"}
    else:
        return None, f"family {family} is not modelled"
    if not train["global_batch"] or train["global_batch"] % (micro_batch * gpus // (tp * pp * cp)):
        return None, "its global batch does not divide over the data-parallel ranks"
    return scenario, None


def main():
    source = json.load(open(os.path.join(HERE, "published_runs.json")))
    runs, excluded = [], []
    for run in source["training"]:
        step, basis = published_step_seconds(run)
        scenario, reason = scenario_of(run)
        if scenario is not None and step is None:
            scenario, reason = None, "it publishes neither a step time nor tokens/s with its batch"
        if scenario is None:
            excluded.append({"id": run["id"], "family": run["family"], "reason": reason})
            continue
        runs.append({"id": run["id"], "family": run["family"], "gpu": scenario["cluster"]["gpu"],
                     "published_step_seconds": step, "published_from": basis, "scenario": scenario})
    out = {"about": "Generated by make_scenarios.py from published_runs.json: each run as a scenario, and the published step "
                    "it is checked against. Do not edit by hand.",
           "runs": runs, "excluded": excluded}
    text = json.dumps(out, indent=1) + "\n"
    path = os.path.join(HERE, "runs.json")
    if "--check" in sys.argv:
        if open(path).read() != text:
            sys.exit("runs.json differs from what make_scenarios.py writes: run it")
        return
    open(path, "w").write(text)
    print(f"{len(runs)} runs, {len(excluded)} excluded")


if __name__ == "__main__":
    main()
