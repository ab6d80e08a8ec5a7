"""Turns measurements into the per-GPU efficiency tables of assets/hardware.json ("efficiency" of each GPU).

Run: python3 measurements/make_efficiency_tables.py            prints every GPU's "efficiency" object
     python3 measurements/make_efficiency_tables.py --write    writes them into assets/hardware.json (nothing else changes)
     python3 measurements/make_efficiency_tables.py --check    exits 1 when assets/hardware.json differs (a ctest runs this)

One table per GPU serves every scenario: nothing here is fitted to a training run.
- GEMM: achieved / peak FLOP/s against the GEMM's FLOPs (compute ceiling; the memory roof is applied separately).
  H100: median over the GEMM shapes of the published validation runs (183 shapes, three operand layouts, eager,
  sustained clocks) per power-of-two FLOPs bin; below 2^34 FLOPs, where no such shape exists, the median of the
  graph-replayed power-of-two grid. A100: NVIDIA's cuBLAS curve for square GEMMs (every 256 up to 8192), read off
  "CUDA 11 Features Revealed" Fig. 6, median per power-of-two FLOPs bin, capped at the A100's maximum achievable
  matmul (Bekman's MAMF table, 271.2 TFLOP/s = 86.9 % of peak, the best of a shape sweep): NVIDIA's top bins (89.1 and
  91.8 %) lie above anything measured outside that plot. The H100's measured table tops at 70 %, under its MAMF (80.3 %).
- Misaligned GEMMs (H100): a GEMM whose weight-side dimension is not a multiple of 8 bf16 elements runs cuBLAS's
  narrow-load fallback kernels whatever its size: the most it reaches per alignment (2, 4, 8 bytes), all measured
  shapes' FLOPs over their time (h100_alignment_probe.json, kernel_probe.py section "align"). Not measured on the A100:
  its tables carry no such cap.
- fp32 compute (H100): SGEMM on the CUDA cores and SDPA's memory-efficient attention over the 67 TFLOP/s fp32 peak,
  medians of h100_training_fp32.json (kernel_probe.py section "fp32"). Not measured on the A100: there fp32 GEMMs and
  attention take the bf16 tables' shares of the fp32 peak.
- fp8 GEMMs (H100): no fp8 measurement of our own. An fp8 recipe's linear layers run at the fp8 peak with the bf16
  gemm table times one scale: the median, over DeepGEMM's 10 shapes with M >= 4096 (the training-sized ones), of
  their fp8 TFLOPS over the 1,979 TFLOP/s fp8 peak against the bf16 table at the same FLOPs. DeepGEMM README's
  performance tables as first published (2025-02; later versions report up to 1,550 TFLOPS), H800 SXM (the H100's SM count, clocks and fp8 peak), NVCC 12.8, 6 normal and 4 grouped
  GEMMs. GPUs that borrow the H100's tables borrow this scale too; the A100's have none, so fp8 recipes there run bf16.
- Memory-bound kernels: time = floor + bytes / (HBM bandwidth x efficiency), per class (broadcast and widening: eager
  PyTorch's masked_fill_ with a broadcast mask and its bf16 -> fp32 copies, measured alone in h100_eager_attention.json). H100: efficiency from the
  largest eager sizes (1-4 GB), floor from the graph-replayed small sizes; a GEMM's memory roof ("gemm") from the
  batched attention GEMMs that are bound by their s x s output (s >= 2048). A100: copy efficiency 0.871 (1,355 of
  1,555 GB/s measured memcopy, PTsolvers gpu-workshop issue #7); the other classes keep the H100's ratio to copy.
- GPUs without measurements of their own (BORROWED below) take the tables of the nearest measured architecture and
  scale its GEMM and attention curves by the ratio of best measured matmul throughput over datasheet peak, the GPU's
  against the reference's, both from the same benchmark (so its method cancels): Bekman's MAMF table where it lists
  the GPU, else the torch.matmul square-GEMM database below. The peaks are the catalog's own (assets/hardware.json).
  Ada Lovelace (L4, L40S, RTX 4090) borrows the A100's: its tensor cores run the Ampere-generation mma.sync kernels
  (cuBLAS dispatches ampere_bf16_s1688gemm kernels on an RTX 4090, pytorch/pytorch #181718), not Hopper's wgmma.
- Fused attention (causal, head dim 128): achieved / peak over the executed FLOPs (half of 4 b h s^2 d forward,
  2.5 x that backward) against the sequence length. H100: cuDNN (what Transformer Engine runs for Megatron) and
  PyTorch SDPA's flash backend, measured. A100: FlashAttention-2 forward + backward, causal, head dim 128
  (flash-attention README, A100 benchmark figure); the same curve for both backends and both passes.
- Serving: a GEMV's time = floor + weight bytes / (HBM bandwidth x efficiency), and decode attention's = floor +
  K and V bytes / (HBM bandwidth x efficiency at its head dim), each kernel replayed from a CUDA graph as engines run
  decode (h200_serving_probe.json, serving_probe.py). H200: the GEMV class is the least-squares line through the 30 GEMVs
  of up to 32 rows at Llama 3.1 8B's and Llama 3.2 1B's decode shapes (8 MB to 1 GB of weight); attention's per head dim
  through the SDPA calls whose batch x KV heads fill the 132 SMs (fewer leave SMs idle: the serving model's concern).
  hf_training_probe.py's eager "gemv" rows are not used: one F.linear between two events includes its host launch (its
  GEMMs of a few microseconds read ~45-50 us), so its 2.38 TB/s is a lower bound. Every other GPU takes the H200's
  shares of its own HBM bandwidth unchanged: a streaming read's share is set by the HBM and its controller, and the
  measured large copies sit close (H100 0.903, A100 0.871, H200 0.871 of their datasheets). Causal attention at head dim
  64 against 128 (attention_head_dim_scale): the same SDPA replayed from a graph at both, every GPU taking the H200's.
"""
import collections
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = os.path.join(HERE, "..", "assets", "hardware.json")
H100_PEAK = 989e12
H100_HBM = 3.35e12
A100_PEAK = 312e12


