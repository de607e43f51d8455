// The nemesis's TCP proxy (src/run/nemesis/proxy.ts) in front of a local echo server: pass
// forwards both ways; drop resets open connections and new ones; stall forwards nothing either
// way (nor connects new clients to the node) until pass again, then delivers what it held, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { FaultProxy } from '../../src/run/nemesis/proxy.ts';

interface Echo { server: Server; port: number; connections: number }

async function echoServer(): Promise<Echo> {
  const e: Echo = { server: createServer((s) => { e.connections++; s.on('error', () => {}); s.pipe(s); }), port: 0, connections: 0 };
  await new Promise<void>((resolve) => e.server.listen(0, '127.0.0.1', resolve));
  e.port = (e.server.address() as AddressInfo).port;
  return e;
}

/** A client with everything it received so far, and how its connection ended. */
interface Client { sock: Socket; got: string; ended: 'open' | 'closed' | 'error' }

async function connect(port: number): Promise<Client> {
  const c: Client = { sock: createConnection({ host: '127.0.0.1', port }), got: '', ended: 'open' };
  c.sock.setEncoding('utf8');
  c.sock.on('data', (d: string) => { c.got += d; });
  c.sock.on('error', () => { c.ended = 'error'; });
  c.sock.on('close', () => { if (c.ended === 'open') c.ended = 'closed'; });
  await new Promise<void>((resolve, reject) => { c.sock.once('connect', resolve); c.sock.once('error', reject); });
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function withProxy(fn: (p: FaultProxy, e: Echo) => Promise<void>): Promise<void> {
  const e = await echoServer();
  const p = new FaultProxy('127.0.0.1', e.port);
  await p.listen();
  try {
    await fn(p, e);
  } finally {
    await p.close();
    await new Promise<void>((resolve) => e.server.close(() => resolve()));
  }
}

test('proxy pass: bytes go to the node and back', () => withProxy(async (p) => {
  const c = await connect(p.port);
  c.sock.write('hello');
  await until('the echo', () => c.got === 'hello');
  c.sock.write(' world');
  await until('the second echo', () => c.got === 'hello world');
  c.sock.destroy();
}));

test('proxy drop: open connections are reset, new ones too; pass again accepts', () => withProxy(async (p, e) => {
  const c = await connect(p.port);
  c.sock.write('a');
  await until('the echo', () => c.got === 'a');
  p.setMode('drop');
  await until('the open connection to end', () => c.ended !== 'open');
  const d = createConnection({ host: '127.0.0.1', port: p.port });
  let dEnded = false;
  d.on('error', () => {});
  d.on('close', () => { dEnded = true; });
  d.write('never');
  await until('a new connection to be reset', () => dEnded);
  assert.equal(e.connections, 1, 'no connection reached the node while dropping');
  p.setMode('pass');
  const f = await connect(p.port);
  f.sock.write('back');
  await until('the echo after the partition', () => f.got === 'back');
  f.sock.destroy();
}));

test('proxy stall: nothing crosses either way until pass; then everything, in order', () => withProxy(async (p, e) => {
  const c = await connect(p.port);
  c.sock.write('1');
  await until('the echo', () => c.got === '1');
  p.setMode('stall');
  c.sock.write('2');
  c.sock.write('3');
  const late = await connect(p.port); // accepted, but not connected to the node
  late.sock.write('x');
  await sleep(150);
  assert.equal(c.got, '1', 'nothing came back while stalled');
  assert.equal(late.got, '');
  assert.equal(c.ended, 'open');
  assert.equal(e.connections, 1, 'the late client was not connected to the node while stalled');
  p.setMode('pass');
  await until('the held bytes', () => c.got === '123' && late.got === 'x');
  assert.equal(e.connections, 2);
  c.sock.destroy();
  late.sock.destroy();
}));

test('proxy stall: a stall holds the node side too (a reply in flight is not delivered)', async () => {
  // A node that answers after a delay: the answer arrives at the proxy while it stalls.
  let conn: Socket | null = null;
  const server = createServer((s) => { conn = s; s.on('error', () => {}); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const p = new FaultProxy('127.0.0.1', (server.address() as AddressInfo).port);
  await p.listen();
  try {
    const c = await connect(p.port);
    await until('the node to see the connection', () => conn !== null);
    p.setMode('stall');
    conn!.write('reply');
    conn!.end();
    await sleep(150);
    assert.equal(c.got, '');
    assert.equal(c.ended, 'open', 'the node\'s close is held too');
    p.setMode('pass');
    await until('the held reply and close', () => c.got === 'reply' && c.ended === 'closed');
  } finally {
    await p.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
