"""Measures, on one GPU, what ShardScope's step and memory models need as data.

1. bf16 GEMM efficiency against shape: a log2 grid of m, n, k in three operand layouts (NN; NT as nn.Linear's
   forward x @ W^T; TN as its weight gradient dY^T @ X), plus the exact shapes of published training runs.
2. Memory-bound kernels against size: copy, add, GeLU, SiLU, LayerNorm, RMSNorm, softmax, dropout, fused AdamW.
3. Fused attention (SDPA, flash backend) forward and backward against sequence, head dim, batch x heads, causal.
4. Training steps (PyTorch eager, autocast bf16, fp32 weights, fused AdamW): peak memory and step time for GPT
   and Llama-style models, with and without fused attention and activation checkpointing.
5. Alignment (section "align"): the logits GEMMs and a training step at a vocabulary that is not a multiple of 8
   (GPT-2's 50257) against the padded 50304, and a hidden size that is not. Section "profile": one training step's
   GPU time kernel by kernel (torch.profiler); section "ops": the same by operator and input shape; section
   "eager_attn": the score-sized ops of eager unfused attention alone (softmax by row width, masked_fill_, casts);
   section "heldout": more training runs, at shapes no constant came from, to check the model against; section
   "fp32": pure fp32 training steps (no autocast, TF32 off).

Method: CUDA events around back-to-back launches after warm-up; the median of 5 repetitions. Inputs rotate
among several buffers when they would fit in L2, so small shapes are not timed out of cache. Random data
(never zeros). Peak memory: torch.cuda.max_memory_allocated after one warm-up step, minus what was allocated
before the model. Writes JSON to $OUT.
"""
import json
import math
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

dev = "cuda"
OUT = os.environ.get("OUT", ".")
L2_BYTES = 50 * 2**20
t_start = time.time()


def log(*args):
    print(f"[{time.time() - t_start:6.1f}s]", *args, flush=True)


