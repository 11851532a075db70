//! The fix of each finding, as code or configuration in the framework's own
//! terms (the TensorFlow profiler guide's best practices, JAX's and
//! PyTorch's performance guides; `docs/advisor.md` names each source).

use super::Framework::{self, *};

/// The fix for finding `id` in `framework`'s words.
pub fn fix(id: &str, framework: Framework) -> String {
    let text = match (id, framework) {
        ("input_bound", PyTorch) => {
            "loader = torch.utils.data.DataLoader(dataset, batch_size=B,\n    num_workers=4,            # decode and augment in worker processes\n    pin_memory=True,          # page-locked buffers: faster, async H2D copies\n    persistent_workers=True, prefetch_factor=2)\nbatch = batch.to(device, non_blocking=True)"
        }
        ("input_bound", Jax) => {
            "# Produce batches off the training thread and keep two on the device:\nds = ds.map(preprocess, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)\n# or with Grain: grain.DataLoader(..., worker_count=4); then\nbatches = flax.jax_utils.prefetch_to_device(iter(ds.as_numpy_iterator()), size=2)"
        }
        ("input_bound", _) => {
            "ds = ds.map(preprocess, num_parallel_calls=tf.data.AUTOTUNE)  # parallel map\nds = ds.cache()            # if it fits in memory after the expensive steps\nds = ds.batch(B).prefetch(tf.data.AUTOTUNE)  # overlap input with the step\n# options = tf.data.Options(); options.autotune.enabled = True"
        }
        ("host_between_steps", PyTorch) => {
            "# Keep Python work out of the step: log every N steps, keep metrics on the GPU\nif step % 100 == 0:\n    print(loss.item())\n# capture the step with CUDA graphs or torch.compile(model, mode='reduce-overhead')"
        }
        ("host_between_steps", Jax) => {
            "# Keep metrics on the device and fetch them every N steps:\nif step % 100 == 0:\n    print(jax.device_get(metrics))\n# run several steps per call: jax.lax.fori_loop or jax.lax.scan over a stack of batches"
        }
        ("host_between_steps", _) => {
            "model.compile(..., steps_per_execution=32)   # Keras: several steps per call\n# custom loops: run N steps inside one tf.function (tf.range loop),\n# write summaries every N steps and avoid .numpy() on tensors each step"
        }
        ("kernel_launch_bound", PyTorch) => {
            "model = torch.compile(model, mode='reduce-overhead')   # fuses ops, CUDA graphs\n# or capture the step by hand: g = torch.cuda.CUDAGraph(); with torch.cuda.graph(g): ..."
        }
        ("kernel_launch_bound", Jax) => {
            "train_step = jax.jit(train_step)   # one XLA program per step, fused kernels\n# fold loops into the program with jax.lax.scan instead of a Python loop"
        }
        ("kernel_launch_bound", _) => {
            "@tf.function(jit_compile=True)   # XLA fuses small ops into fewer kernels\ndef train_step(x, y): ...\n# with tf.data on the same host: export TF_GPU_THREAD_MODE=gpu_private"
        }
        ("eager_ops", Jax) => {
            "train_step = jax.jit(train_step)   # compile the whole step once\n# mark static Python arguments: jax.jit(f, static_argnums=(2,))"
        }
        ("eager_ops", PyTorch) => {
            "model = torch.compile(model)   # run the step as compiled graphs, not op by op"
        }
        ("eager_ops", _) => "@tf.function   # run the step as one graph\ndef train_step(x, y):\n    ...",
        ("fp32_compute", PyTorch) => {
            "with torch.autocast(device_type='cuda', dtype=torch.bfloat16):\n    loss = model(x).loss\n# and for the fp32 matmuls that remain: torch.backends.cuda.matmul.allow_tf32 = True"
        }
        ("fp32_compute", Jax) => {
            "# compute in bfloat16, keep float32 master weights:\nx = x.astype(jnp.bfloat16)\nparams_bf16 = jax.tree.map(lambda p: p.astype(jnp.bfloat16), params)\n# or jax.default_matmul_precision('bfloat16')"
        }
        ("fp32_compute", _) => {
            "tf.keras.mixed_precision.set_global_policy('mixed_bfloat16')  # or 'mixed_float16' on GPUs before Ampere\n# keep the output layer in float32: Dense(..., dtype='float32')"
        }
        ("tensor_cores_unused", _) => {
            "# Tensor cores need 16-bit inputs (or TF32) and dimensions that are multiples of 8:\n# batch, hidden and channel sizes % 8 == 0 (16 for int8); then enable mixed precision\n# (torch.autocast / mixed_bfloat16 policy / bfloat16 arrays)"
        }
        ("launch_delay_outliers", _) => {
            "# Kernels queued behind a slow launch path: capture the step as a CUDA graph\n# (torch.compile(mode='reduce-overhead')), keep cudaMalloc/cudaFree out of the step\n# (the caching allocator: avoid torch.cuda.empty_cache()), and keep other threads off the launching core"
        }
        ("small_kernels", PyTorch) => {
            "model = torch.compile(model)   # fuses chains of small elementwise kernels\n# use fused optimizers: torch.optim.AdamW(params, fused=True)"
        }
        ("small_kernels", Jax) => "train_step = jax.jit(train_step)   # XLA fuses small ops; batch more work per call",
        ("small_kernels", _) => {
            "@tf.function(jit_compile=True)   # XLA fuses small ops into larger kernels\n# or a larger batch, so each kernel does more work per launch"
        }
        ("device_idle", PyTorch) => {
            "# The GPU waits for the host: overlap with non_blocking copies and a DataLoader\n# with workers, remove syncs, and queue work ahead (torch.compile / CUDA graphs)"
        }
        ("device_idle", _) => {
            "# The device waits for the host: prefetch input to the device, avoid host round trips\n# inside the step, and run several steps per call (steps_per_execution / lax.scan)"
        }
        ("host_to_device", PyTorch) => {
            "loader = DataLoader(..., pin_memory=True)\nx = x.to('cuda', non_blocking=True)   # async copy from pinned memory\n# keep tensors on the GPU between steps; avoid .cpu()/.numpy() in the loop"
        }
        ("host_to_device", _) => {
            "ds = ds.apply(tf.data.experimental.prefetch_to_device('/gpu:0'))   # TF\n# JAX: jax.device_put the next batch while this step runs (prefetch_to_device)\n# keep results on the device; fetch them every N steps"
        }
        ("pageable_memcpy", _) => {
            "loader = DataLoader(..., pin_memory=True)          # page-locked host buffers\nbuf = torch.empty(shape, pin_memory=True)          # or pin your own staging tensor\nx = buf.to('cuda', non_blocking=True)"
        }
        ("sync_in_step", _) => {
            "# Each .item(), .cpu(), print(tensor) or torch.cuda.synchronize() waits for the GPU.\nrunning_loss += loss.detach()       # accumulate on the GPU\nif step % 100 == 0:\n    print(running_loss.item() / 100)  # one sync every 100 steps"
        }
        ("step_outliers", _) => {
            "# Look at the slowest steps' timeline (evidence links). Common causes:\n# garbage collection (gc.freeze() after setup), checkpointing or evaluation inside\n# the loop, recompilation, and data shards that are slower to read."
        }
        ("compile_in_steps", PyTorch) => {
            "torch._dynamo.config.cache_size_limit  # see what recompiles: TORCH_LOGS=recompiles\nmodel = torch.compile(model, dynamic=True)   # shapes that vary between steps"
        }
        ("compile_in_steps", Jax) => {
            "# Each new shape or static argument compiles again: pad batches to fixed shapes,\n# keep Python scalars out of traced arguments; log with jax.config.update('jax_log_compiles', True)"
        }
        ("compile_in_steps", _) => {
            "# A tf.function retraces for every new input signature:\n@tf.function(input_signature=[tf.TensorSpec([None, 28, 28, 1], tf.float32), tf.TensorSpec([None], tf.int32)])\ndef train_step(x, y): ...   # or pad batches: ds.padded_batch / drop_remainder=True"
        }
        ("collective_wait", PyTorch) => {
            "# Overlap communication with compute: DDP(model, bucket_cap_mb=25, gradient_as_bucket_view=True);\n# FSDP: backward_prefetch=BackwardPrefetch.BACKWARD_PRE; balance work across ranks first (stragglers)"
        }
        ("collective_wait", _) => {
            "# Overlap gradient all-reduce with the backward pass and balance the hosts:\n# XLA: --xla_gpu_enable_latency_hiding_scheduler=true; look at the slowest host first"
        }
        ("stragglers", _) => {
            "# One host or rank is slower than the rest and the others wait for it at each collective:\n# compare its input pipeline, its GPU clocks/thermals and its data shard with the others'"
        }
        ("layout_transposes", PyTorch) => {
            "model = model.to(memory_format=torch.channels_last)\nx = x.to(memory_format=torch.channels_last)   # convolutions without NCHW<->NHWC transposes"
        }
        ("layout_transposes", _) => {
            "# Keep the data format NHWC on GPUs (data_format='channels_last', the Keras default);\n# XLA (jit_compile=True) assigns layouts itself and removes most transposes"
        }
        ("xla_copies", _) => {
            "# Layout-changing copies between XLA ops: keep arrays in the layout their consumer\n# wants (e.g. NHWC), avoid transposes around dots/convolutions, and donate buffers\n# (jax.jit(f, donate_argnums=0)) so XLA can update in place"
        }
        ("unfused_elementwise", _) => {
            "# Elementwise ops ran as kernels of their own: compile the step with XLA\n# (jit_compile=True / jax.jit / torch.compile) so chains fuse into one kernel"
        }
        ("memory_near_limit", PyTorch) => {
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True   # less fragmentation\n# lower the peak: activation checkpointing (torch.utils.checkpoint), a smaller micro-batch"
        }
        ("memory_near_limit", _) => {
            "tf.config.experimental.set_memory_growth(gpu, True)   # TF: allocate as needed\n# JAX: XLA_PYTHON_CLIENT_MEM_FRACTION=.9; lower the peak with rematerialisation (jax.checkpoint)"
        }
        _ => "",
    };
    text.to_string()
}
