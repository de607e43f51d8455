/**
 * The nemesis (issue 24, after Jepsen's): during a run, injects one fault at a time on a node
 * chosen by the seed, heals it after a while, and reports each fault's start and end.
 *
 * Faults (`FaultKind`):
 * - `kill`: the node's `kill` command (e.g. kill -9), healed by its `start` command;
 * - `pause`: its `pause` command (kill -STOP), healed by `resume` (kill -CONT);
 * - `partition`: its proxy drops every connection (proxy.ts `drop`), healed by `pass`;
 * - `stall`: its proxy forwards nothing (proxy.ts `stall`), healed by `pass`.
 * A fault is only chosen for a node that has both of its commands (partition and stall: always).
 *
 * Takes: the nodes (name, proxy, commands), the fault kinds, the interval between faults and
 * their duration, a seed, a clock. Gives: `onFault(kind, node, start, end)` once per fault,
 * when it ends (end NaN: the heal failed), and `onNote(text)` for what the user should know (a
 * command that failed). Invariant: at most one fault is active; `stop()` heals the active one
 * before it resolves, and `healNowSync()` does so synchronously for a process about to exit
 * (a paused node is never left paused, a dropped proxy never left dropping, by our doing).
 */

import { Random } from '../../util/random.ts';
import { runCommand, runCommandSync, type CommandResult } from './commands.ts';
import type { ClusterMember } from '../cluster.ts';
import type { FaultProxy } from './proxy.ts';

export const FAULT_KINDS = ['kill', 'pause', 'partition', 'stall'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface NemesisNode {
  readonly spec: ClusterMember;
  readonly proxy: FaultProxy;
}

export interface NemesisOptions {
  kinds: readonly FaultKind[];
  /** Quiet time before each fault, in ms. */
  everyMs: number;
  /** How long a fault lasts before it is healed, in ms. */
  durationMs: number;
  seed: number;
  now?: () => number;
  onFault: (kind: FaultKind, node: string, start: number, end: number) => void;
  onNote?: (text: string) => void;
  /** Runs a shell command (tests may replace it); defaults to commands.ts runCommand. */
  run?: (cmd: string) => Promise<CommandResult>;
}

/** The commands that inject and heal each command-driven fault kind. */
const COMMANDS: Partial<Record<FaultKind, { inject: 'kill' | 'pause'; heal: 'start' | 'resume' }>> = {
  kill: { inject: 'kill', heal: 'start' },
  pause: { inject: 'pause', heal: 'resume' },
};

/** The (node, kind) pairs possible with these nodes' commands. */
export function possibleFaults(nodes: readonly NemesisNode[], kinds: readonly FaultKind[]): { node: number; kind: FaultKind }[] {
  const out: { node: number; kind: FaultKind }[] = [];
  nodes.forEach((n, i) => {
    for (const kind of kinds) {
      const c = COMMANDS[kind];
      if (c === undefined || (n.spec[c.inject] !== undefined && n.spec[c.heal] !== undefined)) out.push({ node: i, kind });
    }
  });
  return out;
}

interface Active { node: NemesisNode; kind: FaultKind; start: number }

export class Nemesis {
  private readonly rng: Random;
  private readonly now: () => number;
  private readonly run: (cmd: string) => Promise<CommandResult>;
  private readonly choices: { node: number; kind: FaultKind }[];
  private active: Active | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  /** Faults injected so far. */
  injected = 0;

  constructor(private readonly nodes: readonly NemesisNode[], private readonly opts: NemesisOptions) {
    this.rng = new Random(opts.seed ^ 0x6e656d65); // its own stream: the workload's is not disturbed
    this.now = opts.now ?? (() => performance.now());
    this.run = opts.run ?? ((cmd) => runCommand(cmd));
    this.choices = possibleFaults(nodes, opts.kinds);
  }

  /** Starts injecting (the first fault after `everyMs`). */
  start(): void {
    if (this.choices.length === 0) return;
    this.loop = this.main();
  }

  /** Stops injecting; heals the active fault (and reports it) before resolving. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  /**
   * Heals the active fault at once, blocking (a second Ctrl-C: the process exits next). The
   * fault is reported with its end, like one healed by `stop`.
   */
  healNowSync(): void {
    const a = this.active;
    if (a === null) return;
    this.active = null;
    this.stopped = true;
    const c = COMMANDS[a.kind];
    let ok = true;
    if (c === undefined) a.node.proxy.setMode('pass');
    else {
      const r = runCommandSync(a.node.spec[c.heal]!);
      if (!r.ok) { ok = false; this.note(`could not ${c.heal} ${a.node.spec.name}: ${r.detail}`); }
    }
    this.opts.onFault(a.kind, a.node.spec.name, a.start, ok ? this.now() : NaN);
  }

  private note(text: string): void {
    this.opts.onNote?.(text);
  }

  /** Resolves after `ms`, or at once when stopped. */
  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wake = null; resolve(); }, ms);
      this.wake = () => { clearTimeout(timer); this.wake = null; resolve(); };
    });
  }

  private async main(): Promise<void> {
    while (!this.stopped) {
      await this.sleep(this.opts.everyMs);
      if (this.stopped) break;
      const choice = this.choices[this.rng.int(this.choices.length)]!;
      if (!(await this.inject(this.nodes[choice.node]!, choice.kind))) continue;
      await this.sleep(this.opts.durationMs);
      await this.heal();
    }
  }

  /** Injects one fault; false (with a note) when its command failed: nothing is recorded then. */
  private async inject(node: NemesisNode, kind: FaultKind): Promise<boolean> {
    const start = this.now();
    const c = COMMANDS[kind];
    if (c === undefined) node.proxy.setMode(kind === 'partition' ? 'drop' : 'stall');
    else {
      const r = await this.run(node.spec[c.inject]!);
      if (!r.ok) {
        this.note(`${kind} of ${node.spec.name} failed (${r.detail}); no fault recorded`);
        // A pause half done is not known to be undone: resume anyway (harmless if it was not
        // paused). Not a start after a failed kill: a second server on a live node's files.
        if (kind === 'pause') await this.run(node.spec[c.heal]!);
        return false;
      }
    }
    this.active = { node, kind, start };
    this.injected++;
    return true;
  }

  private async heal(): Promise<void> {
    const a = this.active;
    if (a === null) return;
    const c = COMMANDS[a.kind];
    let ok = true;
    if (c === undefined) a.node.proxy.setMode('pass');
    else {
      const r = await this.run(a.node.spec[c.heal]!);
      if (this.active !== a) return; // healed synchronously meanwhile (second Ctrl-C)
      if (!r.ok) { ok = false; this.note(`could not ${c.heal} ${a.node.spec.name} (${r.detail}); the fault is recorded as never healed`); }
    }
    this.active = null;
    this.opts.onFault(a.kind, a.node.spec.name, a.start, ok ? this.now() : NaN);
  }
}
