/**
 * The approvals area: what an assistant asked to do, parked for a person's decision, and the decision.
 * This file is its face: nothing outside domain/approvals/ imports anything but this file.
 *
 * It offers its operations and its table; the approval gate's steps, which the gate's Temporal adapter
 * (infra/temporal/approvals.ts) and its activities call (park a call and say what it answers, refuse
 * a decision its ended workflow did not take, record a decision, run the approved request, expire it);
 * how a request reads as an MCP task; and, for identity's loss of authority, the withdrawal of what was
 * parked on it.
 */

import { ApprovalEntity } from './entities';
import { approveApproval } from './operations/approve';
import { cancelApproval } from './operations/cancel';
import { decideApproval } from './operations/decide';
import { getApproval } from './operations/get';
import { listApprovals } from './operations/list';
import { rejectApproval } from './operations/reject';
import { showApproval } from './operations/show';

/** The operations this area registers. */
export const operations = {
  getApproval,
  listApprovals,
  showApproval,
  cancelApproval,
  approveApproval,
  rejectApproval,
  decideApproval,
} as const;

/** Its tables. */
export const entities = [ApprovalEntity];

export type { Approval } from './entities';
export type { ApprovalView } from './views';
export {
  expireApproval,
  parkGatedCall,
  readApproval,
  recordDecision,
  refuseLateDecision,
  unstartedApprovals,
  withdrawOnLostAuthority,
} from './lifecycle';
export { runApproved } from './run-approved';
export { taskOf, taskOfParked, type TaskState } from './tasks';
/** What `approval.show` answers, and a snapshot's fields in the order a person reads them (for the console's page). */
export { inReadingOrder, type ShownApproval } from './show';
