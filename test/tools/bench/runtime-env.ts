/**
 * The environment the shipped runtimes give the daemon: the Docker image's
 * ENV and the systemd unit's Environment= lines carry exactly these, and the
 * benchmark starts its daemons with them, so docs/performance.md measures
 * the exporter as it runs (test/dockerfile.test.ts checks all three agree).
 *
 * - MALLOC_ARENA_MAX=2: glibc's malloc keeps at most two arenas, so the
 *   threads that gzip and parse do not each hold their own.
 * - MALLOC_MMAP_THRESHOLD_=131072: allocations from 128 KiB on (response
 *   bodies, the joined exposition, its gzip form) get their own mappings,
 *   returned to the system when freed. Without it glibc raises the threshold
 *   after the first such free, the next multi-MB buffers come from the
 *   arena, and the arena stays fragmented: about 35 MB more RSS in
 *   scenario B.
 * - NODE_OPTIONS=--max-semi-space-size=8: V8's young generation at 2 x 8 MB
 *   instead of 2 x 16 MB. A poll round allocates ~25 MB of short-lived
 *   objects either way; with the smaller space there are twice the
 *   scavenges, each cheaper, for the same GC time per round and 16 MB less
 *   memory held.
 */
export const DAEMON_RUNTIME_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  NODE_OPTIONS: '--max-semi-space-size=8',
};
