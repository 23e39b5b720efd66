#!/usr/bin/env bash
# Start (or stop) a one-node SLURM cluster on this machine, for trying the SLURM profile without a cluster.
#   profiles/slurm/local_cluster.sh start DIR   -> prints the line to export SLURM_CONF
#   profiles/slurm/local_cluster.sh stop DIR
# Needs Debian's slurm-wlm and munge packages (slurmctld, slurmd, munged) and root, as in a container.
# Everything it writes (config, state, logs, munge socket) lives under DIR, except a link
# /etc/slurm/slurm.conf -> DIR/slurm.conf when the machine has no SLURM configuration of its own.
# The cluster keeps no accounting database (slurmdbd); finished jobs go to a job-completion log, which
# `sacct --completion` reads (JobID, JobName, State: COMPLETED, FAILED, ...).
# The daemons listen on two free TCP ports picked at start, so they start beside other SLURM daemons (but job
# steps read /etc/slurm/slurm.conf: beside another cluster that owns it, jobs fail, so run one at a time); a start
# that fails stops what it started and says where the logs are.
set -euo pipefail
action="${1:?usage: local_cluster.sh start|stop DIR}"
dir="$(mkdir -p "${2:?usage: local_cluster.sh start|stop DIR}" && cd "$2" && pwd)"

alive() {  # alive NAME: the daemon NAME started from this DIR still runs
    [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null
}

stop() {  # each daemon gets SIGTERM and up to 10 s to exit, then SIGKILL
    for name in slurmd slurmctld munged; do
        if alive "$name"; then
            pid="$(cat "$dir/$name.pid")"
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
            if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
        fi
        rm -f "$dir/$name.pid"
    done
    if [ "$(readlink /etc/slurm/slurm.conf 2>/dev/null)" = "$dir/slurm.conf" ]; then rm -f /etc/slurm/slurm.conf; fi
}

if [ "$action" = stop ]; then
    stop
    exit 0
fi
[ "$action" = start ] || { echo "usage: local_cluster.sh start|stop DIR" >&2; exit 2; }

for tool in slurmctld slurmd munged sbatch python3; do
    command -v "$tool" > /dev/null || { echo "local_cluster.sh: $tool not found (install slurm-wlm and munge)" >&2; exit 3; }
done
for name in slurmctld slurmd munged; do
    if alive "$name"; then
        echo "local_cluster.sh: a cluster started from $dir is already running ($name, pid $(cat "$dir/$name.pid"));" \
             "use it with: export SLURM_CONF=$dir/slurm.conf, or stop it first: local_cluster.sh stop $dir" >&2
        exit 4
    fi
done

# From here on, a failure stops whatever this start launched.
started=0
on_exit() {
    status=$?
    if [ "$status" -ne 0 ] && [ "$started" -eq 1 ]; then
        stop
        echo "local_cluster.sh: start failed; stopped what it had started (logs in $dir/log)" >&2
    fi
}
trap on_exit EXIT
started=1

mkdir -p "$dir"/{state,spool,munge,log}
host="$(hostname -s)"
cpus="$(nproc)"
memory_mb="$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))"
# two TCP ports no one listens on (the kernel hands out free ones; they are released before the daemons bind)
read -r ctld_port slurmd_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets:
    s.bind(("", 0))
print(*(s.getsockname()[1] for s in sockets))
')

# munge: a private key and socket, so the machine's own munge setup (if any) is left alone
[ -f "$dir/munge/munge.key" ] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" --pid-file="$dir/munged.pid" \
       --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" --force

cat > "$dir/slurm.conf" <<CONF
ClusterName=dogs-local
SlurmctldHost=$host
SlurmUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
MpiDefault=none
ReturnToService=2
MinJobAge=600
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
NodeName=$host CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

# Job steps (srun inside a job) read the default configuration path, whatever SLURM_CONF says: point it at
# ours when the machine has none (removed again by 'stop').
if [ ! -e /etc/slurm/slurm.conf ]; then
    mkdir -p /etc/slurm && ln -s "$dir/slurm.conf" /etc/slurm/slurm.conf
fi
slurmctld -f "$dir/slurm.conf"
slurmd -f "$dir/slurm.conf"
export SLURM_CONF="$dir/slurm.conf"
wait_seconds="${LOCAL_CLUSTER_WAIT_SECONDS:-30}"  # how long the node may take to come up
for _ in $(seq "$wait_seconds"); do
    if sinfo -h -o %T 2>/dev/null | grep -q idle; then
        echo "export SLURM_CONF=$dir/slurm.conf"
        exit 0
    fi
    sleep 1
done
echo "local_cluster.sh: the node did not come up within $wait_seconds s (ports $ctld_port, $slurmd_port); see $dir/log" >&2
exit 1
