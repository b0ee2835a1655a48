#!/usr/bin/env bash
# A/B of StoryGate builds on the proxied route of bench/versus-haproxy.sh: GET /api/bench, the bearer token verified,
# the per-user limit, proxied to a small nginx upstream; 1,000 users' tokens rotating, 64 connections. The builds
# take turns, round after round (A B A B …), so a change in the machine's load hits each alike. Prints every run and,
# per build, the gateway's CPU µs per request (user + kernel, from /proc/<pid>/stat) as the minimum and the median
# over the rounds. On a shared 2-core machine requests/s move by ±20 % from one run to the next; the minimum CPU per
# request is the steadiest figure for a change of a few per cent (see BENCHMARKS.md).
#
# Usage: bench/ab.sh [options] BINARY_A BINARY_B [BINARY...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
  cat <<'EOF'
Usage: bench/ab.sh [options] BINARY_A BINARY_B [BINARY...]
  --rounds N          rounds; each runs every build once (default 5)
  --duration SECONDS  measured seconds per run (default 6)
  --warmup SECONDS    unmeasured seconds before each (default 2; fills the verified-token cache)
  --token-cache N     TOKEN_CACHE_SIZE (default 10000; 0 = every request pays for RSA)
  --connections N     wrk connections (default 64)
  --base-port N       upstream on N, the gateway on N+1 (default 18300)
  --keep              keep the temporary directory (configs, logs)
EOF
}

rounds=5 duration=6 warmup=2 token_cache=10000 connections=64 base_port=18300 binaries=()
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --duration) duration=${2%s}; shift ;;
    --warmup) warmup=${2%s}; shift ;;
    --token-cache) token_cache=$2; shift ;;
    --connections) connections=$2; shift ;;
    --base-port) base_port=$2; shift ;;
    --keep) BENCH_KEEP=1 ;;
    -h | --help) usage; exit 0 ;;
    -*) usage >&2; bench_die "unknown option $1" ;;
    *) binaries+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")") ;;
  esac
  shift
done
((${#binaries[@]} >= 2)) || { usage >&2; bench_die "give at least two binaries"; }
for binary in "${binaries[@]}"; do
  [ -x "$binary" ] || bench_die "not an executable: $binary"
  bench_supports_config "$binary" || bench_die "$binary has no serve --config (no proxy route)"
done

bench_init ab
bench_install wrk nginx curl
T=$BENCH_TMP
upstream_port=$base_port storygate_port=$((base_port + 1))
bench_require_ports "$upstream_port" "$storygate_port"

render() { sed -e "s|@TMP@|$T|g" -e "s|@UPSTREAM_PORT@|$upstream_port|g" "$1" >"$2"; }
mkdir -p "$T/nginx-upstream" "$T/media"
render "$BENCH_DIR/nginx/upstream.conf.in" "$T/nginx-upstream.conf"
render "$BENCH_DIR/storygate/bench.yaml" "$T/storygate.yaml"
bench_mint "${binaries[0]}" 1000 "$T/tokens.txt"
bench_spawn nginx-upstream "$T/nginx-upstream.out" nginx -p "$T" -e "$T/nginx-upstream.error.log" -c "$T/nginx-upstream.conf" -g 'daemon off;'
upstream_pid=$BENCH_LAST_PID
bench_wait_http "http://127.0.0.1:$upstream_port/" "$upstream_pid" 10 || bench_die "the nginx upstream did not start"

mapfile -t environment < <(bench_storygate_env | grep -v '^RATE_LIMIT_SHADOW=')
url="http://127.0.0.1:$storygate_port"
declare -A totals users kernels
bench_log "$rounds round(s) x ${#binaries[@]} build(s) x (${warmup} + ${duration}) s"
for ((round = 1; round <= rounds; round++)); do
  for index in "${!binaries[@]}"; do
    binary=${binaries[index]}
    bench_spawn storygate "$T/storygate-$index.log" env "${environment[@]}" ACCESS_LOG=false LOG_LEVEL=warning \
      "TOKEN_CACHE_SIZE=$token_cache" "$binary" serve --host 127.0.0.1 --port "$storygate_port" --config "$T/storygate.yaml"
    pid=$BENCH_LAST_PID
    bench_wait_http "$url/readyz" "$pid" 30 || bench_die "StoryGate did not start: see $T/storygate-$index.log"
    ((warmup > 0)) && bench_wrk "$url" "$warmup" "$connections" 1 "$T/tokens.txt" WRK_PATH=/api/bench >/dev/null
    read -r user_before kernel_before < <(bench_cpu_split "$pid")
    result=$(bench_wrk "$url" "$duration" "$connections" 1 "$T/tokens.txt" WRK_PATH=/api/bench)
    read -r user_after kernel_after < <(bench_cpu_split "$pid")
    bench_stop "$pid"
    requests=$(bench_field "$result" requests)
    errors=0
    for key in non2xx connect read write timeout; do errors=$((errors + $(bench_field "$result" "$key"))); done
    ((requests > 0)) || bench_die "no requests answered: see $T/wrk.log"
    ((errors == 0)) || bench_die "$errors error(s) in the run: see $T/wrk.log"
    line=$(awk -v r="$requests" -v u=$((user_after - user_before)) -v k=$((kernel_after - kernel_before)) -v hz="$BENCH_CLK_TCK" \
      'BEGIN { us = 1e6 / hz / r; printf "%.2f %.2f %.2f", (u + k) * us, u * us, k * us }')
    read -r total user kernel <<<"$line"
    totals[$index]+=" $total" users[$index]+=" $user" kernels[$index]+=" $kernel"
    printf 'round %d  %-40s %7.0f req/s  CPU %6.2f us/request (user %6.2f + kernel %6.2f)\n' "$round" "$(basename "$binary")" \
      "$(awk -v r="$requests" -v d="$duration" 'BEGIN { print r / d }')" "$total" "$user" "$kernel"
  done
done

minimum() { printf '%s\n' "$@" | sort -g | head -1; }
printf '\nCPU µs per request over %d round(s), TOKEN_CACHE_SIZE=%s, %d connections (load average %s)\n' "$rounds" "$token_cache" "$connections" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-40s %10s %10s %10s %10s\n' build "min total" "median" "min user" "min kernel"
for index in "${!binaries[@]}"; do
  # shellcheck disable=SC2086
  printf '%-40s %10s %10s %10s %10s\n' "$(basename "${binaries[index]}")" "$(minimum ${totals[$index]})" \
    "$(bench_median ${totals[$index]})" "$(minimum ${users[$index]})" "$(minimum ${kernels[$index]})"
done
