#!/bin/bash
# The device runs that recorded tests/data/gpu_*/ (see the READMEs there).
# Usage, from a checkout whose .dev/ holds bin/ (proflens-collect,
# libproflens_cupti_inject.so) and these scripts: bash .dev/run_all.sh
# Results: $OUT/log.txt and one tar.gz per step. Steps are independent:
# one failing (or timing out) does not stop the others. STEPS picks some
# (default: all): env torch_cupti torch_dump torch_kineto jax_trace jax_grpc
# (the H200 run) jax_run jax_trace_nograph duration multi nonroot (the H100 run;
# DUR_MS and DUR_SECS set the duration step's --duration-ms and program length).
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
# The CUPTI of the Python environment (torch's CUDA), else the toolkit's.
CUPTI=$(python3 -c 'import glob, os, nvidia; print("\n".join(sorted(p for b in nvidia.__path__ for p in glob.glob(os.path.join(b, "**", "libcupti.so*"), recursive=True))))' 2>/dev/null | head -1)
[ -n "$CUPTI" ] || CUPTI=$(find /usr/local/cuda*/ -name 'libcupti.so*' 2>/dev/null | head -1)
# XLA without CUDA graphs (command buffers): each kernel is launched on its own.
NOGRAPH=--xla_gpu_enable_command_buffer=
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
grep -i -E 'RmProfilingAdminOnly|NVreg_RestrictProfiling' /proc/driver/nvidia/params 2>/dev/null
ls -la /dev/nvidia* | head
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

want jax_run && {
step "F: JAX loop under proflens-collect run (CUPTI injected into JAX), with CUDA graphs (XLA's default) and without"
for v in graphs nographs; do
  mkdir -p "$W/jax_run/$v"
  XF=; [ $v = nographs ] && XF=$NOGRAPH
  XLA_FLAGS=$XF PROFLENS_CUPTI_DUMP="$W/jax_run/$v/cupti_records.bin" PROFLENS_CUPTI_PATH=$CUPTI timeout 90 \
    "$BIN/proflens-collect" run --logdir "$W/jax_run/$v/logdir" -- \
    python3 "$D/jax_train.py" --steps 10 > "$W/jax_run/$v/stdout.txt" 2> "$W/jax_run/$v/stderr.txt"
  echo "$v XLA_FLAGS=$XF rc=$?"
  tail -n 20 "$W/jax_run/$v/stdout.txt" "$W/jax_run/$v/stderr.txt"
done
find "$W/jax_run" -type f | xargs ls -la
pack jax_run
} >>"$LOG" 2>&1

want jax_trace_nograph && {
step "G: JAX loop under jax.profiler.trace, CUDA graphs off (XLA_FLAGS=$NOGRAPH)"
mkdir -p "$W/jax_trace_nograph"
XLA_FLAGS=$NOGRAPH timeout 90 python3 "$D/jax_train.py" --steps 10 --trace "$W/jax_trace_nograph/logdir" \
  > "$W/jax_trace_nograph/stdout.txt" 2> "$W/jax_trace_nograph/stderr.txt"
echo "rc=$?"
tail -n 20 "$W/jax_trace_nograph/stdout.txt" "$W/jax_trace_nograph/stderr.txt"
find "$W/jax_trace_nograph" -type f | xargs ls -la
pack jax_trace_nograph
} >>"$LOG" 2>&1

want duration && {
DUR_MS=${DUR_MS:-1500}; DUR_SECS=${DUR_SECS:-6}
step "H: --duration-ms $DUR_MS on a torch loop that runs $DUR_SECS s"
mkdir -p "$W/duration"
date +%s.%N
PROFLENS_CUPTI_PATH=$CUPTI timeout 60 "$BIN/proflens-collect" run --duration-ms $DUR_MS --logdir "$W/duration/logdir" -- \
  python3 "$D/torch_train.py" --seconds $DUR_SECS > "$W/duration/stdout.txt" 2> "$W/duration/stderr.txt"
echo "rc=$?"
date +%s.%N
cat "$W/duration/stdout.txt" "$W/duration/stderr.txt" | tail -20
for f in $(find "$W/duration" -name '*.xplane.pb'); do echo "$f mtime $(date -r "$f" +%s.%N)"; done
find "$W/duration" -type f | xargs ls -la
pack duration
} >>"$LOG" 2>&1

want multi && {
step "I: several processes under one run (2, then 4, same loop, started together)"
for n in 2 4; do
  mkdir -p "$W/multi/p$n"
  CMD=""; for i in $(seq 2 $n); do CMD="$CMD python3 $D/torch_train.py --steps 8 & "; done
  CMD="$CMD python3 $D/torch_train.py --steps 8; wait"
  PROFLENS_CUPTI_PATH=$CUPTI timeout 90 "$BIN/proflens-collect" run --logdir "$W/multi/p$n/logdir" -- \
    bash -c "$CMD" > "$W/multi/p$n/stdout.txt" 2> "$W/multi/p$n/stderr.txt"
  echo "p$n rc=$?"
  cat "$W/multi/p$n/stdout.txt" "$W/multi/p$n/stderr.txt" | tail -20
  for f in $(find "$W/multi/p$n" -name '*.xplane.pb'); do echo "$f mtime $(date -r "$f" +%s.%N)"; done
done
find "$W/multi" -type f | xargs ls -la
pack multi
} >>"$LOG" 2>&1

want nonroot && {
step "J: a non-root user (u1) runs the torch loop under proflens-collect run"
mkdir -p "$W/nonroot"
id u1 2>/dev/null || useradd -m u1
id u1
U=/tmp/u1work; rm -rf $U; mkdir -p $U; cp -r "$BIN" "$D"/*.py $U/; chown -R u1 $U; chmod -R a+rX $U
PY=$(command -v python3)
ls -ld /opt /opt/torch /opt/torch/.venv "$PY" "$CUPTI" 2>&1
su u1 -c "cd $U && id && PROFLENS_CUPTI_PATH=$CUPTI timeout 60 ./bin/proflens-collect run --logdir $U/logdir -- $PY $U/torch_train.py --steps 6" \
  > "$W/nonroot/stdout.txt" 2> "$W/nonroot/stderr.txt"
echo "rc=$?"
cat "$W/nonroot/stdout.txt" "$W/nonroot/stderr.txt" | tail -20
cp -r $U/logdir "$W/nonroot/" 2>/dev/null
find "$W/nonroot" -type f | xargs ls -la
pack nonroot
} >>"$LOG" 2>&1
echo "=== done $(date -u +%H:%M:%S)" >>"$LOG"
