#!/usr/bin/env bash
# The network allowlist's cost, side by side (benches/interleave.py, runs taken in turn):
#   start-up  `-c true` without a list, with SANDBOX_BASH_NETWORK_ALLOW (the network namespace
#             and the proxy), and `bash -c true`;
#   download  100 MiB from a server on 127.0.0.2 (python3 -m http.server): curl outside any
#             sandbox, inside one without a list (direct), with a list (a plain request through
#             the proxy) and with a list through a CONNECT tunnel (curl -p).
#
#   STARTUP_RUNS=1000 DOWNLOAD_RUNS=11 benches/network.sh [path/to/sandbox-bash]
#
# The build defaults to the static release build (built when missing). The workspace and the
# file served are under target/bench/network, not /tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
STARTUP_RUNS="${STARTUP_RUNS:-1000}"
DOWNLOAD_RUNS="${DOWNLOAD_RUNS:-11}"
gnu="$(uname -m)-unknown-linux-gnu"
sb="${1:-target/$gnu/release/sandbox-bash}"
if [ ! -x "$sb" ]; then
  RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --target "$gnu"
fi
sb="$(realpath "$sb")"
dir="$PWD/target/bench/network"
mkdir -p "$dir/ws" "$dir/served"
[ -s "$dir/served/100m.bin" ] || head -c 104857600 /dev/urandom > "$dir/served/100m.bin"
port=18399
python3 -m http.server "$port" --bind 127.0.0.2 --directory "$dir/served" >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
cd "$dir/ws"
export SANDBOX_BASH_WORKSPACE="$dir/ws"
unset BASH_AGENT_BASH_MODE SANDBOX_BASH_ENFORCED SANDBOX_BASH_NETWORK_ALLOW
list="env SANDBOX_BASH_NETWORK_ALLOW=127.0.0.2"
echo "== start-up, -c true ($STARTUP_RUNS runs each)"
python3 "$OLDPWD/benches/interleave.py" "$STARTUP_RUNS" "env X=1 $sb -c true" "$list $sb -c true" "env X=1 /bin/bash -c true"
url="http://127.0.0.2:$port/100m.bin"
echo "== 100 MiB download ($DOWNLOAD_RUNS runs each)"
python3 "$OLDPWD/benches/interleave.py" "$DOWNLOAD_RUNS" \
  "env X=1 curl -s -o /dev/null $url" \
  "env X=1 $sb -c 'curl -s -o /dev/null $url'" \
  "$list $sb -c 'curl -s -o /dev/null $url'" \
  "$list $sb -c 'curl -s -p -o /dev/null $url'"
