#!/bin/bash
# The one device run that recorded tests/data/gpu_*/ (see README there).
# Usage, from a checkout whose .dev/ holds bin/ (proflens-collect,
# libproflens_cupti_inject.so) and these scripts: bash .dev/run_all.sh
# Results: $OUT/log.txt and one tar.gz per step. Steps are independent:
# one failing (or timing out) does not stop the others. STEPS picks some
# (default: all): env torch_cupti torch_dump torch_kineto jax_trace jax_grpc.
set +e
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
W=/tmp/gpuwork
rm -rf "$W"; mkdir -p "$W"
LOG=$OUT/log.txt
BIN=$D/bin
chmod +x "$BIN/proflens-collect"
STEPS=${STEPS:-env torch_cupti torch_dump torch_kineto jax_trace jax_grpc}
want() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
step() { echo; echo "=== $1 ($(date -u +%H:%M:%S))"; }
pack() { (cd "$W" && tar czf "$OUT/$1.tar.gz" "$1"); ls -la "$OUT/$1.tar.gz"; }
want env && {
step "E: environment"
mkdir -p "$W/env"
date -u
nvidia-smi -q | head -40
nvidia-smi
uname -a
which python3; python3 --version
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
python3 -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__)'
python3 -m pip list 2>/dev/null | grep -i -E 'cupti|nvidia-cuda|jax|^torch '
nvcc --version | tail -2
# The CUPTI of the Python environment (torch's CUDA), else the toolkit's.
CUPTI=$(python3 -c 'import glob, os, nvidia; print("\n".join(sorted(p for b in nvidia.__path__ for p in glob.glob(os.path.join(b, "**", "libcupti.so*"), recursive=True))))' 2>/dev/null | head -1)
[ -n "$CUPTI" ] || CUPTI=$(find /usr/local/cuda*/ -name 'libcupti.so*' 2>/dev/null | head -1)
python3 -c 'import glob, os, nvidia; print("\n".join(sorted(p for b in nvidia.__path__ for p in glob.glob(os.path.join(b, "**", "libcupti.so*"), recursive=True))))'
find /usr/local/cuda*/ -name 'libcupti.so*' 2>/dev/null | head
echo "CUPTI=$CUPTI"
ldd "$BIN/proflens-collect" | head; ldd "$BIN/libproflens_cupti_inject.so" | head
"$BIN/proflens-collect" --version
} >>"$LOG" 2>&1

want torch_cupti && {
step "A+D: torch loop under proflens-collect run (CUPTI, raw records dumped), nvidia-smi every 100 ms"
mkdir -p "$W/torch_cupti"
(TZ=UTC nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,power.draw --format=csv -lms 100 > "$W/torch_cupti/nvidia_smi.csv" 2>"$W/torch_cupti/nvidia_smi.err") &
SMI=$!
sleep 0.5
PROFLENS_CUPTI_DUMP="$W/torch_cupti/cupti_records.bin" PROFLENS_CUPTI_PATH=$CUPTI timeout 100 "$BIN/proflens-collect" run --logdir "$W/torch_cupti/logdir" -- \
  python3 "$D/torch_train.py" --steps 12 > "$W/torch_cupti/stdout.txt" 2> "$W/torch_cupti/stderr.txt"
echo "rc=$?"
sleep 0.5; kill $SMI; wait $SMI 2>/dev/null
cat "$W/torch_cupti/stdout.txt" "$W/torch_cupti/stderr.txt" | tail -30
find "$W/torch_cupti" -type f | xargs ls -la
pack torch_cupti
} >>"$LOG" 2>&1

want torch_dump && {
step "A2: the same, 3 steps, with PROFLENS_CUPTI_DUMP (raw CUPTI records)"
mkdir -p "$W/torch_dump"
PROFLENS_CUPTI_DUMP="$W/torch_dump/cupti_records.bin" PROFLENS_CUPTI_PATH=$CUPTI timeout 60 \
  "$BIN/proflens-collect" run --logdir "$W/torch_dump/logdir" -- \
  python3 "$D/torch_train.py" --steps 3 > "$W/torch_dump/stdout.txt" 2> "$W/torch_dump/stderr.txt"
echo "rc=$?"
cat "$W/torch_dump/stdout.txt" "$W/torch_dump/stderr.txt" | tail -20
find "$W/torch_dump" -type f | xargs ls -la
pack torch_dump
} >>"$LOG" 2>&1

want torch_kineto && {
step "B: torch loop under torch.profiler (Kineto)"
mkdir -p "$W/torch_kineto"
timeout 90 python3 "$D/torch_train.py" --steps 8 --kineto "$W/torch_kineto/torch_mlp.pt.trace.json" \
  > "$W/torch_kineto/stdout.txt" 2> "$W/torch_kineto/stderr.txt"
echo "rc=$?"
tail -n 20 "$W/torch_kineto/stdout.txt" "$W/torch_kineto/stderr.txt"
gzip -9 "$W/torch_kineto/torch_mlp.pt.trace.json"
ls -la "$W/torch_kineto"
pack torch_kineto
} >>"$LOG" 2>&1

want jax_trace && {
step "C: JAX loop under jax.profiler.trace"
mkdir -p "$W/jax_trace"
timeout 90 python3 "$D/jax_train.py" --steps 10 --trace "$W/jax_trace/logdir" \
  > "$W/jax_trace/stdout.txt" 2> "$W/jax_trace/stderr.txt"
echo "rc=$?"
tail -n 20 "$W/jax_trace/stdout.txt" "$W/jax_trace/stderr.txt"
find "$W/jax_trace" -type f | xargs ls -la
pack jax_trace
} >>"$LOG" 2>&1

want jax_grpc && {
step "C2: JAX profiler server captured by proflens-collect capture"
mkdir -p "$W/jax_grpc"
timeout 70 python3 "$D/jax_train.py" --server 9999 --seconds 25 --ready-file "$W/jax_grpc/ready" \
  > "$W/jax_grpc/stdout.txt" 2> "$W/jax_grpc/stderr.txt" &
JP=$!
for i in $(seq 1 120); do [ -e "$W/jax_grpc/ready" ] && break; sleep 0.5; done
sleep 1
timeout 30 "$BIN/proflens-collect" capture grpc://localhost:9999 --duration-ms 1000 --logdir "$W/jax_grpc/logdir" \
  > "$W/jax_grpc/capture_stdout.txt" 2> "$W/jax_grpc/capture_stderr.txt"
echo "capture rc=$?"
cat "$W/jax_grpc/capture_stdout.txt" "$W/jax_grpc/capture_stderr.txt" | tail -20
kill $JP 2>/dev/null; wait $JP
tail -n 5 "$W/jax_grpc/stdout.txt" "$W/jax_grpc/stderr.txt"
find "$W/jax_grpc" -type f | xargs ls -la
pack jax_grpc
} >>"$LOG" 2>&1
echo "=== done $(date -u +%H:%M:%S)" >>"$LOG"
