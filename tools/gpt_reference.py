#!/usr/bin/python3
"""gpt_reference.py: writes tests/fixtures/gpt_fixture.bin, the PyTorch oracle
for the C++ GPT reference (tests/unit/gpt_fixture_test.cpp).

Run with Debian's torch:  /usr/bin/python3 tools/gpt_reference.py [--out FILE]
Deterministic: fixed seed, one thread, so the file is the same on every run
on one machine (CI regenerates it and runs the test against the fresh file).

Layout (little-endian):
  int32[16]   magic 0x58464757 ("WGFX"), version 1, V, maxT, L, NH, C, B, T,
              steps, warmup_iters, lr_decay_iters, 0...
  float64[8]  learning_rate, min_lr, weight_decay, beta1, beta2, adam_eps, grad_clip, 0
  float32[P]  initial parameters, llm.c order (engine/gpt/gpt.h)
  int32[B*T]  inputs;  int32[B*T] targets
  float32[B*T*V] logits;  float32 loss;  float32[P] gradients
  float32[steps] losses of the 10 AdamW steps (before each update)
  float32[steps] gradient norms (before clipping)
  float32[P]  parameters after the steps
  int32       magic again (truncation check)
"""
import argparse
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt_torch_model import GPT, get_lr  # noqa: E402

MAGIC = 0x58464757
VERSION = 1
# A small shape that still exercises the edges: V not a multiple of 8, T < maxT, hs = 8.
V, MAXT, L, NH, C, B, T, STEPS = 37, 16, 2, 4, 32, 3, 12, 10
LR, MIN_LR, WARMUP, DECAY_ITERS = 1e-2, 1e-3, 3, 8
WD, B1, B2, EPS, CLIP = 0.1, 0.9, 0.99, 1e-8, 0.5
SEED = 5


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "tests", "fixtures", "gpt_fixture.bin"))
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    model = GPT(V, MAXT, L, NH, C)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.3 if "wte" in name or "wpe" in name else 0.1)
            elif name.endswith("weight"):   # LayerNorm gains near 1
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
            else:
                p.normal_(0.0, 0.05)
    x = torch.randint(0, V, (B, T), dtype=torch.int64)
    y = torch.randint(0, V, (B, T), dtype=torch.int64)

    params0 = torch.cat([t.detach().reshape(-1) for t in model.llmc_tensors()])
    logits, loss = model(x, y)
    loss.backward()
    grads = torch.cat([t.detach().reshape(-1) for t in model.llmc_tensors(grad=True)])

    opt = torch.optim.AdamW(model.decay_groups(WD), lr=LR, betas=(B1, B2), eps=EPS, foreach=False)
    losses, norms = [], []
    for step in range(STEPS):
        for g in opt.param_groups:
            g["lr"] = get_lr(step, LR, MIN_LR, WARMUP, DECAY_ITERS)
        opt.zero_grad(set_to_none=False)
        _, l = model(x, y)
        l.backward()
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)))
        opt.step()
        losses.append(float(l))
    params1 = torch.cat([t.detach().reshape(-1) for t in model.llmc_tensors()])

    f32 = lambda a: np.asarray(a, dtype="<f4").tobytes()  # noqa: E731
    i32 = lambda a: np.asarray(a, dtype="<i4").tobytes()  # noqa: E731
    header = [MAGIC, VERSION, V, MAXT, L, NH, C, B, T, STEPS, WARMUP, DECAY_ITERS] + [0] * 4
    with open(args.out, "wb") as f:
        f.write(i32(header))
        f.write(np.asarray([LR, MIN_LR, WD, B1, B2, EPS, CLIP, 0.0], dtype="<f8").tobytes())
        f.write(f32(params0.numpy()))
        f.write(i32(x.numpy().reshape(-1)))
        f.write(i32(y.numpy().reshape(-1)))
        f.write(f32(logits.detach().numpy().reshape(-1)))
        f.write(f32([float(loss)]))
        f.write(f32(grads.numpy()))
        f.write(f32(losses))
        f.write(f32(norms))
        f.write(f32(params1.numpy()))
        f.write(struct.pack("<i", MAGIC))
    print(f"wrote {args.out}: P={params0.numel()} loss={float(loss):.6f} "
          f"losses {losses[0]:.4f} -> {losses[-1]:.4f}, norms {norms[0]:.3f} -> {norms[-1]:.3f}")


if __name__ == "__main__":
    main()
