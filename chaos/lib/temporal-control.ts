import type { Logger } from '../../infra/logger';
import type { TemporalCluster } from '../../tooling/temporal-cluster';
import { startTemporalDevServer, type TemporalDevServer } from '../../tooling/temporal-server';

/** The engine under fault, whichever it is: stopped, then started again where clients find it. */
export type EngineControl = {
  readonly address: string;
  /** The real server's Prometheus page (its shard waits, for the overload fault); none on the dev server. */
  readonly metricsUrl?: string;
  stop: () => Promise<void>;
  restart: () => Promise<void>;
};

/** The real Temporal server: its process stopped and started again on the same ports and databases. */
export const clusterControl = (cluster: TemporalCluster): EngineControl => ({
  address: cluster.address,
  metricsUrl: cluster.metricsUrl,
  stop: () => cluster.server.stop(),
  restart: () => cluster.server.start(),
});

/**
 * The Temporal dev server under fault: stopped and started again on the same port and SQLite file,
 * so its workflows survive and every client's address still works.
 */
export class TemporalControl implements EngineControl {
  private constructor(
    private current: TemporalDevServer,
    private readonly port: number,
    private readonly dbFile: string,
    private readonly log: Logger,
  ) {}

  static async start(log: Logger, port: number, dbFile: string): Promise<TemporalControl> {
    return new TemporalControl(await TemporalControl.launch(log, port, dbFile), port, dbFile, log);
  }

  private static launch(log: Logger, port: number, dbFile: string) {
    return startTemporalDevServer({ log, dbFile, port, headless: true });
  }

  get address() {
    return this.current.address;
  }

  stop() {
    return this.current.stop();
  }

  async restart() {
    this.current = await TemporalControl.launch(this.log, this.port, this.dbFile);
  }
}
