import type { Data } from '../kernel/data';
import { approvalPage } from '../kernel/gate';
import type { Services } from '../kernel/operation';
import { keyStanding, membersAtLeast, queueMemberMail } from '../identity';
import { policyOf } from './decider';
import type { Approval } from './entities';
import { DECIDE } from './requirements';
import { deciderRefusal } from './rules';

/** What telling the deciders needs of the process: the key member mail is sealed with, and the console's address. */
export type WaitingMailPorts = Pick<Services, 'secretsKey' | 'publicUrl'>;

const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * Tells each member who may approve a request just parked that it waits: one `approval_waiting` mail
 * each, queued in the park's transaction (so a request that does not commit mails nobody), with a link
 * to its page in the console. The link grants nothing: the page asks them to sign in. Who may approve is
 * the decision's own rule (`deciderRefusal`): a live admin or owner, and not the owner of the key that
 * asked where the workspace requires a second person.
 */
export async function tellDeciders(data: Data, row: Approval, ports: WaitingMailPorts): Promise<number> {
  const policy = await policyOf(data, row.workspace_id);
  const deciders = (await membersAtLeast(data, DECIDE.minRole)).filter(
    (m) => deciderRefusal(m, row, 'approve', policy) === undefined,
  );
  if (deciders.length === 0) return 0;
  const key = await keyStanding(data, row.requested_by_key);
  const text = [
    'An assistant asked for something in your workspace that waits for a person to approve it:',
    '',
    `  ${row.summary}`,
    '',
    ...(key
      ? [
          key.kind === 'assistant'
            ? `Asked by the assistant "${key.name}" (${key.prefix}), acting as ${key.owner_email}.`
            : `Asked with the API key "${key.name}" (${key.prefix}), of ${key.owner_email}.`,
          '',
        ]
      : []),
    'Read what it will do, then approve or reject it with your passkey, on its page:',
    approvalPage(ports.publicUrl, row.workspace_id, row.id),
    '',
    'The link only shows the page to a member who signs in; it grants nothing by itself.',
    `If nobody decides by ${utc(row.expires_at)}, the request expires and nothing is done.`,
  ].join('\n');
  for (const m of deciders)
    await queueMemberMail(
      data,
      {
        userId: m.userId,
        workspaceId: row.workspace_id,
        kind: 'approval_waiting',
        subject: `Approval needed: ${row.summary}`,
        text,
      },
      ports.secretsKey,
    );
  return deciders.length;
}
