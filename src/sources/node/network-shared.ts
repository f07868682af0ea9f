/**
 * Data that is the same for every node of one network, fetched once for all
 * of them. A fleet of 50 mainnet nodes would otherwise each download and keep
 * its own copy of the whole validator set (several MB per fetch, all of them
 * on the first round together); through this, one node's fetch serves the
 * others until it is `maxAgeMs` old, and concurrent askers share one request.
 */
export class NetworkShared {
  readonly #entries = new Map<string, { atMs: number; value: Promise<unknown> }>();

  /** @param maxAgeMs how long a fetched value serves (read at each call, so a reload's new interval applies). */
  constructor(private readonly maxAgeMs: () => number) {}

  /**
   * The value under `key` (name it after the network), fetched with `fetch`
   * when there is none younger than the max age. A failed fetch is not kept:
   * the next asker tries again.
   */
  get<T>(key: string, fetch: () => Promise<T>, nowMs = Date.now()): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit && nowMs - hit.atMs < this.maxAgeMs()) return hit.value as Promise<T>;
    const value = fetch();
    const entry = { atMs: nowMs, value };
    this.#entries.set(key, entry);
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }
}
