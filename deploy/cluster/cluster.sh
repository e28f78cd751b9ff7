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
if ! exec 3<>"/dev/tcp/$rhost/$rport" 2>/dev/null; then
	die "Redis at $rhost:$rport is not reachable (set TOOLWARDEN_REDIS_URL)"
fi
exec 3>&-

mkdir -p "$DIR"
chmod 755 "$DIR"

# cgroup2 mount and this shell's place in it, for per-executor roots.
v2mount=$(awk '/ - cgroup2 /{print $5; exit}' /proc/self/mountinfo)
v2self=$(sed -n 's/^0:://p' /proc/self/cgroup)

declare -A names=()
pids=()
stopping=0
stop_all() {
	stopping=1
	echo
	echo "cluster: stopping ${#pids[@]} processes"
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	echo "cluster: stopped"
	exit 0
}
trap stop_all INT TERM

for ((i = 1; i <= N; i++)); do
	port=$((BASE_PORT + i - 1))
	"$BIN" serve --no-executor --redis "$REDIS_URL" --listen "127.0.0.1:$port" \
		--data-dir "$DIR/server-$i" >"$DIR/server-$i.log" 2>&1 &
	pids+=($!)
	names[$!]="server $i (http://127.0.0.1:$port, log $DIR/server-$i.log)"
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
	names[$!]="executor $i (log $DIR/executor-$i.log)"
done

# Wait until every server accepts connections.
for ((i = 1; i <= N; i++)); do
	port=$((BASE_PORT + i - 1))
	for ((t = 0; t < 300; t++)); do
		if exec 3<>"/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
			exec 3>&-
			break
		fi
		sleep 0.1
	done
done

echo "toolwarden cluster: $N servers, $M executors on $REDIS_URL (prefix $TOOLWARDEN_REDIS_PREFIX)"
for pid in "${pids[@]}"; do echo "  pid $pid: ${names[$pid]}"; done
echo "TOOLWARDEN_ADMIN_KEY=$TOOLWARDEN_ADMIN_KEY"
echo "Ctrl-C stops them all."

# Report any process that exits; stop when all have.
live=("${pids[@]}")
while ((${#live[@]} > 0)); do
	done_pid=
	set +e
	wait -n -p done_pid "${live[@]}"
	rc=$?
	set -e
	((stopping)) && break
	[[ -z "$done_pid" ]] && break
	echo "cluster: ${names[$done_pid]} exited with status $rc" >&2
	rest=()
	for pid in "${live[@]}"; do [[ "$pid" != "$done_pid" ]] && rest+=("$pid"); done
	live=("${rest[@]}")
done
