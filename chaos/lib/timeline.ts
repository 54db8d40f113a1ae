/**
 * What was done to the system and when: the phase each intake and receipt belongs to, and the
 * windows in which a crash could have cut a delivery between its POST and its record (the only
 * honest explanation of a duplicate at the receiver).
 */
export type CrashKind = 'worker_kill' | 'worker_exit' | 'pg_kill' | 'pg_freeze' | 'temporal_stop';

export type CrashWindow = { kind: CrashKind; phase: string; start: number; end: number | undefined };

export class Timeline {
  phase = 'warm-up';
  readonly windows: CrashWindow[] = [];
  readonly phaseStarts: { phase: string; at: number }[] = [{ phase: 'warm-up', at: Date.now() }];

  enter(phase: string) {
    this.phase = phase;
    this.phaseStarts.push({ phase, at: Date.now() });
  }

  /** Opens a window; the returned function closes it once the part hurt is back. */
  open(kind: CrashKind): () => void {
    const w: CrashWindow = { kind, phase: this.phase, start: Date.now(), end: undefined };
    this.windows.push(w);
    return () => {
      w.end ??= Date.now();
    };
  }

  /** Windows that overlap [from, to]; an open window reaches to now. */
  overlapping(from: number, to: number): CrashWindow[] {
    return this.windows.filter((w) => w.start <= to && (w.end ?? Date.now()) >= from);
  }
}
