#!/usr/bin/env bash
# Installs the external tools Handscope's tests need, if they are missing. Idempotent.
#   - Debian packages: verilator (reference RTL simulation), graphviz (`dot` layout),
#     pkg-config and libwayland-dev (needed to build the GUI's windowing crates), and for the
#     GUI tests: xvfb, x11-apps (xwd), xdotool (drive and screenshot the real window) and
#     mesa-vulkan-drivers (software Vulkan for wgpu snapshots)
#   - the `circt` 1.62.0 Python package in ./.venv (reference handshake -> SystemVerilog lowering)
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

need_pkgs=()
command -v verilator >/dev/null 2>&1 || need_pkgs+=(verilator)
command -v dot >/dev/null 2>&1 || need_pkgs+=(graphviz)
command -v pkg-config >/dev/null 2>&1 || need_pkgs+=(pkg-config)
dpkg -s libwayland-dev >/dev/null 2>&1 || need_pkgs+=(libwayland-dev)
dpkg -s libxkbcommon-dev >/dev/null 2>&1 || need_pkgs+=(libxkbcommon-dev)
command -v Xvfb >/dev/null 2>&1 || need_pkgs+=(xvfb)
command -v xwd >/dev/null 2>&1 || need_pkgs+=(x11-apps)
command -v xdotool >/dev/null 2>&1 || need_pkgs+=(xdotool)
dpkg -s mesa-vulkan-drivers >/dev/null 2>&1 || need_pkgs+=(mesa-vulkan-drivers)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_pkgs[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

if ! .venv/bin/python -c 'import circt' >/dev/null 2>&1; then
  echo "setup: creating .venv with circt==1.62.0"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check circt==1.62.0
fi
echo "setup: verilator $(verilator --version | awk '{print $2}'), $(dot -V 2>&1), circt $(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("circt"))')"