def timed(fn, min_seconds=0.01, reps=5):
    """Median seconds per call over reps repetitions, each long enough to be measured."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    one = max(s.elapsed_time(e) / 1e3, 1e-6)
    iters = max(3, min(2000, int(min_seconds / one)))
    samples = []
    for _ in range(reps):
        s.record()
        for _ in range(iters):
            fn()
        e.record()
        torch.cuda.synchronize()
        samples.append(s.elapsed_time(e) / 1e3 / iters)
    return statistics.median(samples)


def rotating(make, bytes_each):
    """Enough independent input sets that one pass over them overflows L2."""
    count = max(1, min(16, math.ceil(4 * L2_BYTES / max(bytes_each, 1))))
    return [make() for _ in range(count)]


out = {"method": __doc__}
p = torch.cuda.get_device_properties(0)
out["gpu"] = p.name
out["sms"] = p.multi_processor_count
out["hbm_bytes"] = p.total_memory
out["torch"] = torch.__version__
out["cuda"] = torch.version.cuda
log(out["gpu"], out["torch"])


def gemm_time(m, n, k, layout):
    def make():
        if layout == "nn":
            return (torch.randn(m, k, device=dev, dtype=torch.bfloat16), torch.randn(k, n, device=dev, dtype=torch.bfloat16))
        if layout == "nt":
            return (torch.randn(m, k, device=dev, dtype=torch.bfloat16), torch.randn(n, k, device=dev, dtype=torch.bfloat16))
        return (torch.randn(k, m, device=dev, dtype=torch.bfloat16), torch.randn(k, n, device=dev, dtype=torch.bfloat16))
    bytes_each = 2 * (m * k + k * n + m * n)
    sets = rotating(make, bytes_each)
    c = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
    state = {"i": 0}

    def run():
        a, b = sets[state["i"] % len(sets)]
        state["i"] += 1
        if layout == "nn":
            torch.matmul(a, b, out=c)
        elif layout == "nt":
            torch.matmul(a, b.t(), out=c)
        else:
            torch.matmul(a.t(), b, out=c)
    t = timed(run)
    del sets, c
    return t, bytes_each


def section(name, fn):
    try:
        fn()
    except Exception:
        out.setdefault("errors", []).append({name: traceback.format_exc()[-2000:]})
        log("ERROR in", name, traceback.format_exc()[-500:])
    torch.cuda.empty_cache()
    with open(os.path.join(OUT, OUT_NAME), "w") as f:
        json.dump(out, f, indent=1)


def gemm_grid():
    grid = [128, 256, 512, 1024, 2048, 4096, 8192, 16384]
    rows = []
    for layout in ("nn", "nt", "tn"):
        for m in grid:
            for n in grid:
                for k in grid:
                    t, by = gemm_time(m, n, k, layout)
                    rows.append([layout, m, n, k, t])
        log("gemm grid", layout, "done")
    # Tall-skinny and very large token counts (m up to 65536) for the common weight shapes.
    for m in (32768, 65536):
        for n, k in ((1024, 1024), (4096, 4096), (8192, 8192), (3072, 1024), (1024, 4096), (2048, 8192), (8192, 2048)):
            for layout in ("nn", "nt", "tn"):
                t, by = gemm_time(m, n, k, layout)
                rows.append([layout, m, n, k, t])
    out["gemm_bf16"] = {"columns": ["layout", "m", "n", "k", "seconds"], "rows": rows}


def gemm_published_shapes():
    # The GEMMs of the validation runs (Megatron GPT, TP 8 or less) and of Llama 3 at TP 8, at their micro-batch tokens.
    shapes = set()
    for h, tp, tokens in ((2304, 1, 2048), (3072, 2, 2048), (4096, 4, 2048), (6144, 8, 2048), (8192, 8, 2048),
                          (10240, 8, 2048), (12288, 8, 2048), (16384, 8, 2048), (20480, 8, 2048), (25600, 8, 2048),
                          (6144, 8, 8192), (8192, 8, 8192), (16384, 8, 8192), (1024, 1, 8192), (2048, 1, 8192),
                          (4096, 1, 4096)):
        for n, k in ((3 * h // tp, h), (h, h // tp), (4 * h // tp, h), (h, 4 * h // tp)):
            shapes.add((tokens, n, k))
    rows = []
    for (m, n, k) in sorted(shapes):
        for layout in ("nt", "nn", "tn"):
            if layout == "tn":
                t, _ = gemm_time(n, k, m, "tn")  # weight gradient: [n, k] = dY^T [n, m] @ X [m, k]
                rows.append(["tn", n, k, m, t])
            else:
                t, _ = gemm_time(m, n, k, layout)
                rows.append([layout, m, n, k, t])
    out["gemm_bf16_published_shapes"] = {"columns": ["layout", "m", "n", "k", "seconds"], "rows": rows}
    log("gemm published shapes done", len(rows))


def gemm_fp8():
    if not hasattr(torch, "_scaled_mm"):
        return
    rows = []
    one = torch.tensor(1.0, device=dev)
    for s in (1024, 2048, 4096, 8192, 16384):
        a = torch.randn(s, s, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(s, s, device=dev).to(torch.float8_e4m3fn).t()
        t = timed(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
        rows.append(["nt", s, s, s, t])
    out["gemm_fp8"] = {"columns": ["layout", "m", "n", "k", "seconds"], "rows": rows}
    log("fp8 done")


def memory_bound():
    rows = []
    hidden = 4096
    for log2n in range(14, 31, 2):
        n = 2**log2n
        rows_n = max(1, n // hidden)
        x = torch.randn(n, device=dev, dtype=torch.bfloat16)
        y = torch.randn(n, device=dev, dtype=torch.bfloat16)
        z = torch.empty_like(x)
        x2 = x.view(-1, hidden) if n >= hidden else x.view(1, -1)
        w = torch.randn(x2.shape[-1], device=dev, dtype=torch.bfloat16)
        b = torch.randn(x2.shape[-1], device=dev, dtype=torch.bfloat16)
        ops = {
            "copy": (lambda: z.copy_(x), 4 * n),
            "add": (lambda: torch.add(x, y, out=z), 6 * n),
            "gelu": (lambda: F.gelu(x), 4 * n),
            "silu_mul": (lambda: F.silu(x) * y, 10 * n),  # eager: two kernels, silu (r+w) then mul (2r+w)
            "layernorm": (lambda: F.layer_norm(x2, (x2.shape[-1],), w, b), 4 * n),
            "rmsnorm": (lambda: F.rms_norm(x2, (x2.shape[-1],), w), 4 * n),
            "softmax": (lambda: torch.softmax(x2, dim=-1), 4 * n),
            "dropout": (lambda: F.dropout(x, 0.1, training=True), 5 * n),
        }
        for name, (fn, nbytes) in ops.items():
            t = timed(fn)
            rows.append([name, n, nbytes, t])
        del x, y, z, x2
        torch.cuda.empty_cache()
    out["memory_bound_bf16"] = {"columns": ["op", "elements", "bytes_moved", "seconds"], "rows": rows}
    log("memory-bound done")
    # Fused AdamW over fp32 parameters: reads param, grad, m, v and writes param, m, v (28 B per parameter).
    adam = []
    for n in (2**20, 2**24, 2**26, 2**28):
        params = [torch.randn(n, device=dev, requires_grad=True)]
        params[0].grad = torch.randn(n, device=dev)
        opt = torch.optim.AdamW(params, lr=1e-4, fused=True)
        t = timed(lambda: opt.step())
        adam.append([n, 28 * n, t])
        del params, opt
        torch.cuda.empty_cache()
    out["adamw_fused_fp32"] = {"columns": ["params", "bytes_moved", "seconds"], "rows": adam}
    log("adam done")


def attention():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rows = []
    for d in (64, 128):
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            for bh in (8, 32, 128):
                if bh * s * d * 2 * 4 > 6e9:
                    continue
                for causal in (False, True):
                    q = torch.randn(1, bh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                    k = torch.randn(1, bh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                    v = torch.randn(1, bh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                        fwd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        g = torch.randn_like(o)

                        def fb():
                            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            o.backward(g)
                        fwd_bwd = timed(fb)
                    rows.append([d, s, bh, causal, fwd, fwd_bwd])
                    del q, k, v, o, g
        log("attention d", d, "done")
    out["attention_flash_bf16"] = {"columns": ["head_dim", "seq", "batch_x_heads", "causal", "forward_seconds",
                                               "forward_backward_seconds"], "rows": rows}
    # Unfused (materialised) attention: the batched GEMMs QK^T and AV, as eager PyTorch runs them.
    bmm = []
    for d in (64, 128):
        for s in (512, 1024, 2048, 4096):
            for bh in (16, 64):
                q = torch.randn(bh, s, d, device=dev, dtype=torch.bfloat16)
                k = torch.randn(bh, s, d, device=dev, dtype=torch.bfloat16)
                sc = torch.randn(bh, s, s, device=dev, dtype=torch.bfloat16)
                t_qk = timed(lambda: torch.bmm(q, k.transpose(1, 2)))
                t_av = timed(lambda: torch.bmm(sc, q))
                bmm.append([d, s, bh, t_qk, t_av])
                del q, k, sc
    out["attention_bmm_bf16"] = {"columns": ["head_dim", "seq", "batch_x_heads", "qk_seconds", "av_seconds"], "rows": bmm}
    log("bmm done")


class Block(nn.Module):
    def __init__(s, h, a, fused, llama):
        super().__init__()
        s.h, s.a, s.fused, s.llama = h, a, fused, llama
        if llama:
            f = int(8 * h / 3 / 256 + 0.999) * 256
            s.ln1 = nn.RMSNorm(h)
            s.ln2 = nn.RMSNorm(h)
            s.qkv = nn.Linear(h, 3 * h, bias=False)
            s.proj = nn.Linear(h, h, bias=False)
            s.gate = nn.Linear(h, f, bias=False)
            s.up = nn.Linear(h, f, bias=False)
            s.down = nn.Linear(f, h, bias=False)
        else:
            s.ln1 = nn.LayerNorm(h)
            s.qkv = nn.Linear(h, 3 * h)
            s.proj = nn.Linear(h, h)
            s.ln2 = nn.LayerNorm(h)
            s.fc1 = nn.Linear(h, 4 * h)
            s.fc2 = nn.Linear(4 * h, h)

    def forward(s, x):
        B, S, H = x.shape
        q, k, v = s.qkv(s.ln1(x)).split(H, dim=2)
        q, k, v = (t.view(B, S, s.a, H // s.a).transpose(1, 2) for t in (q, k, v))
        if s.fused:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(H // s.a)
            mask = torch.ones(S, S, device=x.device, dtype=torch.bool).tril()
            att = att.masked_fill(~mask, float("-inf")).softmax(-1)
            y = att @ v
        y = y.transpose(1, 2).reshape(B, S, H)
        x = x + s.proj(y)
        if s.llama:
            u = s.ln2(x)
            x = x + s.down(F.silu(s.gate(u)) * s.up(u))
        else:
            x = x + s.fc2(F.gelu(s.fc1(s.ln2(x))))
        return x


class GPT(nn.Module):
    def __init__(s, L, h, a, V, S, fused, ckpt, llama):
        super().__init__()
        s.ckpt = ckpt
        s.llama = llama
        s.tok = nn.Embedding(V, h)
        if not llama:
            s.pos = nn.Embedding(S, h)
        s.blocks = nn.ModuleList([Block(h, a, fused, llama) for _ in range(L)])
        s.lnf = nn.RMSNorm(h) if llama else nn.LayerNorm(h)
        s.head = nn.Linear(h, V, bias=False)

    def forward(s, idx):
        x = s.tok(idx)
        if not s.llama:
            x = x + s.pos(torch.arange(idx.shape[1], device=idx.device))
        for b in s.blocks:
            x = checkpoint(b, x, use_reentrant=False) if s.ckpt else b(x)
        return s.head(s.lnf(x))


def train_probe(L, h, a, V, S, B, fused, ckpt, llama=False, precision="amp", steps=4):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    m = GPT(L, h, a, V, S, fused, ckpt, llama).to(dev)
    if precision == "bf16":
        m = m.to(torch.bfloat16)
    nparam = sum(q.numel() for q in m.parameters())
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=True)
    idx = torch.randint(0, V, (B, S), device=dev)
    times = []
    state = None
    for i in range(steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        if precision == "amp":
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(m(idx).float().view(-1, V), idx.view(-1))
        else:
            loss = F.cross_entropy(m(idx).float().view(-1, V), idx.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        if i == 0:
            state = torch.cuda.memory_allocated() - base
            torch.cuda.reset_peak_memory_stats()
    peak = torch.cuda.max_memory_allocated() - base
    reserved = torch.cuda.max_memory_reserved()
    step = min(times[1:])
    r = dict(layers=L, hidden=h, heads=a, vocab=V, seq=S, batch=B, fused_attention=fused, checkpointing=ckpt,
             llama=llama, precision=precision, params=nparam, state_bytes=state, state_bytes_per_param=state / nparam,
             peak_bytes=peak, activation_bytes=peak - state, max_reserved_bytes=reserved, step_seconds=step,
             model_tflops=6 * nparam * B * S / step / 1e12)
    del m, opt, idx, loss
    torch.cuda.empty_cache()
    return r


def training():
    configs = [
        # gpu_probe.py's seven configurations, the first three of which h100_training_probe.json records.
        dict(L=12, h=1024, a=16, V=32000, S=1024, B=8, fused=False, ckpt=False),
        dict(L=12, h=1024, a=16, V=32000, S=1024, B=8, fused=True, ckpt=False),
        dict(L=12, h=1024, a=16, V=32000, S=1024, B=8, fused=True, ckpt=True),
        dict(L=24, h=2048, a=16, V=32000, S=2048, B=4, fused=False, ckpt=False),
        dict(L=24, h=2048, a=16, V=32000, S=2048, B=4, fused=True, ckpt=False),
        dict(L=24, h=2048, a=16, V=32000, S=2048, B=4, fused=True, ckpt=True),
        dict(L=16, h=4096, a=32, V=32000, S=2048, B=2, fused=True, ckpt=True),
        # Beyond them: other batch and sequence, a Llama-style block (RMSNorm, SwiGLU, no bias), pure bf16 weights.
        dict(L=12, h=1024, a=16, V=50257, S=2048, B=4, fused=True, ckpt=False),
        dict(L=8, h=2048, a=16, V=32000, S=4096, B=2, fused=False, ckpt=False),
        dict(L=16, h=2048, a=16, V=128256, S=2048, B=4, fused=True, ckpt=False, llama=True),
        dict(L=16, h=2048, a=16, V=128256, S=2048, B=4, fused=True, ckpt=True, llama=True),
        dict(L=24, h=2048, a=16, V=32000, S=2048, B=4, fused=True, ckpt=False, precision="bf16"),
        dict(L=32, h=4096, a=32, V=32000, S=2048, B=1, fused=True, ckpt=True, llama=True),
    ]
    train_all(configs, "training_memory")


def train_all(configs, key):
    """Each configuration trained by train_probe (an error recorded in its place), the JSON written after every run."""
    runs = []
    for cfg in configs:
        try:
            runs.append(train_probe(**cfg))
        except Exception as ex:
            runs.append(dict(cfg, error=repr(ex)[:300]))
        torch.cuda.empty_cache()
        log(key, {k: runs[-1].get(k) for k in ("layers", "hidden", "batch", "seq", "fused_attention", "checkpointing",
                                                "llama", "precision", "peak_bytes", "step_seconds", "error")})
        out[key] = runs
        with open(os.path.join(OUT, OUT_NAME), "w") as f:
            json.dump(out, f, indent=1)


def gemm_alignment():
    # The logits GEMMs at a vocabulary that is and is not a multiple of 8 (GPT-2's 50257 against nanoGPT's padded
    # 50304), in the three passes as nn.Linear runs them: forward x W^T (NT, V as n), input gradient dY W (NN, V as k),
    # weight gradient dY^T X (TN, V as m). Then the granularity: 50257 + 1, 3, 7, 15, 47 at one shape.
    rows = []
    def passes(tokens, hidden, vocab):
        for layout, (m, n, k) in (("nt", (tokens, vocab, hidden)), ("nn", (tokens, hidden, vocab)), ("tn", (vocab, hidden, tokens))):
            t, _ = gemm_time(m, n, k, layout)
            rows.append([layout, m, n, k, vocab, t])
    for tokens, hidden in ((8192, 768), (16384, 768), (8192, 1024), (8192, 2048), (4096, 4096), (16384, 4096)):
        for vocab in (50257, 50304):
            passes(tokens, hidden, vocab)
        log("alignment", tokens, hidden)
    for vocab in (50258, 50260, 50264, 50272):
        passes(8192, 1024, vocab)
    # Other dimensions than the vocabulary: a hidden size that is not a multiple of 8 (QKV-like NT, m = tokens).
    for hidden in (1020, 1021, 1024):
        for layout, (m, n, k) in (("nt", (8192, 3 * 1024, hidden)), ("nn", (8192, hidden, 3 * 1024)), ("tn", (hidden, 3 * 1024, 8192))):
            t, _ = gemm_time(m, n, k, layout)
            rows.append([layout, m, n, k, hidden, t])
    out["gemm_bf16_alignment"] = {"columns": ["layout", "m", "n", "k", "odd_dimension", "seconds"], "rows": rows}
    # End to end: the same GPT trained at the two vocabularies (nanoGPT's GPT-2 124M shape, and the 12 x 1024 probe's).
    runs = []
    for cfg in (dict(L=12, h=768, a=12, S=1024, B=16), dict(L=12, h=1024, a=16, S=2048, B=4)):
        for vocab in (50257, 50304):
            try:
                runs.append(train_probe(V=vocab, fused=True, ckpt=False, **cfg))
            except Exception as ex:
                runs.append(dict(cfg, V=vocab, error=repr(ex)[:300]))
            log("alignment train", cfg, vocab, runs[-1].get("step_seconds"))
    out["training_vocab_alignment"] = runs


def warm_step(L, h, a, V, S, B, fused):
    """The probe's GPT, its optimizer, a batch, and one AMP training step as a function, after two warm-up steps."""
    m = GPT(L, h, a, V, S, fused, False, False).to(dev)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=True)
    idx = torch.randint(0, V, (B, S), device=dev)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(m(idx).float().view(-1, V), idx.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
    for _ in range(2):
        step()
    torch.cuda.synchronize()
    return m, opt, idx, step


def training_profile():
    # Where a training step's GPU time goes, kernel by kernel (torch.profiler, one step after two warm-ups): the unfused
    # 12 x 1024 probe run and the 50257-vocabulary one, whose step times the model misses most.
    from torch.profiler import profile, ProfilerActivity
    profiles = []
    for L, h, a, V, S, B, fused in ((12, 1024, 16, 32000, 1024, 8, False), (12, 1024, 16, 50257, 2048, 4, True), (12, 1024, 16, 50304, 2048, 4, True)):
        m, opt, idx, step = warm_step(L, h, a, V, S, B, fused)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        kernels = []
        for e in prof.key_averages():
            gpu_us = getattr(e, "device_time_total", None)
            if gpu_us is None:
                gpu_us = getattr(e, "cuda_time_total", 0)
            if gpu_us > 0:
                kernels.append([e.key[:160], e.count, gpu_us * 1e-6])
        kernels.sort(key=lambda r: -r[2])
        profiles.append(dict(layers=L, hidden=h, heads=a, vocab=V, seq=S, batch=B, fused_attention=fused,
                             gpu_seconds=sum(k[2] for k in kernels), kernels=kernels[:60]))
        log("profile", V, fused, round(profiles[-1]["gpu_seconds"] * 1e3, 1), "ms")
        del m, opt, idx
        torch.cuda.empty_cache()
    out["training_profiles"] = profiles


def training_ops():
    # The same step by PyTorch operator and input shape (torch.profiler, record_shapes): which eager ops the GPU time
    # belongs to, for the unfused and the SDPA 12 x 1024 probe runs.
    from torch.profiler import profile, ProfilerActivity
    result = []
    for fused in (False, True):
        L, h, a, V, S, B = 12, 1024, 16, 32000, 1024, 8
        m, opt, idx, step = warm_step(L, h, a, V, S, B, fused)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            step()
            torch.cuda.synchronize()
        ops = []
        for e in prof.key_averages(group_by_input_shape=True):
            gpu = getattr(e, "self_device_time_total", None)
            if gpu is None:
                gpu = getattr(e, "self_cuda_time_total", 0)
            if gpu > 0:
                ops.append([e.key[:80], str(e.input_shapes)[:200], e.count, gpu * 1e-6])
        ops.sort(key=lambda r: -r[3])
        result.append(dict(fused_attention=fused, ops=ops[:80]))
        log("ops", fused, len(ops))
        del m, opt, idx
        torch.cuda.empty_cache()
    out["training_ops"] = result


def eager_attention():
    # The score-sized ops of eager unfused attention, alone: softmax forward and backward by row width (PyTorch runs rows
    # of up to 1024 with one warp each, wider rows with a block), the broadcast-mask masked_fill_, the casts and the
    # clone; then the whole chain (scores, scale, mask, fp32 softmax, cast, context, and its backward) as the probe runs it.
    rows = []
    n = 2**27
    for width in (256, 512, 1024, 2048, 4096, 8192):
        for dtype, size in ((torch.float32, 4), (torch.bfloat16, 2)):
            x = torch.randn(n // width, width, device=dev, dtype=dtype)
            y = torch.softmax(x, dim=-1)
            g = torch.randn_like(y)
            rows.append(["softmax_forward", str(dtype), width, n, 2 * size * n, timed(lambda: torch.softmax(x, dim=-1))])
            rows.append(["softmax_backward", str(dtype), width, n, 3 * size * n,
                         timed(lambda: torch._softmax_backward_data(g, y, -1, dtype))])
            del x, y, g
            torch.cuda.empty_cache()
    for seq in (1024, 2048, 4096):
        b = max(1, n // (16 * seq * seq))
        elements = b * 16 * seq * seq
        scores = torch.randn(b, 16, seq, seq, device=dev, dtype=torch.bfloat16)
        mask = torch.ones(seq, seq, device=dev, dtype=torch.bool).tril()
        rows.append(["masked_fill_", "torch.bfloat16", seq, elements, 4 * elements, timed(lambda: scores.masked_fill_(~mask, float("-inf")))])
        rows.append(["clone", "torch.bfloat16", seq, elements, 4 * elements, timed(lambda: scores.clone())])
        rows.append(["div_scalar", "torch.bfloat16", seq, elements, 4 * elements, timed(lambda: scores / 8.0)])
        rows.append(["cast_to_fp32", "torch.bfloat16", seq, elements, 6 * elements, timed(lambda: scores.float())])
        wide = scores.float()
        rows.append(["cast_to_bf16", "torch.float32", seq, elements, 6 * elements, timed(lambda: wide.to(torch.bfloat16))])
        del scores, mask, wide
        torch.cuda.empty_cache()
    out["eager_attention_ops"] = {"columns": ["op", "dtype", "row_width", "elements", "bytes_moved", "seconds"], "rows": rows}
    chains = []
    for seq, batch in ((1024, 8), (2048, 4), (4096, 2)):
        q, k, v = (torch.randn(batch, 16, seq, 64, device=dev, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
        mask = torch.ones(seq, seq, device=dev, dtype=torch.bool).tril()
        grad = torch.randn(batch, 16, seq, 64, device=dev, dtype=torch.bfloat16)
        def chain():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                att = (q @ k.transpose(-2, -1)) / 8.0
                att = att.masked_fill(~mask, float("-inf")).softmax(-1)
                y = att @ v
            y.backward(grad)
        chains.append([seq, batch, timed(chain)])
        del q, k, v, grad
        torch.cuda.empty_cache()
    out["eager_attention_chain"] = {"columns": ["seq", "batch", "forward_backward_seconds"], "rows": chains}


def training_heldout():
    # More training runs with the same method, at shapes and batches none of the model's constants came from: checks,
    # not inputs (nanoGPT-like GPTs at the padded vocabulary, Llama-style blocks to 28 x 3072, long sequences, bf16).
    configs = [
        dict(L=6, h=1536, a=12, V=50304, S=1024, B=24, fused=True, ckpt=False),
        dict(L=8, h=2048, a=16, V=32000, S=4096, B=2, fused=True, ckpt=False, llama=True),
        dict(L=12, h=3072, a=24, V=128256, S=1024, B=8, fused=True, ckpt=True, llama=True),
        dict(L=12, h=768, a=12, V=50304, S=1024, B=32, fused=False, ckpt=False),
        dict(L=4, h=4096, a=32, V=32000, S=2048, B=4, fused=False, ckpt=True),
        dict(L=16, h=2048, a=16, V=32000, S=2048, B=8, fused=True, ckpt=False, llama=True, precision="bf16"),
        dict(L=24, h=1024, a=16, V=50304, S=1024, B=16, fused=True, ckpt=True),
        dict(L=28, h=3072, a=24, V=128256, S=2048, B=2, fused=True, ckpt=True, llama=True),
    ]
    train_all(configs, "training_heldout")


def training_fp32():
    # Pure fp32 training (no autocast; PyTorch's default keeps TF32 off, so GEMMs run on the CUDA cores): what the
    # fp32-adam recipe runs. First its GEMMs (the published runs' shapes, fp32) and SDPA in fp32 (no flash kernel for
    # fp32: PyTorch picks memory-efficient attention), then two training steps.
    rows = []
    for m, n, k in ((16384, 2304, 768), (16384, 768, 768), (16384, 3072, 768), (16384, 768, 3072), (8192, 3072, 1024),
                    (8192, 4096, 4096), (4096, 4096, 4096), (16384, 50304, 768), (2048, 1024, 1024)):
        for layout in ("nt", "nn", "tn"):
            a = torch.randn(m, k, device=dev) if layout != "tn" else torch.randn(k, m, device=dev)
            b = torch.randn(n, k, device=dev) if layout == "nt" else torch.randn(k, n, device=dev)
            c = torch.empty(m, n, device=dev)
            if layout == "nn":
                t = timed(lambda: torch.matmul(a, b, out=c))
            elif layout == "nt":
                t = timed(lambda: torch.matmul(a, b.t(), out=c))
            else:
                t = timed(lambda: torch.matmul(a.t(), b, out=c))
            rows.append([layout, m, n, k, t])
            del a, b, c
    out["gemm_fp32"] = {"columns": ["layout", "m", "n", "k", "seconds"], "rows": rows}
    attention = []
    for seq, batch_heads, d in ((1024, 192, 64), (2048, 64, 64), (1024, 64, 128), (4096, 32, 128)):
        q, k, v = (torch.randn(1, batch_heads, seq, d, device=dev, requires_grad=True) for _ in range(3))
        grad = torch.randn(1, batch_heads, seq, d, device=dev)
        forward = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        both = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(grad))
        attention.append([d, seq, batch_heads, forward, both])
        del q, k, v, grad
    out["attention_sdpa_fp32"] = {"columns": ["head_dim", "seq", "batch_x_heads", "forward_seconds", "forward_backward_seconds"],
                                  "rows": attention}
    log("fp32 kernels done")
    train_all([dict(L=12, h=768, a=12, V=50304, S=1024, B=16, fused=True, ckpt=False, precision="fp32"),
               dict(L=4, h=96, a=4, V=65, S=256, B=64, fused=False, ckpt=False, precision="fp32")], "training_fp32")


def graph_timed(fn, eager_seconds, reps=5, replay_seconds=0.003):
    """GPU time per call with the CPU out of the way: many calls captured in one CUDA graph, the graph replayed."""
    per_graph = int(max(8, min(256, replay_seconds / max(eager_seconds, 2e-6))))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(per_graph):
            fn()
    g.replay()
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(reps):
        s.record()
        g.replay()
        e.record()
        torch.cuda.synchronize()
        samples.append(s.elapsed_time(e) / 1e3 / per_graph)
    del g
    return statistics.median(samples)


def gemm_graph_time(m, n, k, layout):
    def make():
        if layout == "nn":
            return (torch.randn(m, k, device=dev, dtype=torch.bfloat16), torch.randn(k, n, device=dev, dtype=torch.bfloat16))
        if layout == "nt":
            return (torch.randn(m, k, device=dev, dtype=torch.bfloat16), torch.randn(n, k, device=dev, dtype=torch.bfloat16))
        return (torch.randn(k, m, device=dev, dtype=torch.bfloat16), torch.randn(k, n, device=dev, dtype=torch.bfloat16))
    sets = rotating(make, 2 * (m * k + k * n + m * n))
    c = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
    state = {"i": 0}

    def run():
        a, b = sets[state["i"] % len(sets)]
        state["i"] += 1
        if layout == "nn":
            torch.matmul(a, b, out=c)
        elif layout == "nt":
            torch.matmul(a, b.t(), out=c)
        else:
            torch.matmul(a.t(), b, out=c)
    eager_estimate = 2.0 * m * n * k / 700e12 + 2.0 * (m * k + k * n + m * n) / 2.5e12
    t = graph_timed(run, eager_estimate)
    del sets, c
    return t


def gemm_grid_graphs():
    grid = [128, 256, 512, 1024, 2048, 4096, 8192, 16384]
    rows = []
    for layout in ("nn", "nt", "tn"):
        for m in grid:
            for n in grid:
                for k in grid:
                    rows.append([layout, m, n, k, gemm_graph_time(m, n, k, layout)])
        log("gemm graph grid", layout, "done")
    for m in (32768, 65536):
        for n, k in ((1024, 1024), (4096, 4096), (8192, 8192), (3072, 1024), (1024, 4096), (2048, 8192), (8192, 2048)):
            for layout in ("nn", "nt", "tn"):
                rows.append([layout, m, n, k, gemm_graph_time(m, n, k, layout)])
    out["gemm_bf16_graph"] = {"columns": ["layout", "m", "n", "k", "seconds"], "rows": rows}


def launch_overhead():
    """Eager PyTorch's cost per op when the GPU work is negligible: the CPU dispatch a small model pays per kernel."""
    rows = []
    x = torch.randn(16, device=dev, dtype=torch.bfloat16)
    w = torch.randn(64, 64, device=dev, dtype=torch.bfloat16)
    a = torch.randn(64, 64, device=dev, dtype=torch.bfloat16)
    ln = nn.LayerNorm(64).to(dev).to(torch.bfloat16)
    for name, fn in (("add", lambda: x.add_(1)), ("matmul", lambda: a @ w), ("linear", lambda: F.linear(a, w)),
                     ("layernorm_module", lambda: ln(a)), ("gelu", lambda: F.gelu(a))):
        eager = timed(fn, min_seconds=0.05)
        gpu = graph_timed(fn, 3e-6)
        rows.append([name, eager, gpu])
    out["eager_launch_overhead"] = {"columns": ["op", "eager_seconds", "graph_seconds"], "rows": rows}
    log("launch overhead", rows)


def memory_bound_graphs():
    rows = []
    hidden = 4096
    for log2n in range(14, 31, 2):
        n = 2**log2n
        sets = rotating(lambda: torch.randn(n, device=dev, dtype=torch.bfloat16), 4 * n)
        z = torch.empty(n, device=dev, dtype=torch.bfloat16)
        state = {"i": 0}

        def pick():
            state["i"] += 1
            return sets[state["i"] % len(sets)]
        width = hidden if n >= hidden else n
        w = torch.randn(width, device=dev, dtype=torch.bfloat16)
        b = torch.randn(width, device=dev, dtype=torch.bfloat16)
        ops = {
            "copy": (lambda: z.copy_(pick()), 4 * n),
            "gelu": (lambda: F.gelu(pick()), 4 * n),
            "layernorm": (lambda: F.layer_norm(pick().view(-1, width), (width,), w, b), 4 * n),
            "rmsnorm": (lambda: F.rms_norm(pick().view(-1, width), (width,), w), 4 * n),
            "softmax": (lambda: torch.softmax(pick().view(-1, width), dim=-1), 4 * n),
        }
        for name, (fn, nbytes) in ops.items():
            rows.append([name, n, nbytes, graph_timed(fn, nbytes / 2.5e12)])
        del sets, z
        torch.cuda.empty_cache()
    out["memory_bound_bf16_graph"] = {"columns": ["op", "elements", "bytes_moved", "seconds"], "rows": rows}
    log("memory-bound graphs done")


def attention_backends():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rows = []
    for backend_name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        for d in (128,):
            for s in (1024, 2048, 4096, 8192, 16384):
                for bh in (32, 128):
                    if bh * s * d * 2 * 4 > 6e9:
                        continue
                    for causal in (False, True):
                        try:
                            q = torch.randn(1, bh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                            k = torch.randn(1, bh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                            v = torch.randn(1, bh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                            with sdpa_kernel([backend]):
                                fwd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                                o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                                g = torch.randn_like(o)

                                def fb():
                                    o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                                    o.backward(g)
                                fwd_bwd = timed(fb)
                            rows.append([backend_name, d, s, bh, causal, fwd, fwd_bwd])
                            del q, k, v, o, g
                        except Exception as ex:
                            rows.append([backend_name, d, s, bh, causal, None, repr(ex)[:200]])
        log("attention backend", backend_name, "done")
    out["attention_backends_bf16"] = {"columns": ["backend", "head_dim", "seq", "batch_x_heads", "causal", "forward_seconds",
                                                  "forward_backward_seconds"], "rows": rows}


def sustained():
    """An 8192^3 product run for 4 s: the clock a long training step settles at, against the first 0.1 s."""
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    c = torch.empty(8192, 8192, device=dev, dtype=torch.bfloat16)
    windows = []
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    for _ in range(40):
        s.record()
        for _ in range(70):
            torch.matmul(a, b, out=c)
        e.record()
        torch.cuda.synchronize()
        windows.append(70 * 2 * 8192**3 / (s.elapsed_time(e) / 1e3))
    out["sustained_gemm_8192_flops_per_s"] = windows
    log("sustained", [round(w / 1e12) for w in windows[:3]], [round(w / 1e12) for w in windows[-3:]])


which = sys.argv[1:] or ["train", "gemm", "shapes", "mem", "attn", "fp8"]
if "--out-name" in which:
    i = which.index("--out-name")
    OUT_NAME = which[i + 1]
    del which[i:i + 2]
else:
    OUT_NAME = "kernel_probe.json"
for name, fn in (("train", training), ("gemm", gemm_grid), ("shapes", gemm_published_shapes), ("fp8", gemm_fp8),
                 ("mem", memory_bound), ("attn", attention), ("sustained", sustained), ("overhead", launch_overhead),
                 ("gemm_graph", gemm_grid_graphs), ("mem_graph", memory_bound_graphs), ("attn_backends", attention_backends), ("align", gemm_alignment), ("profile", training_profile), ("ops", training_ops), ("eager_attn", eager_attention), ("heldout", training_heldout), ("fp32", training_fp32)):
    if name in which:
        section(name, fn)
log("done")
