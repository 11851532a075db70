"""Records before/after CPU profile pairs for checking the Advisor's predictions.

Usage: python advisor_pairs.py CASE VARIANT LOGDIR   (VARIANT: before | after)

Each run writes LOGDIR/plugins/profile/<run>/<host>.xplane.pb.  Run one case
per Python process (the profiler is a process-wide singleton), from a scratch
folder outside the repository (source paths end up inside the profiles).
"before" is a small job whose step time is dominated by one problem; "after"
is the same job with only that problem fixed.

Cases:
  input_bound         (TF) tf.data with a slow per-element map (a tf.py_function
                      that waits ~2.5 ms per element, a slow "read") feeding a
                      small tf.function train step.  before: sequential map,
                      no prefetch.  after: the same map with
                      num_parallel_calls=AUTOTUNE and .prefetch(AUTOTUNE).
  host_between_steps  (TF) custom loop, tf.function train step.  before: ~15 ms
                      of host Python work (a numpy busy loop standing in for
                      logging / metric conversion) after each step, inside the
                      step marker but outside any TF op.  after: that work
                      removed; the step marker is unchanged.
  eager               (TF) before: the train step run eagerly.  after: the same
                      Python function wrapped in tf.function.
  jax_jit             (JAX) before: the train step's Python function called
                      without jax.jit (every primitive dispatched on its own).
                      after: the same function under jax.jit.

TF steps are marked with tf.profiler.experimental.Trace('train', step_num=s,
_r=1) around next(it) + train_step (as gen_tf_profiles.py does); JAX steps with
jax.profiler.StepTraceAnnotation('train', step_num=s).
"""

import os
import sys
import time

CASE = sys.argv[1]
VARIANT = sys.argv[2]
LOGDIR = os.path.abspath(sys.argv[3])
assert VARIANT in ('before', 'after'), VARIANT
AFTER = VARIANT == 'after'

WARMUP = 5
STEPS = 25
INPUT_WARMUP = int(os.environ.get('INPUT_WARMUP', '40'))

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '1')

import numpy as np  # pylint: disable=g-import-not-at-top


def busy_numpy(seconds, seed=0):
  """Host work for `seconds` of wall time: small numpy ops in a Python loop.

  Holds the GIL between the numpy calls; stands in for work such as metric
  conversion, logging or Python-side decoding.
  """
  rng = np.random.default_rng(seed)
  a = rng.random(256, dtype=np.float32)
  t_end = time.perf_counter() + seconds
  acc = 0.0
  while time.perf_counter() < t_end:
    acc += float(np.dot(a, a))
  return acc


# --------------------------------------------------------------------------
# TensorFlow cases


def _tf():
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  tf.keras.utils.set_random_seed(1234)
  return tf


def _mlp(tf, widths, input_shape, num_classes=10):
  layers = [tf.keras.Input(input_shape), tf.keras.layers.Flatten()]
  for i, w in enumerate(widths):
    layers.append(tf.keras.layers.Dense(w, activation='relu', name=f'fc{i}'))
  layers.append(tf.keras.layers.Dense(num_classes, name='logits'))
  return tf.keras.Sequential(layers)


def _train_step_fn(tf, model, opt):
  loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

  def train_step(x, y):
    with tf.GradientTape() as tape:
      loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss

  return train_step


def _tf_loop(tf, it, train_step, after_step=None, warmup=WARMUP):
  for _ in range(warmup):  # tracing and first calls outside the profile
    loss = train_step(*next(it))
    if after_step is not None:
      after_step(loss)
  tf.profiler.experimental.start(LOGDIR)
  for step in range(STEPS):
    with tf.profiler.experimental.Trace('train', step_num=step, _r=1):
      x, y = next(it)
      loss = train_step(x, y)
      if after_step is not None:
        after_step(loss)
  float(loss)
  tf.profiler.experimental.stop()


