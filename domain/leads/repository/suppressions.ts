import { In } from 'typeorm';
import type { Data } from '../../kernel/data';
import { SuppressionEntity, type Suppression } from '../entities';

/** A workspace's blocked addresses. */
export const suppressionsIn = (data: Data) => {
  const rows = data.scoped(SuppressionEntity);
  return {
    /**
     * Blocks an address on a channel and answers the suppression's id; blocking it again keeps the
     * row (and its source) and takes the new reason. SQL: an upsert on the (workspace, address,
     * channel) unique key, which only ON CONFLICT can say in one statement.
     */
    suppress: async (s: Pick<Suppression, 'address' | 'channel' | 'reason' | 'source'>): Promise<string> => {
      const [row] = await data.sql<Pick<Suppression, 'id'>[]>(
        `INSERT INTO suppressions (workspace_id, address, channel, reason, source) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (workspace_id, address, channel) DO UPDATE SET reason = EXCLUDED.reason RETURNING id`,
        [data.workspaceId, s.address, s.channel, s.reason, s.source],
      );
      return row!.id;
    },

    /** Why the address is blocked on the channel (or on all), if it is. */
    blockedOn: async (address: string, channel: string): Promise<string | undefined> =>
      (await rows.findOne({ address, channel: In(['ALL', channel]) }, { select: { reason: true } }))?.reason,
  };
};
