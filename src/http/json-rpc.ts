import { z } from 'zod';
import { UpstreamError } from './errors.js';
import { ByteBudget, RESPONSE_CAPS, ROUND_BUDGET_BYTES, type HttpResponse, type HttpTransport } from './transport.js';
import { describeIssues } from './wire.js';
import { withRetry } from './retry.js';
import { checkJsonDepth, JsonTooDeepError, splitJsonArray } from './json-array-split.js';

/** Deadline of one poll, shared by every call made during it. */
export interface Deadline {
  signal: AbortSignal;
  /** Absolute time (Date.now clock) at which `signal` fires. */
  at: number;
}

/** A JSON-RPC `error` object answered by the node. */
export class RpcError extends UpstreamError {
  /** The JSON-RPC error message as the node sent it. */
  readonly rpcMessage: string;
  constructor(code: number, message: string) {
    super('rpc_error', `JSON-RPC error ${code}: ${message}`, { rpcCode: code });
    this.rpcMessage = message;
  }
}

const rpcErrorObject = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });
const envelope = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.number(), z.string(), z.null()]),
  result: z.unknown().optional(),
  error: rpcErrorObject.optional(),
});

/** The `invalid_response` for a body nested too deep. */
function tooDeep(err: JsonTooDeepError, what: string): UpstreamError {
  return new UpstreamError('invalid_response', `${what}: body refused before parsing: ${err.message}`);
}

/**
 * Bodies parsed, by the body: a round's GET is single-flight, so every source
 * that reads the node's /ext/health in a round (health, vitals, bootstrap
 * state, chain heights) is handed the same Buffer, and parses it once. An
 * entry goes with its body, once the round drops its answers. Parsed values
 * are read, never changed: sources validate them into values of their own.
 */
const parsedBodies = new WeakMap<Buffer, unknown>();

/** Parses a JSON body, turning syntax errors and bodies nested deeper than MAX_JSON_DEPTH (checked first, by a byte scan) into `invalid_response`. */
export function parseJsonBody(body: Buffer, what: string): unknown {
  if (parsedBodies.has(body)) return parsedBodies.get(body);
  const parsed = parseFreshBody(body, what);
  parsedBodies.set(body, parsed);
  return parsed;
}

function parseFreshBody(body: Buffer, what: string): unknown {
  try {
    checkJsonDepth(body);
  } catch (err) {
    if (err instanceof JsonTooDeepError) throw tooDeep(err, what);
    throw err;
  }
  // Invalid UTF-8 only ever sits inside strings (numbers and keys are
  // ASCII): replace it (U+FFFD) so one odd peer version cannot fail a whole
  // source; the label sanitiser bounds what reaches the exposition.
  return parseJsonText(body.toString('utf8'), what);
}

/** Parses JSON text, turning syntax errors into `invalid_response`. */
function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UpstreamError('invalid_response', `${what}: body is not valid JSON (${(err as Error).message.slice(0, 120)})`);
  }
}

/**
 * The items of a batch that were neither known nor read from their bytes,
 * parsed as one array. When they are not valid JSON, the error is the whole
 * batch's (`whole()`), the message an answer got before any item was skipped.
 */
function parseMisses(misses: readonly string[], whole: () => string, what: string): unknown[] {
  const text = `[${misses.join(',')}]`;
  try {
    return JSON.parse(text) as unknown[];
  } catch {
    parseJsonText(whole(), what);
    return parseJsonText(text, what) as unknown[];
  }
}

/** Throws the right {@link UpstreamError} for a non-2xx HTTP answer. */
export function rejectHttpStatus(res: HttpResponse, what: string): never {
  const snippet = res.body.subarray(0, 160).toString('utf8').trim();
  if (res.status === 429) {
    throw new UpstreamError('rate_limited', `${what}: HTTP 429`, {
      status: 429,
      retryable: false,
      retryAfterSeconds: parseRetryAfter(res.headers['retry-after']),
    });
  }
  throw new UpstreamError('http_status', `${what}: HTTP ${res.status}${snippet ? ` ${snippet}` : ''}`, {
    status: res.status,
    retryable: res.status >= 500,
  });
}

/** Parses an HTTP `Retry-After` value (seconds or HTTP date) into seconds from now. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * How {@link JsonRpcClient.callWithArray} reads the array at `result.<key>`
 * and the rest of the result.
 */
