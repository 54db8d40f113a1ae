import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../infra/logger';
import type { Child, Exit } from './children';
import type { Timeline } from './timeline';

export type UnexpectedExit = { phase: string; at: number; code: number | null; signal: string | null };

/** Starts one instance with these extra settings and resolves once it serves (or throws). */
export type Launch = (extraEnv: Record<string, string>) => Promise<Child>;

const BACKOFF_MS = [1_000, 2_000, 5_000];

/**
 * A service process as an orchestrator keeps it: every exit the harness did not cause or arm is
 * counted (with the phase it happened in) and followed by a restart with a back-off, as Kubernetes
 * would. Exits the harness causes (a kill, a graceful stop, an armed crash hook) are not restarted
 * here: the fault that caused them restarts the service itself.
 */
export class Supervised {
  private current: Child | undefined;
  private expected = false;
  private closed = false;
  private restarting: Promise<void> | undefined;
  readonly unexpectedExits: UnexpectedExit[] = [];
  /** Starts the supervisor made after an unexpected exit (failed tries included). */
  supervisorStarts = 0;
  starts = 0;

  constructor(
    readonly name: string,
    private readonly launch: Launch,
    private readonly log: Logger,
    private readonly timeline: Timeline,
    /** Told of every unexpected exit, before the restart (the worker's opens a crash window). */
    private readonly onUnexpectedExit: (exit: Exit) => (() => void) | undefined = () => undefined,
  ) {}

  /** Starts it (stopping a running one first); its exit is unexpected unless the harness causes it. */
  async start(extraEnv: Record<string, string> = {}): Promise<Child> {
    await this.restarting;
    // The supervisor may have brought one back meanwhile: the caller's settings win.
    if (this.current && !this.current.exited()) await this.stop();
    this.starts += 1;
    const child = await this.launch(extraEnv);
    this.adopt(child);
    return child;
  }

  /**
   * Starts an instance that is meant to die (a crash hook armed): its exit is not restarted here.
   * Resolves with the child without waiting for it to serve.
   */
  async startDoomed(launch: () => Child): Promise<Child> {
    await this.restarting;
    this.starts += 1;
    this.expected = true;
    const child = launch();
    this.current = child;
    return child;
  }

  /** The next exit of the running instance is the harness's doing (an armed crash hook). */
  armExit(): Promise<Exit> {
    this.expected = true;
    return this.current!.exit;
  }

  /** SIGKILL (or another signal) now; resolves once it is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<Exit> {
    const child = this.current!;
    this.expected = true;
    child.kill(signal);
    return child.exit;
  }

  /** A graceful stop, as a deploy would do. */
  async stop(): Promise<void> {
    await this.restarting;
    if (!this.current) return;
    this.expected = true;
    await this.current.stop();
  }

  /** The last thing a run does: no more restarts, and the running instance stopped. */
  async close(): Promise<void> {
    this.closed = true;
    await this.restarting?.catch(() => undefined);
    await this.stop();
  }

  private adopt(child: Child) {
    this.current = child;
    this.expected = false;
    void child.exit.then((exit) => {
      if (this.current !== child || this.expected || this.closed) return;
      this.unexpectedExits.push({
        phase: this.timeline.phase,
        at: exit.at,
        code: exit.code,
        signal: exit.signal,
      });
      this.log.warn(`${this.name} exited unexpectedly (${exit.code ?? exit.signal}); restarting it`);
      const back = this.onUnexpectedExit(exit);
      this.restarting = this.restartLoop().finally(() => {
        back?.();
        this.restarting = undefined;
      });
    });
  }

  /** Tries again with a back-off until an instance serves or the run closes. */
  private async restartLoop(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      await sleep(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]);
      if (this.closed) return;
      this.supervisorStarts += 1;
      try {
        const child = await this.launch({});
        this.starts += 1;
        this.adopt(child);
        return;
      } catch (err) {
        this.log.warn(`${this.name} restart failed; trying again`, { error: String(err) });
      }
    }
  }
}
