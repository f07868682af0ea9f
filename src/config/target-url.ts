/**
 * How a `/probe?target=` URL is compared with the allow-list. The comparison
 * is on a normal form (scheme, host and port as the WHATWG URL parser writes
 * them, then the path without trailing slashes), never on the raw string, and
 * a match is only ever used to pick a configured entry: the exporter connects
 * to the URL it was configured with, not to the one in the request.
 */

/** A request's target as a URL, or why it cannot be one on the allow-list. */
export type ParsedTarget = { ok: true; key: string } | { ok: false; reason: string };

/**
 * The comparison key of an http(s) URL: `origin + path`, the path without
 * trailing slashes, so `http://Host:9650/` and `http://host:9650` are one
 * target. Credentials, query and fragment are not part of the key (callers
 * decide whether they are acceptable). Undefined for anything else.
 */
export function targetKey(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return undefined;
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/**
 * Parses a target given in a probe request. Credentials (`http://a@b/`: a
 * classic way to make one host look like another), a query or a fragment make
 * it a URL that no allow-list entry can be, so it is refused rather than
 * stripped.
 */
export function parseRequestedTarget(raw: string): ParsedTarget {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a configured node name or an http(s) URL' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, reason: 'only http(s) URLs can be probed' };
  if (u.username !== '' || u.password !== '') return { ok: false, reason: 'a target URL must not carry credentials' };
  if (u.search !== '' || u.hash !== '' || raw.includes('?') || raw.includes('#'))
    return { ok: false, reason: 'a target URL must not carry a query or a fragment' };
  const key = targetKey(raw);
  return key === undefined ? { ok: false, reason: 'not an http(s) URL with a host' } : { ok: true, key };
}
