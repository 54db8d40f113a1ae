import { IsNull } from 'typeorm';
import type { Data } from '../../kernel/data';
import { NotificationEntity, type Notification } from '../entities';

/** Notices for a workspace's people. */
export const notificationsIn = (data: Data) => {
  const rows = data.scoped(NotificationEntity);
  return {
    /** The newest 100 a user may see: those for everyone and their own (the operator, nobody in particular, sees all). */
    visibleTo: (userId: string | null) =>
      rows.find(userId === null ? {} : [{ user_id: IsNull() }, { user_id: userId }], {
        order: { created_at: 'DESC' },
        take: 100,
      }),
    add: (values: Pick<Notification, 'user_id' | 'kind' | 'message' | 'data'>) => rows.insert(values),
  };
};
