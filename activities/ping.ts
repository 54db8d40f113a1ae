export const createPingActivities = ({ clock }: { clock: () => Date }) => ({
  /** Proves the worker can run activities; returns the worker's clock reading. */
  async recordPing(_message: string): Promise<string> {
    return clock().toISOString();
  },
});
