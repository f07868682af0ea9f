/**
 * The demo node's `info` API (api/info/service.go), answered from the node's state: identity,
 * versions, network, chains, peers, uptime (computed as network/network.go does when the state
 * says so), upgrades, ACPs and fees.
 *
 * @packageDocumentation
 */
import type { FakeNodeState, FakePeer } from './node-state.js';
import { nodeUptime } from './p-chain-clock.js';
import { chainCreated } from './health.js';
import { chainKey, lookupChain, nodeIdArgs } from './rpc-args.js';
import { cloneJson, compareBytes, dec, jsonSortedSet, networkNameFor, optString, pct64, RpcError, rfc3339Seconds, type Handler } from './wire.js';

function peerWire(p: FakePeer): Record<string, unknown> {
  return {
    ip: p.ip,
    publicIP: p.publicIp,
    nodeID: p.nodeId,
    version: p.version,
    upgradeTime: p.upgradeTime,
    lastSent: rfc3339Seconds(p.lastSent),
    lastReceived: rfc3339Seconds(p.lastReceived),
    observedUptime: dec(p.observedUptime),
    trackedSubnets: jsonSortedSet(p.trackedSubnets),
    supportedACPs: jsonSortedSet(p.supportedAcps ?? []),
    objectedACPs: jsonSortedSet(p.objectedAcps ?? []),
    benched: [...p.benched],
  };
}

export function infoHandlers(state: FakeNodeState): Record<string, Handler> {
  const s = (): FakeNodeState => state;
  return {
    GetNodeID: () => () => ({
      nodeID: s().nodeId,
      nodePOP: s().nodePop === null ? null : { publicKey: s().nodePop?.publicKey, proofOfPossession: s().nodePop?.proofOfPossession },
    }),
    GetNodeVersion: () => () => ({
      version: s().version,
      databaseVersion: s().databaseVersion,
      rpcProtocolVersion: dec(s().rpcProtocolVersion),
      gitCommit: s().gitCommit,
      vmVersions: { ...s().vmVersions },
    }),
    GetNetworkID: () => () => ({ networkID: dec(s().networkId) }),
    GetNetworkName: () => () => ({ networkName: s().networkName ?? networkNameFor(s().networkId) }),
    GetNodeIP: () => () => ({ ip: s().nodeIp }),
    GetBlockchainID: (args) => {
      const alias = optString(args, 'alias') ?? '';
      return () => {
        const key = chainKey(s(), alias);
        const known = s().blockchains.find((b) => b.id === alias);
        if (key === 'P' || key === 'X' || key === 'C') return { blockchainID: s().chainIds[key] };
        if (key !== undefined) return { blockchainID: key };
        if (known) return { blockchainID: known.id };
        throw new RpcError(`there is no ID with alias: ${alias}`);
      };
    },
    GetVMs: () => () => ({ vms: cloneJson(s().vms), fxs: { ...s().fxs } }),
    IsBootstrapped: (args) => {
      const chain = optString(args, 'chain');
      return () => {
        if (chain === undefined || chain === '') throw new RpcError("argument 'chain' not given");
        const key = lookupChain(s(), chain);
        if (key === undefined) throw new RpcError(`there is no chain with alias/ID '${chain}'`);
        // chains/manager.go IsBootstrapped: false for a chain it has not created, not yet (the P-Chain still
        // bootstrapping) or never (X and C under partial sync).
        if (!chainCreated(s(), key)) return { isBootstrapped: false };
        return { isBootstrapped: s().bootstrapped[key] ?? true };
      };
    },
    Peers: (args) => {
      const nodeIds = nodeIdArgs(s(), args, 'nodeIDs');
      return () => {
        let peers = s().peers;
        if (nodeIds.length > 0) {
          const wanted = new Set(nodeIds);
          peers = peers.filter((p) => wanted.has(p.nodeId));
        }
        return { numPeers: dec(peers.length), peers: peers.map(peerWire) };
      };
    },
    Uptime: () => () => {
      const given = s().uptime;
      const u = given === 'computed' ? nodeUptime(s()) : given;
      if (u === null) throw new RpcError("couldn't get node uptime: node is not a validator");
      return {
        rewardingStakePercentage: pct64(u.rewardingStakePercentage),
        weightedAveragePercentage: pct64(u.weightedAveragePercentage),
      };
    },
    Upgrades: () => () => ({ ...s().upgrades }),
    Acps: () => () => {
      const acps: Record<string, unknown> = {};
      for (const k of Object.keys(s().acps).sort(compareBytes)) {
        const a = s().acps[k];
        if (!a) continue;
        acps[k] = {
          supportWeight: dec(a.supportWeight),
          supporters: jsonSortedSet(a.supporters),
          objectWeight: dec(a.objectWeight),
          objectors: jsonSortedSet(a.objectors),
          abstainWeight: dec(a.abstainWeight),
        };
      }
      return { acps };
    },
    GetTxFee: () => () => {
      const f = s().txFees;
      return {
        txFee: dec(f.txFee),
        createAssetTxFee: dec(f.createAssetTxFee),
        createSubnetTxFee: dec(f.createSubnetTxFee),
        transformSubnetTxFee: dec(f.transformSubnetTxFee),
        createBlockchainTxFee: dec(f.createBlockchainTxFee),
        addPrimaryNetworkValidatorFee: dec(f.addPrimaryNetworkValidatorFee),
        addPrimaryNetworkDelegatorFee: dec(f.addPrimaryNetworkDelegatorFee),
        addSubnetValidatorFee: dec(f.addSubnetValidatorFee),
        addSubnetDelegatorFee: dec(f.addSubnetDelegatorFee),
      };
    },
  };
}
