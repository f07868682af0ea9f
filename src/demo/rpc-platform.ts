/**
 * The demo node's `platform` API (vms/platformvm/service.go), answered from the node's state:
 * heights, the current validators of the primary network, of L1s and of permissioned subnets
 * (with the wire shapes of each), supply, the L1 validator fee state, and chain statuses.
 *
 * @packageDocumentation
 */
import { PRIMARY_NETWORK_ID } from './fixture-world.js';
import { isCb58Id } from './ids.js';
import type { FakeL1Validator, FakeNodeState, FakeValidator } from './node-state.js';
import { chainKey, idArg, knowsId, nodeIdArgs } from './rpc-args.js';
import { dec, optString, owner, pct32, RpcError, rfc3339Seconds, type Handler } from './wire.js';

function validatorWire(v: FakeValidator, single: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    txID: v.txId,
    startTime: dec(v.startTime),
    endTime: dec(v.endTime),
    weight: dec(v.weight),
    nodeID: v.nodeId,
  };
  if (v.validationRewardOwner) out['validationRewardOwner'] = owner(v.validationRewardOwner);
  if (v.delegationRewardOwner) out['delegationRewardOwner'] = owner(v.delegationRewardOwner);
  out['potentialReward'] = dec(v.potentialReward);
  out['accruedDelegateeReward'] = dec(v.accruedDelegateeReward);
  out['delegationFee'] = pct32(v.delegationFee);
  out['uptime'] = pct32(v.uptime);
  out['connected'] = v.connected;
  if (v.signer) out['signer'] = { publicKey: v.signer.publicKey, proofOfPossession: v.signer.proofOfPossession };
  if (v.autoRenew) {
    out['validatorAuthority'] = owner(v.autoRenew.validatorAuthority);
    out['nextPeriod'] = dec(v.autoRenew.nextPeriod);
    out['autoCompoundRewardShares'] = dec(v.autoRenew.autoCompoundRewardShares);
  }
  let weight = 0n;
  for (const d of v.delegators) weight += d.weight;
  out['delegatorCount'] = dec(v.delegators.length);
  out['delegatorWeight'] = dec(weight);
  if (single) {
    out['delegators'] = v.delegators.map((d) => {
      const o: Record<string, unknown> = {
        txID: d.txId,
        startTime: dec(d.startTime),
        endTime: dec(d.endTime),
        weight: dec(d.weight),
        nodeID: v.nodeId,
      };
      if (d.rewardOwner) o['rewardOwner'] = owner(d.rewardOwner);
      o['potentialReward'] = dec(d.potentialReward);
      return o;
    });
  }
  return out;
}

function l1ValidatorWire(v: FakeL1Validator): Record<string, unknown> {
  return {
    nodeID: v.nodeId,
    weight: dec(v.weight),
    startTime: dec(v.startTime),
    validationID: v.validationId,
    publicKey: v.publicKey,
    remainingBalanceOwner: owner(v.remainingBalanceOwner),
    deactivationOwner: owner(v.deactivationOwner),
    minNonce: dec(v.minNonce),
    balance: dec(v.balance),
  };
}

