/**
 * Entry of every benchmark child process: `child.ts <role> <json args>`.
 * Says hello (with what the role reports) over IPC, then answers the parent's
 * requests. Exits when the parent goes away, so no child outlives a run.
 */
import type { IpcHello, IpcReply, IpcRequest, Usage } from './ipc.js';

/** What a role gives the child entry: what to report at start, and its commands. */
export interface Role {
  info: unknown;
  handlers: Record<string, (args: unknown) => unknown>;
  /** Called before the process exits on request. */
  close?: () => Promise<void>;
}

/**
 * Each role's module is imported only in the process that plays it, so a
 * daemon process holds the daemon and the bench's plumbing, never the fakes or
 * prom-client (scenario S compares its RSS with a bare Node process's).
 */
const ROLES: Record<string, () => Promise<(args: unknown) => Promise<Role>>> = {
  fake: async () => (await import('./role-fake.js')).startFakeRole,
  daemon: async () => (await import('./role-daemon.js')).startDaemonRole,
  baseline: async () => (await import('./role-servers.js')).startBaselineRole,
  static: async () => (await import('./role-servers.js')).startStaticRole,
  'data-api': async () => (await import('./role-data-api.js')).startDataApiRole,
  floor: async () => (await import('./role-floor.js')).startFloorRole,
};

function usage(): Usage {
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  return {
    cpuUserUs: cpu.user,
    cpuSystemUs: cpu.system,
    rssBytes: mem.rss,
    heapUsedBytes: mem.heapUsed,
    heapTotalBytes: mem.heapTotal,
    externalBytes: mem.external,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    atMs: performance.now(),
  };
}

function send(msg: IpcHello | IpcReply): void {
  if (process.connected) process.send?.(msg);
}

async function main(): Promise<void> {
  // The parent is gone (even killed): nothing left to measure for.
  process.on('disconnect', () => process.exit(0));
  const name = process.argv[2] ?? '';
  const args: unknown = JSON.parse(process.argv[3] ?? '{}');
  const load = ROLES[name];
  if (!load) {
    send({ hello: true, ok: false, error: `unknown role ${name}` });
    process.exit(2);
  }
  let role: Role;
  try {
    role = await (await load())(args);
  } catch (err) {
    send({ hello: true, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.exit(1);
  }
  const handlers: Record<string, (args: unknown) => unknown> = {
    ...role.handlers,
    usage: () => usage(),
    exit: () => {
      // Answer first, then leave (process.exit lets --cpu-prof write its profile).
      setTimeout(() => {
        const done = () => process.exit(0);
        (role.close?.() ?? Promise.resolve()).then(done, done);
        setTimeout(done, 2_000).unref();
      }, 10);
      return true;
    },
  };
  process.on('message', (m: unknown) => {
    const req = m as IpcRequest;
    const handler = handlers[req.cmd];
    if (!handler) {
      send({ id: req.id, ok: false, error: `unknown command ${req.cmd}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(req.args))
      .then(
        (result) => send({ id: req.id, ok: true, result }),
        (err: unknown) => send({ id: req.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
      );
  });
  send({ hello: true, ok: true, info: role.info });
}

void main();
