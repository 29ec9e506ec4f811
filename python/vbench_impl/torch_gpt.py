"""The minGPT-architecture forward in PyTorch, eager or torch.compile(mode="reduce-overhead"), on CUDA: the adapter
that replaces bench/peers/torch_gpt.py's timing (that script keeps its command line and imports Gpt from here).

    vbench run --impl 'python3 -m vbench_impl.torch_gpt'            # eager   (name torch-eager)
    vbench run --impl 'python3 -m vbench_impl.torch_gpt --compile'  # compile (name torch-compile)

Precision policy as vbench's cuda backend: weights, GEMMs, attention and logits in the dtype; the residual stream and
layer norms in fp32; tf32 = fp32 weights with torch.set_float32_matmul_precision("high")."""
import argparse

import torch
import torch.nn.functional as F

import vbench_impl


class Gpt(torch.nn.Module):
    """minGPT forward: embeddings, pre-LN blocks (fused QKV, causal SDPA, projection, tanh-GELU 4x MLP), final LN,
    LM head tied to wte unless the file has lm_head.weight. Projections are stored [in][out] (GPT-2's Conv1D) and
    transposed once here so F.linear (addmm with bias) runs them, as nn.Linear would. `t`: {GPT-2 name: tensor or
    numpy array}."""

    def __init__(self, cfg, t, dtype, device):
        super().__init__()
        self.cfg = cfg
        self.dtype = dtype

        def param(name, transpose=False, dtype=dtype):
            if name not in t:
                raise vbench_impl.ProtocolError(f"missing tensor '{name}'")
            x = torch.as_tensor(t[name])
            x = x.t() if transpose else x
            return torch.nn.Parameter(x.contiguous().to(device=device, dtype=dtype), requires_grad=False)

        def norm(name):  # layer-norm parameters stay fp32, as in vbench
            return param(name, dtype=torch.float32)

        self.wte, self.wpe = param("wte.weight"), param("wpe.weight")
        blocks = []
        for l in range(cfg["n_layer"]):
            h = f"h.{l}."
            blocks.append(torch.nn.ParameterDict({
                "ln1_w": norm(h + "ln_1.weight"), "ln1_b": norm(h + "ln_1.bias"),
                "attn_w": param(h + "attn.c_attn.weight", True), "attn_b": param(h + "attn.c_attn.bias"),
                "proj_w": param(h + "attn.c_proj.weight", True), "proj_b": param(h + "attn.c_proj.bias"),
                "ln2_w": norm(h + "ln_2.weight"), "ln2_b": norm(h + "ln_2.bias"),
                "fc_w": param(h + "mlp.c_fc.weight", True), "fc_b": param(h + "mlp.c_fc.bias"),
                "fcp_w": param(h + "mlp.c_proj.weight", True), "fcp_b": param(h + "mlp.c_proj.bias"),
            }))
        self.blocks = torch.nn.ModuleList(blocks)
        self.lnf_w, self.lnf_b = norm("ln_f.weight"), norm("ln_f.bias")
        self.head = self.wte if cfg["tied_head"] else param("lm_head.weight")

    def forward(self, idx):
        B, T = idx.shape
        C, NH = self.cfg["n_embd"], self.cfg["n_head"]
        f32, act = torch.float32, self.dtype  # fp32 residual stream; GEMMs and attention in the dtype
        x = self.wte[idx].to(f32) + self.wpe[:T].to(f32)
        for p in self.blocks:
            h = F.layer_norm(x, (C,), p["ln1_w"], p["ln1_b"], 1e-5).to(act)
            q, k, v = F.linear(h, p["attn_w"], p["attn_b"]).split(C, dim=2)
            q, k, v = (z.view(B, T, NH, C // NH).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
            x = x + F.linear(y, p["proj_w"], p["proj_b"]).to(f32)
            h = F.layer_norm(x, (C,), p["ln2_w"], p["ln2_b"], 1e-5).to(act)
            h = F.gelu(F.linear(h, p["fc_w"], p["fc_b"]), approximate="tanh")
            x = x + F.linear(h, p["fcp_w"], p["fcp_b"]).to(f32)
        x = F.layer_norm(x, (C,), self.lnf_w, self.lnf_b, 1e-5).to(act)
        return F.linear(x, self.head)


def torch_dtype(name):
    """fp32|tf32|bf16 -> the torch dtype, setting matmul precision ("highest": no tf32)."""
    torch.set_float32_matmul_precision("high" if name == "tf32" else "highest")
    return torch.bfloat16 if name == "bf16" else torch.float32


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compile", action="store_true", help='torch.compile(mode="reduce-overhead") (CUDA graphs)')
    a = ap.parse_args()
    request = vbench_impl.read_request()
    if a.compile:
        request.warmup = max(request.warmup, 3)  # cudagraph trees record on the 3rd call

    def make_forward(req, weights):
        model = Gpt(req.config, weights, torch_dtype(req.dtype), torch.device("cuda", req.gpu or 0)).eval()
        fn = torch.compile(model, mode="reduce-overhead") if a.compile else model

        def forward(idx):
            with torch.no_grad():
                return fn(idx)
        return forward

    mark = torch.compiler.cudagraph_mark_step_begin if a.compile else None
    notes = ["torch-eager: F.linear + scaled_dot_product_attention(is_causal=True)"]
    if a.compile:
        notes = ['torch-compile: the minGPT module under torch.compile(mode="reduce-overhead")',
                 "torch-compile: warm-up at least 3 forwards (cudagraph trees record on the 3rd)"]
    vbench_impl.serve(make_forward, name="torch-compile" if a.compile else "torch-eager",
                      version="torch " + torch.__version__, on="cuda", before_each=mark, notes=notes, request=request)


if __name__ == "__main__":
    main()
