import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProbeOutcome } from '../probe/probe-service.js';
import { expositionBody } from './encoding.js';

/** Header Prometheus sends with its scrape timeout, in seconds. */
const SCRAPE_TIMEOUT_HEADER = 'x-prometheus-scrape-timeout-seconds';

/** What the handler needs: something that probes a target. */
export interface Prober {
  probe(target: string, scrapeTimeoutSeconds?: number): Promise<ProbeOutcome>;
}

function sendText(req: IncomingMessage, res: ServerResponse, status: number, text: string): void {
  const body = Buffer.from(`${text}\n`);
  // A refusal is about this request only: no cache may keep it.
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(body.length), 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The request's target, or the 400 reason: exactly one non-empty `target` and no other parameter. */
function parseQuery(rawUrl: string): { target: string } | { error: string } {
  const params = new URL(rawUrl, 'http://localhost').searchParams;
  for (const key of new Set(params.keys())) {
    if (key !== 'target') return { error: `unknown parameter ${JSON.stringify(key.slice(0, 64))}: /probe takes only target` };
  }
  const targets = params.getAll('target');
  if (targets.length === 0) return { error: 'missing parameter target (a configured node name or URL, or a probe.targets URL)' };
  if (targets.length > 1) return { error: `parameter target given ${targets.length} times: give it once` };
  const target = targets[0] as string;
  if (target.trim() === '') return { error: 'parameter target is empty' };
  return { target };
}

/** Prometheus's scrape timeout from the request, undefined without one, or the 400 reason. */
function parseScrapeTimeout(req: IncomingMessage): number | undefined | { error: string } {
  const raw = req.headers[SCRAPE_TIMEOUT_HEADER];
  if (raw === undefined) return undefined;
  const v = Array.isArray(raw) ? undefined : Number(raw);
  if (v === undefined || raw === '' || !Number.isFinite(v) || v <= 0)
    return { error: `invalid ${SCRAPE_TIMEOUT_HEADER} header: must be a positive number of seconds` };
  return v;
}

/**
 * Creates the `GET /probe?target=<node name or URL>` handler: 400 for a
 * missing, repeated or empty target or an unknown parameter, 403 for a target
 * not on the allow-list, 503 when probe.max_targets is reached, else the
 * target's exposition (gzip when asked for). Refusals are short plain text.
 */
export function createProbeHandler(prober: Prober): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const query = parseQuery(req.url ?? '/');
    if ('error' in query) return sendText(req, res, 400, query.error);
    const timeout = parseScrapeTimeout(req);
    if (typeof timeout === 'object') return sendText(req, res, 400, timeout.error);
    const outcome = await prober.probe(query.target, timeout);
    if (outcome.status !== 200) return sendText(req, res, outcome.status, outcome.message);
    const exp = outcome.exposition;
    const { body, gzip: gz } = await expositionBody(exp, req);
    res.writeHead(200, {
      'content-type': exp.contentType,
      'content-length': String(body.length),
      vary: 'Accept-Encoding',
      'cache-control': 'no-store',
      ...(gz ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
