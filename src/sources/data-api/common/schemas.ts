/**
 * What several Data API sources read alike: the service's lenient optional
 * fields, its block items, and the 4xx that means "not served here".
 */
import { z } from 'zod';
import { uintString } from '../../../http/wire.js';
import { DataApiHttpError } from '../../../data-api/client.js';

/** Unix seconds as the service sends them. */
export const seconds = z.number().int().nonnegative();

/**
 * An optional field read the way the service is lenient: `null`, a value of
 * another type or one out of range reads as absent (that field's series are
 * left out for that validation) instead of failing the item, the page and
 * the source. The service's own SDK types these fields as optional, and it
 * sends null for what it does not know (avalanche-sdk-typescript
 * `models/components/activevalidatordetails.ts`: `geolocation: ... | null`,
 * `avalancheGoVersion?`, `delegationCapacity?`, `amountDelegated?`); its
 * observers' figures (uptimePerformance, validatorHealth.*) are percentages the
 * spec bounds to 0..100 and that a rounding or a restart can push past it.
 */
export function lenient<T extends z.ZodType>(schema: T) {
  return z
    .unknown()
    .transform((v): z.output<T> | undefined => {
      if (v === undefined || v === null) return undefined;
      const r = schema.safeParse(v);
      return r.success ? r.data : undefined;
    })
    .optional();
}

/**
 * A block of `GET .../blocks` (latest, or proposed by a node): only the
 * height, the time, the proposer and the P-Chain's L1 figures (active L1
 * validators, accrued fees) are read; everything else (hashes, transactions,
 * fields the spec does not list) is ignored.
 */
export const blockItem = z.object({
  blockNumber: uintString,
  blockTimestamp: seconds,
  // Lenient as the validators' optional fields: a null proposer is "not known", not a broken page.
  proposerDetails: lenient(z.object({ proposerNodeId: lenient(z.string().min(1)) })),
  // P-Chain blocks only, optional in the spec (PrimaryNetworkBlock): absent, null or malformed reads as unknown.
  activeL1Validators: lenient(z.number().int().nonnegative()),
  /** nAVAX. */
  l1ValidatorsAccruedFees: lenient(z.union([z.number().int().nonnegative(), uintString.transform((v) => Number(v))])),
});
/** A block as read from a blocks listing. */
export type BlockItem = z.output<typeof blockItem>;

/** A 4xx other than 429 (rate limited): the service does not serve that path. */
export function isNotServed(err: unknown): boolean {
  return err instanceof DataApiHttpError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429;
}
