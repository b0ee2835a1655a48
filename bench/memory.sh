#!/usr/bin/env bash
# Memory of one StoryGate (VmRSS from /proc/<pid>/status): idle, with 10,000 open keep-alive connections, and
# during and after a long run at half the peak rate, which must be flat.
#
#   bench/memory.sh                               # release build; about 13 minutes (the run itself is 10)
#   bench/memory.sh --binary PATH --minutes 30
#   bench/memory.sh --debug --minutes 0.5 --open 2000 --sample-seconds 5   # smoke run
#
# Steps: (1) idle RSS after start; (2) the peak rate, from a 10 s wrk run; (3) wrk paced at half of it
# (bench/wrk/requests.lua with WRK_RATE) for --minutes, RSS sampled every --sample-seconds; (4) RSS 10 s after the
# run; (5) N connections opened (bench/memory/hold-connections.py: each sends one GET /v1/me with a token and stays
# open), RSS while they are held, then after they close; twice, so that memory the allocator keeps after the first
# time shows as reused (the same RSS) rather than leaked (higher again). The long run comes before the connections so that memory
# freed by them cannot hide growth during the run. Flat: the highest sample of the second half of the run is within
# 10% of the highest of the first half. Installs wrk when missing; stops every process it started.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'EOF'
usage: bench/memory.sh [options]

  --binary PATH         use this storygate binary (default: build one)
  --debug               build and use a debug binary (smoke runs only)
  --tokens N            distinct users' tokens rotating (default 1000)
  --open N              keep-alive connections to open and hold (default 10000; 0 skips the step)
  --open-rounds N       how many times to open and close them (default 2)
  --minutes M           length of the paced run (default 10; decimals allowed)
  --rate R              requests/s of the paced run (default: half the measured peak)
  --connections N       wrk connections for the peak and the paced run (default 64)
  --threads N           wrk threads (default 1)
  --sample-seconds S    RSS sampling interval during the run (default 10)
  --path P              request path (default /v1/me)
  --config FILE         pass --config FILE to storygate serve (for example a route to an upstream, with --path)
  --no-access-log       ACCESS_LOG=false, LOG_LEVEL=warning (default: on, as in production; lines after the first
                        4 MB are discarded)
  --port N              the gateway's port (default 18180)
  --keep                keep the temporary directory
EOF
}

mode=release binary="" token_count=1000 open_count=10000 open_rounds=2 minutes=10 rate="" connections=64 threads=1
sample_seconds=10 path=/v1/me config="" access_log=1 port=18180
while (($#)); do
  case $1 in
    --binary) mode=path binary=$2; shift ;;
    --debug) mode=debug ;;
    --tokens) token_count=$2; shift ;;
    --open) open_count=$2; shift ;;
    --open-rounds) open_rounds=$2; shift ;;
    --minutes) minutes=$2; shift ;;
    --rate) rate=$2; shift ;;
    --connections) connections=$2; shift ;;
    --threads) threads=$2; shift ;;
    --sample-seconds) sample_seconds=$2; shift ;;
    --path) path=$2; shift ;;
    --config) config=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
    --no-access-log) access_log=0 ;;
    --port) port=$2; shift ;;
    --keep) BENCH_KEEP=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; bench_die "unknown option $1" ;;
  esac
  shift
done
run_seconds=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 + 0.5 }')
((run_seconds >= 2 * sample_seconds)) || bench_die "--minutes too short for two samples of --sample-seconds $sample_seconds"

bench_install wrk curl python3
# 10,000 connections need 10,000 descriptors in the gateway and in the client: take the hard limit.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if ((open_count > 0)) && (($(ulimit -n) < open_count + 200)); then
  bench_die "the open-files limit is $(ulimit -n) (hard $(ulimit -Hn)): raise it above $((open_count + 200)) or pass --open with fewer"
fi
bench_init memory
binary=$(bench_storygate_binary "$mode" "$binary")
bench_require_ports "$port"
bench_mint "$binary" "$token_count" "$BENCH_TMP/tokens.txt" $((run_seconds + 7200))

