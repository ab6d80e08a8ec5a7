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


# torchtitan's H100 tables ran on Meta's H100s, not the catalog's H100 SXM: "Each H100 GPU is equipped with 96GB HBM2e with
# 2.4 TB/sec peak memory bandwidth ... the default 500W power limit" (torchtitan benchmarks/llama3_h100_202412_torchtitan.md,
# Hardware; its Llama 3.1 table's footnote 1: "H100 94/95GB HBM2e lower-TDP SXM"). The same GH100 SXM5 silicon: the H100
# SXM's tensor peaks and measured tables, memory-bound kernels at 2.4 TB/s. The 500 W limit lowers its GEMM clocks, which
# no measurement here gives: its compute-bound kernels come out fast. HBM: 96 GiB less the driver's share on the 80 GB part.
META_H100 = {
    "id": "h100-sxm-hbm2e", "name": "H100 SXM 96GB HBM2e (500 W)", "hbm_bytes": 102020992205.0, "hbm_bytes_per_s": 2.4e12,
    "fp32_flops_per_s": 67e12, "bf16_flops_per_s": 989e12, "fp8_flops_per_s": 1979e12, "scale_up_link": "nvlink4",
    "multiprocessors": 132,
    "efficiency": {"like": "h100-sxm", "gemm_scale": 1.0,
                   "source": "the H100 SXM's tables, measured at 700 W; the 500 W limit's lower GEMM clocks not modelled"},
}


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
    # A100 systems (DGX A100, and the clusters built like it: Selene, Jean Zay, MegaScale's) carry 200 Gb/s HDR
    # InfiniBand per GPU; the catalog's default scale-out is the H100 generation's NDR.
    if gpu.startswith("a100"):
        scenario["cluster"]["scale_out_link"] = "ib-hdr"
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
        # GEMMs; PP runs 1F1B or interleaved 1F1B over pp x stages-per-rank micro-batches of the local batch
        # (torchtitan build_pipeline_schedule at 9dec370: pipeline_parallel_microbatches
        # None -> n_microbatches = num_total_stages = pipeline_parallel_degree * len(stages)).
        if layout.get("float8_recipe") == "rowwise":
            return None, "row-wise scaled float8 GEMMs are not in the GPU tables (only tensor-wise scaling is)"
        train["framework"] = "torchtitan"
        if pp > 1 and layout.get("local_batch"):
            train["micro_batch"] = layout["local_batch"] // (pp * virtual)
        if gpu == "h100-sxm":
            scenario["cluster"]["gpu"] = META_H100
        train["sequence_parallel"] = tp > 1
        if layout.get("async_tp"):
            scenario["overlap"] = {"tp_comm": True}
        train["compile"] = bool(layout.get("compile"))
        parallel["zero"] = 3
        scenario["precision"] = {"recipe": "fp8-bf16-activations" if fp8 else "pytorch-fsdp2-mixed"}
    elif family == "torchtune":
        # torchtune's recipes (commit 30b8519e8): every parameter in bf16 (dtype: bf16; torch.optim.AdamW's moments are
        # zeros_like the bf16 parameters), FSDP2 full-shard in its distributed recipes, torch.compile per layer and loss.
        train["framework"] = "torchtune"
        train["compile"] = bool(layout.get("compile"))
        scenario["precision"] = {"recipe": "bf16-pure-adamw"}
        if gpus > 1:
            parallel["zero"] = 3
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
        # Megatron-LM before late 2023: gradients all-reduced after the backward (--overlap-grad-reduce and
        # --overlap-param-gather came later, off by default) and blocking pipeline sends (batch_isend_irecv, then
        # synchronize), as the 2021-2022 tables ran it; MegaScale (Jiang et al. 2024 sec 3.2) names both overlaps as its own.
        # Attention as Megatron-LM ran it then: its fused scale-mask-softmax kernels (--use-flash-attn came in 2023, off by
        # default); MegaScale (Jiang et al. 2024 sec 3.4) names FlashAttention-2 among its own operator changes.
        train["framework"] = "megatron"
        train["flash_attention"] = False
        scenario["precision"] = {"recipe": "megatron-fp32-grads"}
        scenario["overlap"] = {"dp_grad_reduce": False, "dp_param_gather": False, "pp_p2p": False}
    elif family in ("megatron-deepspeed", "deepspeed"):
        # DeepSpeed's pipeline engine sends and receives between its schedule's steps and reduces the gradients after the
        # last micro-batch (deepspeed/runtime/pipe/engine.py: _exec_send_activations, _exec_reduce_grads).
        # Megatron-DeepSpeed's attention in 2021-2022: fused scale-mask-softmax kernels, no FlashAttention (published May
        # 2022, after MT-NLG; BLOOM, Le Scao et al. 2022 sec 3.5.3, lists its fused kernels: LayerNorm, scale-mask-softmax, bias-GeLU).
        train["framework"] = "deepspeed"
        train["flash_attention"] = False
        parallel["zero"] = 1
        scenario["precision"] = {"recipe": "deepspeed-zero-bf16"}
        scenario["overlap"] = {"dp_grad_reduce": False, "dp_param_gather": False, "pp_p2p": False}
    else:
        return None, f"family {family} is not modelled"
    if not train["global_batch"] or train["global_batch"] % (micro_batch * gpus // (tp * pp * cp)):
        return None, "its global batch does not divide over the data-parallel ranks"
    return scenario, None


# The 2021-2022 Megatron-LM tables (Korthikanti et al. 2022 Table 5, iteration seconds; Narayanan et al. 2021 Table 1,
# TFLOP/s per GPU counting recompute), set up as the papers and their scripts ran them: fp16 with fp32 main gradients, no
# fused gradient accumulation in fp16, blocking pipeline sends, fused softmax / bias-GeLU / bias-dropout-add, no flash
# attention, dropout 0.1; Table 1's micro-batches and interleaving from Megatron-LM's examples/sc21/run_table_1.sh
# (commit 6985e58). name, preset, tp, pp, virtual stages, GPUs, micro-batch, global batch, selective recompute with SP
# (else full), overlapped DP (PyTorch DDP where PP = 1), measured, Calculon's prediction (Table 5).
KORTHIKANTI_TABLE5 = [
    ("22B, selective + SP", "megatron-22b", 8, 1, 1, 8, 4, 4, True, True, 1.10, 1.14),
    ("22B, full recompute", "megatron-22b", 8, 1, 1, 8, 4, 4, False, True, 1.42, 1.40),
    ("175B, selective + SP", "gpt3-175b", 8, 8, 3, 64, 1, 64, True, True, 13.75, 13.64),
    ("175B, full recompute", "gpt3-175b", 8, 8, 3, 64, 1, 64, False, True, 18.13, 18.03),
    ("530B, selective + SP", "megatron-530b", 8, 35, 3, 280, 1, 280, True, True, 37.83, 34.47),
    ("530B, full recompute", "megatron-530b", 8, 35, 3, 280, 1, 280, False, True, 49.05, 49.89),
    ("1T, selective + SP", "megatron-1t", 8, 64, 1, 512, 1, 512, True, True, 71.49, 66.04),
    ("1T, full recompute", "megatron-1t", 8, 64, 1, 512, 1, 512, False, True, 94.42, 90.08),
]
NARAYANAN_TABLE1 = [
    ("1.7B", "megatron-1.7b", 1, 1, 1, 32, 16, 512, False, True, 137, 0),
    ("3.6B", "megatron-3.6b", 2, 1, 1, 64, 16, 512, False, True, 138, 0),
    ("7.5B", "megatron-7.5b", 4, 1, 1, 128, 16, 512, False, True, 142, 0),
    ("18.4B", "megatron-18.4b", 8, 1, 1, 256, 8, 1024, False, True, 135, 0),
    ("39.1B", "megatron-39.1b", 8, 2, 1, 512, 4, 1536, False, False, 138, 0),
    ("76.1B", "megatron-76.1b", 8, 4, 3, 1024, 2, 1792, False, False, 140, 0),
    ("145.6B", "megatron-145.6b", 8, 8, 2, 1536, 2, 2304, False, False, 148, 0),
    ("310.1B", "megatron-310.1b", 8, 16, 2, 1920, 1, 2160, False, False, 155, 0),
    ("529.6B", "megatron-530b", 8, 35, 3, 2520, 1, 2520, False, False, 163, 0),
    ("1008B", "megatron-1t", 8, 64, 1, 3072, 1, 3072, False, False, 163, 0),
]
# Narayanan et al. 2021 Table 2: ZeRO-3 without model parallelism, DeepSpeed integrated into Megatron-LM's model (sec 5.2),
# at a fixed global batch as the GPUs double, on Selene (DGX A100 80GB, eight HDR HCAs a node); TFLOP/s per GPU counting
# recompute (eq. 3). The DeepSpeed of spring 2021 (0.3.13-0.4.2) is the engine; fp16 with activation checkpointing (eq. 3
# counts the recompute, and 144 TFLOP/s on 384 GPUs gives the table's 90 days). name, preset, GPUs, micro-batch, global
# batch, measured TFLOP/s per GPU.
NARAYANAN_TABLE2_ZERO3 = [
    ("175B-384", "gpt3-175b", 384, 4, 1536, 144),
    ("175B-768", "gpt3-175b", 768, 2, 1536, 88),
    ("175B-1536", "gpt3-175b", 1536, 1, 1536, 44),
    ("530B-640", "megatron-530b", 640, 4, 2560, 138),
    ("530B-1120", "megatron-530b", 1120, 2, 2240, 98),
    ("530B-2240", "megatron-530b", 2240, 1, 2240, 48),
]
# The presets' shapes Narayanan's eq. 3 needs: layers, hidden, vocabulary (assets/models.json).
PRESET_SHAPES = {"megatron-1.7b": (24, 2304), "megatron-3.6b": (30, 3072), "megatron-7.5b": (36, 4096), "megatron-18.4b": (40, 6144),
                 "megatron-39.1b": (48, 8192), "megatron-76.1b": (60, 10240), "megatron-145.6b": (80, 12288),
                 "megatron-310.1b": (96, 16384), "megatron-530b": (105, 20480), "megatron-1t": (128, 25600),
                 "gpt3-175b": (96, 12288)}


def narayanan_flops(preset, batch):
    """Narayanan eq. 3: F = 96 B s l h^2 (1 + s / 6h + V / 16 l h) per iteration, recompute included."""
    layers, hidden = PRESET_SHAPES[preset]
    return 96 * batch * 2048 * layers * hidden ** 2 * (1 + 2048 / (6 * hidden) + 51200 / (16 * layers * hidden))


def megatron_table_runs():
    runs = []
    for table, rows in (("korthikanti-t5", KORTHIKANTI_TABLE5), ("narayanan-t1", NARAYANAN_TABLE1)):
        for name, preset, tp, pp, virtual, gpus, micro, batch, selective, overlapped, measured, calculon in rows:
            scenario = {
                "model": {"preset": preset},
                "train": {"seq_len": 2048, "micro_batch": micro, "global_batch": batch, "recompute": "selective" if selective else "full",
                          "sequence_parallel": selective, "flash_attention": False, "dropout": True, "gradient_accumulation_fusion": False,
                          "framework": "megatron"},
                "precision": {"recipe": "megatron-fp32-grads"},
                "parallel": {"tp": tp, "pp": pp, "dp": gpus // (tp * pp), "schedule": "interleaved" if virtual > 1 else "1f1b",
                             "virtual_stages": virtual},
                "cluster": {"gpu": "a100-sxm", "gpus_per_node": 8, "gpus": gpus, "scale_out_link": "ib-hdr"},
                "overlap": {"dp_grad_reduce": overlapped, "dp_param_gather": False, "pp_p2p": False},
            }
            if table == "korthikanti-t5":
                step, basis = measured, "step_seconds"
            else:
                step, basis = narayanan_flops(preset, batch) / (gpus * measured * 1e12), "tflops_per_gpu (Narayanan eq. 3)"
            runs.append({"id": f"{table}-{name}", "family": "megatron-lm (2021-2022 tables)", "gpu": "a100-sxm",
                         "published_step_seconds": step, "published_from": basis, "calculon_step_seconds": calculon or None,
                         "scenario": scenario})
    for name, preset, gpus, micro, batch, measured in NARAYANAN_TABLE2_ZERO3:
        scenario = {
            "model": {"preset": preset},
            "train": {"seq_len": 2048, "micro_batch": micro, "global_batch": batch, "recompute": "full", "flash_attention": False,
                      "dropout": True, "framework": "deepspeed"},
            "precision": {"recipe": "deepspeed-zero-bf16"},
            "parallel": {"tp": 1, "pp": 1, "dp": gpus, "zero": 3, "zero3_engine": "deepspeed-0.4"},
            "cluster": {"gpu": "a100-sxm", "gpus_per_node": 8, "gpus": gpus, "scale_out_link": "ib-hdr", "fabric": "selene-hdr"},
        }
        runs.append({"id": f"narayanan-t2-zero3-{name}", "family": "deepspeed zero-3 (2021)", "gpu": "a100-sxm",
                     "published_step_seconds": narayanan_flops(preset, batch) / (gpus * measured * 1e12),
                     "published_from": "tflops_per_gpu (Narayanan eq. 3)", "calculon_step_seconds": None, "scenario": scenario})
    return runs


# Hugging Face models trained on one H200 with PyTorch's defaults, measured by measurements/hf_training_probe.py (random
# weights from each model's published config): the scenario each case is, and its step and peaks.
HF_MODELS = {
    "gpt2-124m": {"preset": "gpt2-124m"},
    "gpt2-355m": {"name": "GPT-2 355M", "layers": 24, "hidden": 1024, "heads": 16, "kv_heads": 16, "ffn_hidden": 4096, "vocab": 50257,
                  "gated_mlp": False, "tied_embeddings": True, "learned_positions": True, "positions": 1024, "bias": True},
    "llama3.2-1b": {"preset": "llama3.2-1b"},
    "llama3.2-3b": {"name": "Llama 3.2 3B", "layers": 28, "hidden": 3072, "heads": 24, "kv_heads": 8, "ffn_hidden": 8192, "vocab": 128256,
                    "gated_mlp": True, "tied_embeddings": True, "learned_positions": False, "bias": False},
    "llama3.1-8b": {"preset": "llama3-8b"},
    "qwen2.5-0.5b": {"name": "Qwen2.5 0.5B", "layers": 24, "hidden": 896, "heads": 14, "kv_heads": 2, "ffn_hidden": 4864, "vocab": 151936,
                     "gated_mlp": True, "tied_embeddings": True, "learned_positions": False, "bias": True},
}


def hf_measured_runs():
    runs = []
    # "compiled": each decoder layer compiled (layer.compile()), the head and the loss eager.
    for file, section in (("h200_hf_probe.json", "training"), ("h200_hf_host_probe.json", "heldout"), ("h200_hf_host_probe.json", "compiled")):
        probe = json.load(open(os.path.join(HERE, "..", "measurements", file)))
        for case in probe["sections"].get(section, []):
            compiled = section == "compiled"
            case = dict(case, checkpointing=case.get("checkpointing", False))
            scenario = {
                "model": HF_MODELS[case["model"]],
                "train": {"seq_len": case["seq"], "micro_batch": case["batch"], "global_batch": case["batch"], "framework": "hf-transformers",
                          "recompute": "full" if case["checkpointing"] else "none", "dropout": case["model"].startswith("gpt2")},
                "precision": {"recipe": "pytorch-amp-adam" if case["recipe"] == "autocast" else "bf16-pure-adamw"},
                "cluster": {"gpu": "h200-sxm", "gpus": 1, "gpus_per_node": 1},
            }
            if compiled:
                scenario["train"]["compile"] = True
            name = f"{case['model']}-{case['recipe']}-{'ckpt' if case['checkpointing'] else 'nockpt'}-b{case['batch']}-s{case['seq']}" + ("-compiled" if compiled else "")
            runs.append({"id": f"h200-{name}", "family": "hf-transformers (measured, H200)", "gpu": "h200-sxm",
                         "published_step_seconds": case["step_seconds"], "published_from": f"measurements/{file} {section}",
                         "peak_allocated_bytes": case["peak_allocated"], "peak_reserved_bytes": case["peak_reserved"],
                         "scenario": scenario})
    return runs


# torchtune's module names for the targets its configs list (lora_attn_modules, apply_lora_to_mlp: w1, w2, w3).
TORCHTUNE_TARGETS = {"q_proj": ["q_proj"], "k_proj": ["k_proj"], "v_proj": ["v_proj"], "output_proj": ["output_proj"],
                     "w1": ["w1"], "w2": ["w2"], "w3 (MLP)": ["w3"], "MLP w1/w2/w3": ["w1", "w2", "w3"], "MLP": ["w1", "w2", "w3"]}


def finetune_scenario_of(run):
    """A published fine-tuning run as a scenario, or (None, reason). The training rules set up the model, the GPUs and
    the family's framework; the finetune section and torchtune's own setup are read here."""
    layout, tune = run["layout"], run["finetune"]
    if run["model"].get("arch") == "encoder-decoder":
        return None, "an encoder-decoder model (T5 family): the recipes describe decoder-only layers"
    if not layout.get("seq_len"):
        return None, "its sequence length is not given"
    if layout.get("activation_offloading"):
        return None, "activation offloading (the saved tensors moved to the host) is not modelled"
    if tune.get("optimizer_in_bwd") or "optimizer_in_bwd=True" in (tune.get("optimizer") or "") or "fused into backward" in (tune.get("optimizer") or ""):
        return None, "the optimizer runs inside the backward (optimizer_in_bwd), freeing each gradient as it is made: not modelled"
    if "8bit" in (tune.get("optimizer") or "").lower().replace("-", "") or "8-bit" in (tune.get("optimizer") or ""):
        return None, "an 8-bit AdamW with paged state is not modelled"
    if run["family"] == "torchtune":
        if not layout.get("packed"):
            return None, "unpacked: each batch padded to its longest sequence, whose length the source does not give"
        if not layout.get("chunked_cross_entropy"):
            return None, "its loss is torch.nn.CrossEntropyLoss over the whole logits, not the chunked loss torchtune's recipe describes"
    scenario, reason = scenario_of(run)
    if scenario is None:
        return None, reason
    if run["family"].startswith("nemo-automodel"):
        # Its LoRA benchmarks (examples/llm_finetune/*_peft_benchmark.yaml at 507bfb751) load the model through
        # NeMoAutoModelForCausalLM.from_pretrained, which returns AutoModel's own Llama for LlamaForCausalLM.
        scenario["train"]["framework"] = "nemo-automodel"
    method = tune["method"]
    if method != "full" and scenario["train"]["framework"] in ("megatron-core", "megatron", "deepspeed"):
        return None, "LoRA on Megatron-Core's fused blocks is not modelled (adapters attach to a recipe's named linears)"
    if method != "full":
        section = {"method": method, "rank": tune["rank"], "alpha": tune["alpha"]}
        targets = tune.get("targets")
        if isinstance(targets, list) and all(name in TORCHTUNE_TARGETS for name in targets):
            section["targets"] = [module for name in targets for module in TORCHTUNE_TARGETS[name]]
        elif isinstance(targets, list) and len(targets) == 1 and targets[0].startswith("*_proj"):
            section["targets"] = "all-linear"
        else:
            return None, f"its LoRA targets ({targets}) are not stated"
        if run["family"] == "torchtune":
            # torchtune builds its adapters in the model's dtype (bf16); torchao's NF4Tensor always quantizes its
            # scalers (double quantization: torchao/dtypes/nf4tensor.py, scaler_block_size 256).
            section["adapter_dtype"] = "bf16"
        if method == "qlora":
            section["base_bytes"] = 0.5
            section["double_quant"] = True
        if tune.get("dropout"):
            section["dropout"] = tune["dropout"]
        scenario["finetune"] = section
    return scenario, None


def published_peak_bytes(run):
    """The published peak in bytes (GiB where the source printed GiB) and what kind of peak it is."""
    measured = run["measured"]
    if measured.get("peak_memory_gib"):
        bytes_ = measured["peak_memory_gib"] * 2 ** 30
    elif measured.get("peak_memory_gb"):
        bytes_ = measured["peak_memory_gb"] * 1e9
    else:
        return None, None
    kind = (measured.get("memory_kind") or "").split(" ")[0]
    return bytes_, kind


def finetune_runs():
    """The published fine-tuning runs (their step only where tokens/s is stated per GPU) and the measured PEFT LoRA runs."""
    source = json.load(open(os.path.join(HERE, "published_runs.json")))
    runs, excluded = [], []
    for run in source["finetune"]:
        scenario, reason = finetune_scenario_of(run)
        if scenario is None:
            excluded.append({"id": run["id"], "family": run["family"], "reason": reason})
            continue
        step, basis = published_step_seconds(run)
        peak, kind = published_peak_bytes(run)
        if step is None and peak is None:
            excluded.append({"id": run["id"], "family": run["family"], "reason": "it publishes neither a step (or tokens/s per GPU) nor a peak"})
            continue
        runs.append({"id": run["id"], "family": run["family"], "method": run["finetune"]["method"], "gpu": scenario["cluster"]["gpu"],
                     "published_step_seconds": step, "published_from": basis, "published_peak_bytes": peak, "peak_kind": kind,
                     "scenario": scenario})
    probe = json.load(open(os.path.join(HERE, "..", "measurements", "h200_hf_probe.json")))
    for case in probe["sections"]["lora"]:
        section = {"method": "lora", "rank": 16, "alpha": 32}
        if case["lora"] != "default":
            section["targets"] = "all-linear"
        scenario = {
            "model": HF_MODELS[case["model"]],
            "train": {"seq_len": case["seq"], "micro_batch": case["batch"], "global_batch": case["batch"], "framework": "hf-transformers",
                      "recompute": "full" if case["checkpointing"] else "none", "dropout": False},
            "precision": {"recipe": "pytorch-amp-adam"},
            "cluster": {"gpu": "h200-sxm", "gpus": 1, "gpus_per_node": 1},
            "finetune": section,
        }
        name = f"{case['model']}-{case['lora']}-{'ckpt' if case['checkpointing'] else 'nockpt'}-b{case['batch']}-s{case['seq']}"
        runs.append({"id": f"h200-peft-lora-{name}", "family": "peft (measured, H200)", "method": "lora", "gpu": "h200-sxm",
                     "published_step_seconds": case["step_seconds"], "published_from": "measurements/h200_hf_probe.json lora",
                     "published_peak_bytes": case["peak_allocated"], "peak_kind": "allocated",
                     "peak_reserved_bytes": case["peak_reserved"], "scenario": scenario})
    return runs, excluded


def main():
    source = json.load(open(os.path.join(HERE, "published_runs.json")))
    runs, excluded = megatron_table_runs() + hf_measured_runs(), []
    for run in source["training"]:
        step, basis = published_step_seconds(run)
        scenario, reason = scenario_of(run)
        if "rampup" in run["id"]:
            scenario, reason = None, "a batch-size ramp-up step (16 sequences), run once at the start of training"
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
    out["finetune_runs"], out["finetune_excluded"] = finetune_runs()
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
