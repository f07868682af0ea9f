/**
 * Cuts one node of the local network (test/helpers/local-network.ts) off from its peers while its HTTP API stays
 * reachable, and restores it: what a firewall change, a closed staking port or a broken uplink does to a
 * validator whose exporter runs beside it.
 *
 * Every node of the local network runs on 127.0.0.1, so no interface can be taken down for one of them alone.
 * Instead the node's process is moved into a cgroup v2 directory of its own and an iptables chain of this
 * process's own, jumped to from OUTPUT (loopback traffic passes OUTPUT only), drops:
 *
 * - every packet a socket of that cgroup sends, but those from the node's HTTP port (its API keeps answering):
 *   the connections the node dials to its peers' staking ports (network/dialer) never get through;
 * - every TCP packet to or from the node's staking port on `lo`: the peers' dials to it, and its answers.
 *
 * A socket keeps the cgroup it was created in, so the connections open before the cut are destroyed with
 * `ss -K` (both ends: the kernel sends a reset). AvalancheGo then sees its peers disconnect and keeps
 * redialling them (network/network.go, `--network-max-reconnect-delay`), in vain until {@link CutOff.restore}.
 *
 * Needs root, iptables (Debian's `iptables`, which test/tools/provision.sh installs), a kernel with the xt
 * `cgroup` match and socket destruction (INET_DIAG_DESTROY), and cgroup v2 mounted; {@link checkCutOffPossible}
 * says which of those is missing.
 *
 * @packageDocumentation
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a cut needs to know of the node: its process and its two ports. */
export interface CutNode {
  readonly pid: number;
  /** Its API, e.g. `http://127.0.0.1:41235`. */
  readonly uri: string;
  /** Where its peers dial it, e.g. `127.0.0.1:41236`. */
  readonly stakingAddress: string;
}

/** A node cut off from its peers. */
export interface CutOff {
  /** The iptables chain holding the rules (in the filter table, jumped to from OUTPUT). */
  readonly chain: string;
  /** The cgroup v2 directory the node's process was moved into. */
  readonly cgroup: string;
  /** Deletes the chain and its jump, moves the process back to its own cgroup and removes the directory; idempotent. */
  restore(): void;
}

/** The cgroup v2 hierarchy: where it is mounted, and which cgroup that mount shows as its root. */
function cgroup2Mount(): { mountPoint: string; root: string } | undefined {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    // mountinfo(5): id parent major:minor root mount-point options [optional fields] - fstype source super-options
    const [left, right] = line.split(' - ');
    if (!left || !right || right.split(' ')[0] !== 'cgroup2') continue;
    const f = left.split(' ');
    if (f[3] && f[4]) return { root: f[3], mountPoint: f[4] };
  }
  return undefined;
}

/** The iptables binary: $IPTABLES, or `iptables` on the PATH (test/tools/provision.sh checks the same). */
const IPTABLES = process.env['IPTABLES'] ?? 'iptables';

function run(cmd: string, args: readonly string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 30_000 });
  return { ok: r.status === 0, out: r.stdout ?? '', err: (r.stderr ?? '').trim() || (r.error?.message ?? '') };
}

/** Runs an iptables command (`-w`: waits for the xtables lock another process may hold); throws with its error. */
function iptables(...args: string[]): void {
  const r = run(IPTABLES, ['-w', ...args]);
  if (!r.ok) throw new Error(`${IPTABLES} -w ${args.join(' ')} failed: ${r.err}`);
}

/**
 * Throws, saying what is missing, when this machine cannot cut a node off: not root, no iptables, no cgroup v2,
 * no `ss`.
 */
export function checkCutOffPossible(): void {
  if (process.getuid?.() !== 0) throw new Error('cutting a node off needs root (iptables rules, cgroups): run the real-network tests as root, as CI does');
  const ipt = run(IPTABLES, ['-w', '-S', 'OUTPUT']);
  if (!ipt.ok)
    throw new Error(
      `cutting a node off needs iptables (${ipt.err}): install Debian's iptables (npm test's test/tools/provision.sh does: apt-get install -y iptables) or point IPTABLES at one`,
    );
  if (!cgroup2Mount()) throw new Error('cutting a node off needs the cgroup v2 hierarchy mounted (mount -t cgroup2 none /sys/fs/cgroup/unified)');
  const ss = run('ss', ['-V']);
  if (!ss.ok) throw new Error(`cutting a node off needs ss (Debian's iproute2): ${ss.err}`);
}

const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

/** One TCP socket of `ss -tanpH`: its state, both ends' ports, and the PIDs owning it. */
interface Socket {
  state: string;
  localPort: number;
  peerPort: number;
  pids: number[];
}

