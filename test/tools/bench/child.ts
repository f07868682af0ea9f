/**
 * Entry of every benchmark child process: `child.ts <role> <json args>`.
 * Says hello (with what the role reports) over IPC, then answers the parent's
 * requests. Exits when the parent goes away, so no child outlives a run.
 */
import type { IpcHello, IpcReply, IpcRequest, Usage } from './ipc.js';
import { startFakeRole } from './role-fake.js';
import { startDaemonRole } from './role-daemon.js';
import { startBaselineRole, startStaticRole } from './role-servers.js';

/** What a role gives the child entry: what to report at start, and its commands. */
export interface Role {
  info: unknown;
  handlers: Record<string, (args: unknown) => unknown>;
  /** Called before the process exits on request. */
  close?: () => Promise<void>;
}

const ROLES: Record<string, (args: unknown) => Promise<Role>> = {
  fake: startFakeRole,
  daemon: startDaemonRole,
  baseline: startBaselineRole,
  static: startStaticRole,
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
  const start = ROLES[name];
  if (!start) {
    send({ hello: true, ok: false, error: `unknown role ${name}` });
    process.exit(2);
  }
  let role: Role;
  try {
    role = await start(args);
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
