import { createHmac, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { BcryptPool } from './bcrypt-pool.js';

/**
 * Checked when the user is unknown, so timing does not reveal which users
 * exist: a cost-10 bcrypt hash of a throwaway password. A constant, not
 * hashed at start-up, because hashing it took ~80 ms of blocked event loop
 * in every process that imported this module, auth configured or not.
 */
export const DUMMY_HASH = '$2b$10$sFHxm6Fh.dRHxvfnDi.v1ul/OSGMUFmolal4G5kUV5Dn7rXRiN.Xe';

/**
 * {@link DUMMY_HASH} at another cost: the cost field is only a parameter of
 * the comparison, so the hash stays one no password matches, and comparing
 * against it costs exactly what a user's hash of that cost costs.
 */
export function dummyHashOfCost(cost: number): string {
  return DUMMY_HASH.replace(/^\$2b\$10\$/, `$2b$${String(cost).padStart(2, '0')}$`);
}

/**
 * The cost field of a bcrypt hash (`$2y$10$...` -> 10), read as bcryptjs's
 * getRounds reads it: here, so that bcryptjs itself loads only when a
 * comparison runs in-process (see bcrypt-pool.ts).
 */
function costOf(hash: string): number {
  return parseInt(hash.split('$')[2] ?? '', 10);
}

/** Bounds on what basic auth may spend: bcrypt is slow on purpose, so unchecked it is a denial of service. */
export interface BasicAuthLimits {
  /** bcrypt comparisons running at once (worker threads). */
  concurrency: number;
  /** Comparisons waiting for a worker; a request beyond is answered at once (429), without one. */
  queue: number;
  /** Verified credentials remembered, and for how long since their last use. */
  cacheSize: number;
  cacheTtlMs: number;
}

/**
 * Defaults of {@link BasicAuthLimits}: comparisons at once on one core less
 * than the machine has (so the event loop keeps one), at least one and at
 * most two; eight waiting.
 */
export const DEFAULT_BASIC_AUTH_LIMITS: BasicAuthLimits = {
  concurrency: Math.max(1, Math.min(2, availableParallelism() - 1)),
  queue: 8,
  cacheSize: 1_000,
  cacheTtlMs: 10 * 60_000,
};

/** The outcome of a check: `busy` when no comparison could be queued for this client (answer 429, nothing was compared). */
export type AuthResult = 'ok' | 'denied' | 'busy';

/** Per-process key of the verified-credentials cache: its keys reveal nothing without it, and it never leaves memory. */
const CACHE_KEY = randomBytes(32);

/** The worker pool every {@link BasicAuth} shares (a reloaded web config gets a new BasicAuth, not new threads). */
let sharedPool: BcryptPool | undefined;

/** Compares in the shared worker pool (started on first use, sized by the first caller's concurrency). */
function poolCompare(size: number): (password: string, hash: string) => Promise<boolean> {
  return async (password, hash) => {
    sharedPool ??= new BcryptPool(size);
    return (await sharedPool.compare(password, hash)).ok;
  };
}

/** A `Basic` Authorization header as RFC 7617 has it: the scheme, one space, base64 of `user:password`. */
const BASIC_HEADER = /^Basic ([A-Za-z0-9+/]+={0,2})$/i;

/** The user and password of a well-formed Basic header; undefined for anything else (no comparison is then made). */
export function parseBasicHeader(header: string | undefined): { user: string; password: string } | undefined {
  if (header === undefined || header.length > 4_096) return undefined;
  const m = BASIC_HEADER.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Checks HTTP basic auth against bcrypt hashes. Comparisons run in worker
 * threads (see bcrypt-pool.ts), so accepting connections and serving other
 * requests never waits on one. A request without a well-formed `Basic`
 * header is denied without a comparison. Every client address has at most
 * one comparison queued or running, and all of them together at most
 * `concurrency + queue`; a request beyond is answered `busy` at once.
 *
 * A successful check is remembered, keyed by an HMAC (random per-process
 * key) of the user, the password and the hash, never the password itself, and
 * renewed on each use: a scraper sending the same credentials every 15 s pays
 * one comparison, not one per scrape, and stays cached for as long as it
 * scrapes. Unknown users are compared against a dummy hash of the highest
 * cost in the file, and a failed check against a cheaper hash is padded to
 * what a comparison at that highest cost takes, so timing tells neither who
 * exists nor whose hash is cheaper.
 */
export class BasicAuth {
  readonly #users: Map<string, string>;
  readonly #verified = new Map<string, number>();
  readonly #limits: BasicAuthLimits;
  readonly #dummy: string;
  readonly #maxCost: number;
  readonly #compare: (password: string, hash: string) => Promise<boolean>;
  /** Wall time of the last comparison at the highest cost, ms (what failed checks are padded to). */
  #maxCostMs: number | undefined;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  /** Client addresses with a comparison queued or running. */
  readonly #pending = new Set<string>();
  /** bcrypt comparisons made (for tests and the curious). */
  comparisons = 0;
  /** Checks answered `busy`. */
  refused = 0;

  constructor(users: Record<string, string>, compare?: (password: string, hash: string) => Promise<boolean>, limits: Partial<BasicAuthLimits> = {}) {
    this.#users = new Map(Object.entries(users));
    this.#limits = { ...DEFAULT_BASIC_AUTH_LIMITS, ...limits };
    this.#compare = compare ?? poolCompare(this.#limits.concurrency);
    const costs = [...this.#users.values()].map((h) => costOf(h));
    this.#maxCost = costs.length ? Math.max(...costs) : 10;
    this.#dummy = this.#maxCost !== 10 ? dummyHashOfCost(this.#maxCost) : DUMMY_HASH;
  }

  /** True when no users are configured (auth off). */
  get disabled(): boolean {
    return this.#users.size === 0;
  }

  /** The hash unknown users are compared against. */
  get dummyHash(): string {
    return this.#dummy;
  }

  /** Verifies an Authorization header. */
  async check(header: string | undefined, address = ''): Promise<boolean> {
    return (await this.verify(header, address)) === 'ok';
  }

  /** Verifies an Authorization header from `address`, saying when it could not be compared for lack of capacity. */
  async verify(header: string | undefined, address = ''): Promise<AuthResult> {
    if (this.disabled) return 'ok';
    const creds = parseBasicHeader(header);
    // No well-formed header: nothing to compare, and nothing an attacker can make us spend CPU on.
    if (!creds) return 'denied';
    const { user, password } = creds;
    const hash = this.#users.get(user);
    const cacheKey = createHmac('sha256', CACHE_KEY)
      .update(`${user}\u0000${password}\u0000${hash ?? ''}`)
      .digest('base64');
    const now = Date.now();
    const at = hash !== undefined ? this.#verified.get(cacheKey) : undefined;
    if (at !== undefined && now - at <= this.#limits.cacheTtlMs) {
      // Renewed on use (and moved to the young end of the eviction order).
      this.#verified.delete(cacheKey);
      this.#verified.set(cacheKey, now);
      return 'ok';
    }
    if (this.#pending.has(address)) {
      this.refused++;
      return 'busy';
    }
    this.#pending.add(address);
    try {
      if (!(await this.#slot())) {
        this.refused++;
        return 'busy';
      }
      const against = hash ?? this.#dummy;
      const cost = costOf(against);
      const t0 = performance.now();
      let ok: boolean;
      try {
        this.comparisons++;
        ok = await this.#compare(password, against).catch(() => false);
      } finally {
        this.#release();
      }
      const ms = performance.now() - t0;
      if (cost === this.#maxCost) this.#maxCostMs = ms;
      if (ok && hash !== undefined) {
        if (this.#verified.size >= this.#limits.cacheSize) {
          // The least recently used entry goes (a Map iterates in insertion order, and a hit re-inserts).
          const oldest = this.#verified.keys().next().value;
          if (oldest !== undefined) this.#verified.delete(oldest);
        }
        this.#verified.delete(cacheKey);
        this.#verified.set(cacheKey, Date.now());
        return 'ok';
      }
      if (cost < this.#maxCost) {
        // A wrong password for a user with a cheaper hash: answered no sooner than a check at the highest cost.
        const target = this.#maxCostMs ?? ms * 2 ** (this.#maxCost - cost);
        if (target > ms) await new Promise((r) => setTimeout(r, target - ms));
      }
      return 'denied';
    } finally {
      this.#pending.delete(address);
    }
  }

  /** Waits for a comparison slot; false at once when the queue is full. */
  #slot(): Promise<boolean> {
    if (this.#running < this.#limits.concurrency) {
      this.#running++;
      return Promise.resolve(true);
    }
    if (this.#waiting.length >= this.#limits.queue) return Promise.resolve(false);
    return new Promise((resolve) => this.#waiting.push(() => resolve(true)));
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next in line.
    if (next) next();
    else this.#running--;
  }
}