def load(name):
    with open(os.path.join(HERE, name)) as f:
        return json.load(f)


eager = load("h100_kernel_probe.json")
graphs = load("h100_kernel_probe_graphs.json")
alignment = load("h100_alignment_probe.json")
eager_attention = load("h100_eager_attention.json")
fp32_probe = load("h100_training_fp32.json")
serving_probe = load("h200_serving_probe.json")
H100_FP32_PEAK = 67e12


def binned_median(points):
    bins = collections.defaultdict(list)
    for flops, efficiency in points:
        bins[round(math.log2(flops))].append(efficiency)
    return {b: statistics.median(v) for b, v in sorted(bins.items())}


def h100_gemm():
    ridge = H100_PEAK / H100_HBM
    published = []
    for layout, m, n, k, t in eager["gemm_bf16_published_shapes"]["rows"]:
        published.append((2 * m * n * k, 2 * m * n * k / t / H100_PEAK))
    grid = []
    for layout, m, n, k, t in graphs["gemm_bf16_graph"]["rows"]:
        flops = 2 * m * n * k
        intensity = flops / (2 * (m * k + k * n + m * n))
        if intensity >= ridge / 4:  # the memory roof covers the rest
            grid.append((flops, flops / t / H100_PEAK))
    from_published = binned_median(published)
    from_grid = binned_median(grid)
    curve = {b: e for b, e in from_grid.items() if b < 34}
    curve.update({b: e for b, e in from_published.items() if b >= 34})
    for b, e in from_grid.items():  # beyond the largest published shape, the grid's long kernels
        if b > max(from_published):
            curve[b] = e
    return {"flops": [float(2**b) for b in sorted(curve)], "efficiency": [round(curve[b], 3) for b in sorted(curve)]}


def h100_fp32():
    # fp32 on the CUDA cores (TF32 off, PyTorch's default): the median SGEMM over the fp32 peak, the probe's GPT-2 shapes in
    # three layouts; SDPA's memory-efficient kernel forward and backward (half of 4 b h s^2 d FLOPs, 2.5x that backward).
    gemm = [2 * m * n * k / t / H100_FP32_PEAK for layout, m, n, k, t in fp32_probe["gemm_fp32"]["rows"]]
    forward, backward = [], []
    for d, s, bh, t_forward, t_both in fp32_probe["attention_sdpa_fp32"]["rows"]:
        flops = 0.5 * 4 * bh * s * s * d
        forward.append(flops / t_forward / H100_FP32_PEAK)
        backward.append(2.5 * flops / (t_both - t_forward) / H100_FP32_PEAK)
    return {"gemm": round(statistics.median(gemm), 3), "attention_forward": round(statistics.median(forward), 3),
            "attention_backward": round(statistics.median(backward), 3)}


