import { decisionOperation } from '../decision-operation';

/** approval.reject: an admin or owner rejects a parked request, with a reason; it never runs. */
export const rejectApproval = decisionOperation('reject');
