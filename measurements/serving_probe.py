"""What a decode step's kernels cost on one GPU when replayed from a CUDA graph, as serving engines run them.

hf_training_probe.py's "gemv" rows time one eager F.linear between two CUDA events: that includes the host's launch of
the call (its "gemm" rows show ~45-50 us for GEMMs of a few microseconds of work), so a 117 MB GEMV read at 49 us says
only that the GEMV reaches at least 2.38 TB/s. Here every kernel is captured many times in a CUDA graph and the graph
replayed, so the time per kernel is the GPU's own, gaps between dependent kernels included, as in a decode step.

Sections (each case in its own try, results written after every case to $OUT/serving_probe.json):
1. "gemv_graph": bf16 F.linear (x @ W^T) at the weight shapes of Llama 3.1 8B and Llama 3.2 1B's decode step (fused
   QKV, output projection, fused gate-up, down, the vocabulary head) with 1..256 rows; distinct weights in turn, at
   least 512 MB of them, so no call finds its weight in L2. Bytes: the weight plus the rows in and out.
2. "attention_decode_graph": the decode attention of hf_training_probe.py's decoder (SDPA, the query heads of a KV group
   as the rows, no mask) for batch 1..128 and context 1024/4096, head dim 128 and 64, 8 KV heads; distinct caches in
   turn. Bytes: K and V read, Q and the output.
3. "elementwise_graph": one small op repeated 200 times in a graph (add, RMSNorm, silu x up) on a decode step's rows:
   what a kernel with almost no work costs between its neighbours.
4. "copy_graph": a 1 GiB device copy replayed from a graph (bytes read and written).
5. "attention_prefill": SDPA causal flash attention of one prompt, 32 heads, head dim 128 and 64, eager, events.
6. "decode_kernels": the kernels one decode step of hf_training_probe.py's Decoder launches (torch.profiler), by name.
7. "host_calls": the host's time per eager call in a tight loop, for the calls the Decoder makes that launch nothing
   (view, split, chunk, transpose, a strided slice) beside ones that launch a kernel (add, F.linear, SDPA).
8. "prefill_profile": hf_training_probe.py's eager prefill (Llama 3.1 8B at 512 tokens, Llama 3.2 1B at 512 and 2048):
   the time between events around the call beside the sum of its kernels' GPU times (torch.profiler).
9. "attention_prefill_graph": section 5's causal SDPA replayed from a CUDA graph (no host launch in the time).
Run with section names as arguments to run only those (the file then holds only them). Times in seconds.
"""
import json, math, os, statistics, sys, time, traceback

import torch
import torch.nn.functional as F

OUT = os.environ.get("OUT", ".")
D = "cuda"
M = torch.cuda
bf = torch.bfloat16
results = {"method": __doc__, "sections": {}, "errors": []}
START = time.time()


def save():
    with open(os.path.join(OUT, "serving_probe.json"), "w") as f:
        json.dump(results, f, indent=1)


def record(section, row):
    results["sections"].setdefault(section, []).append(row)