export function platformHandlers(state: FakeNodeState): Record<string, Handler> {
  const s = (): FakeNodeState => state;
  return {
    GetHeight: () => () => ({ height: dec(s().heights.P) }),
    GetProposedHeight: () => () => ({ height: dec(s().heights.P) }),
    GetCurrentValidators: (args) => {
      const subnetId = idArg(s(), args, 'subnetID') ?? PRIMARY_NETWORK_ID;
      const nodeIds = nodeIdArgs(s(), args, 'nodeIDs');
      return () => ({ validators: currentValidators(s(), subnetId, nodeIds) });
    },
    GetCurrentSupply: (args) => {
      const subnetId = idArg(s(), args, 'subnetID') ?? PRIMARY_NETWORK_ID;
      return () => {
        let supply: bigint | undefined;
        if (subnetId === PRIMARY_NETWORK_ID) supply = s().currentSupply;
        else supply = s().subnets[subnetId]?.supply;
        if (supply === undefined) throw new RpcError('fetching current supply failed: not found');
        return { supply: dec(supply), height: dec(s().heights.P) };
      };
    },
    GetValidatorFeeState: () => () => {
      const f = s().validatorFeeState;
      return { excess: f.excess, price: f.price, timestamp: rfc3339Seconds(f.timestamp) };
    },
    GetL1Validator: (args) => {
      const validationId = idArg(s(), args, 'validationID') ?? PRIMARY_NETWORK_ID;
      return () => {
        for (const [subnetId, sub] of Object.entries(s().subnets)) {
          for (const v of sub.validators) {
            if ('validationId' in v && v.validationId === validationId) {
              return { ...l1ValidatorWire(v), subnetID: subnetId, height: dec(s().heights.P) };
            }
          }
        }
        throw new RpcError(`fetching L1 validator ${JSON.stringify(validationId)} failed: not found`);
      };
    },
    // vms/platformvm/service.go GetBlockchainStatus: a chain the node created (its id or alias
    // resolves in the chain manager) is Validating when the node validates its subnet
    // (nodeValidates), else Syncing; otherwise Created when the accepted P-Chain state has it,
    // else Unknown (the fake has no preferred-but-unaccepted blocks, so never Preferred).
    GetBlockchainStatus: (args) => {
      const id = optString(args, 'blockchainID') ?? '';
      return () => {
        if (id === '') throw new RpcError("argument 'blockchainID' not given");
        const key = chainKey(s(), id);
        if (key !== undefined && Object.hasOwn(s().bootstrapped, key)) return { status: nodeValidates(s(), key) ? 'Validating' : 'Syncing' };
        if (!(isCb58Id(id) || knowsId(s(), id))) throw new RpcError(`problem parsing blockchainID ${JSON.stringify(id)}: invalid input checksum`);
        return { status: s().blockchains.some((b) => b.id === id) ? 'Created' : 'Unknown' };
      };
    },
    GetBlockchains: () => () => {
      // The P-Chain lists non-primary subnets' chains first, then the primary network's.
      const all = s().blockchains;
      const ordered = [...all.filter((b) => b.subnetId !== PRIMARY_NETWORK_ID), ...all.filter((b) => b.subnetId === PRIMARY_NETWORK_ID)];
      return { blockchains: ordered.map((b) => ({ id: b.id, name: b.name, subnetID: b.subnetId, vmID: b.vmId })) };
    },
  };
}

/**
 * vms/platformvm/service.go nodeValidates: the chain's CreateChainTx names its subnet, and the
 * node validates the chain when the validator manager lists it for that subnet. The P-Chain
 * itself has no CreateChainTx (false).
 */
function nodeValidates(s: FakeNodeState, key: string): boolean {
  if (key === 'P') return false;
  if (key === 'X' || key === 'C') return s.primaryValidators.some((v) => v.nodeId === s.nodeId);
  const subnetId = s.blockchains.find((b) => b.id === key)?.subnetId ?? Object.entries(s.subnets).find(([, sn]) => sn.chains.includes(key))?.[0];
  if (subnetId === undefined) return false;
  return s.subnets[subnetId]?.validators.some((v) => v.nodeId === s.nodeId) ?? false;
}

function currentValidators(state: FakeNodeState, subnetId: string, nodeIds: string[]): unknown[] {
  const wanted = new Set(nodeIds);
  const include = (nodeId: string): boolean => wanted.size === 0 || wanted.has(nodeId);
  if (subnetId === PRIMARY_NETWORK_ID) {
    // Delegators (with their reward owner) are listed only when exactly one node ID is asked for.
    const single = wanted.size === 1;
    return state.primaryValidators.filter((v) => include(v.nodeId)).map((v) => validatorWire(v, single));
  }
  const sub = state.subnets[subnetId];
  if (!sub) return [];
  return sub.validators
    .filter((v) => include(v.nodeId))
    .map((v) =>
      'validationId' in v
        ? l1ValidatorWire(v)
        : { txID: v.txId, startTime: dec(v.startTime), endTime: dec(v.endTime), weight: dec(v.weight), nodeID: v.nodeId },
    );
}