# DeepGEMM README, "Normal GEMMs for dense models" and "Grouped GEMMs for MoE models (contiguous layout)", H800 SXM, NVCC
# 12.8: (groups, M per group, N, K, fp8 TFLOPS), the rows with M >= 4096.
DEEPGEMM_H800_FP8 = [
    (1, 4096, 2112, 7168, 1058), (1, 4096, 24576, 1536, 990), (1, 4096, 32768, 512, 590),
    (1, 4096, 7168, 16384, 1358), (1, 4096, 4096, 7168, 1304), (1, 4096, 7168, 2048, 1025),
    (4, 8192, 4096, 7168, 1297), (4, 8192, 7168, 2048, 1099), (8, 4096, 4096, 7168, 1288), (8, 4096, 7168, 2048, 1093),
]
H800_FP8_PEAK = 1979e12


def curve_at(curve, flops):
    # assets/hardware.json's reading of a curve (core::EfficiencyCurve::at): log-linear between points, flat beyond.
    sizes, efficiencies = curve["flops"], curve["efficiency"]
    if flops <= sizes[0]:
        return efficiencies[0]
    if flops >= sizes[-1]:
        return efficiencies[-1]
    i = next(i for i, size in enumerate(sizes) if size > flops)
    w = math.log(flops / sizes[i - 1]) / math.log(sizes[i] / sizes[i - 1])
    return efficiencies[i - 1] + w * (efficiencies[i] - efficiencies[i - 1])


def h100_fp8(gemm_curve):
    # A grouped GEMM is read at one group member's FLOPs, as the step model reads it (kernels.cpp grouped_gemm).
    ratios = []
    for groups, m, n, k, fp8_tflops in DEEPGEMM_H800_FP8:
        flops = 2 * m * n * k
        ratios.append(fp8_tflops * 1e12 / H800_FP8_PEAK / curve_at(gemm_curve, flops))
    scale = round(statistics.median(ratios), 2)
    return {"gemm_scale": scale,
            "source": f"fp8 GEMMs run at the fp8 peak with the bf16 gemm table times {scale}: the median, over DeepGEMM's "
                      f"{len(ratios)} shapes with M >= 4096 (its README, H800 SXM, NVCC 12.8: 6 dense GEMMs and 4 grouped ones), "
                      f"of their fp8 TFLOPS over 1,979 against this table at the same FLOPs ({min(ratios):.2f} at K = 512 to "
                      f"{max(ratios):.2f} at K = 16384; make_efficiency_tables.py). DeepGEMM times short runs, this table "
                      f"sustained clocks: if anything the fp8 GEMMs come out fast"}


def h100_gemm_misaligned():
    # Each GEMM's weight-side dimensions (the vocabulary or a hidden size) set its rows' alignment in bytes (bf16, up to
    # 16); per alignment below 16, all measured shapes' FLOPs over their time (three passes of equal FLOPs each).
    totals = collections.defaultdict(lambda: [0.0, 0.0])
    for layout, m, n, k, odd, t in alignment["gemm_bf16_alignment"]["rows"]:
        elements = 8
        while odd % elements:
            elements //= 2
        totals[2 * elements][0] += 2 * m * n * k
        totals[2 * elements][1] += t
    sizes = [b for b in sorted(totals) if b < 16]
    return {"alignment_bytes": [float(b) for b in sizes],
            "efficiency": [round(totals[b][0] / totals[b][1] / H100_PEAK, 3) for b in sizes]}


# NVIDIA, "CUDA 11 Features Revealed", Fig. 6, cuBLAS FP16/BF16 on A100, m = n = k (TFLOP/s, read off the plot +-5).
A100_SQUARE = {256: 5, 512: 28, 768: 65, 1024: 88, 1280: 152, 1536: 150, 1792: 201, 2048: 195, 2304: 244, 2560: 230,
               2816: 238, 3072: 235, 3328: 248, 3584: 242, 3840: 260, 4096: 260, 4352: 246, 4608: 275, 4864: 265,
               5120: 261, 5376: 258, 5632: 282, 5888: 279, 6144: 277, 6400: 276, 6656: 276, 6912: 279, 7168: 281,
               7424: 283, 7680: 285, 7936: 288, 8192: 291}


