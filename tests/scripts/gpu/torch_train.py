"""A small PyTorch training loop on the GPU (MLP, Adam), one NVTX range
`train N` per step, for `proflens-collect run` (CUPTI) fixtures; with
--kineto it runs under torch.profiler instead and writes a Kineto trace.

Each step copies a pinned host batch to the GPU (a host-to-device copy),
runs forward/backward/Adam (GEMM and elementwise kernels), and reads the
loss back with .item() (a device-to-host copy and a synchronisation)."""
import argparse
import torch

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=12)
p.add_argument("--kineto", default=None, help="write a torch.profiler trace JSON here")
p.add_argument("--seconds", type=float, default=None, help="run steps until this long has passed (not with --kineto)")
a = p.parse_args()

torch.manual_seed(0)
dev = torch.device("cuda")
model = torch.nn.Sequential(
    torch.nn.Linear(1024, 2048), torch.nn.ReLU(),
    torch.nn.Linear(2048, 2048), torch.nn.ReLU(),
    torch.nn.Linear(2048, 10),
).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = torch.nn.CrossEntropyLoss()
xs = torch.randn(512, 1024).pin_memory()
ys = torch.randint(0, 10, (512,)).pin_memory()


def step():
    x = xs.to(dev, non_blocking=True)
    y = ys.to(dev, non_blocking=True)
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


if a.kineto is None:
    import time

    until = None if a.seconds is None else time.time() + a.seconds
    i = 0
    while (until is None and i < a.steps) or (until is not None and time.time() < until):
        torch.cuda.nvtx.range_push(f"train {i}")
        loss = step()
        torch.cuda.nvtx.range_pop()
        i += 1
    torch.cuda.synchronize()
    print(f"steps={i} loss={loss:.4f} end={time.time():.3f}")
else:
    from torch.profiler import ProfilerActivity, profile, schedule

    def ready(prof):
        prof.export_chrome_trace(a.kineto)

    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
        on_trace_ready=ready,
        record_shapes=True,
        profile_memory=True,
        with_stack=False,
    ) as prof:
        for i in range(a.steps):
            loss = step()
            prof.step()
    print(f"steps={a.steps} loss={loss:.4f} trace={a.kineto}")