environment=()
mapfile -t environment < <(bench_storygate_env)
if ((access_log)); then environment+=(ACCESS_LOG=true LOG_LEVEL=info); else environment+=(ACCESS_LOG=false LOG_LEVEL=warning); fi
bench_bounded_log "$BENCH_TMP/storygate.log"
serve_arguments=(serve --host 127.0.0.1 --port "$port")
[ -n "$config" ] && serve_arguments+=(--config "$config")
bench_spawn storygate "$BENCH_FIFO" env -u OPENAI_API_KEY -u OPENAI_API_KEY_FILE -u OPENAI_BASE_URL -u STORYGATE_CONFIG \
  "${environment[@]}" "$binary" "${serve_arguments[@]}"
gateway_pid=$BENCH_LAST_PID
url="http://127.0.0.1:$port"
bench_wait_http "$url/readyz" "$gateway_pid" 60 || { sleep 0.5; cat "$BENCH_TMP/storygate.log" >&2; bench_die "the gateway did not become ready"; }
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(head -1 "$BENCH_TMP/tokens.txt")" "$url$path")
[ "$status" = 200 ] || bench_die "GET $path with a valid token answered $status, not 200"

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
rss() { bench_rss_kib "$gateway_pid"; }
fds() { find "/proc/$gateway_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
alive() { kill -0 "$gateway_pid" 2>/dev/null || bench_die "the gateway exited (see $BENCH_TMP/storygate.log)"; }

sleep 2
rss_idle=$(rss)
bench_log "idle: $(mib "$rss_idle") MiB"

# --- peak, then half of it for the long run -----------------------------------------------------------------
bench_wrk "$url" 3 "$connections" "$threads" "$BENCH_TMP/tokens.txt" "WRK_PATH=$path" >/dev/null
peak_line=$(bench_wrk "$url" 10 "$connections" "$threads" "$BENCH_TMP/tokens.txt" "WRK_PATH=$path")
peak=$(bench_field "$peak_line" rps)
[ -n "$rate" ] || rate=$(awk -v p="$peak" 'BEGIN { printf "%d", p / 2 }')
rss_after_peak=$(rss)
bench_log "peak: $peak requests/s ($(mib "$rss_after_peak") MiB); paced run at $rate requests/s for ${run_seconds}s, RSS every ${sample_seconds}s"

bench_spawn wrk "$BENCH_TMP/paced.out" env TOKENS="$BENCH_TMP/tokens.txt" WRK_THREADS="$threads" WRK_CONNECTIONS="$connections" \
  WRK_PATH="$path" WRK_RATE="$rate" wrk -t"$threads" -c"$connections" -d"${run_seconds}s" --timeout 5s -s "$BENCH_LUA" "$url"
wrk_pid=$BENCH_LAST_PID
start=$(date +%s)
ticks_start=$(bench_cpu_ticks "$gateway_pid")
printf 'seconds\trss_kib\tcpu_s\n' >"$BENCH_TMP/samples.tsv"
samples=()
next=$((start + sample_seconds))
while kill -0 "$wrk_pid" 2>/dev/null; do
  now=$(date +%s)
  if ((now >= next)); then
    value=$(rss)
    elapsed=$((now - start))
    ((elapsed <= run_seconds)) && samples+=("$value")
    cpu=$(awk -v t=$(($(bench_cpu_ticks "$gateway_pid") - ticks_start)) -v hz="$BENCH_CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')
    printf '%s\t%s\t%s\n' "$elapsed" "$value" "$cpu" >>"$BENCH_TMP/samples.tsv"
    printf '  %5d s  RSS %8s MiB  gateway CPU %7s s\n' "$elapsed" "$(mib "$value")" "$cpu" >&2
    next=$((next + sample_seconds))
    alive
  fi
  sleep 0.5
done
wait "$wrk_pid" || true
paced_line=$(grep '^WRK_RESULT' "$BENCH_TMP/paced.out" | tail -1) || { cat "$BENCH_TMP/paced.out" >&2; bench_die "wrk printed no result"; }
sleep 10
rss_after=$(rss)
alive
bench_log "10 s after the run: $(mib "$rss_after") MiB"


# --- open connections, twice: the second time shows whether memory kept after the first is reused or leaked ---
rss_open=() rss_closed=() open_lines=() done_lines=() open_fds=()
for ((round = 1; round <= open_rounds && open_count > 0; round++)); do
  bench_log "opening $open_count keep-alive connections (time $round of $open_rounds)"
  output="$BENCH_TMP/hold-$round.out"
  bench_spawn hold-connections "$output" python3 "$BENCH_DIR/memory/hold-connections.py" --port "$port" \
    --path "$path" --tokens "$BENCH_TMP/tokens.txt" --count "$open_count" --hold 60
  hold_pid=$BENCH_LAST_PID
  for _ in $(seq 1200); do
    grep -q '^READY' "$output" 2>/dev/null && break
    kill -0 "$hold_pid" 2>/dev/null || { cat "$output" >&2; bench_die "the connection holder failed"; }
    sleep 0.1
  done
  open_lines+=("$(grep '^READY' "$output")") || bench_die "the connections did not open within 120 s"
  sleep 3
  rss_open+=("$(rss)")
  open_fds+=("$(fds)")
  bench_log "${open_lines[-1]}; gateway: ${open_fds[-1]} open files, $(mib "${rss_open[-1]}") MiB"
  kill -TERM "$hold_pid" 2>/dev/null || true
  wait "$hold_pid" || true
  done_lines+=("$(grep '^DONE' "$output" || echo "DONE (no report)")")
  sleep 5
  rss_closed+=("$(rss)")
  bench_log "${done_lines[-1]}; after they closed: $(mib "${rss_closed[-1]}") MiB"
  alive
done

count=${#samples[@]}
((count >= 2)) || bench_die "too few samples ($count)"
half=$((count / 2))
first_max=$(printf '%s\n' "${samples[@]:0:half}" | sort -n | tail -1)
last_max=$(printf '%s\n' "${samples[@]:half}" | sort -n | tail -1)
growth=$(awk -v a="$first_max" -v b="$last_max" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')
flat=$(awk -v g="$growth" 'BEGIN { print (g <= 10) ? "flat" : "NOT FLAT" }')
errors=$(($(bench_field "$paced_line" non2xx) + $(bench_field "$paced_line" connect) + $(bench_field "$paced_line" read) +
  $(bench_field "$paced_line" write) + $(bench_field "$paced_line" timeout)))

build=$(bench_build_label "$mode" "$binary")
printf '\n## Memory: %s\n\n```\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
bench_machine
printf 'storygate: %s; access log %s; GET %s with %s users'"'"' tokens\n```\n\n' "$build" "$([ "$access_log" = 1 ] && echo on || echo off)" "$path" "$token_count"
printf '| state | RSS |\n|---|---|\n'
printf '| idle, after start | %s MiB |\n' "$(mib "$rss_idle")"
printf '| after the peak run (%s requests/s, %s connections) | %s MiB |\n' "$peak" "$connections" "$(mib "$rss_after_peak")"
printf '| paced run, %s s at %s requests/s (achieved %s; errors %s): first-half max | %s MiB |\n' "$run_seconds" "$rate" \
  "$(bench_field "$paced_line" rps)" "$errors" "$(mib "$first_max")"
printf '| paced run: second-half max | %s MiB (%s%%: %s) |\n' "$(mib "$last_max")" "$growth" "$flat"
printf '| 10 s after the run | %s MiB |\n' "$(mib "$rss_after")"
for ((round = 0; round < ${#rss_open[@]}; round++)); do
  printf '| %s keep-alive connections open, time %s (%s; %s open files) | %s MiB |\n' "$open_count" $((round + 1)) \
    "${open_lines[round]#READY }" "${open_fds[round]}" "$(mib "${rss_open[round]}")"
  printf '| after they closed (%s) | %s MiB |\n' "${done_lines[round]#DONE }" "$(mib "${rss_closed[round]}")"
done
printf '\nSamples (every %s s): ' "$sample_seconds"
awk -F'\t' 'NR > 1 { printf "%s%.0f", (NR > 2 ? ", " : ""), $2 / 1024 } END { print " MiB" }' "$BENCH_TMP/samples.tsv"
if [ "$flat" != flat ] || ((errors != 0)); then
  BENCH_KEEP=1
  exit 1
fi
