import type { ActivityDeps } from './index';

export const createPingActivities = ({ clock }: ActivityDeps) => ({
  /** Proves the worker can run activities; returns the worker's clock reading. */
  async recordPing(_message: string): Promise<string> {
    return clock().toISOString();
  },
});