def case_input_bound():
  tf = _tf()
  read_s = 0.0025
  batch = 4

  def slow_read(i):
    # A slow per-element read: ~2.5 ms of latency (time.sleep, which
    # releases the GIL, standing in for a read from slow or remote storage),
    # then a tiny numpy "decode".  See README.md for why this is not
    # CPU-bound Python work: on this 2-core VM, GIL-holding or CPU-bound
    # py_function work did not get faster with parallel map calls.
    i = int(i)
    time.sleep(read_s)
    rng = np.random.default_rng(i)
    return rng.random((28, 28, 1), dtype=np.float32), np.int32(i % 10)

  def tf_slow(i):
    img, label = tf.py_function(slow_read, [i], [tf.float32, tf.int32])
    img.set_shape((28, 28, 1))
    label.set_shape(())
    return img, label

  ds = tf.data.Dataset.range(10_000)
  if AFTER:
    ds = ds.map(tf_slow, num_parallel_calls=tf.data.AUTOTUNE,
                deterministic=True)
    ds = ds.batch(batch).prefetch(tf.data.AUTOTUNE)
  else:
    ds = ds.map(tf_slow)
    ds = ds.batch(batch)

  model = _mlp(tf, [64], (28, 28, 1))
  opt = tf.keras.optimizers.SGD(0.01)
  train_step = tf.function(_train_step_fn(tf, model, opt))
  # More warm-up steps here, so that tf.data's autotuner has settled on the
  # map's parallelism and the prefetch buffer before the profile starts.
  _tf_loop(tf, iter(ds), train_step, warmup=INPUT_WARMUP)


def _synthetic_ds(tf, batch, input_shape, steps):
  n = batch * (steps + 1)
  rng = np.random.default_rng(7)
  x = rng.random((n,) + input_shape, dtype=np.float32)
  y = rng.integers(0, 10, size=(n,)).astype(np.int32)
  ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(256, seed=1)
  return ds.batch(batch, drop_remainder=True).repeat().prefetch(2)


def case_host_between_steps():
  tf = _tf()
  ds = _synthetic_ds(tf, 64, (28, 28, 1), WARMUP + STEPS)
  model = _mlp(tf, [128, 64], (28, 28, 1))
  opt = tf.keras.optimizers.Adam(1e-3)
  train_step = tf.function(_train_step_fn(tf, model, opt))

  def log_metrics(loss):
    # Host-side bookkeeping between steps: ~15 ms of Python/numpy work that
    # runs no TF op (emulates logging, metric conversion, checkpoint checks).
    busy_numpy(0.015, seed=int(loss.numpy() * 1000) % 1000)

  _tf_loop(tf, iter(ds), train_step, None if AFTER else log_metrics)


def case_eager():
  tf = _tf()
  ds = _synthetic_ds(tf, 32, (28, 28, 1), WARMUP + STEPS)
  model = _mlp(tf, [64, 64, 32], (28, 28, 1))
  opt = tf.keras.optimizers.Adam(1e-3)
  train_step = _train_step_fn(tf, model, opt)
  if AFTER:
    train_step = tf.function(train_step)
  _tf_loop(tf, iter(ds), train_step)


# --------------------------------------------------------------------------
# JAX case


def case_jax_jit():
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top

  def init_params(key, sizes):
    params = []
    for din, dout in zip(sizes[:-1], sizes[1:]):
      key, k = jax.random.split(key)
      params.append((jax.random.normal(k, (din, dout)) * jnp.sqrt(2.0 / din),
                     jnp.zeros((dout,))))
    return params

  def forward(params, x):
    for w, b in params[:-1]:
      x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b

  def loss_fn(params, x, y):
    logp = jax.nn.log_softmax(forward(params, x))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

  def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
    return params, loss

  if AFTER:
    train_step = jax.jit(train_step)

  rng = np.random.default_rng(0)
  params = init_params(jax.random.PRNGKey(0), [784, 128, 64, 10])
  batch = 64

  def get_batch():
    x = rng.random((batch, 784), dtype=np.float32)
    y = rng.integers(0, 10, size=(batch,)).astype(np.int32)
    return x, y

  for _ in range(WARMUP):  # compile (jit) / fill the op-by-op caches
    params, loss = train_step(params, *get_batch())
    loss.block_until_ready()

  # The Python tracer (on by default in jax.profiler.trace) is turned off:
  # op-by-op dispatch makes it record ~19k Python calls per step (an 8 MB
  # profile); both variants use the same options.
  options = jax.profiler.ProfileOptions()
  options.python_tracer_level = 0
  with jax.profiler.trace(LOGDIR, profiler_options=options):
    for step in range(STEPS):
      with jax.profiler.StepTraceAnnotation('train', step_num=step):
        x, y = get_batch()
        params, loss = train_step(params, x, y)
        loss.block_until_ready()
  print('final loss', float(loss))


CASES = {
    'input_bound': case_input_bound,
    'host_between_steps': case_host_between_steps,
    'eager': case_eager,
    'jax_jit': case_jax_jit,
}

if __name__ == '__main__':
  os.makedirs(LOGDIR, exist_ok=True)
  t0 = time.time()
  CASES[CASE]()
  print(f'[{CASE}/{VARIANT}] done in {time.time() - t0:.1f}s -> {LOGDIR}')