def a100_gemm():
    curve = binned_median([(2.0 * n**3, tflops * 1e12 / A100_PEAK) for n, tflops in A100_SQUARE.items()])
    # NVIDIA's plot tops at 291 TFLOP/s; no GEMM in a run is faster than the best matmul measured over a shape sweep.
    ceiling = MAMF[1]["a100-sxm"] * 1e12 / A100_PEAK
    return {"flops": [float(2**b) for b in curve], "efficiency": [round(min(e, ceiling), 3) for e in curve.values()]}


def h100_memory_classes():
    large = collections.defaultdict(list)
    for op, n, nbytes, t in eager["memory_bound_bf16"]["rows"]:
        if nbytes >= 1e9:
            large[op].append(nbytes / t / H100_HBM)
    small = collections.defaultdict(list)
    for op, n, nbytes, t in graphs["memory_bound_bf16_graph"]["rows"]:
        if nbytes <= 2**18:
            small[op].append(t)
    streaming = statistics.median([statistics.median(large[op]) for op in ("copy", "add", "gelu", "silu_mul")])
    adam = [b / t / H100_HBM for n, b, t in eager["adamw_fused_fp32"]["rows"] if n >= 2**24]
    # Batched attention GEMMs at s >= 2048 are bound by writing and reading their s x s output: a GEMM's memory roof.
    gemm_memory = []
    for d, s, bh, t_qk, t_av in eager["attention_bmm_bf16"]["rows"]:
        if s >= 2048:
            gemm_memory.append(2.0 * bh * (s * d * 2 + s * s) / t_qk / H100_HBM)
            gemm_memory.append(2.0 * bh * (s * s + s * d * 2) / t_av / H100_HBM)
    return {
        "streaming": {"floor_seconds": round(statistics.median(small["copy"] + small["gelu"]), 8), "efficiency": round(streaming, 3)},
        "norm": {"floor_seconds": round(statistics.median(small["layernorm"] + small["rmsnorm"]), 8),
                 "efficiency": round(statistics.median(large["layernorm"] + large["rmsnorm"]), 3)},
        "softmax": {"floor_seconds": round(statistics.median(small["softmax"]), 8), "efficiency": round(statistics.median(large["softmax"]), 3)},
        "dropout": {"floor_seconds": round(statistics.median(small["copy"] + small["gelu"]), 8), "efficiency": round(statistics.median(large["dropout"]), 3)},
        "optimizer": {"floor_seconds": round(statistics.median(small["copy"] + small["gelu"]), 8), "efficiency": round(statistics.median(adam), 3)},
        "gemm": {"floor_seconds": round(statistics.median(small["copy"] + small["gelu"]), 8), "efficiency": round(statistics.median(gemm_memory), 3)},
        # TensorIterator's unvectorized paths (h100_eager_attention.json, s x s scores at s 1024 to 4096): an operand
        # broadcast (masked_fill_ with the causal mask) and a widening copy (bf16 -> fp32); the floor is streaming's.
        "broadcast": {"floor_seconds": round(statistics.median(small["copy"] + small["gelu"]), 8),
                      "efficiency": round(statistics.median(unvectorized("masked_fill_")), 3)},
        "widening": {"floor_seconds": round(statistics.median(small["copy"] + small["gelu"]), 8),
                     "efficiency": round(statistics.median(unvectorized("cast_to_fp32")), 3)},
    }


def unvectorized(name):
    return [nbytes / t / H100_HBM for op, dtype, width, n, nbytes, t in eager_attention["eager_attention_ops"]["rows"] if op == name]


def a100_memory_classes(h100):
    copy_ratio = 0.871 / h100["streaming"]["efficiency"]
    return {name: {"floor_seconds": c["floor_seconds"], "efficiency": round(min(0.95, c["efficiency"] * copy_ratio), 3)}
            for name, c in h100.items()}