export interface ArraySpec<S extends z.ZodType, T extends z.ZodType, R> {
  key: string;
  /** Each item's schema: the reference for what is valid, and the wording of every rejection. */
  item: S;
  /** Converts a validated item (default: kept as is). */
  map?: (v: z.output<S>) => R;
  /**
   * A hand-written reader tried first on each raw item, for hot paths where
   * zod's cost per item matters: exactly `map(item.parse(raw))` when it
   * returns a value, undefined to leave the item to `item` and `map`.
   */
  fast?: (raw: unknown) => R | undefined;
  /**
   * A reader of an item's bytes tried before anything else in a split body:
   * exactly what `fast` (or `map(item.parse(raw))`) gives for the item's
   * parsed JSON when it returns a value, undefined to have the item parsed.
   * It must refuse any bytes `JSON.parse` would (json-bytes.ts), so that an
   * answer is refused, and worded, as it would be without it.
   */
  fastBytes?: (body: Buffer, start: number, end: number) => R | undefined;
  /** The result with the array emptied (default: not checked). */
  rest?: T;
  /** Bodies from this size on are split rather than parsed whole. Default SPLIT_MIN_BYTES. */
  splitMinBytes?: number;
  /**
   * Items read from an earlier answer, by their exact bytes (see
   * {@link KnownItem}): in a split body, an item byte for byte the same as one
   * of these is neither parsed nor checked again and comes back as the same
   * object, so an unchanged entry keeps its identity (and what was derived
   * from it, its series' lines) from one round to the next.
   */
  known?: ReadonlyMap<string, KnownItem<R>>;
  /** Filled with this answer's items by their bytes, for the next call's `known` (split bodies only). */
  remember?: Map<string, KnownItem<R>>;
}

/** An item already read, under its bytes as a latin1 string (a key that keeps every byte, cheap to make). */
export interface KnownItem<R> {
  key: string;
  item: R;
}

/** An answer of the node to one request: the request's id and the HTTP response (status 200). */
interface RawAnswer {
  id: number;
  res: HttpResponse;
}

/** Items parsed (as one small array), validated and converted at a time, between two looks at the clock. */
const ITEM_BATCH = 200;

/** Longest run of reading one large answer (its scan, then its items) between two yields to the event loop. */
const READ_SLICE_MS = 5;

/**
 * Bodies smaller than this are parsed whole: one JSON.parse of a few hundred
 * KB takes a few ms, less CPU than the scan and the batches; above it, the
 * one parse would be a long block and a large, long-lived object graph.
 */
export const SPLIT_MIN_BYTES = 1024 * 1024;

/** The rest of a result nobody asked to check. */
const UNCHECKED = z.unknown();

/** `{ <key>: unknown[] | null }` by key, made once: building a zod schema costs more than checking a small result with it. */
const arrayResultSchemas = new Map<string, z.ZodType<Record<string, unknown[] | null>>>();

