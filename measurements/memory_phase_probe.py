"""Where in a training step the memory peaks: the forward, the loss's backward, each block's backward.

PyTorch eager, autocast bf16 over fp32 weights, fused AdamW, on one GPU; the GPT and Llama-style blocks of kernel_probe.py.
One warm-up step, then one measured step: torch.cuda.max_memory_allocated read and reset after the loss, at every
block boundary of the backward (gradient hooks on each block's input and output), after the backward and after the
optimizer step. Writes $OUT/memory_phases.json (kept as measurements/h100_memory_phases.json with its method).
The device ran a compact copy of this program (same modules, ops and order, shorter names: the command line takes
2,000 characters).
"""
import json, math, os
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

D = "cuda"
M = torch.cuda


class Block(nn.Module):
    def __init__(s, h, a, f, fused, llama, selective):
        super().__init__()
        s.a, s.fused, s.llama, s.selective = a, fused, llama, selective
        Norm = nn.RMSNorm if llama else nn.LayerNorm
        s.n1, s.n2 = Norm(h), Norm(h)
        s.qkv = nn.Linear(h, 3 * h, bias=not llama)
        s.o = nn.Linear(h, h, bias=not llama)
        if llama:
            s.g, s.u, s.d = nn.Linear(h, f, bias=False), nn.Linear(h, f, bias=False), nn.Linear(f, h, bias=False)
        else:
            s.f1, s.f2 = nn.Linear(h, f), nn.Linear(f, h)

    def core(s, q, k, v):
        if s.fused:
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        S = q.shape[2]
        mask = torch.ones(S, S, device=D, dtype=torch.bool).tril()
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        return scores.masked_fill(~mask, -math.inf).softmax(-1) @ v

    def forward(s, x):
        b, S, H = x.shape
        q, k, v = (t.view(b, S, s.a, H // s.a).transpose(1, 2) for t in s.qkv(s.n1(x)).split(H, 2))
        y = checkpoint(s.core, q, k, v, use_reentrant=False) if s.selective else s.core(q, k, v)
        x = x + s.o(y.transpose(1, 2).reshape(b, S, H))
        u = s.n2(x)
        return x + (s.d(F.silu(s.g(u)) * s.u(u)) if s.llama else s.f2(F.gelu(s.f1(u))))


class GPT(nn.Module):
    def __init__(s, L, h, a, V, S, fused, ckpt, llama, selective):
        super().__init__()
        f = int(8 * h / 3 / 256 + 0.999) * 256 if llama else 4 * h
        s.ckpt = ckpt
        s.tok = nn.Embedding(V, h)
        s.pos = None if llama else nn.Embedding(S, h)
        s.blocks = nn.ModuleList([Block(h, a, f, fused, llama, selective) for _ in range(L)])
        s.norm = (nn.RMSNorm if llama else nn.LayerNorm)(h)
        s.head = nn.Linear(h, V, bias=False)

    def forward(s, idx, hook):
        x = s.tok(idx)
        if s.pos:
            x = x + s.pos(torch.arange(idx.shape[1], device=D))
        for block in s.blocks:
            if hook:
                x.register_hook(hook)  # fires when the block's backward has produced its input's gradient
            x = checkpoint(block, x, use_reentrant=False) if s.ckpt else block(x)
        if hook:
            x.register_hook(hook)      # fires when the loss and head's backward reach the last block
        return s.head(s.norm(x))


def run(L, h, a, V, S, batch, fused, ckpt, llama=0, selective=0):
    M.empty_cache()
    M.reset_peak_memory_stats()
    base = M.memory_allocated()
    model = GPT(L, h, a, V, S, fused, ckpt, llama, selective).to(D)
    opt = torch.optim.AdamW(model.parameters(), fused=True)
    idx = torch.randint(0, V, (batch, S), device=D)
    segments = []

    def hook(_):
        segments.append(M.max_memory_allocated() - base)
        M.reset_peak_memory_stats()

    for step in (0, 1):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(idx, hook if step else None).float().view(-1, V), idx.view(-1))
        forward = M.max_memory_allocated() - base
        M.reset_peak_memory_stats()
        loss.backward()
        segments.append(M.max_memory_allocated() - base)
        M.reset_peak_memory_stats()
        opt.step()
        opt.zero_grad(set_to_none=False)
        if not step:
            state = M.memory_allocated() - base
            segments = []
            M.reset_peak_memory_stats()
    result = dict(config=[L, h, a, V, S, batch, fused, ckpt, llama, selective], params=sum(p.numel() for p in model.parameters()),
                  state=state, forward=forward, backward_segments=segments, optimizer=M.max_memory_allocated() - base,
                  reserved=M.max_memory_reserved())
    print(json.dumps(result), flush=True)
    del model, opt, loss, idx
    M.empty_cache()
    return result


out = dict(gpu=M.get_device_name(), torch=torch.__version__, runs=[])
for config in [(12, 1024, 16, 32000, 1024, 8, 1, 0),            # kernel_probe's second run: the loss's backward peaks
               (8, 2048, 16, 32000, 4096, 2, 0, 0),             # unfused attention: the last block's backward peaks
               (4, 4096, 32, 8192, 8192, 2, 1, 1, 1),           # Llama, checkpointed, small vocabulary: the recompute peaks
               (8, 4096, 32, 8192, 4096, 2, 1, 0, 1),           # Llama, no checkpointing, small vocabulary
               (4, 2048, 16, 8192, 4096, 2, 0, 1),              # unfused and checkpointed: the recomputed scores
               (8, 2048, 16, 8192, 4096, 2, 0, 0, 0, 1)]:       # selective: only the attention core recomputed
    try:
        out["runs"].append(run(*config))
    except Exception as error:
        out["runs"].append(dict(config=config, error=repr(error)[:300]))
json.dump(out, open(os.path.join(os.environ.get("OUT", "."), "memory_phases.json"), "w"), indent=1)
