#!/bin/sh
# Writes the samples of this folder that torch's own init_process_group gives with a bad env, run
# here with Debian's python3-torch (the others are real logs of ../*.yaml on the local cluster:
# kubectl pytorch logs JOB --rank N; trainjob-node*-*.log are a node's log of a two-node TrainJob
# under torchrun whose worker killed itself with SIGKILL at step 3 (-peer-first: ../fail-trainjob.yaml
# with FAIL=sigkill, where the node's other worker lost its peer in the same second), or whose command
# named a file that does not exist; trainjob-node*-segv*.log: the same job with FAIL=segv and
# FAIL_RANK=2, node 1's worker of global rank 2 segfaulting, the other workers losing their peer). Paths
# are then shown as /src/failures, as in the others.
set -u
cd "$(dirname "$0")"
py=/usr/bin/python3
init='import datetime, torch.distributed as d; d.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=5)); print("joined", flush=True)'
env -u MASTER_ADDR MASTER_PORT=29611 RANK=0 WORLD_SIZE=1 $py -c "$init" >env-missing.log 2>&1
MASTER_ADDR=no-such-host-kpt MASTER_PORT=29612 RANK=1 WORLD_SIZE=2 $py -c "$init" >master-unresolved.log 2>&1
MASTER_ADDR=127.0.0.1 MASTER_PORT=29613 RANK=0 WORLD_SIZE=2 $py -c "$init" >rendezvous-timeout.log 2>&1
$py -c 'import socket, time; s = socket.socket(); s.bind(("0.0.0.0", 29614)); s.listen(); time.sleep(15)' &
holder=$!
sleep 1
MASTER_ADDR=127.0.0.1 MASTER_PORT=29614 RANK=0 WORLD_SIZE=1 $py -c "$init" >address-in-use.log 2>&1
kill $holder
MASTER_ADDR=127.0.0.1 MASTER_PORT=29615 WORLD_SIZE=2 RANK=0 $py "$(cd .. && pwd)/late_peer.py" >collective-timeout-rank0.log 2>&1 &
MASTER_ADDR=127.0.0.1 MASTER_PORT=29615 WORLD_SIZE=2 RANK=1 $py "$(cd .. && pwd)/late_peer.py" >collective-timeout-rank1.log 2>&1
wait
sed -i "s#$(cd .. && pwd)/#/src/failures/#g" ./*.log
