"""gpt_torch_model.py: the GPT reference's model in PyTorch, for the fixture
(tools/gpt_reference.py) and the speed comparison (tools/gpt_bench_torch.py).

What it is: nanoGPT's model with biases, no dropout, GELU in tanh form, an LM
head tied to the token embedding, and llm.c's parameter order for export.
What it is not: the C++ model; that is engine/gpt/gpt.cpp. Keep them in step.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, C, NH):
        super().__init__()
        self.NH = NH
        self.c_attn = nn.Linear(C, 3 * C)
        self.c_proj = nn.Linear(C, C)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        hs = C // self.NH
        q = q.view(B, T, self.NH, hs).transpose(1, 2)
        k = k.view(B, T, self.NH, hs).transpose(1, 2)
        v = v.view(B, T, self.NH, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
        att = att.masked_fill(~mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, C, NH):
        super().__init__()
        self.ln_1 = nn.LayerNorm(C)
        self.attn = Attention(C, NH)
        self.ln_2 = nn.LayerNorm(C)
        self.c_fc = nn.Linear(C, 4 * C)
        self.c_proj = nn.Linear(4 * C, C)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, V, maxT, L, NH, C):
        super().__init__()
        self.wte = nn.Embedding(V, C)
        self.wpe = nn.Embedding(maxT, C)
        self.h = nn.ModuleList([Block(C, NH) for _ in range(L)])
        self.ln_f = nn.LayerNorm(C)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(T))
        for block in self.h:
            x = block(x)
        logits = self.ln_f(x) @ self.wte.weight.t()   # tied head
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    # The 16 tensors in llm.c's order (engine/gpt/gpt.h ParameterTensors), each stacked over layers.
    def llmc_tensors(self, grad=False):
        def g(t):
            return t.grad if grad else t
        h = self.h
        out = [g(self.wte.weight), g(self.wpe.weight)]
        for get in [lambda b: b.ln_1.weight, lambda b: b.ln_1.bias,
                    lambda b: b.attn.c_attn.weight, lambda b: b.attn.c_attn.bias,
                    lambda b: b.attn.c_proj.weight, lambda b: b.attn.c_proj.bias,
                    lambda b: b.ln_2.weight, lambda b: b.ln_2.bias,
                    lambda b: b.c_fc.weight, lambda b: b.c_fc.bias,
                    lambda b: b.c_proj.weight, lambda b: b.c_proj.bias]:
            out.append(torch.stack([g(get(b)) for b in h]))
        out += [g(self.ln_f.weight), g(self.ln_f.bias)]
        return out

    def load_flat(self, flat):
        """Loads a flat fp32 vector in llm.c order."""
        off = 0
        with torch.no_grad():
            L = len(self.h)
            for i, t in enumerate(self.llmc_tensors()):
                n = t.numel()
                chunk = torch.tensor(flat[off:off + n], dtype=torch.float32).view(t.shape)
                off += n
                if i < 2 or i >= 14:
                    {0: self.wte.weight, 1: self.wpe.weight, 14: self.ln_f.weight, 15: self.ln_f.bias}[i].copy_(chunk)
                else:
                    getters = [lambda b: b.ln_1.weight, lambda b: b.ln_1.bias,
                               lambda b: b.attn.c_attn.weight, lambda b: b.attn.c_attn.bias,
                               lambda b: b.attn.c_proj.weight, lambda b: b.attn.c_proj.bias,
                               lambda b: b.ln_2.weight, lambda b: b.ln_2.bias,
                               lambda b: b.c_fc.weight, lambda b: b.c_fc.bias,
                               lambda b: b.c_proj.weight, lambda b: b.c_proj.bias]
                    for l in range(L):
                        getters[i - 2](self.h[l]).copy_(chunk[l])
        return off

    def decay_groups(self, weight_decay):
        decay = [p for p in self.parameters() if p.dim() >= 2]
        nodecay = [p for p in self.parameters() if p.dim() < 2]
        return [{"params": decay, "weight_decay": weight_decay}, {"params": nodecay, "weight_decay": 0.0}]


def get_lr(step, lr, min_lr, warmup, decay_iters):
    """nanoGPT's schedule, as engine/gpt/adamw.cpp learning_rate_at."""
    if step < warmup:
        return lr * (step + 1) / (warmup + 1)
    if step > decay_iters or decay_iters <= warmup:
        return min_lr
    ratio = (step - warmup) / (decay_iters - warmup)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)
