/**
 * A TCP proxy in front of one database node, on loopback, that the nemesis switches between
 * passing traffic and two kinds of network partition between the clients and that node (issue
 * 24). No root and no packet filter: the clients connect to the proxy instead of the node.
 *
 * Takes: the node's host and port. Gives: a local port to connect to, and `setMode`:
 * - `pass`: every connection is forwarded to the node, bytes both ways;
 * - `drop`: every open connection is reset (both sides), new ones are reset on accept: the
 *   clients see the node gone, as after a crash or a reject rule;
 * - `stall`: connections stay open and new ones are accepted, but no byte is forwarded either
 *   way (nor a new connection made to the node): the clients see a node that stopped answering,
 *   as behind a drop rule. Back to `pass`, what was held is delivered and new connections made.
 * Invariant: in `stall` nothing received from either side reaches the other; in `drop` no
 * connection survives; bytes passed are delivered in order, never duplicated.
 */

import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'drop' | 'stall';

/** Held in place of bytes: the other side closed cleanly (END) or with an error (RESET) while stalled. */
const END = Buffer.alloc(0);
const RESET = Buffer.alloc(0);

/** One client connection and its connection to the node (null until made: stalled at accept). */
interface Pair {
  client: Socket;
  upstream: Socket | null;
  /** Bytes received while stalled, per direction, delivered in order when passing again. */
  held: { toUpstream: Buffer[]; toClient: Buffer[] };
}

export class FaultProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<Pair>();
  private modeNow: ProxyMode = 'pass';
  /** Connections accepted so far (for tests and the run's summary). */
  accepted = 0;

  constructor(readonly targetHost: string, readonly targetPort: number) {}

  get mode(): ProxyMode {
    return this.modeNow;
  }

  /** Listens on 127.0.0.1 (`port` 0: any free port); resolves with the port. */
  async listen(port = 0): Promise<number> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => { server.off('error', reject); resolve(); });
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  get port(): number {
    if (this.server === null) throw new Error('internal error: the proxy is not listening');
    return (this.server.address() as AddressInfo).port;
  }

  setMode(mode: ProxyMode): void {
    const was = this.modeNow;
    this.modeNow = mode;
    if (mode === 'drop') for (const p of [...this.pairs]) this.reset(p);
    else if (mode === 'pass' && was === 'stall') for (const p of [...this.pairs]) this.unstall(p);
  }

  /** Stops listening and resets every connection. */
  async close(): Promise<void> {
    for (const p of [...this.pairs]) this.reset(p);
    const server = this.server;
    this.server = null;
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.accepted++;
    if (this.modeNow === 'drop') { client.resetAndDestroy(); return; }
    const p: Pair = { client, upstream: null, held: { toUpstream: [], toClient: [] } };
    this.pairs.add(p);
    client.setNoDelay(true);
    client.on('data', (chunk: Buffer) => {
      if (this.modeNow === 'pass' && p.upstream !== null && p.upstream.readyState === 'open' && p.held.toUpstream.length === 0) {
        if (!p.upstream.write(chunk)) client.pause();
      } else p.held.toUpstream.push(chunk);
    });
    client.on('error', () => {}); // 'close' follows, with hadError
    client.on('close', (hadError: boolean) => this.closed(p, p.upstream, hadError));
    if (this.modeNow === 'pass') this.connectUpstream(p);
  }

  private connectUpstream(p: Pair): void {
    const up = createConnection({ host: this.targetHost, port: this.targetPort });
    p.upstream = up;
    up.setNoDelay(true);
    up.on('connect', () => this.flush(p));
    up.on('data', (chunk: Buffer) => {
      if (this.modeNow === 'pass' && p.held.toClient.length === 0) {
        if (!p.client.write(chunk)) up.pause();
      } else p.held.toClient.push(chunk);
    });
    up.on('drain', () => { if (this.modeNow === 'pass') p.client.resume(); });
    p.client.on('drain', () => { if (this.modeNow === 'pass') up.resume(); });
    // The node refused or went away: the client sees its connection end the same way.
    up.on('error', () => {});
    up.on('close', (hadError: boolean) => this.closed(p, p.client, hadError));
  }

  /** Delivers what was held while stalled (or while connecting), in order. */
  private flush(p: Pair): void {
    if (this.modeNow !== 'pass') return;
    const up = p.upstream;
    // To the node only once connected (a node that closed already has nothing left to read).
    const upReady = up !== null && up.readyState === 'open';
    for (const [to, held] of [[up, upReady ? p.held.toUpstream : []], [p.client, p.held.toClient]] as const) {
      if (to === null) continue;
      for (const b of held.splice(0)) {
        if (b === END || b === RESET) {
          this.pairs.delete(p);
          if (b === END) to.end(); else to.resetAndDestroy();
          break;
        }
        to.write(b);
      }
    }
  }

  private unstall(p: Pair): void {
    if (p.upstream === null) this.connectUpstream(p);
    else this.flush(p);
  }

  /**
   * One side closed: the other is ended the same way (reset after an error; after a clean close,
   * ended once what was written to it is out, so a last message such as the server's reason
   * for closing arrives). While stalled nothing may cross, not even the close: it is held.
   */
  private closed(p: Pair, other: Socket | null, hadError: boolean): void {
    if (!this.pairs.has(p)) return;
    if (this.modeNow === 'stall' && other !== null && !other.destroyed) {
      (other === p.client ? p.held.toClient : p.held.toUpstream).push(hadError ? RESET : END);
      return;
    }
    this.pairs.delete(p);
    if (other === null || other.destroyed) return;
    if (hadError) other.resetAndDestroy(); else other.end();
  }

  private reset(p: Pair): void {
    if (!this.pairs.delete(p)) return;
    if (!p.client.destroyed) p.client.resetAndDestroy();
    if (p.upstream !== null && !p.upstream.destroyed) p.upstream.resetAndDestroy();
  }
}
