import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

function listen(server: http.Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** A listening socket, before the fake that serves it exists (the fake needs the port for its URL). */
export interface BoundServer {
  server: http.Server;
  host: string;
  port: number;
}

/** Binds a fresh HTTP server to host:port (port 0: any free port). */
export async function bindServer(host: string, port: number): Promise<BoundServer> {
  const server = http.createServer();
  await listen(server, host, port);
  return { server, host, port: (server.address() as AddressInfo).port };
}

/**
 * What the simulated servers (node, Data API, and the tests' fakes built on
 * them) share: a real HTTP server on a real port that can be stopped
 * (connections refused, even hung requests cut) and restarted on the same
 * port, and timers that stop with it.
 */
export abstract class FakeHttpServer {
  /** Base URL, e.g. `http://127.0.0.1:43123`. */
  readonly url: string;
  /** The bound port (stable across {@link FakeHttpServer.restart}). */
  readonly port: number;
  readonly #host: string;
  #server: http.Server;
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #listening = true;

  protected constructor(bound: BoundServer) {
    this.#server = bound.server;
    this.#host = bound.host;
    this.port = bound.port;
    this.url = `http://${bound.host.includes(':') ? `[${bound.host}]` : bound.host}:${bound.port}`;
  }

  /** Handles one request. */
  protected abstract onRequest(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** Answers a request whose handler threw (a bug in the fake must not take the test process down). */
  protected abstract answerInternalError(res: ServerResponse, err: unknown): void;

  /** Whether the server is accepting connections. */
  protected get listening(): boolean {
    return this.#listening;
  }

  /** Starts serving the bound server; subclasses call it once at the end of `start`. */
  protected attach(server: http.Server = this.#server): void {
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.onRequest(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) this.answerInternalError(res, err);
      });
    });
  }

  /** Runs `fn` after `ms`, unless the server stops first. */
  protected later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
  }

  /** Resolves after `ms` (never, if the server stops first: the request is gone anyway). */
  protected sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => this.later(ms, resolve));
  }

  /** Closes the listener and destroys open sockets (including hung requests): connections are refused afterwards. */
  async stop(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    if (!this.#listening) return;
    this.#listening = false;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    this.#server.closeAllConnections();
    await closed;
  }

  /** Listens again on the same port after {@link FakeHttpServer.stop}; no-op if already listening. */
  async restart(): Promise<void> {
    if (this.#listening) return;
    const { server } = await bindServer(this.#host, this.port);
    this.#server = server;
    this.attach(server);
    this.#listening = true;
  }
}
