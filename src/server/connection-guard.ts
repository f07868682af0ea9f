import type { Socket } from 'node:net';

/** Limits that protect the server from slow or greedy clients. */
export interface ServerLimits {
  /**
   * Time a connection has, from its TCP accept, to complete the TLS handshake
   * (if any) and send a whole request's headers (slow-loris, silent sockets);
   * also Node's own header timeout of later requests on a kept-alive connection.
   */
  headersTimeoutMs: number;
  /** Time a client has to send the whole request. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Time a TLS client has to complete its handshake (Node's default is 120 s). */
  tlsHandshakeTimeoutMs: number;
  /**
   * Open connections at most. A new one beyond takes the place of a
   * connection of the address holding the most (its longest idle one, else
   * its oldest, busy or not): whoever fills the table pays for it.
   */
  maxConnections: number;
  /** Open connections from one client address at most, enforced the same way within the address. */
  maxConnectionsPerAddress: number;
  /**
   * Time a response has, from its request's headers, to be written in full
   * (a client that never reads, or a probe that never ends): then its
   * connection is cut.
   */
  responseTimeoutMs: number;
  /** `/probe` requests in flight at most, in all and from one client address; beyond, 503 at once. */
  maxProbesInFlight: number;
  maxProbesInFlightPerAddress: number;
}

/** Defaults of {@link ServerLimits}. */
export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  tlsHandshakeTimeoutMs: 10_000,
  maxConnections: 1_024,
  maxConnectionsPerAddress: 128,
  responseTimeoutMs: 60_000,
  maxProbesInFlight: 128,
  maxProbesInFlightPerAddress: 32,
};

/**
 * The limits with room for a scraper probing `probeTargets` probe-only
 * targets (src/probe/): a probe waits for its target's poll round, up to the
 * scrape timeout, so one Prometheus probing every target within its scrape
 * interval can have a probe of each in flight, each on a connection of its
 * own. With the fixed caps, 1,000 targets whose rounds took a second (67
 * probes a second from one address) had a tenth of their probes refused with
 * 503, and a partly unreachable network (probes held up to the scrape
 * timeout) would have had healthy targets refused too. So, from one address:
 * at least `probeTargets` probes in flight, and connections the base cap plus
 * that many; in all, twice as many probes and the base cap plus twice the
 * targets in connections (a pair of Prometheus servers probing every target
 * each). Without probe-only targets the base limits are returned unchanged.
 */
export function limitsForProbeTargets(base: ServerLimits, probeTargets: number): ServerLimits {
  if (!(probeTargets > 0)) return base;
  const perAddress = Math.max(base.maxProbesInFlightPerAddress, probeTargets);
  return {
    ...base,
    maxProbesInFlightPerAddress: perAddress,
    maxProbesInFlight: Math.max(base.maxProbesInFlight, 2 * perAddress),
    maxConnectionsPerAddress: base.maxConnectionsPerAddress + probeTargets,
    maxConnections: base.maxConnections + 2 * probeTargets,
  };
}

/** Least idle time of a connection closed to make room for another. */
const MIN_IDLE_TO_EVICT_MS = 250;

/** One open connection, as the connection guard sees it. */
interface Conn {
  socket: Socket;
  address: string;
  acceptedMs: number;
  /** When it last became idle (accept, or end of its last response). */
  idleSinceMs: number;
  /** Requests in flight. */
  busy: number;
  /** Whether a whole request's headers arrived at least once. */
  served: boolean;
}

/**
 * Keeps the connection table from being filled by clients that give nothing
 * back, before authentication and before the TLS handshake (where the server
 * can tell nothing about a client but its address): a cap per client
 * address (an eighth of the global one), a global cap at which the address
 * holding the most connections gives one up, busy or not (reclaiming
 * kept-alive idle ones already from seven eighths of the cap), and a deadline
 * for the first request, TLS handshake included. A newcomer from an address
 * with few connections therefore always gets in.
 */
export class ConnectionGuard {
  /** Connections by remote address and port: the key a TLS socket shares with the TCP socket under it. */
  readonly #conns = new Map<string, Conn>();
  readonly #perAddress = new Map<string, number>();
  #sweeper: NodeJS.Timeout | undefined;
  /** Connections closed to make room, closed at accept, or cut at the first-request deadline. */
  readonly stats = { evicted: 0, refused: 0, timedOut: 0 };

  /** @param limitsNow the limits in force, asked at each accept (they follow the configuration, see limitsForProbeTargets). */
  constructor(private readonly limitsNow: () => ServerLimits) {}

  static keyOf(socket: Socket): string {
    return `${socket.remoteAddress ?? '?'}|${socket.remotePort ?? 0}`;
  }

  get size(): number {
    return this.#conns.size;
  }