def h100_attention(backend):
    forward = collections.defaultdict(list)
    backward = collections.defaultdict(list)
    for name, d, s, bh, causal, fwd, fwd_bwd in graphs["attention_backends_bf16"]["rows"]:
        if name != backend or not causal or fwd is None or d != 128:
            continue
        executed = 0.5 * 4 * bh * s * s * d
        forward[s].append(executed / fwd / H100_PEAK)
        backward[s].append(2.5 * executed / (fwd_bwd - fwd) / H100_PEAK)
    seqs = sorted(forward)
    return ({"seq": seqs, "efficiency": [round(statistics.median(forward[s]), 3) for s in seqs]},
            {"seq": seqs, "efficiency": [round(statistics.median(backward[s]), 3) for s in seqs]})


# FlashAttention-2 on A100 80GB SXM4, causal, head dim 128, forward + backward TFLOP/s (flash-attention README figure).
A100_FA2_CAUSAL_D128 = {512: 99, 1024: 133, 2048: 155, 4096: 173, 8192: 182, 16384: 189}


def a100_attention():
    seqs = sorted(A100_FA2_CAUSAL_D128)
    curve = {"seq": seqs, "efficiency": [round(A100_FA2_CAUSAL_D128[s] * 1e12 / A100_PEAK, 3) for s in seqs]}
    return curve, curve


def launch_overhead():
    rows = {op: (eager_s, graph_s) for op, eager_s, graph_s in graphs["eager_launch_overhead"]["rows"]}
    return {"elementwise_seconds": round(statistics.median([rows[op][0] for op in ("add", "gelu")]), 7),
            "gemm_seconds": round(statistics.median([rows[op][0] for op in ("matmul", "linear")]), 7)}


# Best measured bf16 matmul throughput (TFLOP/s), per benchmark. A ratio is only taken within one benchmark.
MAMF = ("Bekman, ml-engineering compute/accelerator/README.md, Maximum Achievable Matmul FLOPS table (commit 744d01e)",
        {"h100-sxm": 794.5, "b200": 1745.0, "mi300x": 668.4, "a100-sxm": 271.2})
# zzc0721/torch-performance-test-data database.md (commit 9d82827) and its issues #120 (L4) and #126 (A10G): the best of
# torch.matmul on square 1024..10240 matrices, 10 warm-up and 30 timed iterations. Several rows of one GPU: their median.
SQUARE = ("torch.matmul, best square 1024-10240 (zzc0721/torch-performance-test-data database.md @9d82827, issues #120, #126)",
          {"a100-sxm": 264.53,                                                   # A100 SXM4 80GB
           "h100-sxm": statistics.median([797.51, 783.66]),                      # H100 80GB HBM3, two rows
           "h100-pcie": 495.93,                                                  # (H800 PCIe, same silicon: 503.83)
           "l40s": 269.15,
           "l4": 70.89,                                                          # issue #120
           "a10g": 69.47,                                                        # issue #126
           "rtx-4090": statistics.median([170.06, 173.31, 162.39, 163.09, 165.71, 164.81]),  # the 24 GB rows
           "rtx-3090": statistics.median([76.34, 76.68, 76.58])})

# id: (the measured GPU it borrows from, the benchmark whose ratio scales it or None for "the same silicon", why).
BORROWED = {
    "h200-sxm": ("h100-sxm", None, "same compute silicon and clocks; Bekman's MAMF table: \"H200 is the same\""),
    "h800-sxm": ("h100-sxm", None, "the H100 SXM's compute silicon and clocks; only NVLink and FP64 are cut (DeepSeek-V3 issue #28)"),
    "b200": ("h100-sxm", MAMF, ""),
    "mi300x": ("h100-sxm", MAMF, "ROCm 6.3, TunableOp"),
    "a100-40gb": ("a100-sxm", None, "the same GA100 SXM4 part at 400 W; only the HBM differs (40 GB, 1,555 GB/s)"),
    "h100-pcie": ("h100-sxm", SQUARE, "350 W: it holds lower clocks under dense GEMMs"),
    "l40s": ("a100-sxm", SQUARE, "Ada Lovelace"),
    "l4": ("a100-sxm", SQUARE, "Ada Lovelace at 72 W"),
    "a10g": ("a100-sxm", SQUARE, "NVIDIA publishes no A10G tensor figure: peak is the A10's 125 TFLOP/s, the measured matmul sets the speed"),
    "rtx-4090": ("a100-sxm", SQUARE, "Ada Lovelace; boosts above the datasheet clock, so the plateau reaches peak"),
    "rtx-3090": ("a100-sxm", SQUARE, "GA102; boosts above the datasheet clock, so the plateau reaches peak"),
}

