import * as yup from 'yup';
import { describe } from '../kernel/json-schema';
import { WRITE } from '../kernel/operation';
import { LEADS_WRITE } from '../leads';

/**
 * What every report operation is: the service itself acting for the inbound route (never a key), in the
 * workspace whose route it reached; a report seen twice changes nothing more.
 */
export const REPORT_OPERATION = {
  requirement: LEADS_WRITE,
  reach: 'workspace' as const,
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
};

const address = yup.string().trim().lowercase().max(320);
const domain = yup.string().trim().lowercase().max(253);

/**
 * What every report about an email of ours gives, as the inbound route read it: which email, to whom,
 * where the report was delivered and who signed it. These operations are the operator's alone, so
 * only the route says these; what they prove is the conversations area's rule (`reportProof`).
 */
export const reportFields = {
  originalMessageId: describe(
    yup.string().trim().max(1_000).required('originalMessageId is required'),
    'The Message-ID of the email the report is about.',
  ),
  recipient: describe(
    address,
    'The recipient the report names; a report naming none, or another than the email went to, changes nothing.',
  ),
  deliveredTo: describe(
    yup.array(address.required()).max(20).default([]),
    "Where the report was delivered (the forwarder's X-Envelope-To, else its Delivered-To, X-Original-To and To): one of our return paths proves it.",
  ),
  fromDomain: describe(domain, "The report's From domain, as the authentication checks read it."),
  signedBy: describe(
    yup.array(domain.required()).max(20).default([]),
    'Domains whose DKIM signature on the report passes, covering From and the whole body.',
  ),
  reportMessageId: describe(
    yup.string().trim().max(1_000),
    "The report's own Message-ID: a replay is stored and acts once.",
  ),
};
