import type { Logger } from '../log.js';
import type { StateTransition } from '../state/store.js';

/** Logs one state change as one line: a source's own change as its definition words it, else the source going down or up. */
export function logTransition(logger: Logger, t: StateTransition): void {
  const fields = { node: t.node, source: t.source, ...(t.reason ? { reason: t.reason } : {}) };
  if (t.change) logger[t.change.level]({ ...fields, ...t.change.detail }, t.change.message);
  else if (t.kind === 'source_down') logger.warn({ ...fields, err: t.message }, 'source down');
  else if (t.kind === 'source_up') logger.info(fields, 'source up');
}
