/**
 * Redaction of configured secrets from text that came from upstream. An
 * upstream (or a proxy in front of it) that echoes the request in its error
 * body puts the Authorization header, secret headers, the Data API key or URL
 * credentials into the error text, which is stored and shown in logs,
 * `/-/status` and the status page. Every secret sent to that upstream is
 * replaced before the text is stored, in the forms it travels in (as
 * written, percent-decoded, base64 of a Basic header), and so are fragments
 * of it that a cut snippet (the first 160 bytes of a body, a JSON parser's
 * excerpt) leaves at its edges.
 */

/** What replaces a secret. */
export const REDACTED = '<secret>';

/** Fragments shorter than this are left alone (unless the secret itself is shorter). */
const MIN_FRAGMENT = 8;

function decodeOrRaw(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** What a request carries that must not be shown: its URL's credentials and its secret headers' values. */
export interface RequestSecrets {
  url?: string | undefined;
  headers?: Readonly<Record<string, string>>;
  /** Lower-cased names of headers whose values are secret. */
  secretHeaders?: readonly string[];
  /** Other secret values (an API key). */
  values?: readonly (string | undefined)[];
}

/** Every secret value of a request, in the forms it is sent in. */
export function secretsOf(r: RequestSecrets): string[] {
  const out = new Set<string>();
  const add = (v: string | undefined) => {
    if (v !== undefined && v.trim() !== '') out.add(v);
  };
  if (r.url) {
    try {
      const u = new URL(r.url);
      const user = decodeOrRaw(u.username);
      const password = decodeOrRaw(u.password);
      if (u.password) {
        add(u.password);
        add(password);
      } else if (u.username) {
        // A user name alone is a token (http://TOKEN@host).
        add(u.username);
        add(user);
      }
      // The Basic header the exporter sends for URL credentials.
      if (u.username || u.password) add(Buffer.from(`${user}:${password}`).toString('base64'));
    } catch {
      // Not a URL: nothing to take from it.
    }
  }
  const secret = new Set((r.secretHeaders ?? []).map((h) => h.toLowerCase()));
  for (const [name, value] of Object.entries(r.headers ?? {})) {
    if (!secret.has(name.toLowerCase())) continue;
    add(value);
    const m = /^(\S+)\s+(\S.*)$/.exec(value.trim());
    if (m) {
      // "Bearer TOKEN", "Basic BASE64": the credential alone too, and a Basic header's decoded form.
      const credential = m[2] as string;
      add(credential);
      if (/^basic$/i.test(m[1] as string)) {
        const decoded = Buffer.from(credential, 'base64').toString('utf8');
        add(decoded);
        const colon = decoded.indexOf(':');
        if (colon >= 0) add(decoded.slice(colon + 1));
      }
    }
  }
  for (const v of r.values ?? []) add(v);
  // The same values as they look percent-encoded or inside a JSON string.
  for (const v of [...out]) {
    add(encodeURIComponent(v));
    add(JSON.stringify(v).slice(1, -1));
  }
  return [...out];
}

/**
 * A function that replaces every secret, and every fragment of one of at
 * least {@link MIN_FRAGMENT} characters (the whole secret when shorter), with
 * {@link REDACTED}. Identity when there are no secrets.
 */
export function makeRedactor(secrets: readonly string[]): (text: string) => string {
  const list = secrets.filter((s) => s.length > 0);
  if (list.length === 0) return (text) => text;
  // Every window of each secret, by window length.
  const windows = new Map<number, Set<string>>();
  for (const s of list) {
    const k = Math.min(s.length, MIN_FRAGMENT);
    let set = windows.get(k);
    if (!set) windows.set(k, (set = new Set()));
    for (let i = 0; i + k <= s.length; i++) set.add(s.slice(i, i + k));
  }
  return (text) => {
    const hit = new Uint8Array(text.length);
    let any = false;
    for (const [k, set] of windows) {
      for (let i = 0; i + k <= text.length; i++) {
        if (set.has(text.slice(i, i + k))) {
          hit.fill(1, i, i + k);
          any = true;
        }
      }
    }
    if (!any) return text;
    let out = '';
    for (let i = 0; i < text.length;) {
      if (hit[i]) {
        while (i < text.length && hit[i]) i++;
        out += REDACTED;
      } else {
        out += text[i];
        i++;
      }
    }
    return out;
  };
}
