"""Hugging Face transformers GPT2LMHeadModel as an implementation: a random-init GPT2Config from the request's config
(no download), vbench's weights loaded by name (GPT-2 names map one to one: Conv1D stores [in][out], as vbench does),
eval mode, on CUDA in the request's dtype (bf16: the whole model in bfloat16, layer norms included, as HF runs it;
--autocast: fp32 weights under torch.autocast(bfloat16) instead, GEMMs and attention in bf16, layer norms in fp32).

    vbench run --impl 'python3 -m vbench_impl.hf_gpt2' --config gpt2 --dtype bf16   # name hf-gpt2
"""
import argparse

import torch

import vbench_impl
from vbench_impl.torch_gpt import torch_dtype


def build_model(cfg, weights, dtype, device, attn):
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(vocab_size=cfg["vocab_size"], n_positions=cfg["block_size"], n_embd=cfg["n_embd"],
                        n_layer=cfg["n_layer"], n_head=cfg["n_head"], activation_function="gelu_new",
                        layer_norm_epsilon=1e-5, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                        tie_word_embeddings=cfg["tied_head"], **({"attn_implementation": attn} if attn else {}))
    model = GPT2LMHeadModel(config)
    state = {"transformer." + k: torch.as_tensor(v) for k, v in weights.items() if k != "lm_head.weight"}
    if not cfg["tied_head"]:
        state["lm_head.weight"] = torch.as_tensor(weights["lm_head.weight"])
    missing, unexpected = model.load_state_dict(state, strict=False)
    # Left out on purpose: tied lm_head (shares wte) and the attention-mask buffers some versions keep.
    missing = [m for m in missing if not (m == "lm_head.weight" and cfg["tied_head"]) and not m.endswith("attn.bias")
               and not m.endswith("masked_bias")]
    if missing or unexpected:
        raise vbench_impl.ProtocolError(f"GPT-2 names did not map one to one: missing {missing}, unexpected "
                                        f"{unexpected}")
    return model.to(device=device, dtype=dtype).eval()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attn", default="sdpa", help="attn_implementation (sdpa, eager); '' for the library default")
    ap.add_argument("--autocast", action="store_true", help="bf16: fp32 weights under torch.autocast(bfloat16)")
    a = ap.parse_args()
    import transformers

    def make_forward(req, weights):
        dtype = torch_dtype(req.dtype)
        autocast = a.autocast and dtype == torch.bfloat16
        model = build_model(req.config, weights, torch.float32 if autocast else dtype,
                            torch.device("cuda", req.gpu or 0), a.attn)

        def forward(idx):
            with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                return model(input_ids=idx, use_cache=False).logits
        return forward

    vbench_impl.serve(make_forward, name="hf-gpt2", version=f"transformers {transformers.__version__}, torch "
                      f"{torch.__version__}", on="cuda",
                      notes=[f"hf-gpt2: GPT2LMHeadModel (attn_implementation={a.attn or 'default'}), eval, no KV cache"
                             + (", bf16 by torch.autocast" if a.autocast else "")])


if __name__ == "__main__":
    main()
