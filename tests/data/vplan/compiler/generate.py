#!/usr/bin/env python3
"""Regenerates the compiler fixtures of vplan: post-allocation IR from stock Triton 3.6 and Triton's own totals.

For each kernel below this compiles with triton.compile(ASTSource(...), target=GPUTarget(...)) (no GPU needed: the
bundled ptxas compiles for any target) in a child process with MLIR_ENABLE_DUMP=1, keeps the last TTGIR-level dump
(Triton 3.6 prints the IR *before* each pass: the dump before ConvertTritonGPUToLLVM is the module after
AllocateSharedMemoryNv and TritonTensorMemoryAllocation, with `allocation.offset` on every buffer and scratch op,
`ttg.shared` and `ttg.tensor_memory_size` on the module), shortens file paths in loc(...) and writes
<name>.ttgir (that dump, header line kept, so it is also a one-dump MLIR_ENABLE_DUMP log) and metadata.json
(Triton's `shared`, `tmem_size`, `num_warps` per kernel).

Usage: python3 generate.py [OUT_DIR]      (default: this script's folder; needs triton==3.6.0)
"""
import json
import os
import re
import subprocess
import sys

KERNELS = {}  # name -> (kernel function name, signature, constexprs, target (backend, arch, warp size), options)


def kernel_sources():
    import triton
    import triton.language as tl

    @triton.jit
    def matmul_pipelined(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * stride_am + rk[None, :]
        b = b_ptr + rk[:, None] * stride_bk + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            acc += tl.dot(tl.load(a), tl.load(b))
            a += BK
            b += BK * stride_bk
        c = c_ptr + rm[:, None] * stride_cm + rn[None, :]
        tl.store(c, acc.to(tl.float16))

    @triton.jit
    def matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   WS: tl.constexpr):
        a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
        b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [K, 1], [BN, BK])
        c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, K, BK, warp_specialize=WS):
            a = a_desc.load([pid_m * BM, k])
            b = b_desc.load([pid_n * BN, k])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))

    @triton.jit
    def softmax(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=-float("inf"))
        x = x - tl.max(x, 0)
        e = tl.exp(x)
        tl.store(y_ptr + row * n + offs, e / tl.sum(e, 0), mask=offs < n)

    @triton.jit
    def row_col_sums(x_ptr, rows_ptr, cols_ptr, t_ptr, BM: tl.constexpr, BN: tl.constexpr):
        # Sums along both axes and a transposed store: layout conversions between reductions' slice layouts.
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        x = tl.load(x_ptr + rm[:, None] * BN + rn[None, :])
        tl.store(rows_ptr + rm, tl.sum(x, 1))
        tl.store(cols_ptr + rn, tl.sum(x, 0))
        tl.store(t_ptr + rn[:, None] * BM + rm[None, :], tl.trans(x))

    @triton.jit
    def cumsum(x_ptr, y_ptr, BM: tl.constexpr, BN: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        x = tl.load(x_ptr + rm[:, None] * BN + rn[None, :])
        tl.store(y_ptr + rm[:, None] * BN + rn[None, :], tl.cumsum(x, 0))

    @triton.jit
    def histogram_atomic(x_ptr, bins_ptr, first_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0)
        tl.atomic_add(bins_ptr + (x & 63), 1, mask=offs < n)
        old = tl.atomic_add(first_ptr, 1)  # a scalar atomic whose result is used: Triton gives it scratch
        tl.store(first_ptr + 1 + tl.program_id(0), old)

    @triton.jit
    def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, rows, N_CTX, sm_scale, HEAD_DIM: tl.constexpr, BM: tl.constexpr,
                 BN: tl.constexpr, WS: tl.constexpr):
        # Flash-attention forward over [Z*H*N_CTX, HEAD_DIM] tensors through tensor descriptors.
        start_m = tl.program_id(0)
        off_hz = tl.program_id(1)
        desc_q = tl.make_tensor_descriptor(q_ptr, [rows, HEAD_DIM], [HEAD_DIM, 1], [BM, HEAD_DIM])
        desc_k = tl.make_tensor_descriptor(k_ptr, [rows, HEAD_DIM], [HEAD_DIM, 1], [BN, HEAD_DIM])
        desc_v = tl.make_tensor_descriptor(v_ptr, [rows, HEAD_DIM], [HEAD_DIM, 1], [BN, HEAD_DIM])
        desc_o = tl.make_tensor_descriptor(o_ptr, [rows, HEAD_DIM], [HEAD_DIM, 1], [BM, HEAD_DIM])
        offs = off_hz * N_CTX + start_m * BM
        q = desc_q.load([offs, 0])
        m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
        acc = tl.zeros([BM, HEAD_DIM], dtype=tl.float32)
        qk_scale = sm_scale * 1.44269504
        for start_n in tl.range(0, N_CTX, BN, warp_specialize=WS):
            k = desc_k.load([off_hz * N_CTX + start_n, 0])
            qk = tl.dot(q, k.T)
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
            p = tl.math.exp2(qk)
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            v = desc_v.load([off_hz * N_CTX + start_n, 0])
            acc = tl.dot(p.to(tl.float16), v, acc)
            m_i = m_ij
        acc = acc / l_i[:, None]
        desc_o.store([offs, 0], acc.to(tl.float16))

    mm_sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    pipe_sig = dict(mm_sig, stride_am="i32", stride_bk="i32", stride_cm="i32", BM="constexpr", BN="constexpr",
                    BK="constexpr")
    tma_sig = dict(mm_sig, BM="constexpr", BN="constexpr", BK="constexpr", WS="constexpr")
    attn_sig = {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16", "rows": "i32", "N_CTX": "i32",
                "sm_scale": "fp32", "HEAD_DIM": "constexpr", "BM": "constexpr", "BN": "constexpr", "WS": "constexpr"}
    return {
        "attn_d64_sm90": (attn_fwd, attn_sig, {"HEAD_DIM": 64, "BM": 128, "BN": 64, "WS": False}, ("cuda", 90, 32),
                          {"num_stages": 3, "num_warps": 4}),
        "attn_ws_d128_sm100": (attn_fwd, attn_sig, {"HEAD_DIM": 128, "BM": 128, "BN": 128, "WS": True},
                               ("cuda", 100, 32), {"num_stages": 2, "num_warps": 4}),
        "matmul_pipelined_s4_sm90": (matmul_pipelined, pipe_sig, {"BM": 128, "BN": 128, "BK": 64},
                                     ("cuda", 90, 32), {"num_stages": 4, "num_warps": 8}),
        "matmul_pipelined_s3_sm80": (matmul_pipelined, pipe_sig, {"BM": 128, "BN": 128, "BK": 32},
                                     ("cuda", 80, 32), {"num_stages": 3, "num_warps": 4}),
        "matmul_tma_sm90": (matmul_tma, tma_sig, {"BM": 128, "BN": 128, "BK": 64, "WS": False},
                            ("cuda", 90, 32), {"num_stages": 3, "num_warps": 4}),
        "matmul_tma_ws_sm90": (matmul_tma, tma_sig, {"BM": 128, "BN": 128, "BK": 64, "WS": True},
                               ("cuda", 90, 32), {"num_stages": 3, "num_warps": 4}),
        "matmul_tma_ws_sm100": (matmul_tma, tma_sig, {"BM": 128, "BN": 128, "BK": 64, "WS": True},
                                ("cuda", 100, 32), {"num_stages": 3, "num_warps": 4}),
        "softmax_sm90": (softmax, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                         {"BLOCK": 1024}, ("cuda", 90, 32), {"num_warps": 4}),
        "row_col_sums_sm90": (row_col_sums, {"x_ptr": "*fp32", "rows_ptr": "*fp32", "cols_ptr": "*fp32",
                                             "t_ptr": "*fp32", "BM": "constexpr", "BN": "constexpr"},
                              {"BM": 64, "BN": 128}, ("cuda", 90, 32), {"num_warps": 4}),
        "cumsum_sm90": (cumsum, {"x_ptr": "*fp32", "y_ptr": "*fp32", "BM": "constexpr", "BN": "constexpr"},
                        {"BM": 128, "BN": 32}, ("cuda", 90, 32), {"num_warps": 4}),
        "atomic_sm90": (histogram_atomic, {"x_ptr": "*i32", "bins_ptr": "*i32", "first_ptr": "*i32", "n": "i32",
                                           "BLOCK": "constexpr"}, {"BLOCK": 512}, ("cuda", 90, 32),
                        {"num_warps": 4}),
    }


