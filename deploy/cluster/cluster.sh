#!/usr/bin/env bash
# Start N toolwarden API servers and M executor daemons on one Redis, on
# this host, for trying out (and testing) a multi-host layout locally:
#
#   deploy/cluster/cluster.sh N M        (or: go tool task cluster N=2 M=3)
#
# Servers run `serve --no-executor --redis` on 127.0.0.1:BASE_PORT, +1, …;
# executors run `executor --redis`, each with a cgroup root of its own (the
# cgroup isolation backend locks its root, so two daemons on one host cannot
# share one). All share TOOLWARDEN_REDIS_PREFIX. Ctrl-C (or SIGTERM) stops
# every process this script started, and only those.
#
# Failures stop the whole cluster with a non-zero exit and say which part
# failed: a server port already taken (before anything starts), a server or
# executor that exits during start-up or later (its name, exit status and
# the end of its log), a server that never accepts connections.
#
# Environment (all optional):
#   TOOLWARDEN_BIN           binary (default bin/toolwarden)
#   TOOLWARDEN_REDIS_URL     Redis (default redis://127.0.0.1:6379/0)
#   TOOLWARDEN_REDIS_PREFIX  key prefix of this cluster (default toolwarden:cluster:)
#   TOOLWARDEN_ADMIN_KEY     admin key of every server (default: a new random one)
#   TOOLWARDEN_SECRETS_KEY   master key shared by servers and executors (default: a new random one)
#   BASE_PORT                first server port (default 8080)
#   CLUSTER_DIR              data dirs, configs and logs (default .cluster)
#
# API keys live (hashed) in Redis, shared by every server; each server is
# bootstrapped with the same TOOLWARDEN_ADMIN_KEY.
set -euo pipefail

