# shellcheck shell=bash disable=SC2034
# Shared helpers of the bench/ scripts (sourced, not run). Bash 4+, Linux (/proc).
#
# Every process a script starts goes through bench_spawn, which records its PID; bench_cleanup (installed as the
# EXIT/INT/TERM trap by bench_init) stops exactly those PIDs, TERM first and KILL after a grace period.

BENCH_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR="$BENCH_REPO/bench"
BENCH_LUA="$BENCH_DIR/wrk/requests.lua"
BENCH_CLK_TCK=$(getconf CLK_TCK)
BENCH_PIDS=()
BENCH_NAMES=()
BENCH_TMP=""
BENCH_KEEP=0
# The gateways a bench starts open their admin listener on a free port, not the default 9901 (older builds
# ignore the variable).
export ADMIN_PORT="${ADMIN_PORT:-0}"

bench_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
bench_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# bench_init NAME: a temporary directory ($BENCH_TMP) and the cleanup trap.
bench_init() {
  BENCH_TMP=$(mktemp -d "/tmp/storygate-$1.XXXXXX")
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

bench_cleanup() {
  local status=$?
  trap - EXIT
  local i pid
  for ((i = ${#BENCH_PIDS[@]} - 1; i >= 0; i--)); do
    pid=${BENCH_PIDS[i]}
    kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null
  done
  local waited=0
  for pid in "${BENCH_PIDS[@]}"; do
    while kill -0 "$pid" 2>/dev/null && ((waited < 50)); do sleep 0.1; waited=$((waited + 1)); done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  done
  wait 2>/dev/null
  if [ -n "$BENCH_TMP" ] && [ -d "$BENCH_TMP" ]; then
    if ((BENCH_KEEP)) || ((status != 0)); then
      bench_log "logs and configs kept in $BENCH_TMP"
    else
      rm -rf "$BENCH_TMP"
    fi
  fi
  exit "$status"
}

# bench_spawn NAME LOGFILE COMMAND...: runs COMMAND in the background with its output in LOGFILE (a path, or a
# FIFO from bench_bounded_log). Sets BENCH_LAST_PID to the command's own PID (exec, no wrapper shell).
bench_spawn() {
  local name=$1 log=$2
  shift 2
  "$@" >"$log" 2>&1 </dev/null &
  BENCH_LAST_PID=$!
  BENCH_PIDS+=("$BENCH_LAST_PID")
  BENCH_NAMES+=("$name")
}

# bench_stop PID: stops one process started with bench_spawn (TERM, then KILL after 5 s).
bench_stop() {
  local pid=$1 waited=0
  kill -TERM "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null && ((waited < 50)); do sleep 0.1; waited=$((waited + 1)); done
  # Only if it is still there: under `set -e` a failed kill would end the calling script.
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
  return 0
}

# bench_bounded_log FILE: a FIFO whose first 4 MB go to FILE and the rest is discarded, so a gateway with its
# access log on (one JSON line per request, ~10 MB/s at full speed) cannot fill the disk. Sets BENCH_FIFO to the
# FIFO's path (not printed: a reader started inside $(...) would hold the substitution open).
bench_bounded_log() {
  local file=$1
  BENCH_FIFO="$1.fifo"
  mkfifo "$BENCH_FIFO"
  { head -c 4000000 >"$file"; cat >/dev/null; } <"$BENCH_FIFO" >/dev/null 2>&1 &
  BENCH_PIDS+=("$!")
  BENCH_NAMES+=("log reader")
}

# bench_install PACKAGE...: apt-get installs the Debian packages that are missing (root or sudo). Services the
# packages ship (nginx, haproxy) are not started: a policy-rc.d denying starts is put in place when there is none.
bench_install() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  command -v apt-get >/dev/null || bench_die "missing ${missing[*]} and no apt-get: install them by hand"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  bench_log "installing ${missing[*]} (apt-get)"
  local policy=/usr/sbin/policy-rc.d placed=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# placed by storygate bench/lib.sh while installing; removed after\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
    placed=1
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  local status=$?
  ((placed)) && $sudo rm -f "$policy"
  ((status == 0)) || bench_die "apt-get install ${missing[*]} failed"
}

# bench_storygate_binary MODE [PATH]: prints the storygate binary to use. MODE is release, debug or path.
bench_storygate_binary() {
  local mode=$1 path=${2:-}
  if [ "$mode" = path ]; then
    [ -x "$path" ] || bench_die "--binary $path is not an executable file"
    (cd "$(dirname "$path")" && printf '%s/%s\n' "$(pwd)" "$(basename "$path")")
    return
  fi
  command -v swift >/dev/null || bench_die "swift is not on PATH: install the toolchain or pass --binary PATH"
  # A release build is made as deploy/Dockerfile ships it, with the Swift standard library linked in statically (its
  # calls, swift_retain and swift_release among them, are then direct rather than through the dynamic linker's table;
  # about 8 % less user time per request here), in a build directory of its own so that it does not undo `swift build`.
  local arguments=(-c debug)
  [ "$mode" = debug ] || arguments=(-c release --static-swift-stdlib --scratch-path "$BENCH_REPO/.build/static")
  bench_log "building storygate (${arguments[*]}; the first release build takes several minutes)"
  (cd "$BENCH_REPO" && swift build "${arguments[@]}" --product storygate >&2) || bench_die "swift build failed"
  printf '%s/storygate\n' "$(cd "$BENCH_REPO" && swift build "${arguments[@]}" --show-bin-path)"
}

# bench_build_label MODE BINARY: how the report names the binary; debug builds are flagged as not figures.
bench_build_label() {
  case $1 in
    release) printf 'release build of this checkout (%s)\n' "$2" ;;
    debug) printf 'DEBUG build (%s): a smoke run, not figures to record\n' "$2" ;;
    *) case $2 in
         */debug/*) printf '%s (a DEBUG build: a smoke run, not figures to record)\n' "$2" ;;
         *) printf '%s\n' "$2" ;;
       esac ;;
  esac
}

# bench_mint BINARY COUNT FILE [TTL] [UID]: COUNT dev tokens for the users UID-1 ... UID-COUNT, one per line.
bench_mint() {
  local binary=$1 count=$2 file=$3 ttl=${4:-86400} uid=${5:-load}
  ENV=dev "$binary" mint-token --uid "$uid" --count "$count" --ttl "$ttl" --out "$file" \
    --certs-dir "$BENCH_REPO/certs/dev" 2>/dev/null || bench_die "storygate mint-token failed"
  [ "$(wc -l <"$file")" -eq "$count" ] || bench_die "mint-token wrote $(wc -l <"$file") tokens, not $count"
}

# bench_supports_config BINARY: whether `storygate serve` takes --config (the config file and route table).
bench_supports_config() {
  "$1" serve --help 2>&1 | grep -q -- '--config'
}

# bench_port_free PORT: fails when something on this machine accepts connections on 127.0.0.1:PORT.
bench_port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

bench_require_ports() {
  local port
  for port in "$@"; do
    bench_port_free "$port" || bench_die "port $port on 127.0.0.1 is in use: stop what listens there or pass --base-port"
  done
}

# bench_wait_http URL PID SECONDS [STATUS]: waits until URL answers STATUS (default 200), failing early if PID exits.
bench_wait_http() {
  local url=$1 pid=$2 seconds=$3 want=${4:-200} deadline code
  deadline=$(($(date +%s) + seconds))
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" 2>/dev/null)
    [ "$code" = "$want" ] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    (($(date +%s) >= deadline)) && return 1
    sleep 0.1
  done
}

# bench_tree PID: PID and all its descendants (nginx master and workers, for example), one per line.
bench_tree() {
  local root=$1 pid ppid stat rest
  local -A children=()
  for stat in /proc/[0-9]*/stat; do
    pid=${stat#/proc/}
    pid=${pid%/stat}
    rest=$(<"$stat") 2>/dev/null || continue
    rest=${rest##*) }
    read -r _ ppid _ <<<"$rest"
    children[$ppid]+=" $pid"
  done
  local queue=("$root") found=()
  while ((${#queue[@]})); do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    found+=("$pid")
    # shellcheck disable=SC2206
    [ -n "${children[$pid]:-}" ] && queue+=(${children[$pid]})
  done
  printf '%s\n' "${found[@]}"
}

# bench_cpu_split PID...: "utime stime" of the processes (all their threads), in clock ticks (see BENCH_CLK_TCK).
bench_cpu_split() {
  local user=0 system=0 pid stat fields
  for pid in "$@"; do
    stat=$(<"/proc/$pid/stat") 2>/dev/null || continue
    read -r -a fields <<<"${stat##*) }"
    # After "pid (comm) ": field 3 (state) is index 0, so utime (14) is 11 and stime (15) is 12.
    user=$((user + fields[11]))
    system=$((system + fields[12]))
  done
  printf '%s %s\n' "$user" "$system"
}

# bench_cpu_ticks PID...: utime + stime of the processes, in clock ticks.
bench_cpu_ticks() {
  local user system
  read -r user system < <(bench_cpu_split "$@")
  printf '%s\n' $((user + system))
}

# bench_rss_kib PID...: the processes' VmRSS summed, in KiB.
bench_rss_kib() {
  local total=0 pid value
  for pid in "$@"; do
    value=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
    total=$((total + ${value:-0}))
  done
  printf '%s\n' "$total"
}

# bench_wrk URL SECONDS CONNECTIONS THREADS TOKENS [VAR=VALUE...]: one wrk run with bench/wrk/requests.lua.
# Extra VAR=VALUE pairs (WRK_PATH, WRK_METHOD, WRK_BODY_FILE, WRK_RATE) go to the Lua script. Prints the
# WRK_RESULT line; wrk's whole output is appended to $BENCH_TMP/wrk.log.
bench_wrk() {
  local url=$1 seconds=$2 connections=$3 threads=$4 tokens=$5
  shift 5
  local output
  output=$(env TOKENS="$tokens" WRK_THREADS="$threads" WRK_CONNECTIONS="$connections" "$@" \
    wrk -t"$threads" -c"$connections" -d"${seconds}s" --timeout 5s -s "$BENCH_LUA" "$url" 2>&1)
  printf '== %s %s\n%s\n' "$url" "$*" "$output" >>"$BENCH_TMP/wrk.log"
  local line
  line=$(grep '^WRK_RESULT ' <<<"$output" | tail -1)
  [ -n "$line" ] || { printf '%s\n' "$output" >&2; bench_die "wrk printed no result (see above)"; }
  printf '%s\n' "$line"
}

# bench_field LINE KEY: the value of KEY=VALUE in a WRK_RESULT line.
bench_field() {
  local word
  for word in $1; do
    [ "${word%%=*}" = "$2" ] && { printf '%s\n' "${word#*=}"; return; }
  done
  printf '0\n'
}

# bench_machine: a few lines describing the machine and the tools, for the record.
bench_machine() {
  local model
  model=$(lscpu 2>/dev/null | awk -F: '/^Model name/ { sub(/^ +/, "", $2); print $2; exit }')
  printf 'machine: %s CPUs (%s), %s GiB, %s, kernel %s\n' "$(nproc)" "${model:-unknown CPU}" \
    "$(awk '/^MemTotal/ { printf "%d", $2 / 1048576 + 0.5 }' /proc/meminfo)" \
    "$( (. /etc/os-release 2>/dev/null && printf '%s' "$PRETTY_NAME") || uname -s)" "$(uname -r)"
  printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
  command -v wrk >/dev/null && printf 'wrk: %s\n' "$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
  command -v haproxy >/dev/null && printf 'haproxy: %s\n' "$(haproxy -v 2>&1 | head -1)"
  command -v nginx >/dev/null && printf 'nginx: %s\n' "$(nginx -v 2>&1 | head -1)"
  command -v openssl >/dev/null && printf 'openssl: %s\n' "$(openssl version)"
  command -v swift >/dev/null && printf 'swift: %s\n' "$(swift --version 2>/dev/null | head -1)"
  return 0
}

# bench_storygate_env: the environment every benchmark gateway runs with (dev mode, limits counted but never
# enforced, no failed-auth limit, media in the temporary directory). Callers add ACCESS_LOG and the rest.
bench_storygate_env() {
  printf '%s\n' ENV=dev "DEV_CERTS_DIR=$BENCH_REPO/certs/dev" RATE_LIMIT_SHADOW=all AUTH_FAILURE_LIMIT=off \
    "MEDIA_DIR=$BENCH_TMP/media"
}

# bench_ms MICROSECONDS: milliseconds with two decimals.
bench_ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }

# bench_median NUMBER...: the median (the mean of the middle two for an even count).
bench_median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print 0 } else if (NR % 2) { print v[(NR + 1) / 2] } else { printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 } }'
}
