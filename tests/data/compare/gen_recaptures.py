"""Writes the comparison test's JAX profiles: one training loop captured
twice as it is ("base", "again") and once changed ("changed": a wider
hidden layer and an extra sort under the name scope `extra_sort`).

Usage: python gen_recaptures.py OUTDIR   (JAX on CPU; 10 steps per capture)

Each capture goes to OUTDIR/<case>/plugins/profile/<run>/<host>.xplane.pb.
"""

import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

OUT = os.path.abspath(sys.argv[1])
STEPS = 10


def make_step(hidden, extra):
  def loss_fn(params, x, y):
    (w1, b1), (w2, b2) = params
    h = jax.nn.relu(x @ w1 + b1)
    if extra:
      with jax.named_scope('extra_sort'):
        h = h + 1e-3 * jnp.sort(h, axis=1)
    logits = h @ w2 + b2
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

  @jax.jit
  def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads), loss

  key = jax.random.PRNGKey(0)
  k1, k2 = jax.random.split(key)
  params = [(jax.random.normal(k1, (784, hidden)) * 0.05, jnp.zeros((hidden,))),
            (jax.random.normal(k2, (hidden, 10)) * 0.05, jnp.zeros((10,)))]
  return train_step, params


def capture(case, hidden, extra):
  train_step, params = make_step(hidden, extra)
  rng = np.random.default_rng(0)
  batch = lambda: (rng.random((128, 784), dtype=np.float32),
                   rng.integers(0, 10, size=(128,)).astype(np.int32))
  x, y = batch()
  params, loss = train_step(params, x, y)  # compile outside the trace
  loss.block_until_ready()
  with jax.profiler.trace(os.path.join(OUT, case)):
    for step in range(STEPS):
      with jax.profiler.StepTraceAnnotation('train', step_num=step):
        x, y = batch()
        params, loss = train_step(params, x, y)
        loss.block_until_ready()


if __name__ == '__main__':
  capture('base', 256, False)
  capture('again', 256, False)
  capture('changed', 1024, True)