def compile_one(name):
    """Child process: compiles one kernel (the dump goes to stderr) and prints Triton's metadata as JSON."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    fn, sig, constexprs, target, options = kernel_sources()[name]
    for k in constexprs:
        sig[k] = "constexpr"
    # Every pointer and integer argument is taken as divisible by 16, as the JIT finds for aligned tensors and
    # sizes: without it loads are not vectorized and the pipeliner does not multi-buffer them.
    names = list(sig)
    attrs = {(names.index(k), ): [["tt.divisibility", 16]] for k, v in sig.items() if v[0] == "*" or v == "i32"}
    kernel = triton.compile(ASTSource(fn, sig, constexprs, attrs), target=GPUTarget(*target), options=options)
    md = kernel.metadata
    print(json.dumps({"target": f"{target[0]}:{target[1]}", "shared": md.shared,
                      "tmem_size": getattr(md, "tmem_size", None) or 0, "num_warps": md.num_warps,
                      "triton": triton.__version__}))


HEADER = re.compile(r"^// -----// IR Dump .*$", re.M)


def last_ttgir_dump(log):
    """The IR dump right before ConvertTritonGPUToLLVM: every allocation pass has run, nothing is lowered yet."""
    starts = [m.start() for m in HEADER.finditer(log)]
    for i, s in enumerate(starts):
        if "IR Dump Before ConvertTritonGPUToLLVM" in log[s:log.index("\n", s)]:
            end = starts[i + 1] if i + 1 < len(starts) else len(log)
            return log[s:end]
    raise SystemExit("no dump before ConvertTritonGPUToLLVM in the log")


def shorten_paths(text):
    # loc("/long/path/to/generate.py":12:3) -> loc("generate.py":12:3); Triton's own files keep their package path.
    def repl(m):
        path = m.group(1)
        if "/triton/" in path:
            path = "triton/" + path.split("/triton/", 1)[1]
        else:
            path = os.path.basename(path)
        return 'loc("' + path + '"'
    return re.sub(r'loc\("(/[^"]*)"', repl, text)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        compile_one(sys.argv[2])
        return
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out_dir, exist_ok=True)
    metadata = {}
    for name in kernel_sources():
        env = dict(os.environ, MLIR_ENABLE_DUMP="1", TRITON_ALWAYS_COMPILE="1")
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name], env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{name}: failed:\n{proc.stderr[-3000:]}", file=sys.stderr)
            metadata[name] = {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}
            continue
        md = json.loads(proc.stdout.strip().splitlines()[-1])
        with open(os.path.join(out_dir, name + ".ttgir"), "w") as f:
            f.write(shorten_paths(last_ttgir_dump(proc.stderr)))
        metadata[name] = md
        print(f"{name}: shared {md['shared']} bytes, tmem {md['tmem_size']} columns, {md['num_warps']} warps")
    with open(os.path.join(out_dir, "metadata.json"), "w") as f:
        json.dump(metadata, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
