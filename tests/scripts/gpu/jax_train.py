"""A small JAX training loop on the GPU (jit'd MLP, SGD), each step in
jax.profiler.StepTraceAnnotation("train", step_num=i).

  --trace LOGDIR   the whole loop under jax.profiler.trace(LOGDIR)
  --server PORT    a profiler server; steps run (with a 20 ms pause) until
                   --seconds have passed, for `proflens-collect capture`;
                   READY_FILE is created after the first (compiling) step."""
import argparse
import time

import jax
import jax.numpy as jnp

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=10)
p.add_argument("--trace", default=None)
p.add_argument("--server", type=int, default=None)
p.add_argument("--seconds", type=float, default=12.0)
p.add_argument("--ready-file", default=None)
a = p.parse_args()

print("devices:", jax.devices())
k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
params = {
    "w1": jax.random.normal(k1, (1024, 2048)) * 0.02,
    "w2": jax.random.normal(k2, (2048, 2048)) * 0.02,
    "w3": jax.random.normal(k3, (2048, 10)) * 0.02,
}
x = jax.random.normal(k4, (512, 1024))
y = jax.nn.one_hot(jnp.arange(512) % 10, 10)


def loss_fn(p, x, y):
    h = jax.nn.relu(x @ p["w1"])
    h = jax.nn.relu(h @ p["w2"])
    logits = h @ p["w3"]
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


@jax.jit
def train_step(p, x, y):
    loss, g = jax.value_and_grad(loss_fn)(p, x, y)
    return jax.tree_util.tree_map(lambda w, d: w - 0.01 * d, p, g), loss


def run(n, pause=0.0, until=None):
    global params
    i = 0
    while (until is None and i < n) or (until is not None and time.time() < until):
        with jax.profiler.StepTraceAnnotation("train", step_num=i):
            params, loss = train_step(params, x, y)
            loss.block_until_ready()
        if i == 0 and a.ready_file:
            open(a.ready_file, "w").close()
        i += 1
        if pause:
            time.sleep(pause)
    return i, float(loss)


if a.server is not None:
    jax.profiler.start_server(a.server)
    n, loss = run(0, pause=0.02, until=time.time() + a.seconds)
elif a.trace is not None:
    train_step(params, x, y)[1].block_until_ready()  # compile outside the trace
    with jax.profiler.trace(a.trace):
        n, loss = run(a.steps)
else:
    n, loss = run(a.steps)
print(f"steps={n} loss={loss:.4f}")