MEASURED_SOURCES = {
    "h100-sxm": "Measured on one H100 SXM (measurements/, kernel_probe.py; tables by make_efficiency_tables.py): GEMMs at the "
                "published runs' shapes (sustained clocks), memory-bound kernels by class, cuDNN and SDPA-flash causal attention, "
                "head dim 128; GEMMs whose weight rows are not 16-byte aligned (vocabulary 50257 to 50272, hidden 1020 and "
                "1021: cuBLAS's align1/align2 fallback kernels), h100_alignment_probe.json; eager masked_fill_ (broadcast) and bf16 -> fp32 "
                "copies (widening), h100_eager_attention.json; fp32 SGEMM and memory-efficient attention, h100_training_fp32.json",
    "a100-sxm": "GEMM: NVIDIA cuBLAS on A100 (CUDA 11 Features Revealed, Fig. 6, square GEMMs), capped at the best matmul "
                "measured over a shape sweep, 271.2 TFLOP/s (Bekman's MAMF table). HBM: 1,355 of 1,555 GB/s memcopy "
                "(PTsolvers gpu-workshop #7); other memory classes in the H100's measured ratio to copy. Attention: "
                "FlashAttention-2 causal, head dim 128, forward + backward (flash-attention README, A100 figure)",
}


def tflops(flops_per_s):
    return f"{flops_per_s / 1e12:,.6g}"


def borrowed_efficiency(gpu_id, peaks, names):
    like, benchmark, why = BORROWED[gpu_id]
    if benchmark is None:
        return {"like": like, "gemm_scale": 1.0, "source": f"The {names[like]}'s tables: {why}"}
    source, best = benchmark
    own = best[gpu_id] * 1e12 / peaks[gpu_id]
    reference = best[like] * 1e12 / peaks[like]
    scale = round(own / reference, 3)
    text = (f"The {names[like]}'s tables, GEMMs and attention scaled by best measured matmul over peak: "
            f"{names[gpu_id]} {best[gpu_id]:.1f} / {tflops(peaks[gpu_id])} = {own:.3f} against {names[like]} "
            f"{best[like]:.1f} / {tflops(peaks[like])} = {reference:.3f} ({source})")
    return {"like": like, "gemm_scale": scale, "source": text + (f"; {why}" if why else "")}


H200_HBM = 4.8e12


