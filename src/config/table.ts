import { z } from 'zod';

/**
 * The shape of the table of settings (settings.ts) and what is derived from
 * it: the zod schema of the YAML file, and the flat list of settings the flag
 * and variable readers, `--help` and docs/configuration.md walk. The table
 * holds plain data and zod schemas only, nothing of yargs, so the parser
 * behind `--help` can change without it.
 */

/** How a setting's value is written. */
export type Kind = 'string' | 'number' | 'boolean' | 'duration' | 'list' | 'mapping';

/** One setting: a value at a YAML path, and how it is set and shown. */
export interface Leaf<S extends z.ZodType = z.ZodType> {
  readonly type: 'leaf';
  /** A `list` flag is repeatable, and comma-separated in its variable. */
  readonly kind: Kind;
  /** The value's schema (without `optional`: the table adds it unless `required`). */
  readonly schema: S;
  /** Its flag, without dashes (`poll.interval`); its variable is then AVAX_EXPORTER_POLL_INTERVAL. Absent for YAML-only settings. */
  readonly flag?: string;
  /** A variable read besides the flags' own (the Data API key, which has no flag). */
  readonly env?: string;
  /** A key every entry of its list must have (a node's `url`). */
  readonly required?: true;
  /** The default, shown as code (`15s`). */
  readonly default?: string;
  /** The default when it is said in words (`3 × interval`). */
  readonly defaultText?: string;
  /** One line for `--help`. */
  readonly describe: string;
  /** The meaning in docs/configuration.md (Markdown); `describe` when absent. */
  readonly docs?: string;
  /** What `--config.check` prints in the place of a secret the value holds (or may hold), as docs/configuration.md says it. */
  readonly secret?: string;
}

/** A mapping of settings (`poll:`). */
export interface Section<K extends Keys = Keys> {
  readonly type: 'section';
  readonly keys: K;
  readonly describe: string;
  /** For a mapping that repeats another (a node's `watch`): docs/configuration.md names that one instead of listing its keys again. */
  readonly sameAs?: string;
}

/** A list of mappings (`nodes:`, `addresses:`). */
export interface List<K extends Keys = Keys> {
  readonly type: 'list';
  readonly entry: K;
  readonly describe: string;
  /** Rules across one entry's keys (zod superRefine). */
  readonly refineEntry?: (entry: never, ctx: z.RefinementCtx) => void;
  /** Rules across entries. */
  readonly refineList?: (list: never, ctx: z.RefinementCtx) => void;
}

/** The keys of a mapping. */
export type Keys = { readonly [key: string]: Leaf | Section | List };

/** The zod schema a node of the table declares. */
export type SchemaOf<N> =
  N extends Leaf<infer S>
    ? S
    : N extends Section<infer K>
      ? z.ZodObject<ShapeOf<K>, z.core.$strict>
      : N extends List<infer K>
        ? z.ZodArray<z.ZodObject<ShapeOf<K>, z.core.$strict>>
        : never;

/** The zod shape of a mapping: every key optional unless `required`. */
export type ShapeOf<K extends Keys> = {
  -readonly [P in keyof K]: K[P] extends { required: true } ? SchemaOf<K[P]> : z.ZodOptional<SchemaOf<K[P]>>;
};

/** Declares a setting (types the schema, so the parsed file keeps its types). */
export const leaf = <S extends z.ZodType, L extends Omit<Leaf<S>, 'type' | 'schema'>>(schema: S, rest: L) => ({ type: 'leaf' as const, schema, ...rest });
/** Declares a mapping of settings. */
export const section = <K extends Keys>(describe: string, keys: K, sameAs?: string): Section<K> => ({
  type: 'section',
  describe,
  keys,
  ...(sameAs !== undefined ? { sameAs } : {}),
});

function schemaOfNode(n: Leaf | Section | List): z.ZodType {
  if (n.type === 'leaf') return n.schema;
  if (n.type === 'section') return z.strictObject(shapeOf(n.keys));
  let entry: z.ZodType = z.strictObject(shapeOf(n.entry));
  if (n.refineEntry) entry = entry.superRefine(n.refineEntry as (v: unknown, ctx: z.RefinementCtx) => void);
  let list: z.ZodType = z.array(entry);
  if (n.refineList) list = list.superRefine(n.refineList as (v: unknown, ctx: z.RefinementCtx) => void);
  return list;
}

function shapeOf(keys: Keys): Record<string, z.ZodType> {
  return Object.fromEntries(
    Object.entries(keys).map(([k, n]) => {
      const s = schemaOfNode(n);
      return [k, n.type === 'leaf' && n.required ? s : s.optional()];
    }),
  );
}

/** The schema of the whole file: a strict mapping of the table's top-level keys. */
export function schemaOf<K extends Keys>(keys: K): z.ZodObject<ShapeOf<K>, z.core.$strict> {
  return z.strictObject(shapeOf(keys)) as unknown as z.ZodObject<ShapeOf<K>, z.core.$strict>;
}

/** One entry of the table, flattened: its YAML path (`nodes[].watch`, `data_api.rate_limit`) and what is declared there. */
export interface Entry {
  path: string;
  node: Leaf | Section | List;
}

/** Every entry of the table, a mapping before its keys, in the table's order; a mapping that repeats another is not descended. */
export function flatten(keys: Keys, prefix = ''): Entry[] {
  const out: Entry[] = [];
  for (const [k, node] of Object.entries(keys)) {
    const path = `${prefix}${k}`;
    out.push({ path, node });
    if (node.type === 'section' && node.sameAs === undefined) out.push(...flatten(node.keys, `${path}.`));
    if (node.type === 'list') out.push(...flatten(node.entry, `${path}[].`));
  }
  return out;
}

/** Declares a list of mappings, with the rules across an entry's keys and across entries. */
export const list = <K extends Keys>(describe: string, entry: K, refine: Pick<List, 'refineEntry' | 'refineList'> = {}): List<K> => ({
  type: 'list',
  describe,
  entry,
  ...refine,
});