function sockets(): Socket[] {
  const r = run('ss', ['-tanpH']);
  if (!r.ok) throw new Error(`ss -tanpH failed: ${r.err}`);
  const out: Socket[] = [];
  for (const line of r.out.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5) continue;
    out.push({
      state: f[0] as string,
      localPort: portOf(f[3] as string),
      peerPort: portOf(f[4] as string),
      pids: [
        ...f
          .slice(5)
          .join(' ')
          .matchAll(/pid=(\d+)/g),
      ].map((m) => Number(m[1])),
    });
  }
  return out;
}

/**
 * The node's TCP connections to and from its peers: every socket of its process but listeners and its API's
 * (the exporter's requests must go on), and every socket on its staking port.
 */
function peerConnections(node: CutNode): { localPort: number; peerPort: number }[] {
  const http = portOf(new URL(node.uri).host);
  const staking = portOf(node.stakingAddress);
  return sockets()
    .filter((s) => s.state !== 'LISTEN' && s.state !== 'TIME-WAIT')
    .filter((s) => (s.pids.includes(node.pid) && s.localPort !== http) || s.localPort === staking || s.peerPort === staking)
    .map(({ localPort, peerPort }) => ({ localPort, peerPort }));
}

/** Destroys both ends of each connection (`ss -K`: the kernel aborts them and sends a reset). */
function destroy(conns: { localPort: number; peerPort: number }[]): void {
  // Every node listens and dials on 127.0.0.1, so the two ports name one connection, seen from either end.
  for (const c of conns) {
    const r = run('ss', ['-K', '-tn', `( sport = :${c.localPort} and dport = :${c.peerPort} ) or ( sport = :${c.peerPort} and dport = :${c.localPort} )`]);
    if (!r.ok) throw new Error(`ss -K failed on 127.0.0.1:${c.localPort} <-> 127.0.0.1:${c.peerPort}: ${r.err}`);
  }
}

const cuts = new Set<CutOff>();
let exitHookInstalled = false;

/** Restores every cut still in place when the worker exits (a failed test, a timeout), so no rule outlives the suite. */
function restoreOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const c of [...cuts]) {
      try {
        c.restore();
      } catch {
        // best effort: the worker is going
      }
    }
  });
}

/**
 * Cuts `node` off from its peers (see the module's comment) and returns how to restore it. Its existing peer
 * connections are destroyed before this returns; the test checks what the network then sees (info.peers).
 */
export function cutOff(node: CutNode): CutOff {
  checkCutOffPossible();
  const mount = cgroup2Mount() as { mountPoint: string; root: string };
  // The process's cgroup v2 ("0::<path>", cgroups(7)), to move it back to.
  const own = /^0::(.*)$/m.exec(readFileSync(`/proc/${node.pid}/cgroup`, 'utf8'))?.[1] ?? '/';
  const inMount = (cg: string) => join(mount.mountPoint, mount.root === '/' ? cg : cg.slice(mount.root.length));
  const name = `avax-cut-off-${process.pid}-${node.pid}`;
  const cgroupPath = join(own, name);
  const cgroupDir = inMount(cgroupPath);
  // A chain per test process (at most 28 characters): two suites on one machine never share one.
  const chain = `AVAX-CUT-${process.pid}`;
  const http = portOf(new URL(node.uri).host);
  const staking = portOf(node.stakingAddress);
  let restored = false;

  const cut: CutOff = {
    chain,
    cgroup: cgroupDir,
    restore() {
      if (restored) return;
      // Every jump to the chain, then the chain (iptables -D deletes one matching rule at a time).
      while (run(IPTABLES, ['-w', '-D', 'OUTPUT', '-j', chain]).ok);
      run(IPTABLES, ['-w', '-F', chain]);
      run(IPTABLES, ['-w', '-X', chain]);
      if (existsSync(cgroupDir)) {
        try {
          writeFileSync(join(inMount(own), 'cgroup.procs'), String(node.pid));
        } catch {
          // the process is gone (killed meanwhile): the directory is empty anyway
        }
        rmdirSync(cgroupDir);
      }
      restored = true;
      cuts.delete(cut);
    },
  };
  restoreOnExit();
  cuts.add(cut);
  try {
    mkdirSync(cgroupDir);
    // Writing the PID moves every thread of the process; the threads Go starts later are born in it too.
    writeFileSync(join(cgroupDir, 'cgroup.procs'), String(node.pid));
    // The xt cgroup match takes the path from the hierarchy's root (the kernel resolves it when the rule is added).
    const match = ['-m', 'cgroup', '--path', cgroupPath];
    iptables('-N', chain);
    iptables('-A', chain, ...match, '-p', 'tcp', '--sport', String(http), '-j', 'ACCEPT');
    iptables('-A', chain, ...match, '-j', 'DROP');
    iptables('-A', chain, '-o', 'lo', '-p', 'tcp', '--dport', String(staking), '-j', 'DROP');
    iptables('-A', chain, '-o', 'lo', '-p', 'tcp', '--sport', String(staking), '-j', 'DROP');
    iptables('-I', 'OUTPUT', '-j', chain);
    destroy(peerConnections(node));
  } catch (err) {
    cut.restore();
    throw err;
  }
  return cut;
}
