#!/usr/bin/env python3
"""GPU tests of `vtrace run --accesses`: exact per-block counts, ranges, sectors and findings on known kernels.

Usage: gpu_access_check.py CASE --vtrace BIN [--sample BIN]
Cases: sample (vector add, strided reads, off-by-one), arguments (the same program: kernel pointer arguments named
in records, findings and allocations), source_lines (the same program built with -lineinfo: the off-by-one finding
at its exact .cu line and LDG instruction, in vtrace check's output too), noline (the program built without line
info: SASS only, and the finding says why), ranks (the same program as rank 1 of 2 by torchrun's variables: the trace
names its rank, host, devices by UUID and PCI bus, CLOCK_MONOTONIC anchors and each access row's process;
summary --ranks refuses it, naming the file and why), blocks (the same program under --blocks 1,3, filtered on the device), bulk (cp.async.bulk copies, samples/bulk_copy_sample.cu), triton_masked, torch,
and the real programs of samples/real_programs.py: torch_loop (cuBLAS GEMMs: no false finding), gpt2_forward and
gpt2_train (HuggingFace GPT-2: nothing dropped, no finding), triton_offbyone (exactly one finding), tma_copy (a
TMA kernel named from its code).
Exit 0 when every assertion holds, 1 with the failures listed, 77 when no GPU (or no torch/triton).
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_trace_check import PYTHON, Checker, have_gpu, have_module, trace_of  # noqa: E402

VA = "vector_add(float const*, float const*, float*, int)"
SR = "strided_read(float const*, float*, int)"
OB = "off_by_one(float const*, float*, int)"
BC = "bulk_copy(float const*, float*)"
BP = "bulk_past_end(float const*)"


def rows(doc, kernel, launch=None):
    return [a for a in doc["accesses"] if a["kernel"] == kernel and (launch is None or a["launch"] == launch)]


def check_sample(c, doc):
    by_size = {}
    for a in doc["allocations"]:
        by_size.setdefault(a["size"], []).append(a["id"])
    ids_4000 = by_size.get(4000, [])
    c.eq("three 4000-byte allocations", len(ids_4000), 3)
    if len(ids_4000) != 3:
        return
    a_id, b_id, c_id = ids_4000  # allocation order
    for block in range(4):
        n = 256 if block < 3 else 232
        lo = block * 1024
        for alloc, loads, stores in ((a_id, n, 0), (b_id, n, 0), (c_id, 0, n)):
            r = [x for x in rows(doc, VA) if x["block"] == [block, 0, 0] and x["allocation"] == alloc]
            c.eq(f"vector_add block {block} allocation {alloc} records", len(r), 1)
            if r:
                c.eq(f"vector_add block {block} alloc {alloc} loads", r[0]["loads"], loads)
                c.eq(f"vector_add block {block} alloc {alloc} stores", r[0]["stores"], stores)
                c.eq(f"vector_add block {block} alloc {alloc} ranges", r[0]["ranges"], [[lo, lo + 4 * n]])
                c.eq(f"vector_add block {block} alloc {alloc} sectors/request", r[0]["sectors_per_request"],
                     4.0 if block < 3 else (7 * 4 + 1) / 8)
    loads = {x["launch"]: x["sectors_per_request"] for x in rows(doc, SR) if x["loads"] > 0}
    c.eq("strided_read sectors per request (stride 1, stride 8)", [loads.get(0), loads.get(1)], [4.0, 32.0])
    f = [x for x in doc["findings"] if x["kernel"] == OB]
    c.eq("off_by_one findings", len(f), 1)
    if f:
        c.eq("finding block", f[0]["block"], [3, 0, 0])
        c.eq("finding thread", f[0]["thread"], [232, 0, 0])
        c.eq("finding operation", f[0]["operation"], "load")
        c.eq("finding size", f[0]["size"], 4)
        c.eq("finding allocation", f[0]["allocation"], a_id)
        c.eq("finding distance", f[0]["distance"], 0)
    c.eq("findings in other kernels", [x for x in doc["findings"] if x["kernel"] != OB], [])


def check_bulk(c, doc):
    """samples/bulk_copy_sample.cu: each block of bulk_copy moves one 1024-byte tile with one bulk load and one bulk
    store issued by thread 0 (1 load / 1 store of 1024 bytes per block and allocation, no warp requests, so sectors
    and lanes per request are 0); bulk_past_end loads 64 bytes at byte 3968 of a 4000-byte buffer: 32 bytes in
    bounds, and one finding for the 32 bytes past the end (distance 0, thread 0)."""
    ids = {a["size"]: a for a in doc["allocations"]}
    for size in (2048, 3072, 4000):
        c.true(f"an allocation of {size} bytes", size in ids)
    if not all(size in ids for size in (2048, 3072, 4000)):
        return
    src, dst, edge = ids[2048]["id"], ids[3072]["id"], ids[4000]["id"]
    for block in range(2):
        lo = 1024 * block
        for alloc, op in ((src, "loads"), (dst, "stores")):
            r = [x for x in rows(doc, BC) if x["block"] == [block, 0, 0] and x["allocation"] == alloc]
            c.eq(f"bulk_copy block {block} allocation {alloc} records", len(r), 1)
            if not r:
                continue
            r = r[0]
            other = "stores" if op == "loads" else "loads"
            c.eq(f"bulk_copy block {block} {op}", [r[op], r[other]], [1, 0])
            c.eq(f"bulk_copy block {block} bytes", [r["bytes_loaded"], r["bytes_stored"]],
                 [1024, 0] if op == "loads" else [0, 1024])
            c.eq(f"bulk_copy block {block} allocation {alloc} ranges", r["ranges"], [[lo, lo + 1024]])
            c.eq(f"bulk_copy block {block} bulk_copies", r.get("bulk_copies"), 1)
            c.eq(f"bulk_copy block {block} per-request stats", [r["sectors_per_request"],
                 r["active_lanes_per_request"]], [0, 0])
    c.eq("bulk_copy rows (2 blocks x 2 allocations)", len(rows(doc, BC)), 4)
    inside = [x for x in rows(doc, BP) if x["allocation"] == edge]
    c.eq("bulk_past_end in-bounds part", [(x["ranges"], x["bytes_loaded"], x["loads"]) for x in inside],
         [([[3968, 4000]], 32, 1)])
    f = doc["findings"]
    c.eq("findings (bulk_past_end only)", [x["kernel"] for x in f], [BP])
    if len(f) == 1:
        f = f[0]
        c.eq("finding address", f["address"], ids[4000]["address"] + 4000)
        c.eq("finding size", f["size"], 32)
        c.eq("finding operation", f["operation"], "bulk_load")
        c.eq("finding block/thread", [f["block"], f["thread"]], [[0, 0, 0], [0, 0, 0]])
        c.eq("finding allocation/distance", [f["allocation"], f["distance"]], [edge, 0])
    c.eq("tma_kernels (bulk copies are visible)", doc.get("tma_kernels"), [])


def check_arguments(c, doc, check_text):
    """samples/access_sample.cu through the kernel-argument mapping (cuFuncGetParamInfo on the launch's parameters):
    every record of vector_add(a, b, c, n) says which parameter points into its allocation, with the parameter's
    type from the demangled name; the off-by-one finding names argument 0 of off_by_one; allocations are named after
    the first kernel argument that pointed into them."""
    ids = [a["id"] for a in doc["allocations"] if a["size"] == 4000]
    c.eq("three 4000-byte allocations", len(ids), 3)
    if len(ids) != 3:
        return
    want = {ids[0]: (0, "float const*"), ids[1]: (1, "float const*"), ids[2]: (2, "float*")}
    got = {}
    for x in rows(doc, VA):
        got.setdefault(x["allocation"], set()).add((x.get("argument"), x.get("argument_type")))
    c.eq("vector_add arguments per allocation", got, {k: {v} for k, v in want.items()})
    names = {a["id"]: a["name"] for a in doc["allocations"]}
    c.eq("allocation names", [names[i] for i in ids], ["vector_add.arg0", "vector_add.arg1", "vector_add.arg2"])
    sr = {(x.get("argument"), x.get("argument_type")) for x in rows(doc, SR)}
    c.eq("strided_read arguments", sr, {(0, "float const*"), (1, "float*")})
    f = [x for x in doc["findings"] if x["kernel"] == OB]
    c.eq("off_by_one finding argument", [(x.get("argument"), x.get("argument_type")) for x in f],
         [(0, "float const*")])
    c.true(f"vtrace check names the argument: {check_text!r}",
           "past the end of allocation %d (vector_add.arg0), argument 0 (float const*)" % ids[0] in check_text)


def have_nvdisasm():
    return shutil.which("nvdisasm") is not None or os.access("/usr/local/cuda/bin/nvdisasm", os.X_OK)


def line_of(path, marker):
    """1-based number of the first line of `path` that contains `marker`."""
    with open(path) as f:
        for number, text in enumerate(f, 1):
            if marker in text:
                return number
    raise AssertionError(f"{marker!r} not in {path}")


def check_finding_source(c, what, f, file_suffix, line, function, text, inlined=True):
    """One finding at `file_suffix`:`line` in `function`, with its load's SASS (when nvdisasm is there); not inlined
    unless `inlined` is None (Triton may inline its own helpers around a tl.load)."""
    src = f.get("source") or {}
    c.true(f"{what}: source file ends with {file_suffix}: {src.get('file')!r} ({f.get('source_note')!r})",
           str(src.get("file", "")).endswith(file_suffix))
    c.eq(f"{what}: source line", src.get("line"), line)
    c.eq(f"{what}: source function", src.get("function"), function)
    c.true(f"{what}: the line's text (read at trace time) holds {text!r}: {src.get('text')!r}",
           text in str(src.get("text", "")))
    if inlined is not None:
        c.eq(f"{what}: not inlined", src.get("inlined_at"), [])
    if have_nvdisasm():
        # A masked load may carry its predicate: "@!P2 LDG.E R7, desc[UR4][R4.64+0x800]".
        c.true(f"{what}: SASS is a global load: {f.get('sass')!r}",
               re.match(r"(@!?U?P\w+ )?LDG", str(f.get("sass", ""))) is not None)
        c.eq(f"{what}: source_note", f.get("source_note"), "")
    else:
        c.true(f"{what}: no nvdisasm is said: {f.get('source_note')!r}", "nvdisasm" in f.get("source_note", ""))


def hot_rows(doc, kernel):
    return [r for r in doc.get("hot_lines", []) if r["kernel"] == kernel]


def check_hot_lines(c, doc, path, vtrace, sample_source):
    """The -lineinfo sample's hot lines (issue 40): every load and store of off_by_one and vector_add sits on the .cu
    line of its statement, counted exactly per lane, with the finding and per-request sectors."""
    launches = {}
    for k in doc["kernels"]:
        launches[k["name"]] = launches.get(k["name"], 0) + 1
    c.eq("hot_lines_dropped_requests", doc.get("hot_lines_dropped_requests"), 0)
    ob_line = line_of(sample_source, "if (i <= n) out[i < n ? i : 0] = in[i];")
    va_line = line_of(sample_source, "if (i < n) c[i] = a[i] + b[i];")
    for kernel, line, loads, stores, findings in ((OB, ob_line, 1001, 1001, 1), (VA, va_line, 2000, 1000, 0)):
        rows = hot_rows(doc, kernel)
        n = launches.get(kernel, 0)
        at = [r for r in rows if r["line"] == line and str(r["file"]).endswith("access_sample.cu")]
        c.eq(f"{kernel}: one row at access_sample.cu:{line} ({[(r['file'], r['line']) for r in rows]})", len(at), 1)
        if not at:
            continue
        r = at[0]
        c.eq(f"{kernel}: loads at line {line}", r["loads"], loads * n)
        c.eq(f"{kernel}: stores at line {line}", r["stores"], stores * n)
        c.eq(f"{kernel}: bytes loaded at line {line}", r["bytes_loaded"], 4 * loads * n)
        c.eq(f"{kernel}: every load of the kernel is on that line", sum(x["loads"] for x in rows), loads * n)
        c.eq(f"{kernel}: findings at line {line}", r["findings"], findings)
        c.eq(f"{kernel}: function", r["function"], kernel)
        c.true(f"{kernel}: the line's text: {r.get('text')!r}", "[i]" in r.get("text", ""))
        c.true(f"{kernel}: sectors per request in (0, 32]: {r['sectors_per_request']}",
               0 < r["sectors_per_request"] <= 32)
    ob = [r for r in hot_rows(doc, OB) if r["line"] == ob_line]
    if ob:  # 4 x 256 threads, i <= 1000: 32 warps per instruction (the last with 9 lanes), one load and one store
        c.eq("off_by_one: warp requests at its line", ob[0]["requests"], 64 * launches.get(OB, 0))
    out = subprocess.run([vtrace, "summary", "--by", "line", "--format", "table", path], capture_output=True, text=True)
    c.eq("summary --by line exit", out.returncode, 0)
    c.true(f"summary --by line names access_sample.cu:{ob_line}: {out.stdout[:2000]!r}",
           f"access_sample.cu:{ob_line}" in out.stdout)


def check_blocks(c, doc):
    """samples/access_sample.cu under --blocks 1,3: the device patches skip every other block, so only blocks 1 and 3
    have records (with the same exact counts as unsampled), strided_read (one block, block 0) has none, the
    off-by-one finding of block 3 is kept, and the note counts the blocks left out: vector_add 2 + strided_read 1 + 1
    + off_by_one 2 = 6. No host-side note about dropped warp requests: none of block 0 or 2 reached the host."""
    ids = [a["id"] for a in doc["allocations"] if a["size"] == 4000]
    c.eq("three 4000-byte allocations", len(ids), 3)
    if len(ids) != 3:
        return
    c.eq("vector_add blocks recorded", sorted({x["block"][0] for x in rows(doc, VA)}), [1, 3])
    r = [x for x in rows(doc, VA) if x["block"] == [3, 0, 0] and x["allocation"] == ids[0]]
    c.eq("vector_add block 3 loads of a", [(x["loads"], x["ranges"]) for x in r], [(232, [[3072, 4000]])])
    r = [x for x in rows(doc, VA) if x["block"] == [1, 0, 0] and x["allocation"] == ids[2]]
    c.eq("vector_add block 1 stores to c", [(x["stores"], x["ranges"]) for x in r], [(256, [[1024, 2048]])])
    c.eq("strided_read rows (its only block is 0)", rows(doc, SR), [])
    c.eq("findings (block 3 of off_by_one)", [(x["kernel"], x["block"]) for x in doc["findings"]], [(OB, [3, 0, 0])])
    notes = doc["run"]["notes"]
    c.true(f"note on blocks left out on the device: {notes}",
           "--blocks 1,3 left out 6 blocks of the recorded launches (skipped on the device)" in notes)
    c.eq("host-side drops of unsampled warp requests", [n for n in notes if "warp requests" in n and "--blocks" in n],
         [])
    c.eq("tma_kernels (strided_read was sampled out, not silent)", doc.get("tma_kernels"), [])


def check_clean(c, name, p, doc):
    """A real program memcheck finds clean: no finding, nothing dropped, nothing partial, and accesses recorded."""
    c.eq(f"{name} exit status", p.returncode, 0)
    c.eq(f"{name} findings_total", doc.get("findings_total"), 0)
    c.eq(f"{name} findings", doc["findings"][:3], [])
    c.eq(f"{name} partial", doc["partial"], False)
    c.eq(f"{name} dropped_records", doc["dropped_records"], 0)
    c.true(f"{name} recorded accesses ({len(doc['accesses'])} records)", len(doc["accesses"]) > 0)
    print(f"{name}: {len(doc['kernels'])} launches, {len(doc['accesses'])} records, "
          f"{sum(1 for a in doc['accesses'] if not a.get('ranges_exact', True))} coarsened, notes {doc['run']['notes']}")


def check_ranks(c, a):
    """RANK=1 LOCAL_RANK=0 WORLD_SIZE=2 vtrace run --accesses -- SAMPLE: the process record of issue 42."""
    env = dict(os.environ, RANK="1", LOCAL_RANK="0", WORLD_SIZE="2")
    before = time.time_ns()
    p, doc, path = trace_of(a.vtrace, [a.sample], ["--accesses"], env=env)
    after = time.time_ns()
    c.eq("exit status", p.returncode, 0)
    check_sample(c, doc)  # the device records change nothing else
    procs = doc.get("processes", [])
    c.eq("one process", len(procs), 1)
    if not procs:
        return
    pr = procs[0]
    c.eq("rank, local rank, world size, launcher", [pr.get("rank"), pr.get("local_rank"), pr.get("world_size"),
         pr.get("launcher")], [1, 0, 2, "torchrun"])
    c.eq("host", pr.get("host"), socket.gethostname())
    c.eq("pid is the run's process", [pr.get("pid")], doc["run"]["process_ids"])
    start, end = pr.get("clock_start") or {}, pr.get("clock_end") or {}
    c.true(f"CLOCK_MONOTONIC anchors, no CUPTI time: {start} {end}",
           "monotonic_ns" in start and "monotonic_ns" in end and "cupti_ns" not in start)
    if "monotonic_ns" in start and "monotonic_ns" in end:
        c.true(f"the start anchor's realtime lies within the run: {before} <= {start['realtime_ns']} <= {after}",
               before <= start["realtime_ns"] <= after)
        c.true("the end anchor comes after the start on both clocks",
               end["monotonic_ns"] > start["monotonic_ns"] and end["realtime_ns"] > start["realtime_ns"])
        c.true(f"anchor windows under 1 ms: {start['uncertainty_ns']} {end['uncertainty_ns']} ns",
               start["uncertainty_ns"] < 1_000_000 and end["uncertainty_ns"] < 1_000_000)
    c.true(f"a note says what the anchors are: {doc['run']['notes']}",
           any(n.startswith("clock anchors pair CLOCK_MONOTONIC") for n in doc["run"]["notes"]))
    devs = doc.get("devices", [])
    c.true(f"devices by UUID and PCI bus on this host: {devs}",
           devs and all(d.get("uuid", "").startswith("GPU-") and re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.0",
                                                                             d.get("pci_bus_id", "")) and
                        d.get("host") == socket.gethostname() for d in devs))
    c.true("access records name the process",
           all(r.get("process_id") == pr.get("id") for r in doc["accesses"]) and doc["access_columns"][-1] == "process_id")
    merge = subprocess.run([a.vtrace, "merge", path, path], capture_output=True, text=True)
    c.eq("merge of one access trace twice is refused (exit)", merge.returncode, 65)
    c.true(f"merge says why: {merge.stderr!r}", "(the same trace given twice?)" in merge.stderr)
    ranks = subprocess.run([a.vtrace, "summary", "--ranks", path], capture_output=True, text=True)
    c.eq("summary --ranks refuses access traces (exit)", ranks.returncode, 65)
    c.true(f"summary --ranks says why, naming the file: {ranks.stderr!r}",
           f"{path}: an access-mode trace (--accesses) has no kernel times" in ranks.stderr)


def real(a, program, extra=(), env=None):
    script = os.path.join(a.scripts, "real_programs.py")
    old = dict(os.environ)
    os.environ.update(env or {})
    try:
        return trace_of(a.vtrace, [PYTHON, script, program], ["--accesses", *extra])
    finally:
        os.environ.clear()
        os.environ.update(old)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--vtrace", required=True)
    ap.add_argument("--sample")
    ap.add_argument("--scripts", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "samples"))
    a = ap.parse_args()
    if not have_gpu():
        print("no GPU: skipped")
        return 77
    c = Checker()
    if a.case == "sample":
        p, doc, path = trace_of(a.vtrace, [a.sample], ["--accesses"])
        c.eq("exit status", p.returncode, 0)
        c.eq("mode", doc["run"]["mode"], "accesses")
        check_sample(c, doc)
        # The Sanitizer module callback records each function's code hash, as CUPTI's does in launch mode.
        missing = sorted({k["name"] for k in doc["kernels"] if not k.get("code_hash")})
        c.eq("kernels without code_hash", missing, [])
        c.eq("check exit", subprocess.run([a.vtrace, "check", path], capture_output=True).returncode, 1)
        p2, doc2, _ = trace_of(a.vtrace, [a.sample], ["--accesses", "--kernel", "^strided", "--launch", "1"])
        c.eq("--kernel/--launch keeps one launch", [(k["name"]) for k in doc2["kernels"]], [SR])
        c.eq("--kernel/--launch left out", doc2["filtered_kernels"], 3)  # vector_add, strided #0, off_by_one
    elif a.case == "arguments":
        p, doc, path = trace_of(a.vtrace, [a.sample], ["--accesses"])
        c.eq("exit status", p.returncode, 0)
        check = subprocess.run([a.vtrace, "check", path], capture_output=True, text=True)
        check_arguments(c, doc, check.stdout)
    elif a.case == "source_lines":
        p, doc, path = trace_of(a.vtrace, [a.sample], ["--accesses"])
        c.eq("exit status", p.returncode, 0)
        f = [x for x in doc["findings"] if x["kernel"] == OB]
        c.eq("off_by_one findings", len(f), 1)
        line = line_of(os.path.join(a.scripts, "access_sample.cu"), "if (i <= n) out[i < n ? i : 0] = in[i];")
        if f:
            check_finding_source(c, "off_by_one finding", f[0], "access_sample.cu", line, OB, "= in[i];")
        check = subprocess.run([a.vtrace, "check", path], capture_output=True, text=True)
        c.true(f"vtrace check names the line: {check.stdout!r}",
               f"access_sample.cu:{line} in {OB} (pc +0x" in check.stdout)
        if have_nvdisasm():
            c.true("vtrace check gives the SASS", ": LDG" in check.stdout)
    elif a.case == "hot_lines":
        p, doc, path = trace_of(a.vtrace, [a.sample], ["--accesses"])
        c.eq("exit status", p.returncode, 0)
        check_hot_lines(c, doc, path, a.vtrace, os.path.join(a.scripts, "access_sample.cu"))
    elif a.case == "hot_lines_off":  # VTRACE_ACCESS_PCS=0: no table, no hot lines, the rest unchanged
        os.environ["VTRACE_ACCESS_PCS"] = "0"
        p, doc, path = trace_of(a.vtrace, [a.sample], ["--accesses"])
        c.eq("exit status", p.returncode, 0)
        c.eq("hot_lines (absent: none)", doc.get("hot_lines", []), [])
        check_sample(c, doc)
    elif a.case == "hot_lines_noline":
        p, doc, path = trace_of(a.vtrace, [a.sample], ["--accesses"])
        c.eq("exit status", p.returncode, 0)
        hot = hot_rows(doc, OB)
        c.true(f"off_by_one has instruction rows only: {hot}", hot and all(r["file"] is None for r in hot))
        c.true("each says why", all("without -lineinfo" in r["note"] for r in hot))
        c.eq("off_by_one: loads over its instructions", sum(r["loads"] for r in hot),
             1001 * sum(1 for k in doc["kernels"] if k["name"] == OB))
        if have_nvdisasm():
            c.true(f"each gives its SASS: {[r['sass'] for r in hot]}",
                   all(r["sass"].split(" ")[-1] and ("LDG" in r["sass"] or "STG" in r["sass"]) for r in hot))
    elif a.case == "noline":
        p, doc, path = trace_of(a.vtrace, [a.sample], ["--accesses"])
        c.eq("exit status", p.returncode, 0)
        f = [x for x in doc["findings"] if x["kernel"] == OB]
        c.eq("off_by_one findings", len(f), 1)
        if f:
            c.eq("no source line", f[0].get("source"), None)
            c.true(f"the finding says why: {f[0].get('source_note')!r}",
                   "no line table (.debug_line): it was built without -lineinfo" in f[0].get("source_note", ""))
            if have_nvdisasm():
                c.true(f"SASS only: {f[0].get('sass')!r}", str(f[0].get("sass", "")).startswith("LDG"))
        check = subprocess.run([a.vtrace, "check", path], capture_output=True, text=True)
        c.true(f"vtrace check gives the PC and why there is no line: {check.stdout!r}",
               f"at {OB} pc +0x" in check.stdout and "without -lineinfo" in check.stdout)
    elif a.case == "ranks":
        check_ranks(c, a)
    elif a.case == "blocks":
        p, doc, _ = trace_of(a.vtrace, [a.sample], ["--accesses", "--blocks", "1,3"])
        c.eq("exit status", p.returncode, 0)
        check_blocks(c, doc)
    elif a.case == "bulk":
        p, doc, path = trace_of(a.vtrace, [a.sample], ["--accesses"])
        c.eq("exit status (the sample checks dst = 2 src)", p.returncode, 0)
        check_bulk(c, doc)
        c.eq("check exit", subprocess.run([a.vtrace, "check", path], capture_output=True).returncode, 1)
    elif a.case == "triton_masked":
        if not have_module("triton"):
            return 77
        p, doc, _ = trace_of(a.vtrace, [PYTHON, os.path.join(a.scripts, "triton_add.py")],
                             ["--accesses", "--kernel", "add_kernel", "--launch", "0"])
        c.eq("exit status", p.returncode, 0)
        r = rows(doc, "add_kernel")
        c.eq("bytes loaded by add_kernel (2 x 10000 floats, masked lanes not counted)",
             sum(x["bytes_loaded"] for x in r), 2 * 4 * 10000)
        c.eq("bytes stored by add_kernel", sum(x["bytes_stored"] for x in r), 4 * 10000)
        c.eq("findings", doc["findings"], [])
    elif a.case == "torch":
        if not have_module("torch"):
            return 77
        p, doc, _ = trace_of(a.vtrace, [PYTHON, os.path.join(a.scripts, "torch_ops.py")], ["--accesses"])
        c.eq("exit status", p.returncode, 0)
        loaded = {}
        for x in doc["accesses"]:
            loaded[x["kernel"]] = loaded.get(x["kernel"], 0) + x["bytes_loaded"]
        gemm = {k: v for k, v in loaded.items() if any(s in k.lower() for s in ("gemm", "xmma", "cutlass", "kernel2"))}
        soft = {k: v for k, v in loaded.items() if "softmax" in k.lower()}
        c.true(f"softmax kernels load bytes: {soft}", soft and all(v > 0 for v in soft.values()))
        c.true(f"a GEMM kernel loads bytes (cp.async or plain loads): {gemm} / TMA kernels {doc.get('tma_kernels')}",
               any(v > 0 for v in gemm.values()))
    elif a.case == "torch_loop":
        if not have_module("torch"):
            return 77
        p, doc, _ = real(a, "torch_loop")
        check_clean(c, "torch_loop", p, doc)
        gemm = [x for x in doc["accesses"] if "gemm" in x["kernel"].lower() and x.get("argument", -1) >= 0]
        c.true(f"GEMM records on kernel arguments load bytes ({len(gemm)} records)",
               gemm and sum(x["bytes_loaded"] for x in gemm) > 0)
    elif a.case in ("gpt2_forward", "gpt2_train"):
        if not have_module("torch") or not have_module("transformers"):
            return 77
        p, doc, _ = real(a, a.case)
        check_clean(c, a.case, p, doc)
    elif a.case == "triton_offbyone":
        if not have_module("triton"):
            return 77
        p, doc, path = real(a, "triton_offbyone", ["--kernel", "add_kernel"], {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})
        c.eq("exit status", p.returncode, 0)
        c.eq("findings_total", doc.get("findings_total"), 1)
        f = doc["findings"]
        c.eq("findings listed", len(f), 1)
        if f:
            x = [a_ for a_ in doc["allocations"] if a_["id"] == f[0]["allocation"]]
            c.eq("finding: block, operation, size, distance", [f[0]["block"], f[0]["operation"], f[0]["size"],
                 f[0]["distance"]], [[0, 0, 0], "load", 4, 0])
            c.eq("finding: past a 4000-byte allocation", [(y["size"], y["address"] + 4000) for y in x],
                 [(4000, f[0]["address"])])
            c.eq("finding: thread holding element 1000 (4 per thread, 128 threads: 512 + 4 * 122)",
                 f[0]["thread"], [122, 0, 0])
            # Triton writes line info by default: the finding names the Python line of the planted tl.load.
            script = os.path.join(a.scripts, "real_programs.py")
            check_finding_source(c, "triton finding", f[0], "real_programs.py",
                                 line_of(script, "# the planted bug"), "add_kernel", "tl.load(x_ptr + offs, mask=offs <= n",
                                 inlined=None)
        c.eq("check exit", subprocess.run([a.vtrace, "check", path], capture_output=True).returncode, 1)
        # The hot lines name the Python lines: the planted tl.load reads 1001 floats, one past the end.
        script = os.path.join(a.scripts, "real_programs.py")
        planted = line_of(script, "# the planted bug")
        hot = [r for r in doc.get("hot_lines", []) if "add_kernel" in r["kernel"]]
        at = [r for r in hot if r["line"] == planted and str(r["file"]).endswith("real_programs.py")]
        c.eq(f"add_kernel: a row at real_programs.py:{planted} ({[(r['file'], r['line']) for r in hot]})", len(at), 1)
        if at:
            c.eq("the planted load's bytes (1001 floats)", at[0]["bytes_loaded"], 4 * 1001)
            c.eq("the planted load's findings", at[0]["findings"], 1)
        c.true("every add_kernel row is a Python line", hot and all(str(r["file"]).endswith(".py") for r in hot))
    elif a.case == "tma_copy":
        if not have_module("triton"):
            return 77
        p, doc, _ = real(a, "tma_copy", ["--kernel", "tma_copy"])
        c.eq("exit status", p.returncode, 0)
        c.eq("findings_total", doc.get("findings_total"), 0)
        c.true(f"tma_copy is a TMA kernel: {doc.get('tma_kernels')}", any("tma_copy" in k for k in doc["tma_kernels"]))
    else:
        print(f"unknown case {a.case}")
        return 2
    for f in c.failures:
        print("FAIL:", f)
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
