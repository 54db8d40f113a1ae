import * as yup from 'yup';
import { actorUserId } from '../../kernel/actor';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { notificationsIn } from '../repository/notifications';
import { NOTIFICATIONS, notificationView } from '../views';

export const listNotifications = defineOperation({
  name: 'notification.list',
  title: 'List notifications',
  description:
    "Notices for the workspace's people, newest first (for example an endpoint disabled after 20 failures).",
  returns: 'Notifications.',
  requirement: { scope: 'business:read', minRole: 'viewer' },
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({}),
  output: NOTIFICATIONS,
  doors: { admin: { command: 'notification list' } },
  summary: () => 'List notifications',
  run: async (ctx) =>
    (await notificationsIn(ctx.data).visibleTo(actorUserId(ctx.actor))).map(notificationView),
});
