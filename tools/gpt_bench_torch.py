#!/usr/bin/python3
"""gpt_bench_torch.py: PyTorch's side of `waferlab-cli bench gpt`.

Trains the same GPT (tools/gpt_torch_model.py) on the same text with the same
settings as the C++ reference (char tokenizer, AdamW with nanoGPT's groups,
grad clip 1.0) and prints one JSON line: tokens_per_s, ms_per_step, threads.
Run with Debian's torch: /usr/bin/python3 tools/gpt_bench_torch.py --data FILE
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt_torch_model import GPT  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--n_layer", type=int, default=4)
    ap.add_argument("--n_head", type=int, default=4)
    ap.add_argument("--n_embd", type=int, default=128)
    ap.add_argument("--block_size", type=int, default=64)
    ap.add_argument("--batch_size", type=int, default=12)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=1337)
    a = ap.parse_args()

    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    text = open(a.data, "rb").read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text[: int(len(text) * 0.9)]], dtype=torch.long)
    V, T, B = len(chars), a.block_size, a.batch_size

    model = GPT(V, T, a.n_layer, a.n_head, a.n_embd)
    opt = torch.optim.AdamW(model.decay_groups(0.1), lr=a.lr, betas=(0.9, 0.99), eps=1e-8)

    def step():
        ix = torch.randint(len(data) - T, (B,))
        x = torch.stack([data[i:i + T] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + T] for i in ix])
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return float(loss)

    for _ in range(a.warmup):
        step()
    t0 = time.perf_counter()
    loss = 0.0
    for _ in range(a.steps):
        loss = step()
    dt = time.perf_counter() - t0
    print(json.dumps({"tokens_per_s": a.steps * B * T / dt, "ms_per_step": 1000 * dt / a.steps,
                      "threads": torch.get_num_threads(), "torch": torch.__version__,
                      "parameters": sum(p.numel() for p in model.parameters()), "last_loss": loss}))


if __name__ == "__main__":
    main()