def graph_seconds_per_call(calls, replays=5):
    """Captures calls() (which launches a known number of kernels) once, replays it, returns seconds per replay."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        calls()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        calls()
    graph.replay()
    M.synchronize()
    times = []
    for _ in range(replays):
        a, b = M.Event(enable_timing=True), M.Event(enable_timing=True)
        a.record()
        graph.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    del graph
    return statistics.median(times)


MODELS = {"llama3.1-8b": (4096, 14336, 32, 8, 128256), "llama3.2-1b": (2048, 8192, 32, 8, 128256)}


def gemv():
    for name, (h, ffn, heads, kv, vocab) in MODELS.items():
        d = h // heads
        shapes = (("qkv", h + 2 * kv * d, h), ("out_proj", h, h), ("gate_up", 2 * ffn, h), ("down", h, ffn), ("head", vocab, h))
        for label, n, k in shapes:
            weight_bytes = n * k * 2
            copies = max(2, min(64, math.ceil(512e6 / weight_bytes)))
            try:
                ws = [torch.randn(n, k, device=D, dtype=bf) for _ in range(copies)]
                for m in (1, 8, 32, 128, 256):
                    xs = [torch.randn(m, k, device=D, dtype=bf) for _ in range(copies)]
                    calls = max(copies, 16)
                    t = graph_seconds_per_call(lambda: [F.linear(xs[i % copies], ws[i % copies]) for i in range(calls)]) / calls
                    moved = weight_bytes + m * (n + k) * 2
                    record("gemv_graph", dict(model=name, weight=label, m=m, n=n, k=k, seconds=t, bytes=moved,
                                              bytes_per_s=moved / t, flops_per_s=2 * m * n * k / t))
                    del xs
                del ws
            except Exception as error:
                results["errors"].append(f"gemv {name} {label}: {error!r}"[:300])
            M.empty_cache()
        save()


def attention_decode():
    kv, group = 8, 4
    for d in (128, 64):
        for ctx in (1024, 4096):
            for b in (1, 8, 32, 128):
                try:
                    cache_bytes = 2 * b * kv * ctx * d * 2
                    copies = max(2, min(64, math.ceil(512e6 / cache_bytes)))
                    ks = [torch.randn(b, kv, ctx, d, device=D, dtype=bf) for _ in range(copies)]
                    vs = [torch.randn(b, kv, ctx, d, device=D, dtype=bf) for _ in range(copies)]
                    qs = [torch.randn(b, kv, group, d, device=D, dtype=bf) for _ in range(copies)]
                    calls = max(copies, 16)
                    t = graph_seconds_per_call(
                        lambda: [F.scaled_dot_product_attention(qs[i % copies], ks[i % copies], vs[i % copies]) for i in range(calls)]) / calls
                    moved = cache_bytes + 2 * b * kv * group * d * 2
                    record("attention_decode_graph", dict(head_dim=d, kv_heads=kv, group=group, batch=b, context=ctx, seconds=t,
                                                          bytes=moved, bytes_per_s=moved / t))
                    del ks, vs, qs
                except Exception as error:
                    results["errors"].append(f"attention decode {d} {ctx} {b}: {error!r}"[:300])
                M.empty_cache()
    save()


def elementwise():
    for rows in (1, 128):
        x = torch.randn(rows, 4096, device=D, dtype=bf)
        y = torch.randn(rows, 4096, device=D, dtype=bf)
        w = torch.ones(4096, device=D, dtype=bf)
        g = torch.randn(rows, 14336, device=D, dtype=bf)
        u = torch.randn(rows, 14336, device=D, dtype=bf)
        ops = (("add", lambda: x.add_(y), 1), ("rms_norm", lambda: F.rms_norm(x, (4096,), w, 1e-5), None),
               ("silu_mul", lambda: F.silu(g) * u, 2))
        for label, op, kernels in ops:
            try:
                t = graph_seconds_per_call(lambda: [op() for _ in range(200)]) / 200
                record("elementwise_graph", dict(op=label, rows=rows, seconds_per_call=t, kernels_per_call=kernels))
            except Exception as error:
                results["errors"].append(f"elementwise {label} {rows}: {error!r}"[:300])
    save()


def copy():
    x = torch.empty(2 ** 29, device=D, dtype=bf)
    y = torch.empty_like(x)
    t = graph_seconds_per_call(lambda: [y.copy_(x) for _ in range(8)]) / 8
    record("copy_graph", dict(bytes_moved=2 * x.numel() * 2, seconds=t, bytes_per_s=2 * x.numel() * 2 / t))
    del x, y
    M.empty_cache()
    save()


def attention_prefill():
    heads = 32
    for d in (128, 64):
        for s in (512, 2048, 8192):
            try:
                q, k, v = (torch.randn(1, heads, s, d, device=D, dtype=bf) for _ in range(3))
                for _ in range(3):
                    F.scaled_dot_product_attention(q, k, v, is_causal=True)
                times = []
                for _ in range(7):
                    a, b = M.Event(enable_timing=True), M.Event(enable_timing=True)
                    a.record()
                    F.scaled_dot_product_attention(q, k, v, is_causal=True)
                    b.record()
                    b.synchronize()
                    times.append(a.elapsed_time(b) / 1e3)
                t = statistics.median(times)
                executed = 0.5 * 4 * heads * s * s * d
                record("attention_prefill", dict(heads=heads, head_dim=d, seq=s, seconds=t, executed_flops=executed,
                                                 flops_per_s=executed / t))
                del q, k, v
            except Exception as error:
                results["errors"].append(f"attention prefill {d} {s}: {error!r}"[:300])
    save()


def decode_kernels():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from hf_training_probe import Decoder, SERVING_MODELS
    from torch.profiler import ProfilerActivity, profile
    for name in SERVING_MODELS:
        h, ffn, layers, heads, kv, vocab = SERVING_MODELS[name]
        with torch.inference_mode():
            dec = Decoder(h, ffn, layers, heads, kv, vocab, 1, 1024)
            tokens = torch.randint(0, vocab, (1,), device=D)
            pos = torch.tensor([1023], device=D)
            for _ in range(2):
                dec.decode(tokens, pos)
            M.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                dec.decode(tokens, pos)
                M.synchronize()
        counts = {}
        for event in prof.events():
            if event.device_type == torch.autograd.DeviceType.CUDA:
                counts[event.name] = counts.get(event.name, 0) + 1
        record("decode_kernels", dict(model=name, layers=layers, kernels_per_step=sum(counts.values()),
                                      by_name=dict(sorted(counts.items(), key=lambda kv: -kv[1]))))
        del dec
        M.empty_cache()
    save()


def host_calls():
    x = torch.randn(1, 512, 4096, device=D, dtype=bf)
    w = torch.randn(64, 64, device=D, dtype=bf)
    small = torch.randn(64, 64, device=D, dtype=bf)
    q = torch.randn(1, 8, 4, 128, device=D, dtype=bf)
    kv = torch.randn(1, 8, 64, 128, device=D, dtype=bf)
    calls = (("view", lambda: x.view(1, 512, 32, 128)), ("split", lambda: x.split((2048, 1024, 1024), -1)),
             ("chunk", lambda: x.chunk(2, -1)), ("transpose", lambda: x.transpose(1, 2)), ("slice_strided", lambda: x[..., ::2]),
             ("add", lambda: small.add_(1.0)), ("linear", lambda: F.linear(small, w)),
             ("sdpa", lambda: F.scaled_dot_product_attention(q, kv, kv)))
    for name, call in calls:
        for _ in range(200):
            call()
        M.synchronize()
        t0 = time.perf_counter()
        for _ in range(4000):
            call()
        M.synchronize()
        record("host_calls", dict(call=name, seconds_per_call=(time.perf_counter() - t0) / 4000))
    save()


def prefill_profile():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from hf_training_probe import Decoder, SERVING_MODELS
    from torch.profiler import ProfilerActivity, profile
    for name, prompt in (("llama3.1-8b", 512), ("llama3.2-1b", 512), ("llama3.2-1b", 2048)):
        h, ffn, layers, heads, kv, vocab = SERVING_MODELS[name]
        with torch.inference_mode():
            dec = Decoder(h, ffn, layers, heads, kv, vocab, 1, prompt)
            tokens = torch.randint(0, vocab, (1, prompt), device=D)
            for _ in range(3):
                dec.prefill(tokens)
            M.synchronize()
            times = []
            for _ in range(5):
                a, b = M.Event(enable_timing=True), M.Event(enable_timing=True)
                a.record()
                dec.prefill(tokens)
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b) / 1e3)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                dec.prefill(tokens)
                M.synchronize()
        kernel_seconds = sum(e.time_range.elapsed_us() for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA) / 1e6
        launches = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
        record("prefill_profile", dict(model=name, prompt_tokens=prompt, seconds=statistics.median(times),
                                       kernel_seconds=kernel_seconds, kernels=launches))
        del dec
        M.empty_cache()
    save()


def attention_prefill_graph():
    heads = 32
    for d in (128, 64):
        for s_len in (512, 2048, 8192):
            try:
                copies = 4
                qs = [[torch.randn(1, heads, s_len, d, device=D, dtype=bf) for _ in range(3)] for _ in range(copies)]
                calls = 8
                t = graph_seconds_per_call(
                    lambda: [F.scaled_dot_product_attention(*qs[i % copies], is_causal=True) for i in range(calls)]) / calls
                executed = 0.5 * 4 * heads * s_len * s_len * d
                record("attention_prefill_graph", dict(heads=heads, head_dim=d, seq=s_len, seconds=t, executed_flops=executed,
                                                       flops_per_s=executed / t))
                del qs
            except Exception as error:
                results["errors"].append(f"attention prefill graph {d} {s_len}: {error!r}"[:300])
    save()


SECTIONS = {"copy": lambda: copy(), "elementwise": lambda: elementwise(), "gemv": lambda: gemv(),
            "attention decode": lambda: attention_decode(), "attention prefill": lambda: attention_prefill(),
            "decode kernels": lambda: decode_kernels(), "host calls": lambda: host_calls(),
            "prefill profile": lambda: prefill_profile(), "attention prefill graph": lambda: attention_prefill_graph()}


def main():
    results["environment"] = dict(gpu=M.get_device_name(), sms=M.get_device_properties(0).multi_processor_count,
                                  torch=torch.__version__, cuda=torch.version.cuda)
    print(json.dumps(results["environment"]), flush=True)
    chosen = [name.replace("_", " ") for name in sys.argv[1:]] or list(SECTIONS)
    for label, fn in ((name, SECTIONS[name]) for name in chosen):
        try:
            fn()
        except Exception as error:
            results["errors"].append(f"{label}: {error!r} {traceback.format_exc()[-600:]}")
        print(f"{label} done at {time.time() - START:.0f} s", flush=True)
    results["seconds"] = time.time() - START
    save()
    print("errors:", results["errors"])


if __name__ == "__main__":
    main()
