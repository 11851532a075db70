"""Facts about Kineto traces computed straight from the trace JSON, for
tests/pytorch_modules.rs (independent of Proflens: the numbers there are
this script's output).

    python3 tests/scripts/pytorch_facts.py tests/data/kineto/<case>/<trace>.json.gz
"""
import collections, gzip, json, re, sys

NV = ["16816", "c1688", "conv1x1", "conv2d_c1_k1", "dgrad_1x1_stride_2x2", "direct_group",
      "first_layer_wgrad_kernel", "h1688", "h884", "hmma", "i16832", "i8816", "s884", "s1688",
      "xmma_gemm", "xmma_implicit_gemm", "xmma_sparse_conv", "xmma_sparse_gemm",
      "xmma_warp_specialized_implicit_gemm"]


def main(path):
    d = json.load(gzip.open(path))
    ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    thread = lambda e: (e["pid"], e["tid"])
    rt = {e["args"]["correlation"]: e for e in ev
          if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime") and "correlation" in e.get("args", {})}
    kernels = [e for e in ev if e.get("cat") in ("kernel", "Kernel")]
    device = [e for e in ev if e.get("cat") in ("kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset")]

    def innermost(ranges, t, at):
        best = None
        for r in ranges.get(t, []):
            if r["ts"] <= at < r["ts"] + r["dur"] and (best is None or r["ts"] >= best["ts"]):
                best = r
        return best

    # Modules: paths by nesting on a thread, kernels by launch correlation.
    mods = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") == "python_function" and e["name"].startswith("nn.Module: "):
            mods[thread(e)].append(e)
    path_of = {}
    for t, calls in mods.items():
        calls.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in calls:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
                stack.pop()
            parent = path_of[id(stack[-1])] if stack else ""
            path_of[id(e)] = (parent + "/" if parent else "") + e["name"][len("nn.Module: "):]
            stack.append(e)
    host = collections.Counter(); occ = collections.Counter()
    for calls in mods.values():
        for e in calls:
            host[path_of[id(e)]] += e["dur"]; occ[path_of[id(e)]] += 1
    kt = collections.Counter(); kn = collections.Counter()
    for k in kernels:
        r = rt.get(k["args"].get("correlation"))
        m = r and innermost(mods, thread(r), r["ts"])
        if m:
            p = path_of[id(m)]
            parts = p.split("/")
            for i in range(1, len(parts) + 1):
                kt["/".join(parts[:i])] += k["dur"]; kn["/".join(parts[:i])] += 1
    print("module calls", sum(occ.values()), "paths", len(occ))
    for p in sorted(occ, key=lambda p: -kt[p])[:4]:
        print(f"  {p!r}: occ {occ[p]} host_us {host[p]:.3f} kernels {kn[p]} kernel_us {kt[p]:.3f}")

    # Operators by (name, Input Dims) (compact JSON as the importer keeps it).
    shapes = collections.Counter()
    for e in ev:
        if e.get("cat") in ("cpu_op", "Operator") and "Input Dims" in e.get("args", {}):
            shapes[(e["name"], json.dumps(e["args"]["Input Dims"], separators=(",", ":")))] += 1
    print("distinct (op, input dims)", len(shapes))
    for (n, dims), c in shapes.most_common(2):
        print(f"  {n} {dims}: {c} calls")

    # Device time per launching op: own External id, else the launch's, else
    # the innermost cpu_op around the launch (CUDA graph replays).
    ops = [e for e in ev if e.get("cat") in ("cpu_op", "Operator", "user_annotation") and "External id" in e.get("args", {})]
    by_ext = {e["args"]["External id"]: e for e in ops}
    cpu = collections.defaultdict(list)
    for e in ops:
        if e.get("cat") in ("cpu_op", "Operator"):
            cpu[thread(e)].append(e)
    dev = collections.Counter()
    for k in device:
        op = by_ext.get(k["args"].get("External id"))
        r = rt.get(k["args"].get("correlation"))
        if op is None and r is not None:
            op = by_ext.get(r["args"].get("External id")) or innermost(cpu, thread(r), r["ts"])
        if op is not None and op.get("cat") != "user_annotation":
            dev[op["name"]] += k["dur"]
    graphs = [e for e in ev if e["name"] in ("cudaGraphLaunch", "hipGraphLaunch")]
    gk = [k for k in kernels if k["args"].get("correlation") in {g["args"]["correlation"] for g in graphs}]
    print("graph launches", len(graphs), "their kernels", len(gk), "us", sum(k["dur"] for k in gk))
    for n in ("CompiledFunction", "CompiledFunctionBackward"):
        if dev[n]:
            print(f"  device self us of {n}: {dev[n]:.3f}")

    # Matrix-unit kernels by vendor rule.
    amd = any(p.get("warpSize") == 64 for p in d.get("deviceProperties", []))
    mfma = lambda n: n.startswith("gemm_fusion") or re.search(r"_MI\d", n) is not None
    nv = lambda n: any(p in n for p in NV)
    rule = mfma if amd else nv
    print("vendor", "AMD" if amd else "NVIDIA", "matrix-unit kernels", sum(rule(k["name"]) for k in kernels),
          "of", len(kernels), "(other vendor's rule:", sum((nv if amd else mfma)(k["name"]) for k in kernels), ")")


main(sys.argv[1])
