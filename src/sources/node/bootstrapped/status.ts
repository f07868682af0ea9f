import type { StatusSection } from '../../source.js';
import type { BootstrappedValue } from './value.js';

/** How many of the chains the node runs have bootstrapped, as a badge. */
export const bootstrappedStatus: StatusSection<BootstrappedValue> = {
  order: 20,
  badges(v, kit) {
    if (v.chains.length === 0) return [];
    const done = v.chains.filter((c) => c.bootstrapped).length;
    const level = done === v.chains.length ? 'ok' : 'warn';
    kit.judge(level, `${v.chains.length - done} chain(s) still bootstrapping`);
    return [kit.badge('bootstrapped', level, `${done}/${v.chains.length} chains bootstrapped`)];
  },
};
