/**
 * Ordering of AvalancheGo version strings (`avalanchego/1.14.2`), so "is this
 * node behind the network" is decided here, numerically, rather than with
 * string tricks in PromQL (which cannot order versions at all).
 */

/** The numeric part of a node version. */
export interface NodeVersion {
  major: number;
  minor: number;
  patch: number;
}

/**
 * Reads `avalanchego/1.14.2` (also the pre-v1.10.18 `avalanche/1.9.0`, and a
 * bare `1.14.2`). A suffix after the patch number (`-rc.4`, `-fuji`) is
 * ignored: AvalancheGo never reports one in `info.peers` or
 * `info.getNodeVersion`, and guessing pre-release order would be worse than
 * treating it as its release. Undefined for anything else. Pure.
 */
export function parseNodeVersion(s: string): NodeVersion | undefined {
  const m = /^(?:[A-Za-z][\w.-]*\/)?v?(\d{1,9})\.(\d{1,9})\.(\d{1,9})(?:[-+][\w.+-]*)?$/.exec(s.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

/**
 * Compares two version strings by major, minor, patch: negative when `a` is
 * older, positive when newer, 0 when equal; undefined when either cannot be
 * read (so callers export nothing instead of a guess). The application name
 * (`avalanchego/`) is not compared. Pure.
 */
export function compareNodeVersions(a: string, b: string): number | undefined {
  const x = parseNodeVersion(a);
  const y = parseNodeVersion(b);
  if (!x || !y) return undefined;
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch;
}