N=${1:-2}
M=${2:-2}
BIN=${TOOLWARDEN_BIN:-bin/toolwarden}
REDIS_URL=${TOOLWARDEN_REDIS_URL:-redis://127.0.0.1:6379/0}
BASE_PORT=${BASE_PORT:-8080}
DIR=${CLUSTER_DIR:-.cluster}
export TOOLWARDEN_REDIS_PREFIX=${TOOLWARDEN_REDIS_PREFIX:-toolwarden:cluster:}
if [[ -z "${TOOLWARDEN_ADMIN_KEY:-}" ]]; then
	TOOLWARDEN_ADMIN_KEY="tw_cluster_$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
fi
export TOOLWARDEN_ADMIN_KEY
# Env values in Redis are sealed, and key records signed, under this key.
if [[ -z "${TOOLWARDEN_SECRETS_KEY:-}" ]]; then
	TOOLWARDEN_SECRETS_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
fi
export TOOLWARDEN_SECRETS_KEY

die() { echo "cluster: $*" >&2; exit 1; }
# can_connect HOST PORT: does something accept TCP connections there? (In a
# subshell: `exec 3<>… 2>/dev/null` in this shell would send its stderr to
# /dev/null for good, and every later error message with it.)
can_connect() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
[[ "$N" =~ ^[0-9]+$ && "$M" =~ ^[0-9]+$ ]] || die "N and M must be numbers (got N=$N M=$M)"
(( N >= 1 )) || die "N must be at least 1"
[[ -x "$BIN" ]] || die "$BIN not found: run 'go tool task build' first"
"$BIN" executor --help >/dev/null 2>&1 || die "$BIN has no 'executor' subcommand"

# Is Redis there? Parse host and port out of redis://[user:pass@]host:port/db.
hostport=${REDIS_URL#*://}
hostport=${hostport##*@}
hostport=${hostport%%/*}
rhost=${hostport%:*}
rport=${hostport##*:}
[[ "$rport" == "$hostport" ]] && rport=6379
can_connect "$rhost" "$rport" || die "Redis at $rhost:$rport is not reachable (set TOOLWARDEN_REDIS_URL)"

mkdir -p "$DIR"
chmod 755 "$DIR"

# cgroup2 mount and this shell's place in it, for per-executor roots.
v2mount=$(awk '/ - cgroup2 /{print $5; exit}' /proc/self/mountinfo)
v2self=$(sed -n 's/^0:://p' /proc/self/cgroup)

# Every server port must be free before anything starts: a server that
# cannot bind would exit, and a port answered by another program would look
# like a ready server.
port_owner() {
	# The program listening on 127.0.0.1:$1, when ss can tell.
	command -v ss >/dev/null 2>&1 || return 0
	ss -Hltnp "sport = :$1" 2>/dev/null | sed -n 's/.*users:((\("[^"]*"\),pid=\([0-9]*\).*/\1 pid \2/p' | head -1
}
for ((i = 1; i <= N; i++)); do
	port=$((BASE_PORT + i - 1))
	if can_connect 127.0.0.1 "$port"; then
		owner=$(port_owner "$port")
		die "port $port (server $i) is already in use${owner:+ by $owner}; stop it or set BASE_PORT"
	fi
done

declare -A names=()
pids=()
stopping=0
# stop_others TERMs every started process and waits for them.
stop_others() {
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
stop_all() {
	stopping=1
	echo
	echo "cluster: stopping ${#pids[@]} processes"
	stop_others
	echo "cluster: stopped"
	exit 0
}
# fail reports that pid exited with status rc, shows the end of its log,
# stops every other process and exits non-zero.
fail() {
	local pid=$1 rc=$2 when=$3 log=${logs[$1]:-}
	trap - INT TERM
	echo "cluster: ${names[$pid]} (pid $pid) exited $when with status $rc" >&2
	if [[ -n "$log" && -s "$log" ]]; then
		echo "cluster: last lines of $log:" >&2
		tail -n 20 "$log" | sed 's/^/  | /' >&2
	fi
	echo "cluster: stopping the other processes" >&2
	stop_others
	(( rc == 0 )) && rc=1
	exit "$rc"
}
# check_alive fails on the first started process that is no longer running.
check_alive() {
	for pid in "${pids[@]}"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			local rc=0
			wait "$pid" 2>/dev/null || rc=$?
			fail "$pid" "$rc" "$1"
		fi
	done
}
declare -A logs=()
trap stop_all INT TERM

for ((i = 1; i <= N; i++)); do
	port=$((BASE_PORT + i - 1))
	"$BIN" serve --no-executor --redis "$REDIS_URL" --listen "127.0.0.1:$port" \
		--data-dir "$DIR/server-$i" >"$DIR/server-$i.log" 2>&1 &
	pids+=($!)
	names[$!]="server $i (http://127.0.0.1:$port)"
	logs[$!]="$DIR/server-$i.log"
done

for ((i = 1; i <= M; i++)); do
	cfg="$DIR/executor-$i.yaml"
	: >"$cfg"
	if [[ $(id -u) == 0 && -n "$v2mount" ]]; then
		printf 'security:\n  process_isolation:\n    cgroup_root: %s\n' \
			"${v2mount}${v2self%/}/toolwarden-cluster-$i" >"$cfg"
	fi
	# Runs without a cwd start in a workspace shared like /tmp (workloads
	# run as an unprivileged uid under the cgroup backend).
	mkdir -p "$DIR/executor-$i/workspace"
	chmod 1777 "$DIR/executor-$i/workspace"
	"$BIN" executor --redis "$REDIS_URL" --config "$cfg" --data-dir "$DIR/executor-$i" \
		--workspace "$DIR/executor-$i/workspace" >"$DIR/executor-$i.log" 2>&1 &
	pids+=($!)
	names[$!]="executor $i"
	logs[$!]="$DIR/executor-$i.log"
done

# Wait until every server accepts connections (STARTUP_TIMEOUT seconds,
# default 30), failing as soon as any process exits.
deadline=$((SECONDS + ${STARTUP_TIMEOUT:-30}))
for ((i = 1; i <= N; i++)); do
	port=$((BASE_PORT + i - 1))
	spid=${pids[$((i - 1))]}
	until can_connect 127.0.0.1 "$port"; do
		check_alive "during start-up"
		if ((SECONDS >= deadline)); then
			trap - INT TERM
			echo "cluster: ${names[$spid]} (pid $spid) did not accept connections within ${STARTUP_TIMEOUT:-30}s; log ${logs[$spid]}" >&2
			stop_others
			exit 1
		fi
		sleep 0.1
	done
done
# Executors have no port: give them the moment servers took, then check
# that none has exited (a bad config or Redis error ends one at once).
sleep 0.5
check_alive "during start-up"

echo "toolwarden cluster: $N servers, $M executors on $REDIS_URL (prefix $TOOLWARDEN_REDIS_PREFIX)"
for pid in "${pids[@]}"; do echo "  pid $pid: ${names[$pid]}, log ${logs[$pid]}"; done
echo "TOOLWARDEN_ADMIN_KEY=$TOOLWARDEN_ADMIN_KEY"
echo "Ctrl-C stops them all."

# A process that exits stops the cluster: say which, with its status.
done_pid=
set +e
wait -n -p done_pid "${pids[@]}"
rc=$?
set -e
((stopping)) && exit 0
[[ -n "$done_pid" ]] && fail "$done_pid" "$rc" "unexpectedly"
exit 0
