#!/usr/bin/env bash
# The static-island trade-off table (docs/static-islands.md "Trade-off"): for each kernel and
# timing profile, cycles of its first RUN line and size (handshake components, buffer slots,
# units) under the dynamic, hybrid and static schedules, and the II of its first innermost
# loop that a static schedule fits (static II / the dynamic circuit's measured II).
#   scripts/island-tradeoff.sh [HANDSCOPE] [KERNEL...]   (kernel names in examples/kernels)
set -euo pipefail
cd "$(dirname "$0")/.."
HS=${1:-target/release/handscope}
shift || true
KERNELS=("$@")
if [ ${#KERNELS[@]} -eq 0 ]; then
  KERNELS=(dot fir gcd collatz matmul gemm_f32 conv2d_f32 histogram insertion_sort stencil2d jacobi1d_f32 prefix_sum binary_search cond_accum newton_sqrt_f64)
fi
echo "| kernel | timing | II static / dynamic | cycles dynamic | hybrid | static | components d / h / s | buffer slots d / h / s | units d / h / s |"
echo "|---|---|---|---|---|---|---|---|---|"
for k in "${KERNELS[@]}"; do
  for t in ideal fpga; do
    out=$("$HS" schedule "examples/kernels/$k.c" --timing "$t" --compare 2>/dev/null)
    ii=$(echo "$out" | awk '/static, II/ { s=$0; sub(/.*static, II /, "", s); split(s, a, " "); m="-"; if (match($0, /measured II [0-9.]+/)) m=substr($0, RSTART+12, RLENGTH-12); print a[1] " / " m; exit }')
    [ -n "$ii" ] || ii="- (no static loop)"
    row() { echo "$out" | awk -v n="$1" '$1 == n { print $2, $4, $5, $6 }' | tail -1; }
    read -r dc dn db du <<<"$(row dynamic)"
    read -r hc hn hb hu <<<"$(row hybrid)"
    read -r sc sn sb su <<<"$(row static)"
    echo "| $k | $t | $ii | $dc | $hc | $sc | $dn / $hn / $sn | $db / $hb / $sb | $du / $hu / $su |"
  done
done