def least_squares(points):
    """(intercept, slope) of the line through (x, y) points."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    return my - slope * mx, slope


def h200_serving():
    sections = serving_probe["sections"]
    sms = serving_probe["environment"]["sms"]
    gemv = [(r["bytes"], r["seconds"]) for r in sections["gemv_graph"] if r["m"] <= 32]
    gemv_floor, gemv_slope = least_squares(gemv)
    dims, efficiencies, floors = [], [], []
    for d in sorted({r["head_dim"] for r in sections["attention_decode_graph"]}):
        rows = [(r["bytes"], r["seconds"]) for r in sections["attention_decode_graph"]
                if r["head_dim"] == d and r["batch"] * r["kv_heads"] >= sms]
        floor, slope = least_squares(rows)
        dims.append(float(d))
        efficiencies.append(round(1.0 / slope / H200_HBM, 3))
        floors.append(floor)
    # Causal attention at head dim 64 over 128, per prompt length (graph-replayed SDPA, 32 heads): their median.
    prefill = {(r["head_dim"], r["seq"]): r["flops_per_s"] for r in sections["attention_prefill_graph"]}
    ratios = [prefill[(64, s)] / prefill[(128, s)] for (d, s) in prefill if d == 64]
    head_dim_scale = round(statistics.median(ratios), 3)
    return {"gemv": {"floor_seconds": round(gemv_floor, 8), "efficiency": round(1.0 / gemv_slope / H200_HBM, 3)},
            "decode_attention": {"head_dim": dims, "efficiency": efficiencies},
            "decode_attention_floor_seconds": round(statistics.median(floors), 8),
            "attention_head_dim_scale": {"head_dim": [64.0, 128.0], "efficiency": [head_dim_scale, 1.0]},
            "source": f"Measured on one H200, each kernel replayed from a CUDA graph (h200_serving_probe.json, serving_probe.py): "
                      f"GEMV = {round(gemv_floor * 1e6, 2)} us + bytes / (HBM x {round(1.0 / gemv_slope / H200_HBM, 3)}), the line "
                      f"through {len(gemv)} bf16 GEMVs of 1-32 rows at Llama 3.1 8B's and 3.2 1B's decode weights (8 MB to 1 GB); "
                      f"decode attention (SDPA, 4 query rows per KV head) = floor + K and V bytes / (HBM x efficiency at its head "
                      f"dim), through the calls whose batch x KV heads fill the {sms} SMs; causal attention at head dim 64 runs "
                      f"{head_dim_scale} x its rate at 128 (median over prompts of 512, 2048 and 8192 tokens, 32 heads)"}


def borrowed_serving(serving, gpu_name):
    return {**{k: v for k, v in serving.items() if k != "source"},
            "source": f"The H200's serving shares of HBM bandwidth and head-dim scale, unchanged on the {gpu_name} "
                      f"(make_efficiency_tables.py: a streaming read's share is set by the HBM, and large copies reach similar "
                      f"shares: H100 0.903, A100 0.871, H200 0.871; the head-dim scale is the attention kernel's tiling)"}

h100_mem = h100_memory_classes()
h100_gemm_curve = h100_gemm()
h100_fused = h100_attention("cudnn")
h100_sdpa = h100_attention("flash")
a100_fa2 = a100_attention()
h200_serving_shares = h200_serving()
SERVING_MEASURED = {"h200-sxm": h200_serving_shares}
measured = {
    "h100-sxm": {"gemm": h100_gemm_curve, "gemm_misaligned": h100_gemm_misaligned(), "fp32": h100_fp32(),
                 "fp8": h100_fp8(h100_gemm_curve), "memory": h100_mem,
                 "fused_attention_forward": h100_fused[0], "fused_attention_backward": h100_fused[1],
                 "sdpa_attention_forward": h100_sdpa[0], "sdpa_attention_backward": h100_sdpa[1]},
    "a100-sxm": {"gemm": a100_gemm(), "memory": a100_memory_classes(h100_mem),
                 "fused_attention_forward": a100_fa2[0], "fused_attention_backward": a100_fa2[1],
                 "sdpa_attention_forward": a100_fa2[0], "sdpa_attention_backward": a100_fa2[1]},
}


def efficiency_objects(catalog):
    peaks = {gpu["id"]: gpu["bf16_flops_per_s"] for gpu in catalog["gpus"]}
    names = {gpu["id"]: gpu["name"] for gpu in catalog["gpus"]}
    objects = {}
    for gpu in catalog["gpus"]:
        if gpu["id"] in measured:
            objects[gpu["id"]] = {"source": MEASURED_SOURCES[gpu["id"]], **measured[gpu["id"]],
                                  "serving": borrowed_serving(h200_serving_shares, gpu["name"])}
        elif gpu["id"] in BORROWED:
            objects[gpu["id"]] = borrowed_efficiency(gpu["id"], peaks, names)
            # A GPU with serving measurements of its own keeps them over the tables it borrows (the H200).
            if gpu["id"] in SERVING_MEASURED:
                objects[gpu["id"]]["serving"] = SERVING_MEASURED[gpu["id"]]
        else:
            sys.exit(f"{gpu['id']}: in assets/hardware.json but not in make_efficiency_tables.py (add it to BORROWED)")
    return objects


def main():
    with open(CATALOG) as f:
        text = f.read()
    catalog = json.loads(text)
    objects = efficiency_objects(catalog)
    if len(sys.argv) == 1:
        print(json.dumps({**objects, "eager_host_dispatch": launch_overhead()}, indent=1))
        return
    for gpu in catalog["gpus"]:
        gpu["efficiency"] = objects[gpu["id"]]
    written = json.dumps(catalog, indent=1) + "\n"
    if sys.argv[1] == "--write":
        with open(CATALOG, "w") as f:
            f.write(written)
    elif sys.argv[1] == "--check":
        if written != text:
            sys.exit("assets/hardware.json: its efficiency sections differ from make_efficiency_tables.py; run it with --write")
    else:
        sys.exit("usage: make_efficiency_tables.py [--write | --check]")


main()