function arrayResultSchema(key: string): z.ZodType<Record<string, unknown[] | null>> {
  let schema = arrayResultSchemas.get(key);
  if (!schema) {
    schema = z.object({ [key]: z.array(z.unknown()).nullable() });
    arrayResultSchemas.set(key, schema);
  }
  return schema;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The pause of reading one large answer: a yield to the event loop once
 * READ_SLICE_MS have passed since the last one, else undefined (go on). By
 * time, not by count: a yield every 200 items and every 256 KB of the scan
 * kept a 2,000-peer answer, its body and what was read of it alive across a
 * dozen turns of a fleet's busy loop, long enough for young-generation
 * collections to promote them to the old generation. Read in one slice of a
 * few ms, they die young.
 */
function readSlicer(): () => Promise<void> | undefined {
  let until = performance.now() + READ_SLICE_MS;
  const resume = () => {
    until = performance.now() + READ_SLICE_MS;
  };
  return () => (performance.now() < until ? undefined : yieldToLoop().then(resume));
}

/**
 * A JSON-RPC 2.0 client for one node. Calls are POSTs with a JSON body and an
 * increasing id; the node's `error` object becomes an {@link RpcError} even on
 * HTTP 200 (gorilla never sets a status for it), and the result is validated
 * with the caller's schema.
 *
 * A client made by {@link JsonRpcClient.forRound} makes each distinct request
 * (path, method, params) once and gives its answer to every caller in that
 * round: sources that need the same data (info.peers, the full validator set)
 * share one upstream call, which each parses with its own schema.
 */
export class JsonRpcClient {
  #nextId = 1;
  readonly #memo: Map<string, Promise<RawAnswer>> | undefined;
  readonly #budget: ByteBudget | undefined;

  constructor(
    private readonly transport: HttpTransport,
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
    memo?: Map<string, Promise<RawAnswer>>,
    budget?: ByteBudget,
  ) {
    this.#memo = memo;
    this.#budget = budget;
  }

  /**
   * A client for one poll round: identical requests made during the round go
   * upstream once, and all its answers together stay within `budget`
   * (default: a new one of ROUND_BUDGET_BYTES).
   */
  forRound(budget: ByteBudget = new ByteBudget(ROUND_BUDGET_BYTES)): JsonRpcClient {
    return new JsonRpcClient(this.transport, this.baseUrl, this.headers, new Map(), budget);
  }

  /** Calls `method` at `path` and returns its validated result. Transient failures are retried within the deadline. */
  async call<S extends z.ZodType>(path: string, method: string, params: unknown, schema: S, deadline: Deadline): Promise<z.output<S>> {
    const what = `${method} at ${path}`;
    const { id, res } = await this.#answer(path, method, params, deadline);
    const result = schema.safeParse(resultOf(parseJsonBody(res.body, what), id, what));
    if (!result.success) {
      throw new UpstreamError('invalid_response', `${what}: unexpected result shape (${describeIssues(result.error)})`);
    }
    return result.data;
  }

  /**
   * Calls `method` and returns the items of the array at `result.<key>`, each
   * validated with `item` and passed through `map`. The array is found in the
   * raw body and its items parsed a batch at a time with yields in between
   * (see splitJsonArray), so a multi-MB answer neither blocks the event loop
   * in one JSON.parse nor lives as one big object graph. An answer that is
   * not of that shape is parsed whole and fails (or is read) as with `call`;
   * a null array (Go's nil slice) reads as empty. (With a fast reader in
   * front of `item`, see {@link callWithArray}.)
   */
  async callArray<S extends z.ZodType, R = z.output<S>>(
    path: string,
    method: string,
    params: unknown,
    key: string,
    item: S,
    deadline: Deadline,
    map: (v: z.output<S>) => R = (v) => v as R,
    splitMinBytes = SPLIT_MIN_BYTES,
  ): Promise<R[]> {
    return (await this.callWithArray(path, method, params, { key, item, map, splitMinBytes }, deadline)).items;
  }

  /**
   * {@link callArray}, also returning the rest of the result (the array
   * emptied) validated with `rest` (default: not checked). With `fast`, each
   * item is first given to that reader, which returns exactly what `map`
   * would make of the item's `item` output, or undefined to defer: the item
   * then goes through `item` and `map` as without it, so what is rejected, and
   * the error message, stay the schema's (a fast reader therefore cannot
   * produce an undefined item itself; zod does).
   */
  async callWithArray<S extends z.ZodType, T extends z.ZodType = z.ZodUnknown, R = z.output<S>>(
    path: string,
    method: string,
    params: unknown,
    spec: ArraySpec<S, T, R>,
    deadline: Deadline,
  ): Promise<{ items: R[]; rest: z.output<T> }> {
    const { key, item, fast } = spec;
    const map = spec.map ?? ((v: z.output<S>) => v as R);
    const what = `${method} at ${path}`;
    const { id, res } = await this.#answer(path, method, params, deadline);
    const body = res.body;
    const pause = readSlicer();
    let split: Awaited<ReturnType<typeof splitJsonArray>>;
    try {
      // The scan refuses a body nested too deep before anything of it is parsed.
      split = body.length >= (spec.splitMinBytes ?? SPLIT_MIN_BYTES) ? await splitJsonArray(body, ['result', key], pause) : undefined;
    } catch (err) {
      if (err instanceof JsonTooDeepError) throw tooDeep(err, what);
      throw err;
    }
    let result: unknown;
    let items: unknown[] | undefined;
    if (split) {
      // The envelope without the array's items: small, parsed and checked as usual.
      result = resultOf(parseJsonBody(Buffer.concat([body.subarray(0, split.open + 1), body.subarray(split.close)]), what), id, what);
    } else {
      // Nothing larger than the small answers' cap is parsed in one piece: a large answer must be of the shape that splits.
      if (body.length > RESPONSE_CAPS.jsonRpc && body.length >= (spec.splitMinBytes ?? SPLIT_MIN_BYTES)) {
        throw new UpstreamError('invalid_response', `${what}: a ${body.length}-byte answer without result.${key} as a well-formed array is refused unparsed`);
      }
      result = resultOf(parseJsonBody(body, what), id, what);
      const shaped = arrayResultSchema(key).safeParse(result);
      if (!shaped.success) throw new UpstreamError('invalid_response', `${what}: unexpected result shape (${describeIssues(shaped.error)})`);
      items = (shaped.data[key] as unknown[] | null) ?? [];
      result = { ...(result as object), [key]: [] };
    }
    const rest = (spec.rest ?? UNCHECKED).safeParse(result);
    if (!rest.success) throw new UpstreamError('invalid_response', `${what}: unexpected result shape (${describeIssues(rest.error)})`);
    const count = split ? split.spans.length / 2 : (items as unknown[]).length;
    const out = new Array<R>(count);
    for (let start = 0; start < count; start += ITEM_BATCH) {
      const wait = pause();
      if (wait) await wait;
      const end = Math.min(count, start + ITEM_BATCH);
      let batch: unknown[];
      // Per item of the batch: its index in `batch`, or -1 when it is already in `out` (a known item, or one read from its bytes).
      let at: number[] | undefined;
      let missKeys: string[] | undefined;
      if (split) {
        const from = split.spans[2 * start] as number;
        const to = split.spans[2 * end - 1] as number;
        if (spec.known || spec.remember || spec.fastBytes) {
          const keyed = spec.known !== undefined || spec.remember !== undefined;
          const misses: string[] = [];
          if (keyed) missKeys = [];
          at = [];
          for (let i = start; i < end; i++) {
            const s = split.spans[2 * i] as number;
            const e = split.spans[2 * i + 1] as number;
            const key = keyed ? body.toString('latin1', s, e) : '';
            const hit = spec.known?.get(key);
            if (hit) {
              out[i] = hit.item;
              spec.remember?.set(hit.key, hit);
              at.push(-1);
              continue;
            }
            const read = spec.fastBytes?.(body, s, e);
            if (read !== undefined) {
              out[i] = read;
              spec.remember?.set(key, { key, item: read });
              at.push(-1);
              continue;
            }
            at.push(misses.length);
            missKeys?.push(key);
            misses.push(body.toString('utf8', s, e));
          }
          batch = misses.length === 0 ? [] : parseMisses(misses, () => `[${body.toString('utf8', from, to)}]`, what);
          if (batch.length !== misses.length) throw new UpstreamError('invalid_response', `${what}: body is not valid JSON (items ${start}..${end - 1})`);
        } else {
          // The items of a batch are contiguous in the body, separated by commas: one small JSON array.
          batch = parseJsonText(`[${body.toString('utf8', from, to)}]`, what) as unknown[];
          if (batch.length !== end - start) throw new UpstreamError('invalid_response', `${what}: body is not valid JSON (items ${start}..${end - 1})`);
        }
      } else {
        batch = (items as unknown[]).slice(start, end);
      }
      for (let i = start; i < end; i++) {
        const j = at ? (at[i - start] as number) : i - start;
        if (j < 0) continue;
        const raw = batch[j];
        let read = fast?.(raw);
        if (read === undefined) {
          const r = item.safeParse(raw);
          if (!r.success) {
            const issue = r.error.issues[0];
            const where = [key, String(i), ...(issue?.path ?? []).map(String)].join('.');
            throw new UpstreamError('invalid_response', `${what}: unexpected result shape (${where}: ${issue?.message ?? 'invalid'})`);
          }
          read = map(r.data);
        }
        out[i] = read;
        if (missKeys && spec.remember) {
          const k = missKeys[j] as string;
          spec.remember.set(k, { key: k, item: read });
        }
      }
    }
    // Without `rest`, T is its default (ZodUnknown), whose output `unknown` is what UNCHECKED gave.
    return { items: out, rest: rest.data as z.output<T> };
  }

  /** The node's answer to a request (HTTP 200), shared within a round; transient failures are retried within the deadline. */
  #answer(path: string, method: string, params: unknown, deadline: Deadline): Promise<RawAnswer> {
    const fetch = () =>
      withRetry(() => this.#send(path, method, params, deadline), {
        signal: deadline.signal,
        deadline: deadline.at,
      });
    if (!this.#memo) return fetch();
    const key = `${path}\n${method}\n${JSON.stringify(params ?? {})}`;
    let answer = this.#memo.get(key);
    if (!answer) {
      answer = fetch();
      this.#memo.set(key, answer);
    }
    return answer;
  }

  async #send(path: string, method: string, params: unknown, deadline: Deadline): Promise<RawAnswer> {
    const id = this.#nextId++;
    const res = await this.transport.send({
      url: this.baseUrl + path,
      method: 'POST',
      headers: { ...this.headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: params ?? {} }),
      signal: deadline.signal,
      maxBytes: method in RESPONSE_CAPS ? RESPONSE_CAPS[method as keyof typeof RESPONSE_CAPS] : RESPONSE_CAPS.jsonRpc,
      ...(this.#budget ? { budget: this.#budget } : {}),
    });
    if (res.status !== 200) rejectHttpStatus(res, `${method} at ${path}`);
    return { id, res };
  }
}

/** Checks a parsed JSON-RPC response (version, id, error) and returns its result. */
function resultOf(body: unknown, id: number, what: string): unknown {
  const parsed = envelope.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamError('invalid_response', `${what}: not a JSON-RPC 2.0 response (${describeIssues(parsed.error)})`);
  }
  const env = parsed.data;
  if (env.error !== undefined && env.result !== undefined) {
    throw new UpstreamError('invalid_response', `${what}: response has both result and error`);
  }
  if (env.id !== id) throw new UpstreamError('invalid_response', `${what}: response id ${String(env.id)} does not match request id ${id}`);
  if (env.error !== undefined) throw new RpcError(env.error.code, env.error.message);
  if (env.result === undefined) throw new UpstreamError('invalid_response', `${what}: response has neither result nor error`);
  return env.result;
}
