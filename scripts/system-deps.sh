#!/usr/bin/env bash
# The Debian packages a real VS Code needs here, installed when missing (used by .ci/run,
# `npm run demo` and `npm test`):
#  - git; Chromium (headless UI and the extension host's workbench);
#  - ripgrep and libkrb5-dev (code-server's install), with the toolchain its native modules build
#    with (python3, make, g++);
#  - a CJK font (the sample novel is Chinese).
# Prints nothing and exits 0 when all are there. Needs root or sudo to install.
set -euo pipefail
need=()
command -v git >/dev/null || need+=(git)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v rg >/dev/null || need+=(ripgrep)
command -v make >/dev/null || need+=(make)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
[ ${#need[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  echo "Missing system packages (${need[*]}), and this is not a Debian-like system: install them by hand." >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo=(sudo); else
    echo "Missing Debian packages: ${need[*]}. As root, run: apt-get update && apt-get install -y --no-install-recommends ${need[*]}" >&2
    exit 1
  fi
fi
echo "Installing Debian packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${need[@]}"
