/**
 * The environment the shipped runtimes give the daemon: the Docker image's
 * ENV and the systemd unit's Environment= lines carry exactly these, and the
 * benchmark starts its daemons with them, so docs/performance.md measures
 * the exporter as it runs (test/dockerfile.test.ts checks all three agree).
 *
 * - MALLOC_ARENA_MAX=2: glibc's malloc keeps at most two arenas, so the
 *   threads that gzip and parse do not each hold their own.
 * - MALLOC_MMAP_THRESHOLD_=32768: allocations from 32 KiB on get their own
 *   mappings, returned to the system when freed. Those are the ones that
 *   come and go by the thousand: each socket read's 64 KiB buffer (kept,
 *   trimmed, until the Buffer made of it is collected), V8's 32 KiB compiler
 *   zone segments, zlib's 64 KiB states, response bodies, the joined
 *   exposition and its gzip form. From the arena, the freed ones stay
 *   resident between the live ones, which glibc never returns: a fleet of
 *   1,000 nodes held 175 MB free in 9,354 chunks of its arena right after a
 *   full collection (malloc_info), and malloc_trim gave 160 MB back. With
 *   32 KiB instead of 128 KiB, its RSS median was 357-361 MB instead of
 *   463-492 MB (the arena 42-47 MB instead of 196-208 MB), for the same CPU;
 *   scenarios B and S within their run-to-run spread. Without any threshold
 *   glibc raises it after the first large free, the next multi-MB buffers
 *   come from the arena too: about 35 MB more RSS in scenario B.
 * - NODE_OPTIONS=--max-semi-space-size=8: V8's young generation at 2 x 8 MB
 *   instead of 2 x 16 MB. A poll round allocates ~25 MB of short-lived
 *   objects either way; with the smaller space there are twice the
 *   scavenges, each cheaper, for the same GC time per round and 16 MB less
 *   memory held.
 */
export const DAEMON_RUNTIME_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '32768',
  NODE_OPTIONS: '--max-semi-space-size=8',
};
