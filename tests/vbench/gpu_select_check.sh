#!/usr/bin/env bash
# vbench run --gpu N on each visible GPU (at most 4): the document names device N and the PCI bus nvidia-smi lists
# for it (CUDA_DEVICE_ORDER=PCI_BUS_ID, so both count alike), GPU memory in use grows on that GPU and not on the
# others (the forward really runs there), and the index past the last is exit 69. Exit 77 without a GPU.
# Usage: gpu_select_check.sh VBENCH
set -uo pipefail
vb=$1
export CUDA_DEVICE_ORDER=PCI_BUS_ID
command -v nvidia-smi > /dev/null || exit 77
n=$(nvidia-smi --query-gpu=index --format=csv,noheader 2> /dev/null | wc -l)
[ "$n" -ge 1 ] || exit 77
fail() { echo "FAIL: $*"; exit 1; }
used_mib() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | sed -n "$(($1 + 1))p" | tr -d ' '; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((g = 0; g < n && g < 4; ++g)); do
  base=() peak=()
  for ((i = 0; i < n; ++i)); do base+=("$(used_mib $i)"); peak+=(0); done
  # gpt2 bf16 holds ~0.5 GB on its GPU through a prepare of several seconds: long enough to be seen by polling.
  "$vb" run --gpu $g --config gpt2 --dtype bf16 --no-check --warmup 1 --iters 2000 -q -o "$tmp/gpu$g.json" &
  pid=$!
  while kill -0 $pid 2> /dev/null; do
    for ((i = 0; i < n; ++i)); do
      grown=$(($(used_mib $i) - base[i]))
      ((grown > peak[i])) && peak[i]=$grown
    done
    sleep 0.2
  done
  wait $pid || fail "vbench run --gpu $g exited $?"
  read -r index bus < <(python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["metadata"]
print(m["gpu_index"], m["pci_bus_id"])' "$tmp/gpu$g.json")
  smi_bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i $g)
  echo "--gpu $g: gpu_index $index, pci_bus_id $bus (nvidia-smi: $smi_bus); MiB grown per GPU: ${peak[*]}"
  [ "$index" = "$g" ] || fail "--gpu $g recorded gpu_index $index"
  # CUDA writes a 4-digit PCI domain, nvidia-smi an 8-digit one: compare bus:device.function.
  bus=${bus,,} smi_bus=${smi_bus,,}
  [ ${#bus} -ge 7 ] && [ "${bus: -7}" = "${smi_bus: -7}" ] ||
    fail "--gpu $g recorded PCI bus $bus, nvidia-smi: $smi_bus"
  ((peak[g] >= 200)) || fail "--gpu $g: GPU $g's memory grew by ${peak[g]} MiB only"
  for ((i = 0; i < n; ++i)); do
    ((i == g || peak[i] * 4 < peak[g])) || fail "--gpu $g: GPU $i's memory grew by ${peak[i]} MiB too"
  done
done
"$vb" run --gpu $n --no-check --iters 1 -q -o "$tmp/none.json" 2> "$tmp/err"
rc=$?
[ $rc = 69 ] || fail "--gpu $n (past the last GPU) exited $rc, not 69"
grep -q "there is no CUDA device $n" "$tmp/err" || fail "--gpu $n said: $(cat "$tmp/err")"
[ ! -e "$tmp/none.json" ] || fail "--gpu $n left an output file"
echo "ok: $n GPU(s)"
