/**
 * The shape of a JSON answer, to compare a real AvalancheGo's answer with a fake's whose world (ids, heights,
 * stake) is another: keys and their order, value types, and how numbers are written (a JSON number, a decimal
 * string as Go's `json.Uint64` writes, a fraction string, a 0x quantity, an RFC 3339 time), never the values.
 *
 * @packageDocumentation
 */

/** What a JSON scalar is, on the wire. */
function scalarKind(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return 'number';
  if (typeof v !== 'string') return typeof v;
  if (/^\d+$/.test(v)) return 'decimal string';
  if (/^\d+\.\d+$/.test(v)) return 'fraction string';
  if (/^0x[0-9a-fA-F]*$/.test(v)) return '0x string';
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v)) return 'RFC 3339 string';
  return 'string';
}

/** One difference, at a JSON path such as `result.peers[].observedUptime`. */
export interface ShapeDifference {
  path: string;
  real: string;
  fake: string;
}

/** How {@link compareShapes} treats some paths. */
export interface ShapeRules {
  /**
   * Objects whose keys are data (check names, chain ids, VM names), not a schema: their values are compared as
   * one merged shape, and their key sets are not compared.
   */
  mapPaths?: readonly string[];
  /**
   * Keys that AvalancheGo writes only when set (`omitempty`), which one world may have and the other not,
   * each with the AvalancheGo file that says so: `path` → citation.
   */
  optional?: Readonly<Record<string, string>>;
}

/** Every element of an array merged into one: objects' keys united, scalars' kinds listed. */
function merge(values: readonly unknown[]): unknown {
  const objects = values.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));
  if (objects.length === values.length && objects.length > 0) {
    const out: Record<string, unknown[]> = {};
    for (const o of objects) for (const [k, v] of Object.entries(o)) (out[k] ??= []).push(v);
    return Object.fromEntries(Object.entries(out).map(([k, vs]) => [k, new MergedValues(vs)]));
  }
  return new MergedValues(values);
}

/** The values found at one path across an array's elements. */
class MergedValues {
  constructor(readonly values: readonly unknown[]) {}
}

function kinds(v: unknown): Set<string> {
  const list = v instanceof MergedValues ? v.values : [v];
  const out = new Set<string>();
  for (const x of list) {
    if (Array.isArray(x)) out.add('array');
    else if (typeof x === 'object' && x !== null) out.add('object');
    else out.add(scalarKind(x));
  }
  return out;
}

function flatten(v: unknown): unknown[] {
  return v instanceof MergedValues ? [...v.values] : [v];
}

/**
 * Compares the shapes of `real` and `fake`. Arrays compare their merged elements (an empty array matches any);
 * objects compare their keys (presence and order of the shared ones) and each key's shape; scalars compare
 * their kinds, except where one side has only some of the other's kinds (a fraction string where the other
 * world happens to hold a whole number is not a difference: Go writes `"100"` and `"99.5"` with the same code).
 */
export function compareShapes(real: unknown, fake: unknown, rules: ShapeRules = {}, path = ''): ShapeDifference[] {
  const diffs: ShapeDifference[] = [];
  const realValues = flatten(real);
  const fakeValues = flatten(fake);
  const rk = kinds(real);
  const fk = kinds(fake);

  const realArrays = realValues.filter(Array.isArray) as unknown[][];
  const fakeArrays = fakeValues.filter(Array.isArray) as unknown[][];
  const realObjects = realValues.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));
  const fakeObjects = fakeValues.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));

  const structural = (k: Set<string>) => [...k].filter((x) => x === 'array' || x === 'object' || x === 'null');
  const rs = structural(rk).sort().join(', ');
  const fs = structural(fk).sort().join(', ');
  if (rs !== fs && !(rs === '' && fs === '') && !(realArrays.length > 0 && fakeArrays.length > 0)) {
    if (!(rs.includes('object') && fs.includes('object'))) diffs.push({ path: path || '(root)', real: [...rk].join(' | '), fake: [...fk].join(' | ') });
  }
  const rScalar = [...rk].filter((x) => x !== 'array' && x !== 'object' && x !== 'null');
  const fScalar = [...fk].filter((x) => x !== 'array' && x !== 'object' && x !== 'null');
  const numeric = (x: string) => x === 'decimal string' || x === 'fraction string';
  const compatible = (a: string, b: string) => a === b || (numeric(a) && numeric(b));
  if (rScalar.length > 0 && fScalar.length > 0 && !rScalar.some((a) => fScalar.some((b) => compatible(a, b)))) {
    diffs.push({ path: path || '(root)', real: rScalar.join(' | '), fake: fScalar.join(' | ') });
  }

  if (realArrays.length > 0 && fakeArrays.length > 0) {
    const r = realArrays.flat();
    const f = fakeArrays.flat();
    if (r.length > 0 && f.length > 0) diffs.push(...compareShapes(merge(r), merge(f), rules, `${path}[]`));
  }
  if (realObjects.length > 0 && fakeObjects.length > 0) {
    if (rules.mapPaths?.includes(path)) {
      const r = realObjects.flatMap((o) => Object.values(o));
      const f = fakeObjects.flatMap((o) => Object.values(o));
      if (r.length > 0 && f.length > 0) diffs.push(...compareShapes(merge(r), merge(f), rules, `${path}{}`));
    } else {
      const ro = merge(realObjects) as Record<string, unknown>;
      const fo = merge(fakeObjects) as Record<string, unknown>;
      const realKeys = Object.keys(ro);
      const fakeKeys = Object.keys(fo);
      for (const k of realKeys) {
        const p = path ? `${path}.${k}` : k;
        if (!(k in fo)) {
          if (!rules.optional?.[p]) diffs.push({ path: p, real: 'present', fake: 'absent' });
        } else diffs.push(...compareShapes(ro[k], fo[k], rules, p));
      }
      for (const k of fakeKeys) {
        const p = path ? `${path}.${k}` : k;
        if (!(k in ro) && !rules.optional?.[p]) diffs.push({ path: p, real: 'absent', fake: 'present' });
      }
      // Go writes a struct's fields in their declared order: the keys both have come in the same order.
      const shared = realKeys.filter((k) => k in fo);
      const fakeOrder = fakeKeys.filter((k) => k in ro);
      if (!rules.mapPaths?.includes(path) && shared.join() !== fakeOrder.join()) {
        diffs.push({ path: `${path || '(root)'} key order`, real: shared.join(', '), fake: fakeOrder.join(', ') });
      }
    }
  }
  return diffs;
}
