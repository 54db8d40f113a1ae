import { decisionOperation } from '../decision-operation';

/** approval.approve: an admin or owner approves a parked request; it runs once, as approved. */
export const approveApproval = decisionOperation('approve');