  /** A new TCP connection: admitted, in place of another connection when a cap is reached. */
  accept(socket: Socket): void {
    // No address: the peer is gone already, and there is nothing to count.
    if (socket.remoteAddress === undefined) return;
    // An IPv6 client counts by its /64 (one host usually owns it whole), as in the auth limits.
    const address = clientKey(socket.remoteAddress);
    const now = Date.now();
    const limits = this.limitsNow();
    // At its address's cap, the address makes room itself: its longest idle connection, else its oldest.
    if ((this.#perAddress.get(address) ?? 0) >= limits.maxConnectionsPerAddress) this.#evictFrom(address);
    // Seven eighths full: kept-alive idle connections go first, oldest idle first, before the cap is reached.
    if (this.#conns.size >= limits.maxConnections - Math.floor(limits.maxConnections / 8)) this.#evictIdle((c) => c.served);
    // At the cap: the address holding the most connections gives one up, busy or not.
    if (this.#conns.size >= limits.maxConnections) this.#evictFrom(this.#greediest());
    if (this.#conns.size >= limits.maxConnections) {
      this.stats.refused++;
      socket.destroy();
      return;
    }
    const key = ConnectionGuard.keyOf(socket);
    const conn: Conn = { socket, address, acceptedMs: now, idleSinceMs: now, busy: 0, served: false };
    this.#conns.set(key, conn);
    this.#perAddress.set(address, (this.#perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => this.#forget(conn));
    this.#startSweeper();
  }

  /** The address holding the most connections. */
  #greediest(): string | undefined {
    let best: string | undefined;
    let most = 0;
    for (const [address, n] of this.#perAddress) {
      if (n > most) {
        most = n;
        best = address;
      }
    }
    return best;
  }

  /** Closes one connection of `address`: the longest idle (idle at least MIN_IDLE_TO_EVICT_MS), else the oldest, busy or not. */
  #evictFrom(address: string | undefined): void {
    if (address === undefined) return;
    if (this.#evictIdle((c) => c.address === address)) return;
    let oldest: Conn | undefined;
    for (const c of this.#conns.values()) if (c.address === address && (oldest === undefined || c.acceptedMs < oldest.acceptedMs)) oldest = c;
    if (!oldest) return;
    this.stats.evicted++;
    this.#forget(oldest);
    oldest.socket.destroy();
  }

  /** A request's headers arrived on `socket`; the returned function marks its response done. */
  requestStarted(socket: Socket): () => void {
    const conn = this.#conns.get(ConnectionGuard.keyOf(socket));
    if (!conn) return () => undefined;
    conn.busy++;
    conn.served = true;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      conn.busy--;
      conn.idleSinceMs = Date.now();
    };
  }

  /**
   * Closes the connection idle the longest among those `which` selects; false
   * when there is none. One idle for less than {@link MIN_IDLE_TO_EVICT_MS} is
   * spared: it is most likely a client about to send its request, and evicting
   * those would let a burst of legitimate clients evict each other in turn.
   */
  #evictIdle(which: (c: Conn) => boolean): boolean {
    let oldest: Conn | undefined;
    const before = Date.now() - MIN_IDLE_TO_EVICT_MS;
    for (const c of this.#conns.values()) {
      if (c.busy === 0 && c.idleSinceMs <= before && which(c) && (oldest === undefined || c.idleSinceMs < oldest.idleSinceMs)) oldest = c;
    }
    if (!oldest) return false;
    this.stats.evicted++;
    this.#forget(oldest);
    oldest.socket.destroy();
    return true;
  }

  #forget(conn: Conn): void {
    const key = ConnectionGuard.keyOf(conn.socket);
    if (this.#conns.get(key) !== conn) return;
    this.#conns.delete(key);
    const n = (this.#perAddress.get(conn.address) ?? 1) - 1;
    if (n <= 0) this.#perAddress.delete(conn.address);
    else this.#perAddress.set(conn.address, n);
  }

  #startSweeper(): void {
    if (this.#sweeper) return;
    const every = Math.max(50, Math.min(1_000, Math.floor(this.limitsNow().headersTimeoutMs / 4)));
    this.#sweeper = setInterval(() => this.#sweep(), every);
    this.#sweeper.unref();
  }

  /**
   * Cuts connections that have not completed a request's headers within the
   * header timeout of their accept. Stops once every connection left has been
   * served (the next accept starts it again): a scraper's kept-alive
   * connection has nothing to wait for, and a wake-up every second for it cost
   * the sidecar about 2 % of its CPU.
   */
  #sweep(): void {
    const now = Date.now();
    const { headersTimeoutMs } = this.limitsNow();
    let waiting = false;
    for (const c of this.#conns.values()) {
      if (c.served || c.busy !== 0) continue;
      if (now - c.acceptedMs > headersTimeoutMs) {
        this.stats.timedOut++;
        this.#forget(c);
        c.socket.destroy();
      } else waiting = true;
    }
    if (!waiting && this.#sweeper) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  stop(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

/** Loopback addresses' IPv6 form and IPv4-mapped addresses as their IPv4 form; other IPv6 addresses by their /64, which one host usually owns whole. */
export function clientKey(address: string | undefined): string {
  if (address === undefined) return '?';
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!address.includes(':')) return address;
  const groups = address.split('::');
  const head = (groups[0] ?? '').split(':').filter(Boolean);
  const tail = groups.length > 1 ? (groups[1] ?? '').split(':').filter(Boolean) : [];
  const full = [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
  return `${full.slice(0, 4).join(':')}::/64`;
}
